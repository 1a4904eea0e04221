/** Constructs that need a repository built at test time (a .git directory, environment variables). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { discover } from '../../../discover/index.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'platctl-constructs-'));
  temps.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

async function edges(root: string, env: Record<string, string> = {}) {
  const config = configSchema.parse({ version: 1, environments: { dev: { dir: 'live/dev' } } });
  const result = await discover({ root, config, env, cacheDir: false });
  const out: Record<string, string[]> = {};
  for (const id of result.graph.ids()) out[id] = [...(result.graph.get(id)?.dependencies ?? [])].sort();
  return { edges: out, problems: result.problems, units: result.units };
}

describe('discovery constructs', () => {
  it('get_repo_root finds the .git directory above the unit', async () => {
    const root = repo({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'live/dev/vpc/terragrunt.hcl': '',
      'live/dev/app/terragrunt.hcl': 'dependency "vpc" {\n  config_path = "${get_repo_root()}/live/dev/vpc"\n}\n',
    });
    expect((await edges(root)).edges['dev/app']).toEqual(['dev/vpc']);
  });

  it('reports get_repo_root outside git as an evaluation error at its line', async () => {
    const root = repo({
      'live/dev/vpc/terragrunt.hcl': '',
      'live/dev/app/terragrunt.hcl': '\ndependency "vpc" {\n  config_path = "${get_repo_root()}/live/dev/vpc"\n}\n',
    });
    const { problems } = await edges(root);
    const problem = problems.find((p) => p.kind === 'evaluation-error');
    expect(problem?.message).toMatch(/not inside a git repository/);
    expect(problem?.location?.line).toBe(3);
  });

  it('feature flags: the default, overridden by TG_FEATURE', async () => {
    const root = repo({
      'live/dev/old/terragrunt.hcl': '',
      'live/dev/new/terragrunt.hcl': '',
      'live/dev/app/terragrunt.hcl':
        'feature "v2" {\n  default = false\n}\n\ndependency "db" {\n  config_path = feature.v2.value ? "../new" : "../old"\n}\n',
    });
    expect((await edges(root)).edges['dev/app']).toEqual(['dev/old']);
    expect((await edges(root, { TG_FEATURE: 'v2=true' })).edges['dev/app']).toEqual(['dev/new']);
  });

  it('a bare include works, with path_relative_to_include()', async () => {
    const root = repo({
      'live/common.hcl':
        'dependencies {\n  paths = ["${get_parent_terragrunt_dir()}/${path_relative_to_include()}/../vpc"]\n}\n',
      'live/dev/vpc/terragrunt.hcl': '',
      'live/dev/app/terragrunt.hcl': 'include {\n  path = find_in_parent_folders("common.hcl")\n}\n',
    });
    const result = await edges(root);
    // live/ + dev/app + /../vpc
    expect(result.problems).toEqual([]);
    expect(result.edges['dev/app']).toEqual(['dev/vpc']);
  });

  it('prevent_destroy: inherited from an include, overridden by the unit, protective when unknowable', async () => {
    const root = repo({
      'live/root.hcl': 'prevent_destroy = true\n',
      'live/dev/db/terragrunt.hcl': 'include "root" {\n  path = find_in_parent_folders("root.hcl")\n}\n',
      'live/dev/app/terragrunt.hcl':
        'include "root" {\n  path = find_in_parent_folders("root.hcl")\n}\n\nprevent_destroy = false\n',
      'live/dev/plain/terragrunt.hcl': '',
      'live/dev/odd/terragrunt.hcl': '\nprevent_destroy = run_cmd("sh", "-c", "echo true")\n',
    });
    const { units, problems } = await edges(root);
    expect(units.get('dev/db')?.preventDestroy).toBe(true);
    expect(units.get('dev/app')?.preventDestroy).toBeUndefined();
    expect(units.get('dev/plain')?.preventDestroy).toBeUndefined();
    expect(units.get('dev/odd')?.preventDestroy).toBe(true);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.kind).toBe('unresolved-expression');
    expect(problems[0]?.location?.line).toBe(2);
  });

  it('a run_cmd inside a dependencies path is reported as unresolved, in words, and the other paths still count', async () => {
    const root = repo({
      'live/dev/vpc/terragrunt.hcl': '',
      'live/dev/db/terragrunt.hcl': '',
      'live/dev/app/terragrunt.hcl':
        '\ndependencies {\n  paths = ["../vpc", run_cmd("sh", "-c", "echo ../db"), 3, ["../x"]]\n}\n',
    });
    const { problems, edges: found } = await edges(root);
    expect(found['dev/app']).toEqual(['dev/vpc']);
    const unresolved = problems.find((p) => p.kind === 'unresolved-expression');
    expect(unresolved?.message).toMatch(/^dependencies paths\[1\] cannot be resolved offline: run_cmd\(\) /);
    expect(unresolved?.location?.line).toBe(3);
    const wrong = problems.filter((p) => p.kind === 'evaluation-error').map((p) => p.message);
    expect(wrong).toEqual([
      'dependencies paths[2] must be a string (a path to a unit directory), got the number 3',
      'dependencies paths[3] must be a string (a path to a unit directory), got a tuple',
    ]);
    for (const problem of problems) expect(problem.message).not.toMatch(/[{}]|"reason"/);
  });

  it('reads number literals from the source where the parser rounded them through a float64', async () => {
    const root = repo({
      'live/dev/vpc/terragrunt.hcl': '',
      'live/dev/db/terragrunt.hcl': '',
      'live/dev/app/terragrunt.hcl': [
        'locals {',
        '  big   = [12345678901234567890, 7]',
        '  n     = 9007199254740993',
        '  wrap  = "${100000000000000000000000}"',
        '  fine  = 0.1',
        '}',
        'dependency "a" {',
        '  config_path = tostring(local.big[0]) == "12345678901234567890" && local.n % 2 == 1 ? "../vpc" : "../db"',
        '}',
        'dependencies {',
        '  paths = [local.wrap == 100000000000000000000000 && local.fine * 3 == 0.3 ? "../vpc" : "../db"]',
        '}',
        '',
      ].join('\n'),
    });
    const { edges: found, problems } = await edges(root);
    expect(problems).toEqual([]);
    expect(found['dev/app']).toEqual(['dev/vpc']);
  });

  it('reads an active Terragrunt exclude block as data, without a warning (bootstrap and teardown honour it)', async () => {
    const root = repo({
      'live/dev/off/terragrunt.hcl': 'exclude {\n  if      = false\n  actions = ["all"]\n}\n',
      'live/dev/on/terragrunt.hcl':
        '\nexclude {\n  if      = get_env("SKIP_ON", "true") == "true"\n  actions = ["apply"]\n}\n',
    });
    const { problems, units } = await edges(root);
    expect(problems).toEqual([]);
    expect(units.get('dev/on')?.exclude).toMatchObject({ actions: ['apply'], excludeDependencies: false });
    expect(units.get('dev/on')?.exclude?.location?.line).toBe(2);
    expect(units.get('dev/off')?.exclude).toBeUndefined();
    expect((await edges(root, { SKIP_ON: 'false' })).problems).toEqual([]);
  });

  it('an empty config_path in an included file: one error at its real line, naming every including unit', async () => {
    const include = 'include "vpc_dep" {\n  path = "../../_common/vpc_dep.hcl"\n}\n';
    const root = repo({
      'live/_common/vpc_dep.hcl': '# shared\n\nlocals {\n  x = 1\n}\n\ndependency "vpc" {\n  config_path = ""\n}\n',
      'live/dev/vpc/terragrunt.hcl': '',
      'live/dev/app/terragrunt.hcl': include,
      'live/dev/web/terragrunt.hcl': include,
      'live/dev/own/terragrunt.hcl': '\ndependency "vpc" {\n  config_path = ""\n}\n',
    });
    const { problems } = await edges(root);
    expect(problems).toHaveLength(2);
    const shared = problems.find((p) => p.location?.file.endsWith('vpc_dep.hcl'));
    expect(shared).toMatchObject({ severity: 'error', kind: 'evaluation-error' });
    expect(shared?.message).toBe('dependency "vpc" config_path is empty');
    expect(shared?.location?.line).toBe(8);
    expect(shared?.details).toContain('included by units dev/app, dev/web');
    const own = problems.find((p) => p.unit === 'dev/own');
    expect(own?.location?.line).toBe(3);
    expect(own?.details ?? []).toEqual([]);
  });

  describe('an expression nested deeper than HCL configurations go', () => {
    // Each shape at 2,000 and 20,000 levels: the WASM parser panics or hangs on these (nested interpolations from
    // about 1,000 levels), so a scan stops them before it, with the line where the nesting passes the limit.
    const shapes: Record<string, (depth: number) => string> = {
      parentheses: (depth) => `${'('.repeat(depth)}1${')'.repeat(depth)}`,
      'function calls': (depth) => `${'max(1, '.repeat(depth)}1${')'.repeat(depth)}`,
      'nested interpolations': (depth) => `${'"${'.repeat(depth)}1${'}"'.repeat(depth)}`,
      lists: (depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`,
    };
    for (const [shape, nest] of Object.entries(shapes)) {
      for (const depth of [2_000, 20_000]) {
        it(`${shape}, ${depth.toLocaleString('en-US')} deep: an error with file:line, fast`, async () => {
          const root = repo({
            'live/dev/vpc/terragrunt.hcl': '',
            'live/dev/app/terragrunt.hcl': `# deep\nlocals {\n  x = ${nest(depth)}\n}\n\ndependency "vpc" {\n  config_path = "../vpc"\n}\n`,
          });
          const started = performance.now();
          const { problems } = await edges(root);
          expect(performance.now() - started).toBeLessThan(20_000);
          expect(problems).toHaveLength(1);
          expect(problems[0]).toMatchObject({ severity: 'error', kind: 'parse-error', unit: 'dev/app' });
          expect(problems[0]?.message).toMatch(/^expression nested more than \d+ levels deep/);
          expect(problems[0]?.location?.file).toMatch(/live\/dev\/app\/terragrunt\.hcl$/);
          expect(problems[0]?.location?.line).toBe(3);
        });
      }
    }

    it('a deep but reasonable expression still parses', async () => {
      const root = repo({
        'live/dev/vpc/terragrunt.hcl': '',
        'live/dev/app/terragrunt.hcl': `locals {\n  x = ${'['.repeat(60)}"../vpc"${']'.repeat(60)}\n}\n\ndependency "vpc" {\n  config_path = "../vpc"\n}\n`,
      });
      expect(await edges(root)).toMatchObject({ problems: [], edges: { 'dev/app': ['dev/vpc'] } });
    });
  });

  it('a unit may not include a file that includes another', async () => {
    const root = repo({
      'live/a.hcl': 'include "b" {\n  path = "b.hcl"\n}\n',
      'live/b.hcl': '',
      'live/dev/app/terragrunt.hcl': 'include "a" {\n  path = find_in_parent_folders("a.hcl")\n}\n',
    });
    const { problems } = await edges(root);
    expect(problems[0]?.kind).toBe('include-error');
    expect(problems[0]?.message).toMatch(/only one level of includes/);
  });

  it('locals that refer to each other in a cycle are reported with the chain', async () => {
    const root = repo({
      'live/dev/app/terragrunt.hcl':
        'locals {\n  a = local.b\n  b = local.a\n}\n\ndependency "x" {\n  config_path = local.a\n}\n',
    });
    const { problems } = await edges(root);
    expect(problems[0]?.message).toMatch(/cycle among locals: local\.a -> local\.b -> local\.a/);
  });
});
