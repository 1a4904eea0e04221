/**
 * `bootstrap`/`teardown --metrics-file` through the built CLI with the fake terragrunt: the file, read back with
 * Python's prometheus_client parser, after a completed run, a failed one and an interrupted one.
 */
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { PROM_PARSER_MISSING, parseProm, sampleValue } from '../helpers/prom-parse.js';
import type { PromSample } from '../helpers/prom-parse.js';
import { BASIC_UNITS as ALL, PLATCTL, sandbox, until } from './engine-helpers.js';
import type { Sandbox } from './engine-helpers.js';

async function metricsOf(box: Sandbox): Promise<PromSample[]> {
  return parseProm(await readFile(join(box.root, 'textfile', 'bootstrap.prom'), 'utf8'));
}

const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];

/** Why platctl cannot run as `nobody` here (not root, no setpriv, a clone nobody may not read); undefined when it can. */
async function nobodySkip(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'not root: cannot run platctl as nobody';
  const probe = await execa('setpriv', [...NOBODY, 'node', PLATCTL, '--version'], {
    reject: false,
    stdin: 'ignore',
  }).catch((error: unknown) => ({ exitCode: 1, stderr: String(error) }));
  return probe.exitCode === 0 ? undefined : `nobody cannot run ${PLATCTL} from this clone`;
}
const NOBODY_SKIP = await nobodySkip();

const unitsIn = (samples: readonly PromSample[]): string[] =>
  samples
    .filter((s) => s.name === 'platctl_unit_duration_seconds')
    .map((s) => s.labels.unit ?? '')
    .sort();

describe.skipIf(PROM_PARSER_MISSING !== undefined)(
  `platctl bootstrap --metrics-file (built CLI, fake terragrunt)${PROM_PARSER_MISSING ? ` (skipped: ${PROM_PARSER_MISSING})` : ''}`,
  { timeout: 120_000 },
  () => {
    it('a completed run writes every unit duration and the success; a failed one keeps the last success', async () => {
      const box = await sandbox();
      await mkdir(join(box.root, 'textfile'));
      await box.control({}, { sleep_ms: 20 });
      const ok = await box.run(['bootstrap', '--metrics-file', 'textfile/bootstrap.prom']);
      expect(ok.exitCode).toBe(0);
      let samples = await metricsOf(box);
      expect(unitsIn(samples)).toEqual(ALL);
      const state = await box.state();
      expect(sampleValue(samples, 'platctl_unit_duration_seconds', { env: 'platform', unit: 'platform/eks' })).toBe(
        state.units['platform/eks']!.duration_ms! / 1000,
      );
      expect(sampleValue(samples, 'platctl_run_exit_code', { verb: 'bootstrap', env: 'platform' })).toBe(0);
      expect(
        sampleValue(samples, 'platctl_run_duration_seconds', { env: 'platform', result: 'success' }),
      ).toBeGreaterThan(0);
      const success = sampleValue(samples, 'platctl_run_last_success_timestamp_seconds', { verb: 'bootstrap' });
      expect(success).toBeGreaterThan(Date.now() / 1000 - 600);

      await box.control({ 'platform/eks': { fail: true, exit_code: 3 } });
      const failed = await box.run(['bootstrap', '--metrics-file', 'textfile/bootstrap.prom']);
      expect(failed.exitCode).toBe(1);
      samples = await metricsOf(box);
      expect(sampleValue(samples, 'platctl_run_exit_code', { env: 'platform' })).toBe(1);
      expect(sampleValue(samples, 'platctl_run_duration_seconds', { result: 'failure' })).toBeGreaterThan(0);
      expect(sampleValue(samples, 'platctl_run_last_success_timestamp_seconds', { env: 'platform' })).toBe(success);
      // Only the units that ran to an end in this run; the skipped dependents of eks have no duration.
      expect(unitsIn(samples)).toContain('platform/eks');
      expect(unitsIn(samples)).not.toContain('platform/argocd');
    });

    it('an interrupted run (SIGINT) writes exit code 130 and result interrupted', async () => {
      const box = await sandbox();
      await mkdir(join(box.root, 'textfile'));
      await box.control({}, { sleep_ms: 20_000 });
      const child = box.start(['bootstrap', '--unit', 'platform/ecr', '--metrics-file', 'textfile/bootstrap.prom']);
      await until(async () => (await box.calls()).length >= 1, 15_000, 'a running unit');
      await until(
        async () =>
          (
            await readFile(join(box.root, (await box.state()).units['platform/ecr']?.log ?? 'none'), 'utf8').catch(
              () => '',
            )
          ).includes('Initializing the backend'),
        15_000,
        'the unit to handle SIGINT',
      );
      child.kill('SIGINT');
      expect((await child).exitCode).toBe(130);
      const samples = await metricsOf(box);
      expect(sampleValue(samples, 'platctl_run_exit_code', { verb: 'bootstrap', env: 'platform' })).toBe(130);
      expect(sampleValue(samples, 'platctl_run_duration_seconds', { result: 'interrupted' })).toBeGreaterThan(0);
      expect(sampleValue(samples, 'platctl_run_last_success_timestamp_seconds')).toBeUndefined();
    });

    it('teardown refuses a metrics directory that does not exist before asking or destroying anything (exit 2)', async () => {
      const box = await sandbox();
      const refused = await box.run(['teardown', '--yes', '--metrics-file', 'nowhere/teardown.prom']);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toMatch(/--metrics-file nowhere\/teardown\.prom: the directory .*nowhere does not exist/);
      expect(await box.calls()).toEqual([]);
    });
  },
);

describe.skipIf(NOBODY_SKIP !== undefined)(
  `--metrics-file in a directory platctl may not write${NOBODY_SKIP ? ` (skipped: ${NOBODY_SKIP})` : ''}`,
  () => {
    it('is refused before anything runs (exit 2), naming the directory and the cause', async () => {
      const box = await sandbox();
      // The sandbox is root's: nobody may read it (to load the project) but not write in textfile/.
      await chmod(join(box.root, '..'), 0o755);
      await mkdir(join(box.root, 'textfile'), { mode: 0o755 });
      const result = await execa(
        'setpriv',
        [...NOBODY, 'node', PLATCTL, 'bootstrap', '--metrics-file', 'textfile/bootstrap.prom'],
        { cwd: box.root, env: box.env, extendEnv: false, reject: false, stdin: 'ignore' },
      );
      expect(result.stderr).toMatch(
        /^platctl: --metrics-file textfile\/bootstrap\.prom: cannot write in .*\/textfile \(EACCES\); fix its permissions or pick another path\n?$/,
      );
      expect(result.exitCode).toBe(2);
      expect(await box.calls()).toEqual([]);
    });
  },
);
