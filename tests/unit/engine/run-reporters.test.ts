/**
 * One reporter interface for every verb: each reporter takes any `RunEvent`, renders its verb's and passes over the
 * others', so `--json`, a terminal and a log can be combined for any verb (engine/events.ts `Reporter`).
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ParkEvent, RunEvent, WalkEvent } from '../../../engine/events.js';
import { combineReporters, isParkEvent } from '../../../engine/events.js';
import { JsonReporter } from '../../../engine/reporters/json.js';
import { makePaint } from '../../../engine/reporters/paint.js';
import { ParkReporter } from '../../../engine/reporters/park.js';
import { PlainReporter } from '../../../engine/reporters/plain.js';

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

const at = '2026-01-01T10:00:00.000Z';
const paint = makePaint(false);
const warning: WalkEvent = { type: 'warning', at, message: 'the provider cache is shared' };
const started: ParkEvent = {
  type: 'env-started',
  at,
  env: 'platform',
  op: 'down',
  dry_run: false,
  resumed: false,
  steps: ['drain'],
};
const stepStarted: ParkEvent = { type: 'step-started', at, env: 'platform', step: 'drain', title: 'Drain the nodes' };
const stepDone: ParkEvent = {
  type: 'step-completed',
  at,
  env: 'platform',
  step: 'drain',
  duration_ms: 5_000,
  detail: 'drained 3 nodes',
};
const mixed: RunEvent[] = [warning, started, stepStarted, stepDone];

afterEach(() => {
  vi.useRealTimers();
});

describe('one Reporter for every verb', () => {
  it('tells down/up events from a walk event', () => {
    expect(mixed.map(isParkEvent)).toEqual([false, true, true, true]);
  });

  it('the walk reporter renders the walk and passes over down/up events', () => {
    const out = new Collect();
    const reporter = new PlainReporter(out, paint);
    for (const event of mixed) reporter.event(event);
    reporter.close();
    expect(out.text.trimEnd().split('\n')).toHaveLength(1);
    expect(out.text).toContain('the provider cache is shared');
  });

  it('the park reporter renders down/up and passes over the walk', () => {
    const out = new Collect();
    const reporter = new ParkReporter(out, paint, 'down');
    for (const event of mixed) reporter.event(event);
    reporter.close();
    expect(out.text).toBe('down platform\n  ✓ drain              drained 3 nodes (5s)\n');
  });

  it("the walk and park reporters pass over validate's check events, even with a heartbeat", () => {
    vi.useFakeTimers({ now: Date.parse(at) });
    const checks: RunEvent[] = [
      {
        type: 'check-started',
        at,
        id: 'tailscale/status:local',
        check: 'tailscale/status',
        target: 'local',
        phase: 'cross',
      },
    ];
    const options = { everyMs: 30_000, now: () => Date.now() };
    const walk = new Collect();
    const park = new Collect();
    const beats = new Collect();
    const reporters = combineReporters(
      new PlainReporter(walk, paint, { heartbeat: options }),
      new ParkReporter(park, paint, 'down', { out: beats, options }),
    );
    for (const event of checks) reporters.event(event);
    vi.advanceTimersByTime(90_000);
    reporters.close();
    expect([walk.text, park.text, beats.text]).toEqual(['', '', '']);
  });

  it('combines with --json: one JSON line per event of any verb, and the lines for people', () => {
    const json = new Collect();
    const human = new Collect();
    const reporter = combineReporters(new JsonReporter(json), new ParkReporter(human, paint, 'down'));
    for (const event of mixed) reporter.event(event);
    reporter.close();
    expect(
      json.text
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as RunEvent).type),
    ).toEqual(['warning', 'env-started', 'step-started', 'step-completed']);
    expect(human.text).toContain('drained 3 nodes');
  });

  it("on a non-terminal, says which step is still running on the heartbeat's stream until it ends", () => {
    vi.useFakeTimers({ now: Date.parse(at) });
    const lines = new Collect();
    const beats = new Collect();
    const reporter = new ParkReporter(lines, paint, 'down', {
      out: beats,
      options: { everyMs: 30_000, now: () => Date.now() },
    });
    reporter.event(started);
    reporter.event(stepStarted);
    vi.advanceTimersByTime(30_000);
    expect(beats.text).toMatch(/still running: down platform: drain \(Drain the nodes\) 30\.0s\n$/);
    reporter.event(stepDone);
    const before = beats.text;
    vi.advanceTimersByTime(60_000);
    expect(beats.text).toBe(before);
    expect(lines.text).not.toContain('still running');
    reporter.close();
  });
});
