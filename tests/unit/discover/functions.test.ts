/**
 * Terragrunt's functions as discovery evaluates them (the measured behaviour in
 * docs/discovery.md), against an in-memory filesystem.
 */
import { describe, expect, it } from 'vitest';
import { findUp, terragruntFunctions } from '../../../discover/functions.js';
import type { FunctionContext, FunctionHost } from '../../../discover/functions.js';
import { HclEvalError, Unknown } from '../../../discover/hcl/index.js';
import type { Value } from '../../../discover/hcl/index.js';

const FILES = new Set(['/repo/root.hcl', '/repo/live/env.hcl', '/repo/live/dev/app/terragrunt.hcl', '/repo/.git']);
const DIRS = new Set([
  '/repo',
  '/repo/live',
  '/repo/live/dev',
  '/repo/live/dev/app',
  '/repo/live/network',
  '/repo/.git',
]);

function host(overrides: Partial<FunctionHost> = {}): FunctionHost {
  const kind = (p: string): 'file' | 'dir' | undefined => (DIRS.has(p) ? 'dir' : FILES.has(p) ? 'file' : undefined);
  return {
    kind,
    findUp: (dir, probes) => findUp(dir, probes, kind),
    env: { REGION: 'eu-west-1' },
    repoRoot: (dir) => (dir.startsWith('/repo') ? '/repo' : undefined),
    readConfig: (path) => ({ locals: { read: path } }),
    readTfvars: (path) => JSON.stringify({ tfvars: path }),
    ...overrides,
  };
}

const unit: FunctionContext = {
  unitDir: '/repo/live/dev/app',
  originalDir: '/repo/live/dev/app',
  configFile: '/repo/live/dev/app/terragrunt.hcl',
  includes: new Map([['root', '/repo/root.hcl']]),
};

function call(name: string, args: Value[] = [], context: FunctionContext = unit, h: FunctionHost = host()): Value {
  const fn = terragruntFunctions(context, h)[name];
  if (!fn) throw new Error(`no function ${name}`);
  return fn(args, { name, scope: { variables: {}, functions: {} } });
}

describe('Terragrunt functions', () => {
  it('get_terragrunt_dir and get_original_terragrunt_dir are the unit, even inside an include', () => {
    const inInclude = { ...unit, includedFile: '/repo/root.hcl' };
    expect(call('get_terragrunt_dir', [], inInclude)).toBe('/repo/live/dev/app');
    expect(call('get_original_terragrunt_dir', [], inInclude)).toBe('/repo/live/dev/app');
  });

  it('get_parent_terragrunt_dir: the included file, by name, or the unit when there is no include', () => {
    expect(call('get_parent_terragrunt_dir')).toBe('/repo');
    expect(call('get_parent_terragrunt_dir', ['root'])).toBe('/repo');
    expect(call('get_parent_terragrunt_dir', [], { ...unit, includes: new Map() })).toBe('/repo/live/dev/app');
    expect(() => call('get_parent_terragrunt_dir', ['nope'])).toThrow(/no include block labelled "nope"/);
  });

  it('refuses an ambiguous unnamed include function with two includes, naming one to use', () => {
    const two = {
      ...unit,
      includes: new Map([
        ['root', '/repo/root.hcl'],
        ['env', '/repo/live/env.hcl'],
      ]),
    };
    expect(() => call('path_relative_to_include', [], two)).toThrow(HclEvalError);
    expect(() => call('path_relative_to_include', [], two)).toThrow(/ambiguous.*path_relative_to_include\("root"\)/);
    expect(call('path_relative_to_include', ['env'], two)).toBe('dev/app');
  });

  it('path_relative_to_include and path_relative_from_include, "." without includes', () => {
    expect(call('path_relative_to_include')).toBe('live/dev/app');
    expect(call('path_relative_from_include')).toBe('../../..');
    const none = { ...unit, includes: new Map<string, string>() };
    expect(call('path_relative_to_include', [], none)).toBe('.');
    expect(call('path_relative_from_include', [], none)).toBe('.');
  });

  it('find_in_parent_folders starts at the parent directory, takes file or directory names and a fallback', () => {
    expect(call('find_in_parent_folders', ['root.hcl'])).toBe('/repo/root.hcl');
    expect(call('find_in_parent_folders', ['env.hcl'])).toBe('/repo/live/env.hcl');
    expect(call('find_in_parent_folders', ['network'])).toBe('/repo/live/network');
    // The unit's own directory is not searched: its own terragrunt.hcl is not "in a parent folder".
    expect(() => call('find_in_parent_folders', ['terragrunt.hcl'])).toThrow(/no terragrunt.hcl in any parent folder/);
    expect(call('find_in_parent_folders', ['missing.hcl', 'fallback'])).toBe('fallback');
    expect(() => call('find_in_parent_folders', ['missing.hcl'])).toThrow(HclEvalError);
  });

  it('repo root functions use the nearest git root, and fail clearly outside one', () => {
    expect(call('get_repo_root')).toBe('/repo');
    expect(call('get_path_from_repo_root')).toBe('live/dev/app');
    expect(call('get_path_to_repo_root')).toBe('../../..');
    const outside = host({ repoRoot: () => undefined });
    expect(() => call('get_repo_root', [], unit, outside)).toThrow(/not inside a git repository/);
  });

  it('get_env reads the injected environment, with a default, and fails without one', () => {
    expect(call('get_env', ['REGION'])).toBe('eu-west-1');
    expect(call('get_env', ['NOPE', 'x'])).toBe('x');
    // The default is a string parameter in Terragrunt: a bool or number becomes its text.
    expect(call('get_env', ['NOPE', true])).toBe('true');
    expect(call('get_env', ['NOPE', 12])).toBe('12');
    expect(() => call('get_env', ['NOPE'])).toThrow(/not set and no default/);
  });

  it('read_terragrunt_config resolves against the config directory, a directory means its terragrunt.hcl', () => {
    expect(call('read_terragrunt_config', ['../../env.hcl'])).toEqual({ locals: { read: '/repo/live/env.hcl' } });
    expect(call('read_terragrunt_config', ['.'])).toEqual({ locals: { read: '/repo/live/dev/app/terragrunt.hcl' } });
    expect(call('read_terragrunt_config', ['nope.hcl', { fallback: true }])).toEqual({ fallback: true });
    expect(() => call('read_terragrunt_config', ['nope.hcl'])).toThrow(/does not exist/);
  });

  it('read_tfvars_file needs an existing file, and gives what the host read: a JSON string', () => {
    expect(call('read_tfvars_file', ['/repo/root.hcl'])).toBe('{"tfvars":"/repo/root.hcl"}');
    expect(() => call('read_tfvars_file', ['x.tfvars'])).toThrow(/does not exist/);
  });

  it('functions that need execution or credentials are Unknown with a reason, not guesses', () => {
    for (const name of ['run_cmd', 'sops_decrypt_file', 'get_aws_account_id', 'get_aws_caller_identity_arn']) {
      const value = call(name, ['x']);
      expect(value).toBeInstanceOf(Unknown);
      expect((value as Unknown).reason).toMatch(name === 'run_cmd' ? /runs a command/ : /needs/);
    }
  });
});
