/**
 * The built CLI, as a user runs it, refuses a misspelt command line before doing anything: per verb, exit 2 with a
 * did-you-mean, and nothing changed (the fake terragrunt not called, no state, lock, log or cache file written, no
 * kubeconfig written, nothing on stdout).
 */
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATE_FILE } from '../../engine/state.js';
import { sandbox } from './engine-helpers.js';
import type { Sandbox } from './engine-helpers.js';

interface Snapshot {
  readonly files: string[];
  readonly home: string[];
  readonly state: string | undefined;
  readonly calls: number;
}

async function snapshot(box: Sandbox): Promise<Snapshot> {
  const state = await readFile(join(box.root, STATE_FILE), 'utf8').catch(() => undefined);
  return {
    files: (await readdir(box.root, { recursive: true })).sort(),
    home: (await readdir(box.env.HOME!, { recursive: true })).sort(),
    state,
    calls: (await box.calls()).length,
  };
}

/** Runs `argv`, expects exit 2 with `message` on stderr, nothing on stdout, and `box` exactly as it was. */
async function refused(box: Sandbox, argv: string[], message: string): Promise<void> {
  const before = await snapshot(box);
  const result = await box.run(argv);
  expect(await snapshot(box), argv.join(' ')).toEqual(before);
  expect(result.stdout, argv.join(' ')).toBe('');
  expect(result.exitCode, argv.join(' ')).toBe(2);
  expect(result.stderr, argv.join(' ')).toContain(message);
  expect(result.stderr, argv.join(' ')).toContain('Nothing was run.');
}

// Each test runs the built CLI several times; a loaded machine needs more than the default 30 s.
describe('a misspelt command line changes nothing (built CLI, fake terragrunt)', { timeout: 120_000 }, () => {
  it('teardown: --dry-rn --yes destroys nothing (it used to destroy every unit, then complain)', async () => {
    const box = await sandbox();
    expect((await box.run(['bootstrap'])).exitCode).toBe(0);
    await refused(
      box,
      ['teardown', '--dry-rn', '--yes'],
      'unknown option --dry-rn for teardown; did you mean --dry-run?',
    );
    await refused(box, ['teardown', '--yes', '--parallelism', 'abc'], '--parallelism "abc": give a whole number');
    await refused(box, ['teardown', '--yes', '--parallelism'], '--parallelism needs a value');
    await refused(box, ['teardwon', '--yes'], 'unknown verb "teardwon"; did you mean teardown?');
  });

  it('bootstrap: an unknown flag, a misspelt verb or a flag without its value applies nothing', async () => {
    const box = await sandbox();
    await refused(box, ['bootstrap', '--frobnicate'], 'unknown option --frobnicate for bootstrap');
    await refused(box, ['bootsrap'], 'unknown verb "bootsrap"; did you mean bootstrap?');
    await refused(box, ['bootstrap', '--parallelism', '--dry-run'], '--parallelism needs a value');
    await refused(box, ['bootstrap', '--unit', 'platform/ecr', '--with-dep'], 'did you mean --with-deps?');
    // Spelt right, the same command does act: the refusals above are not vacuous.
    expect((await box.run(['bootstrap', '--unit', 'platform/ecr'])).exitCode).toBe(0);
    expect((await box.calls()).length).toBe(1);
  });

  it('status: prints nothing for a misspelt flag, even with a run recorded', async () => {
    const box = await sandbox();
    expect((await box.run(['bootstrap', '--unit', 'platform/ecr'])).exitCode).toBe(0);
    await refused(box, ['status', '--jsn'], 'unknown option --jsn for status; did you mean --json?');
    await refused(box, ['status', 'now'], 'unexpected argument "now"');
  });

  it('graph: discovers nothing (no cache written) for a misspelt flag or format', async () => {
    const box = await sandbox();
    await refused(box, ['graph', '--formt', 'json'], 'unknown option --formt for graph; did you mean --format?');
    await refused(box, ['graph', '--format', 'jsn'], '--format "jsn" is not one of text, json, dot, mermaid');
    expect((await box.run(['graph', '--format', 'json'])).exitCode).toBe(0);
    expect(await readdir(box.root)).toContain('.platctl-cache');
  });

  it('validate: checks nothing for a misspelt flag or a bad number', async () => {
    const box = await sandbox();
    await refused(box, ['validate', '--concurency', '2'], 'did you mean --concurrency?');
    await refused(box, ['validate', '--concurrency', 'two'], '--concurrency "two": give a whole number');
    await refused(box, ['validate', '--chek', 'tailscale'], 'did you mean --check?');
  });

  it('kubeconfig and kubeconfig token: write and print nothing', async () => {
    const box = await sandbox();
    await refused(box, ['kubeconfig', '--outptu', 'kube.yaml'], 'did you mean --output?');
    await refused(box, ['kubeconfig', 'tokn', '--env', 'platform'], 'did you mean token?');
    await refused(box, ['kubeconfig', 'token', '--evn', 'platform'], 'did you mean --env?');
    await refused(box, ['kubeconfig', 'token', '--env', 'platform', '--output', 'x'], '--output does not apply');
  });

  it('config schema and config check: print nothing', async () => {
    const box = await sandbox();
    await refused(box, ['config', 'chek'], 'unknown action "chek" for platctl config; did you mean check?');
    await refused(box, ['config', 'check', '--jsn'], 'did you mean --json?');
    await refused(box, ['config', 'schema', '--output', 'x'], 'unknown option --output for config');
  });
});

/** Appends `text` to the sandbox's `.platctl.yaml`; returns the 1-based line where it starts. */
async function appendConfig(box: Sandbox, text: string): Promise<number> {
  const file = join(box.root, '.platctl.yaml');
  const before = await readFile(file, 'utf8');
  await writeFile(file, `${before}${text}`);
  return before.split('\n').length;
}

/** Runs `argv`, expects exit 2 with every `messages` on stderr, nothing run (no call, no state, no logs). */
async function refusedByConfig(box: Sandbox, argv: string[], messages: readonly string[]): Promise<void> {
  const result = await box.run(argv);
  const what = `${argv.join(' ')}: ${result.stderr}`;
  expect(result.exitCode, what).toBe(2);
  for (const message of messages) expect(result.stderr, what).toContain(message);
  expect((await box.calls()).length, what).toBe(0);
  const files = await readdir(box.root);
  expect(files, what).not.toContain(STATE_FILE);
  expect(files, what).not.toContain('.platctl-logs');
}

describe(
  'a unit id in the configuration that names no unit stops every verb before it acts',
  { timeout: 180_000 },
  () => {
    it('a misspelt id in a lockdown step, a hook, a manual step or park: exit 2 at its line, with a did-you-mean', async () => {
      const box = await sandbox();
      const start = await appendConfig(
        box,
        [
          'manual_steps:',
          '  - { id: dns, description: delegate the zone, before: [platform/vcp] }',
          'hooks:',
          '  - { type: crd_two_stage, units: [platform/argcd], targets: [helm_release.crds] }',
          'lockdown:',
          '  env: platform',
          '  steps:',
          '    - { id: private, unit: platform/ekss }',
          'park:',
          '  platform:',
          '    node_group_units: [platform/eks-nodes]',
          '',
        ].join('\n'),
      );
      const messages = [
        `.platctl.yaml:${start + 1}:57: error: manual_steps[0].before names unit "platform/vcp", which discovery did not find`,
        'did you mean platform/vpc?',
        `.platctl.yaml:${start + 3}:36: error: hooks[0].units names unit "platform/argcd"`,
        'did you mean platform/argocd?',
        `.platctl.yaml:${start + 7}:22: error: lockdown.steps[0].unit names unit "platform/ekss"`,
        'did you mean platform/eks?',
        `.platctl.yaml:${start + 10}:24: error: park.platform.node_group_units names unit "platform/eks-nodes"`,
      ];
      for (const argv of [
        ['graph'],
        ['lockdown', '--dry-run'],
        ['lockdown'],
        ['bootstrap'],
        ['bootstrap', '--dry-run'],
        ['teardown', '--yes'],
        ['validate', '--dry-run'],
      ]) {
        await refusedByConfig(box, argv, messages);
      }
    });

    it('an id that leaves its environment (platform/../../outside) is refused by config check, before discovery', async () => {
      const box = await sandbox();
      const start = await appendConfig(
        box,
        'lockdown:\n  env: platform\n  steps:\n    - { id: x, unit: platform/../../outside }\n',
      );
      const message = `.platctl.yaml:${start + 3}:22: error: "platform/../../outside" is not a normalised unit id`;
      for (const argv of [['config', 'check'], ['graph'], ['lockdown', '--dry-run'], ['lockdown'], ['bootstrap']]) {
        await refusedByConfig(box, argv, [message]);
      }
    });
  },
);
