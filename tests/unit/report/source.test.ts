/**
 * Where `platctl report`'s model comes from (report/source.ts) and where it goes (report/output.ts): each reason
 * there is no report, the environment filter, whether the run is live, the file name, the log links, the write.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LockState } from '../../../engine/lock.js';
import type { RunState } from '../../../engine/state.js';
import type { BuildOptions } from '../../../report/model.js';
import { defaultName, logHref, outputPath, unwritableReport, writeReport } from '../../../report/output.js';
import type { RunSource } from '../../../report/source.js';
import { onlyEnvs, parkReport, reportExitCode, walkReport } from '../../../report/source.js';

const at = '2026-01-01T10:00:00.000Z';
const unit = { status: 'completed' as const, attempts: 1, wave: 0, dependencies: [] };
const state = (patch: Partial<RunState> = {}): RunState => ({
  version: 1,
  run_id: 'r1',
  command: 'bootstrap',
  args: { env: [], unit: [], with_deps: false, parallelism: 2, fail_fast: false },
  started_at: at,
  updated_at: at,
  status: 'completed',
  graph_fingerprint: 'f',
  platctl_version: 't',
  resumes: 0,
  known_durations_ms: {},
  units: { 'a/x': unit, 'b/y': unit },
  ...patch,
});
const options = (live: boolean): BuildOptions => ({ now: Date.parse(at), live, logHref: (log) => log });
const free = (): Promise<LockState> => Promise.resolve({ type: 'free' });
const source = (loaded: RunSource['loaded'], live = false): RunSource => ({
  loaded,
  where: 'in /r',
  live: () => Promise.resolve(live),
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'platctl-report-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('walkReport', () => {
  it('says why there is no report', async () => {
    const missing = await walkReport(source({ type: 'missing' }), '/r', undefined, [], free, options);
    expect(missing).toMatchObject({ ok: false, reason: 'no-run', message: expect.stringContaining('in /r') });
    const invalid = await walkReport(
      source({ type: 'invalid', reason: 'unparsable', message: 'bad' }),
      '/r',
      undefined,
      [],
      free,
      options,
    );
    expect(invalid).toMatchObject({ ok: false, reason: 'invalid-state', message: 'bad' });
    const other = await walkReport(source({ type: 'ok', state: state() }), '/r', 'r0', [], free, options);
    expect(other).toMatchObject({ ok: false, reason: 'not-last-run' });
    const none = await walkReport(source({ type: 'ok', state: state() }), '/r', undefined, ['c'], free, options);
    expect(none).toMatchObject({
      ok: false,
      reason: 'no-units',
      message: 'run r1 has no unit of c; nothing to report',
    });
  });

  it('draws the run, live only while it is recorded as running and its source says so', async () => {
    const running = source({ type: 'ok', state: state({ status: 'running' }) }, true);
    const drawn = await walkReport(running, '/r', 'r1', ['a'], free, options);
    expect(drawn.ok && drawn.value.run.in_progress).toBe(true);
    const done = await walkReport(source({ type: 'ok', state: state() }, true), '/r', undefined, [], free, options);
    expect(done.ok && done.value.run.in_progress).toBe(false);
  });
});

describe('onlyEnvs', () => {
  it('keeps the units of the named environments, all when none is named', () => {
    expect(Object.keys(onlyEnvs(state(), ['b']).units)).toEqual(['b/y']);
    expect(onlyEnvs(state(), [])).toEqual(state());
  });
});

describe('parkReport', () => {
  it('nothing recorded: no-park, naming where it looked', async () => {
    const none = await parkReport(dir, [], free, options);
    expect(none).toMatchObject({ ok: false, reason: 'no-park' });
    expect(!none.ok && none.message).toContain('no down or up recorded for any environment in');
  });
});

describe('report output', () => {
  it('names the file after the run, and stdout for -', () => {
    expect(outputPath('/w', '-', 'x.html')).toBeUndefined();
    expect(outputPath('/w', undefined, 'x.html')).toBe('/w/x.html');
    expect(outputPath('/w', 'out/r.html', 'x.html')).toBe('/w/out/r.html');
    expect(defaultName({ kind: 'walk', run: { id: 'r 1/2' } } as never)).toBe('platctl-report-r_1_2.html');
  });

  it('links a log relative to the report, each segment encoded', () => {
    expect(logHref('/r', '/r', '.platctl-logs/r1/0_a b.log')).toBe('.platctl-logs/r1/0_a%20b.log');
    expect(logHref('/r/out', '/r', 'l.log')).toBe('../l.log');
  });

  it('writes the page, or says why not in a few words', async () => {
    expect(await writeReport(join(dir, 'r.html'), 'page')).toBeUndefined();
    expect(await readFile(join(dir, 'r.html'), 'utf8')).toBe('page');
    expect(await writeReport(join(dir, 'missing', 'r.html'), 'page')).toBe(
      `its directory ${join(dir, 'missing')} does not exist`,
    );
  });
});

describe('report refusals', () => {
  it('exits 1 with nothing recorded, 2 for a bad request, 3 for an unreadable park file', () => {
    expect([reportExitCode('no-run'), reportExitCode('no-units'), reportExitCode('no-park')]).toEqual([1, 1, 1]);
    expect([reportExitCode('invalid-state'), reportExitCode('not-last-run')]).toEqual([2, 2]);
    expect(reportExitCode('invalid-park')).toBe(3);
  });
  it('says why a report could not be written, and where to write it instead', () => {
    expect(unwritableReport('/x/r.html', 'permission denied')).toEqual({
      message: 'cannot write the report to /x/r.html: permission denied',
      hint: 'pass --output FILE in a directory you can write',
    });
  });
});
