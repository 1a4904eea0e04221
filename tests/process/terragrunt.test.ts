import { mkdir, readFile, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UnitJob } from '../../engine/executor.js';
import {
  TerragruntExecutor,
  chooseTools,
  detectTfVersion,
  providerCacheDecision,
  resolveExecutable,
  terragruntArgs,
} from '../../engine/terragrunt.js';
import { tempDir } from '../unit/engine/helpers.js';
import { FAKE_TERRAGRUNT, FIXTURES, baseEnv, gone, realGroups } from './helpers.js';

async function unitDir(): Promise<string> {
  const dir = join(await tempDir(), 'live', 'platform', 'vpc');
  await mkdir(dir, { recursive: true });
  return dir;
}

function job(absDir: string, overrides: Partial<UnitJob> = {}): UnitJob {
  return { unit: 'platform/vpc', command: 'apply', absDir, tfArgs: [], attempt: 1, timeoutMs: 60_000, ...overrides };
}

async function records(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('terragrunt command line', () => {
  it('is exactly the documented single-unit invocation', () => {
    expect(terragruntArgs(job('/r/live/p/vpc'), 'tofu', [])).toEqual([
      'run',
      '--working-dir',
      '/r/live/p/vpc',
      '--non-interactive',
      '--tf-path',
      'tofu',
      '--',
      'apply',
      '-auto-approve',
      '-input=false',
    ]);
    expect(
      terragruntArgs(job('/r/u', { command: 'destroy', tfArgs: ['-var=force_destroy=true'] }), '/opt/tofu', [
        '--log-format',
        'json',
      ]),
    ).toEqual([
      'run',
      '--working-dir',
      '/r/u',
      '--non-interactive',
      '--tf-path',
      '/opt/tofu',
      '--log-format',
      'json',
      '--',
      'destroy',
      '-auto-approve',
      '-input=false',
      '-var=force_destroy=true',
    ]);
  });

  it('takes the binaries from the environment before the configuration', () => {
    const config = { terragrunt: { binary: 'terragrunt', tf_path: 'tofu', extra_args: [], env: {} } };
    expect(chooseTools(config, {})).toMatchObject({ binary: 'terragrunt', tfPath: 'tofu' });
    expect(chooseTools(config, { PLATCTL_TERRAGRUNT: '/x/tg', PLATCTL_TF_PATH: '/x/tofu' })).toEqual({
      binary: '/x/tg',
      binarySource: 'PLATCTL_TERRAGRUNT',
      tfPath: '/x/tofu',
      tfPathSource: 'PLATCTL_TF_PATH',
    });
  });
});

describe('TerragruntExecutor (fake terragrunt, real processes)', () => {
  it('runs the unit in its directory with the exact arguments and the merged environment', async () => {
    const dir = await unitDir();
    const record = join(await tempDir(), 'calls.ndjson');
    const lines: string[] = [];
    const executor = new TerragruntExecutor(
      {
        binary: FAKE_TERRAGRUNT,
        tfPath: '/opt/tofu',
        extraArgs: ['--log-level', 'info'],
        env: baseEnv({ FAKE_TG_RECORD: record, FAKE_TG_CUSTOM: 'from terragrunt.env' }),
        graceMs: 1000,
      },
      realGroups(),
    );
    const outcome = await executor.run(job(dir, { command: 'destroy', tfArgs: ['-var=x=1'] }), {
      output: { line: (l) => lines.push(l) },
      signal: new AbortController().signal,
    });
    expect(outcome).toEqual({ type: 'completed' });
    const [call] = await records(record);
    expect(call).toMatchObject({
      unit: 'platform/vpc',
      command: 'destroy',
      cwd: dir,
      tf_path: '/opt/tofu',
      extra: ['--log-level', 'info'],
      tf_args: ['-var=x=1'],
      custom_env: 'from terragrunt.env',
    });
    expect(call?.argv).toEqual(
      terragruntArgs(job(dir, { command: 'destroy', tfArgs: ['-var=x=1'] }), '/opt/tofu', ['--log-level', 'info']),
    );
    expect(lines).toContain('Destroy complete! Resources: 1 destroyed.');
  });

  it('turns a non-zero exit into a failed outcome with the exit code', async () => {
    const dir = await unitDir();
    const control = join(await tempDir(), 'control.json');
    await writeFile(control, JSON.stringify({ units: { 'platform/vpc': { fail: true, exit_code: 3 } } }));
    const lines: string[] = [];
    const executor = new TerragruntExecutor(
      {
        binary: FAKE_TERRAGRUNT,
        tfPath: 'tofu',
        extraArgs: [],
        env: baseEnv({ FAKE_TG_CONTROL: control }),
        graceMs: 1000,
      },
      realGroups(),
    );
    const outcome = await executor.run(job(dir), {
      output: { line: (l) => lines.push(l) },
      signal: new AbortController().signal,
    });
    expect(outcome).toEqual({ type: 'failed', reason: 'exit-non-zero', exitCode: 3, message: 'exit code 3' });
    expect(lines).toContain('Error: simulated failure in platform/vpc');
  });

  it('fails a unit past its timeout with reason timeout, and kills one that ignores SIGINT after the grace', async () => {
    const dir = await unitDir();
    const control = join(await tempDir(), 'control.json');
    await writeFile(
      control,
      JSON.stringify({ units: { 'platform/vpc': { sleep_ms: 30_000, ignore_signals: true, grandchild: true } } }),
    );
    const record = join(await tempDir(), 'calls.ndjson');
    const executor = new TerragruntExecutor(
      {
        binary: FAKE_TERRAGRUNT,
        tfPath: 'tofu',
        extraArgs: [],
        env: baseEnv({ FAKE_TG_CONTROL: control, FAKE_TG_RECORD: record }),
        graceMs: 300,
      },
      realGroups(),
    );
    // 2 s: the fake (a node process) must have started and set its handlers before the timeout's SIGINT, even on a
    // loaded machine (at 400 ms it sometimes had not, and died of the SIGINT).
    const outcome = await executor.run(job(dir, { timeoutMs: 2_000 }), {
      output: { line: () => undefined },
      signal: new AbortController().signal,
    });
    expect(outcome).toMatchObject({
      type: 'failed',
      reason: 'timeout',
      signal: 'SIGKILL',
      message: 'timed out after 2s (raise units.platform/vpc.timeout in .platctl.yaml)',
    });
    const [call] = await records(record);
    expect(await gone(call?.pid as number)).toBe(true);
  });

  it('reports a binary that cannot start as a spawn error', async () => {
    const executor = new TerragruntExecutor(
      { binary: '/nonexistent/terragrunt', tfPath: 'tofu', extraArgs: [], env: baseEnv(), graceMs: 100 },
      realGroups(),
    );
    const outcome = await executor.run(job(await unitDir()), {
      output: { line: () => undefined },
      signal: new AbortController().signal,
    });
    expect(outcome).toMatchObject({ type: 'failed', reason: 'spawn-error' });
  });

  it('says in one line why a unit could not start, without its arguments (they may hold secrets)', async () => {
    const executor = new TerragruntExecutor(
      { binary: FAKE_TERRAGRUNT, tfPath: 'tofu', extraArgs: [], env: baseEnv(), graceMs: 100 },
      realGroups(),
    );
    // The unit's directory went away between discovery and its turn.
    const gone = join(await tempDir(), 'live', 'platform', 'deleted');
    const outcome = await executor.run(job(gone, { tfArgs: ['-var=db_password=hunter2secret'] }), {
      output: { line: () => undefined },
      signal: new AbortController().signal,
    });
    expect(outcome).toMatchObject({ type: 'failed', reason: 'spawn-error' });
    const message = outcome.type === 'failed' ? outcome.message : '';
    expect(message).not.toContain('hunter2secret');
    expect(message).not.toContain('\n');
    expect(message).toContain(`cannot start ${FAKE_TERRAGRUNT}`);
    expect(message).toContain(gone);
  });
});

describe('finding the binaries', () => {
  it('looks names up on the injected PATH and checks paths are executable files', async () => {
    const bin = await tempDir();
    await writeFile(join(bin, 'terragrunt'), '#!/bin/sh\n');
    await chmod(join(bin, 'terragrunt'), 0o755);
    await writeFile(join(bin, 'plain'), 'not executable');
    expect(await resolveExecutable('terragrunt', { PATH: `/nonexistent:${bin}` }, '/')).toEqual({
      type: 'ok',
      path: join(bin, 'terragrunt'),
    });
    expect(await resolveExecutable('terragrunt', { PATH: '/nonexistent' }, '/')).toMatchObject({
      type: 'missing',
      reason: 'not-found',
    });
    expect(await resolveExecutable('./plain', {}, bin)).toMatchObject({ type: 'missing', reason: 'not-executable' });
    expect(await resolveExecutable('./terragrunt', {}, bin)).toEqual({ type: 'ok', path: join(bin, 'terragrunt') });
  });
});

describe('shared provider cache', () => {
  const tofu = join(FIXTURES, 'fake-tofu.sh');

  it('reads the product and version behind tf_path', async () => {
    expect(await detectTfVersion(tofu, baseEnv({ FAKE_TF_VERSION: '1.9.1' }), '/')).toEqual({
      product: 'OpenTofu',
      major: 1,
      minor: 9,
      patch: 1,
    });
    expect(
      await detectTfVersion(tofu, baseEnv({ FAKE_TF_PRODUCT: 'Terraform', FAKE_TF_VERSION: '1.14.0' }), '/'),
    ).toMatchObject({
      product: 'Terraform',
    });
  });

  it('keeps TF_PLUGIN_CACHE_DIR only where parallel units cannot corrupt it', () => {
    const env = { TF_PLUGIN_CACHE_DIR: '/cache' };
    const tofu110 = { product: 'OpenTofu', major: 1, minor: 10, patch: 0 } as const;
    const tofu19 = { product: 'OpenTofu', major: 1, minor: 9, patch: 3 } as const;
    const terraform = { product: 'Terraform', major: 1, minor: 14, patch: 0 } as const;
    expect(providerCacheDecision({ env: {}, parallelism: 4, extraArgs: [], tfVersion: tofu19 }).type).toBe('keep');
    expect(providerCacheDecision({ env, parallelism: 1, extraArgs: [], tfVersion: tofu19 }).type).toBe('keep');
    expect(providerCacheDecision({ env, parallelism: 4, extraArgs: [], tfVersion: tofu110 }).type).toBe('keep');
    expect(
      providerCacheDecision({ env, parallelism: 4, extraArgs: ['--provider-cache'], tfVersion: terraform }).type,
    ).toBe('keep');
    const unset = providerCacheDecision({ env, parallelism: 4, extraArgs: [], tfVersion: terraform });
    expect(unset.type).toBe('unset');
    expect(unset.type === 'unset' && unset.message).toMatch(/Terraform 1\.14\.0 does not lock it/);
    expect(providerCacheDecision({ env, parallelism: 4, extraArgs: [], tfVersion: undefined }).type).toBe('unset');
  });
});
