/**
 * The facts a run collects for `--metrics-file` (engine/metrics-collect.ts): environments, per-environment results
 * and durations, a down/up's parked state and node group sizes, a walk's units.
 */
import { describe, expect, it } from 'vitest';
import { MetricsCollector, envOfUnit, parkResult } from '../../../engine/metrics-collect.js';

describe('MetricsCollector', () => {
  it('writes nothing before the environments are known', () => {
    expect(new MetricsCollector().runFacts('validate', { exitCode: 0, startedMs: 0, endedAtMs: 1 })).toBeUndefined();
  });

  it('an environment without its own start, end or result takes the run’s', () => {
    const collector = new MetricsCollector();
    collector.envs(['b', 'a', 'b']);
    collector.envStarted('a', 1_000);
    collector.envFinished('a', 4_000);
    const facts = collector.runFacts('down', { exitCode: 3, startedMs: 500, endedAtMs: 9_000 });
    expect(facts).toEqual({
      verb: 'down',
      exitCode: 3,
      endedAtMs: 9_000,
      envs: [
        { env: 'a', result: 'refused', durationMs: 3_000 },
        { env: 'b', result: 'refused', durationMs: 8_500 },
      ],
    });
  });

  it('a down/up: each outcome’s result, parked state, and node group sizes once the step is done', async () => {
    const collector = new MetricsCollector();
    collector.envs(['a', 'b', 'c']);
    const records = { b: { status: 'parked', node_groups: { ng: { desired: 3 } } } };
    await collector.park(
      [
        { env: 'a', op: 'down', status: 'completed', done_steps: [] },
        { env: 'b', op: 'up', status: 'failed', done_steps: ['node-groups'] },
        { env: 'c', op: 'up', status: 'interrupted', done_steps: [] },
      ],
      (env) => Promise.resolve(records[env as keyof typeof records]),
    );
    const facts = collector.runFacts('up', { exitCode: 1, startedMs: 0, endedAtMs: 10 });
    expect(facts?.envs.map((e) => e.result)).toEqual(['success', 'failure', 'interrupted']);
    expect(facts?.parked).toEqual([
      { env: 'a', parked: true },
      { env: 'b', parked: true },
    ]);
    expect(facts?.nodeGroups).toEqual([{ env: 'b', group: 'ng', desired: 3 }]);
  });

  it('a walk: the units that ran to an end, and the environments they cover', () => {
    const collector = new MetricsCollector();
    const unit = { status: 'completed' as const, attempts: 1, wave: 0, dependencies: [] };
    collector.walk({ units: { 'p/a': { ...unit, duration_ms: 5 }, 'q/b': unit } });
    expect(collector.envList).toEqual(['p']);
    expect(collector.runFacts('bootstrap', { exitCode: 0, startedMs: 0, endedAtMs: 1 })?.units).toEqual([
      { env: 'p', unit: 'p/a', durationMs: 5 },
    ]);
  });

  it('labels', () => {
    expect(parkResult('fenced')).toBe('refused');
    expect(parkResult('nothing-to-do')).toBe('success');
    expect(envOfUnit('p/x/y')).toBe('p');
  });
});
