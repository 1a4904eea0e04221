/**
 * The `--metrics-file` exposition (engine/metrics.ts) and its wrapper (cli/metrics.ts): every metric, escaping, the
 * carried-over last success, the checks before a run and a failed write. The text is read back with Python's
 * prometheus_client parser.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { withMetrics } from '../../../cli/metrics.js';
import { checkMetricsPath } from '../../../engine/metrics-sink.js';
import type { CliIo } from '../../../cli/verb.js';
import type { RunFacts } from '../../../engine/metrics.js';
import { lastSuccessTimes, renderMetrics, resultForExitCode, writeMetricsFile } from '../../../engine/metrics.js';
import { PROM_PARSER_MISSING, parseProm, sampleValue } from '../../helpers/prom-parse.js';
import { tempDir } from '../../helpers/temp.js';

const ENDED = Date.UTC(2026, 11, 4, 18, 0, 0);

const EVERYTHING: RunFacts = {
  verb: 'bootstrap',
  exitCode: 1,
  endedAtMs: ENDED,
  envs: [
    { env: 'platform', result: 'failure', durationMs: 61_500 },
    { env: 'preprod', result: 'success', durationMs: 2_000 },
  ],
  checks: [
    { env: 'platform', check: 'unit/eks_cluster:platform/eks', ok: true },
    { env: '', check: 'tailscale/status:local', ok: false },
  ],
  validateDurationMs: 4_250,
  parked: [{ env: 'platform', parked: true }],
  nodeGroups: [{ env: 'platform', group: 'system', desired: 3 }],
  units: [
    { env: 'platform', unit: 'platform/eks', durationMs: 1_250 },
    { env: 'platform', unit: 'platform/we"ird\\unit\nname', durationMs: 500 },
  ],
};

describe.skipIf(PROM_PARSER_MISSING !== undefined)(
  `the metrics exposition${PROM_PARSER_MISSING ? ` (skipped: ${PROM_PARSER_MISSING})` : ''}`,
  () => {
    it('writes every metric, in seconds, as gauges prometheus_client parses', async () => {
      const samples = await parseProm(await renderMetrics(EVERYTHING));
      const v = (name: string, labels: Record<string, string>) => sampleValue(samples, name, labels);
      expect(v('platctl_validate_check_ok', { env: 'platform', check: 'unit/eks_cluster:platform/eks' })).toBe(1);
      expect(v('platctl_validate_check_ok', { env: '', check: 'tailscale/status:local' })).toBe(0);
      expect(v('platctl_validate_duration_seconds', { env: 'platform' })).toBe(4.25);
      expect(v('platctl_run_duration_seconds', { verb: 'bootstrap', env: 'platform', result: 'failure' })).toBe(61.5);
      expect(v('platctl_run_duration_seconds', { verb: 'bootstrap', env: 'preprod', result: 'success' })).toBe(2);
      expect(v('platctl_run_last_success_timestamp_seconds', { verb: 'bootstrap', env: 'preprod' })).toBe(ENDED / 1000);
      expect(v('platctl_run_last_success_timestamp_seconds', { env: 'platform' })).toBeUndefined();
      expect(v('platctl_run_exit_code', { verb: 'bootstrap', env: 'platform' })).toBe(1);
      expect(v('platctl_parked', { env: 'platform' })).toBe(1);
      expect(v('platctl_nodegroup_desired', { env: 'platform', group: 'system' })).toBe(3);
      expect(v('platctl_unit_duration_seconds', { env: 'platform', unit: 'platform/eks' })).toBe(1.25);
      expect(new Set(samples.map((s) => s.type))).toEqual(new Set(['gauge']));
    });

    it('escapes quotes, backslashes and newlines in label values, so an odd unit id cannot break the file', async () => {
      const text = await renderMetrics(EVERYTHING);
      expect(text).toContain('unit="platform/we\\"ird\\\\unit\\nname"');
      const samples = await parseProm(text);
      expect(sampleValue(samples, 'platctl_unit_duration_seconds', { unit: 'platform/we"ird\\unit\nname' })).toBe(0.5);
    });

    it('leaves out the metrics a run has nothing for (validate writes no unit or park series)', async () => {
      const text = await renderMetrics({
        verb: 'validate',
        exitCode: 0,
        endedAtMs: ENDED,
        envs: [{ env: 'platform', result: 'success', durationMs: 1000 }],
        checks: [],
      });
      const names = new Set((await parseProm(text)).map((s) => s.name));
      expect(names).toEqual(
        new Set([
          'platctl_run_duration_seconds',
          'platctl_run_exit_code',
          'platctl_run_last_success_timestamp_seconds',
        ]),
      );
      expect(text).not.toContain('platctl_unit_duration_seconds');
    });

    it('keeps the last success of a verb and environment that failed this run, from the file it replaces', async () => {
      const first = await renderMetrics({
        verb: 'down',
        exitCode: 0,
        endedAtMs: ENDED,
        envs: [
          { env: 'platform', result: 'success', durationMs: 1000 },
          { env: 'a"b\\c', result: 'success', durationMs: 1000 },
        ],
      });
      const later = ENDED + 86_400_000;
      const second = await renderMetrics(
        {
          verb: 'down',
          exitCode: 1,
          endedAtMs: later,
          envs: [
            { env: 'platform', result: 'failure', durationMs: 1000 },
            { env: 'a"b\\c', result: 'failure', durationMs: 1000 },
          ],
        },
        first,
      );
      const samples = await parseProm(second);
      const last = 'platctl_run_last_success_timestamp_seconds';
      expect(sampleValue(samples, last, { env: 'platform' })).toBe(ENDED / 1000);
      expect(sampleValue(samples, last, { env: 'a"b\\c' })).toBe(ENDED / 1000);
      expect(sampleValue(samples, 'platctl_run_exit_code', { env: 'platform' })).toBe(1);
      // Another verb's file is not this verb's history.
      const up = await renderMetrics({ ...EVERYTHING, verb: 'up', envs: [EVERYTHING.envs[0]!] }, first);
      expect(sampleValue(await parseProm(up), last, { env: 'platform' })).toBeUndefined();
    });
  },
);

describe('the previous file', () => {
  it('carries only well-formed, non-negative times of the same verb; anything else is ignored', () => {
    const text = [
      'platctl_run_last_success_timestamp_seconds{verb="up",env="ok"} 1700000000',
      'platctl_run_last_success_timestamp_seconds{verb="up",env="neg"} -5',
      'platctl_run_last_success_timestamp_seconds{verb="up",env="nan"} NaN',
      'platctl_run_last_success_timestamp_seconds{verb="down",env="other"} 1700000000',
      'platctl_run_last_success_timestamp_seconds{verb="up",env="broken} 1',
      'garbage',
    ].join('\n');
    expect([...lastSuccessTimes(text, 'up')]).toEqual([['ok', 1_700_000_000]]);
  });

  it('maps exit codes to results', () => {
    expect([0, 1, 2, 3, 70, 130, 143, 129].map(resultForExitCode)).toEqual([
      'success',
      'failure',
      'error',
      'refused',
      'bug',
      'interrupted',
      'interrupted',
      'interrupted',
    ]);
  });
});

function captureIo(cwd: string): { io: CliIo; stderr: () => string } {
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const io: CliIo = {
    stdout: new PassThrough(),
    stderr,
    env: {},
    cwd,
    color: false,
    signal: new AbortController().signal,
  };
  return { io, stderr: () => err };
}

describe('--metrics-file around a run', () => {
  it('refuses a directory that does not exist, a directory as the path, and --dry-run, before the run starts', async () => {
    const dir = await tempDir();
    expect(await checkMetricsPath('nope/platctl.prom', false, dir)).toMatch(
      /^--metrics-file nope\/platctl\.prom: the directory .*\/nope does not exist; create it/,
    );
    expect(await checkMetricsPath(dir, false, '/')).toMatch(/is a directory; give a file name/);
    expect(await checkMetricsPath('platctl.prom', true, dir)).toMatch(/--dry-run runs nothing/);
    expect(await checkMetricsPath('platctl.prom', false, dir)).toBeUndefined();

    const { io, stderr } = captureIo(dir);
    let ran = false;
    const code = await withMetrics('validate', { 'metrics-file': 'nope/x.prom' }, io, () => {
      ran = true;
      return Promise.resolve(0);
    });
    expect({ code, ran }).toEqual({ code: 2, ran: false });
    expect(stderr()).toMatch(/^platctl: --metrics-file nope\/x\.prom: the directory/);
  });

  it('writes nothing when the run ended before its configuration was understood', async () => {
    const dir = await tempDir();
    const { io } = captureIo(dir);
    const code = await withMetrics('up', { 'metrics-file': 'up.prom' }, io, () => Promise.resolve(2));
    expect(code).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('writes what a run that threw knew, with exit code 70, and lets the error through', async () => {
    const dir = await tempDir();
    const { io } = captureIo(dir);
    const run = withMetrics('validate', { 'metrics-file': 'v.prom' }, io, (sink) => {
      sink.envs(['platform']);
      return Promise.reject(new Error('boom'));
    });
    await expect(run).rejects.toThrow('boom');
    const text = readFileSync(join(dir, 'v.prom'), 'utf8');
    expect(text).toContain('platctl_run_exit_code{verb="validate",env="platform"} 70');
    expect(text).toContain('result="bug"');
  });

  it("a write that fails at the end is a warning; the exit code stays the run's own, and no temp file is left", async () => {
    const dir = await tempDir();
    const metricsDir = join(dir, 'textfile');
    mkdirSync(metricsDir);
    const { io, stderr } = captureIo(dir);
    const code = await withMetrics('down', { 'metrics-file': 'textfile/down.prom' }, io, (sink) => {
      sink.envs(['platform']);
      rmSync(metricsDir, { recursive: true }); // gone by the time the run ends
      return Promise.resolve(1);
    });
    expect(code).toBe(1);
    expect(stderr()).toMatch(
      /^platctl: warning: cannot write the metrics file .*textfile\/down\.prom: .*ENOENT.*; the run's exit code is unchanged\n$/,
    );
    expect(existsSync(metricsDir)).toBe(false);
  });

  it('replaces the file whole, keeping the last success from the previous one', async () => {
    const dir = await tempDir();
    const path = join(dir, 'up.prom');
    writeFileSync(path, 'platctl_run_last_success_timestamp_seconds{verb="up",env="platform"} 1700000000\n');
    const result = await writeMetricsFile(path, {
      verb: 'up',
      exitCode: 1,
      endedAtMs: ENDED,
      envs: [{ env: 'platform', result: 'failure', durationMs: 10 }],
    });
    expect(result).toEqual({ ok: true });
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('platctl_run_last_success_timestamp_seconds{verb="up",env="platform"} 1700000000\n');
    expect(text).toContain('platctl_run_duration_seconds{verb="up",env="platform",result="failure"} 0.01\n');
    expect(readdirSync(dir)).toEqual(['up.prom']);
  });
});
