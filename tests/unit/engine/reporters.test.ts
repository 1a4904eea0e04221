import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { WalkEvent } from '../../../engine/events.js';
import { combineReporters, emptyCounts } from '../../../engine/events.js';
import { JsonReporter } from '../../../engine/reporters/json.js';
import { makePaint } from '../../../engine/reporters/paint.js';
import { PlainReporter } from '../../../engine/reporters/plain.js';
import { renderStatus, renderSummary } from '../../../engine/reporters/summary.js';
import { TtyReporter } from '../../../engine/reporters/tty.js';
import type { RunState } from '../../../engine/state.js';

const at = '2026-01-01T10:00:00.000Z';
const events: WalkEvent[] = [
  {
    type: 'run-started',
    at,
    run_id: 'r1',
    command: 'bootstrap',
    resumed: false,
    total: 4,
    to_run: 3,
    parallelism: 2,
    kept: [],
    excluded: [],
    estimates_ms: { 'p/a': 60_000, 'p/b': 60_000, 'p/c': 60_000 },
    remaining_path_ms: { 'p/a': 180_000, 'p/b': 120_000, 'p/c': 60_000 },
    estimates_known: true,
  },
  { type: 'unit-started', at, unit: 'p/a', wave: 0, attempt: 1, log: 'l/a' },
  { type: 'unit-completed', at: '2026-01-01T10:00:42.000Z', unit: 'p/a', duration_ms: 42_000, log: 'l/a' },
  { type: 'unit-started', at, unit: 'p/b', wave: 1, attempt: 2, log: 'l/b' },
  {
    type: 'unit-failed',
    at,
    unit: 'p/b',
    reason: 'exit-non-zero',
    error: 'exit code 1: Error: boom',
    exit_code: 1,
    duration_ms: 1500,
    log: 'l/b',
    last_lines: ['Error: boom'],
  },
  { type: 'unit-skipped', at, unit: 'p/c', because: 'p/b', reason: 'dependency-failed' },
  { type: 'warning', at, message: 'careful' },
  {
    type: 'run-finished',
    at,
    run_id: 'r1',
    command: 'bootstrap',
    status: 'failed',
    counts: emptyCounts(),
    duration_ms: 9,
  },
];

function collect(): { stream: PassThrough & { isTTY?: boolean; columns?: number }; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

describe('reporters', () => {
  it('plain: one self-contained line per transition', () => {
    const out = collect();
    const reporter = new PlainReporter(out.stream, makePaint(false));
    for (const e of events) reporter.event(e);
    expect(out.text().split('\n').filter(Boolean)).toEqual([
      '10:00:00 starting bootstrap r1: 3 of 4 units to run, parallelism 2',
      '10:00:00 start   p/a',
      '10:00:42 done    p/a 42.0s [1/3]',
      '10:00:00 start   p/b (attempt 2)',
      '10:00:00 FAILED  p/b 1.5s: exit code 1: Error: boom [2/3]',
      '         log: l/b',
      '10:00:00 skipped p/c: needs p/b, which failed [3/3]',
      '10:00:00 warning: careful',
    ]);
  });

  it('json: every event as one parseable line', () => {
    const out = collect();
    const reporter = combineReporters(new JsonReporter(out.stream));
    for (const e of events) reporter.event(e);
    reporter.close();
    expect(
      out
        .text()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as WalkEvent),
    ).toEqual(events);
  });

  it('tty: a live block of running units with elapsed time, done count and ETA; colour only when asked', () => {
    const out = collect();
    out.stream.isTTY = true;
    out.stream.columns = 100;
    let now = Date.parse(at);
    const reporter = new TtyReporter(out.stream, makePaint(true), { now: () => now, intervalMs: 10_000 });
    reporter.event(events[0]!);
    reporter.event(events[1]!);
    now += 20_000;
    reporter.event({ type: 'unit-started', at, unit: 'p/b', wave: 1, attempt: 1, log: 'l/b' });
    const text = out.text();
    expect(text).toContain('p/a 20.0s');
    expect(text).toContain('(usually 1m00s)');
    // The chain a -> b -> c needs 3 minutes, 20 s of which a has done.
    expect(text).toMatch(/0\/3 done.*2 running.*ETA ~2m40s/);
    expect(text).toContain('\u001b[');
    reporter.close();
  });
});

const state: RunState = {
  version: 1,
  run_id: 'r1',
  command: 'teardown',
  args: { env: [], unit: [], with_deps: false, parallelism: 4, fail_fast: false },
  started_at: at,
  updated_at: at,
  ended_at: at,
  status: 'failed',
  graph_fingerprint: 'f',
  platctl_version: 't',
  resumes: 0,
  known_durations_ms: {},
  units: {
    'p/a': {
      status: 'failed',
      attempts: 1,
      wave: 0,
      dependencies: [],
      reason: 'timeout',
      error: 'timed out after 40m',
      log: 'l/a',
      duration_ms: 2_400_000,
    },
    'p/b': {
      status: 'skipped',
      attempts: 0,
      wave: 1,
      dependencies: [],
      skipped_because: 'p/a',
      skip_reason: 'dependency-failed',
    },
    'p/c': { status: 'interrupted', attempts: 1, wave: 0, dependencies: [], log: 'l/c' },
    'p/floor': { status: 'completed', attempts: 0, wave: 0, dependencies: [], kept: true },
  },
};

describe('summary', () => {
  it('names each failed unit with its error, last lines and log, each skipped unit with its cause, and how to resume', () => {
    const text = renderSummary({
      state,
      lastLines: new Map([['p/a', ['Error: context deadline exceeded']]]),
      paint: makePaint(false),
      resumeCommand: 'platctl teardown --resume --yes',
      durationMs: 65_000,
    });
    expect(text).toContain('teardown r1: failed in 1m05s');
    expect(text).toContain('FAILED  p/a (timeout, 40m00s)');
    expect(text).toContain('        timed out after 40m');
    expect(text).toContain('        │ Error: context deadline exceeded');
    expect(text).toContain('        log: l/a');
    expect(text).toMatch(/SKIPPED p\/b +needs p\/a, which failed/);
    expect(text).toMatch(/STOPPED p\/c +interrupted; log: l\/c/);
    expect(text).toMatch(/KEPT {4}p\/floor +teardown floor/);
    expect(text).toContain('4 units: 1 completed, 1 failed, 1 skipped, 1 interrupted');
    expect(text.trim().split('\n').at(-1)).toBe('Resume with: platctl teardown --resume --yes');
  });

  it('status: one row per unit', () => {
    const text = renderStatus(state, makePaint(false), { live: false });
    expect(text).toMatch(/p\/a +failed +40m00s +timed out after 40m {2}\(l\/a\)/);
    expect(text).toMatch(/p\/floor +kept +- +kept \(teardown floor\)/);
  });
});
