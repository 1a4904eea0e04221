import { describe, expect, it } from 'vitest';
import type { RunState } from '../../../engine/state.js';
import type { ParkFile } from '../../../park/record.js';
import { buildParkReport, buildWalkReport, criticalPath, lowerBound, parallelismOver } from '../../../report/model.js';
import { FIXTURE_START, fixtureState } from '../../helpers/report-fixture.js';

const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);
const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

function state(units: RunState['units'], patch: Partial<RunState> = {}): RunState {
  return {
    version: 1,
    run_id: 'r1',
    command: 'bootstrap',
    args: { env: [], unit: [], with_deps: false, parallelism: 2, fail_fast: false },
    started_at: at(0),
    updated_at: at(100),
    ended_at: at(100),
    status: 'failed',
    graph_fingerprint: 'f',
    platctl_version: 't',
    resumes: 0,
    known_durations_ms: {},
    units,
    ...patch,
  };
}

const done = (deps: string[], ready: number, start: number, end: number, extra: object = {}) => ({
  status: 'completed' as const,
  attempts: 1,
  wave: 0,
  dependencies: deps,
  ready_at: at(ready),
  started_at: at(start),
  ended_at: at(end),
  duration_ms: (end - start) * 1000,
  log: `.platctl-logs/r1/0_x.log`,
  ...extra,
});

describe('report model', () => {
  it('finds the longest chain of dependencies by run time as the critical path', () => {
    const rows = [
      { id: 'p/a', dependencies: [], duration_ms: 10 },
      { id: 'p/b', dependencies: ['p/a'], duration_ms: 5 },
      { id: 'p/c', dependencies: ['p/a'], duration_ms: 20 },
      { id: 'p/d', dependencies: ['p/b', 'p/c'], duration_ms: 1 },
      { id: 'p/x', dependencies: [], duration_ms: 25 },
    ];
    expect(criticalPath(rows)).toEqual({ path: ['p/a', 'p/c', 'p/d'], ms: 31 });
    // Units that did not run weigh nothing; an empty run has no path.
    expect(criticalPath([{ id: 'p/a', dependencies: [] }])).toEqual({ path: [], ms: 0 });
  });

  it('takes the larger of the critical path and the work over the slots as the lower bound', () => {
    expect(lowerBound(100, 150, 2)).toEqual({ ms: 100, because: 'critical-path' });
    expect(lowerBound(100, 450, 2)).toEqual({ ms: 225, because: 'work-over-parallelism' });
    expect(lowerBound(100, 450, undefined)).toEqual({ ms: 100, because: 'critical-path' });
  });

  it('counts what ran and what waited for a slot at each change', () => {
    const out = parallelismOver([
      { start_ms: 0, end_ms: 10, ready_ms: 0, running: false },
      { start_ms: 0, end_ms: 5, ready_ms: 0, running: false },
      { start_ms: 5, end_ms: 20, ready_ms: 2, running: false },
    ]);
    expect(out.max).toBe(2);
    expect(out.points).toEqual([
      { at_ms: 0, running: 2, waiting: 0 },
      { at_ms: 2, running: 2, waiting: 1 },
      { at_ms: 5, running: 2, waiting: 0 },
      { at_ms: 10, running: 1, waiting: 0 },
      { at_ms: 20, running: 0, waiting: 0 },
    ]);
  });

  it('builds rows with waiting, failures with reason and log link, recovered, optional and slower units', () => {
    const model = buildWalkReport(
      state(
        {
          'p/a': done([], 0, 0, 30),
          'p/b': done(['p/a'], 30, 40, 70, {
            hooks: {
              'on-failure:helm-pending-recovery': { status: 'completed', ended_at: at(70), detail: 'rolled back' },
            },
          }),
          'p/c': {
            ...done(['p/a'], 30, 30, 50),
            status: 'failed',
            reason: 'exit-non-zero',
            error: 'exit code 1: boom',
            log: '.platctl-logs/r1/1_p__c.log',
            optional: true,
          },
          'p/d': {
            status: 'skipped',
            attempts: 0,
            wave: 2,
            dependencies: ['p/c'],
            skipped_because: 'p/c',
            skip_reason: 'dependency-failed',
          },
        },
        { history_ms: { 'p/a': 30_000, 'p/b': 10_000 } },
      ),
      { now: T0 + 500_000, live: false, logHref: (log) => `../repo/${log}` },
    );
    const row = (id: string) => model.rows.find((r) => r.id === id)!;
    expect(row('p/b')).toMatchObject({ ready_ms: 30_000, start_ms: 40_000, wait_ms: 10_000, duration_ms: 30_000 });
    expect(row('p/b')).toMatchObject({
      recovered: 'helm-pending-recovery: rolled back',
      slower: true,
      history_ms: 10_000,
    });
    expect(row('p/a')).toMatchObject({ slower: false, critical: true });
    expect(row('p/c')).toMatchObject({
      status: 'failed',
      reason: 'exit-non-zero',
      error: 'exit code 1: boom',
      log_href: '../repo/.platctl-logs/r1/1_p__c.log',
      optional: true,
    });
    expect(row('p/d')).toMatchObject({ status: 'skipped', skipped_because: 'p/c' });
    expect(row('p/d').start_ms).toBeUndefined();
    expect(model.critical_path).toEqual(['p/a', 'p/b']);
    expect(model.makespan_ms).toBe(100_000);
    expect(model.lower_bound_ms).toBe(60_000);
    expect(model.parallelism).toMatchObject({ limit: 2, max: 2 });
    expect(model.notes).toEqual([]);
  });

  it('draws a run in progress up to now, and a killed one as interrupted', () => {
    const units: RunState['units'] = {
      'p/a': done([], 0, 0, 30),
      'p/b': { status: 'running', attempts: 1, wave: 1, dependencies: ['p/a'], ready_at: at(30), started_at: at(30) },
      'p/c': { status: 'pending', attempts: 0, wave: 1, dependencies: ['p/a'], ready_at: at(30) },
    };
    const running = state(units, { status: 'running', updated_at: at(40) });
    delete running.ended_at;
    const live = buildWalkReport(running, { now: T0 + 60_000, live: true });
    expect(live.run).toMatchObject({ status: 'running', in_progress: true });
    expect(live.makespan_ms).toBe(60_000);
    expect(live.rows.find((r) => r.id === 'p/b')).toMatchObject({
      running: true,
      start_ms: 30_000,
      duration_ms: 30_000,
    });
    expect(live.rows.find((r) => r.id === 'p/c')).toMatchObject({
      status: 'pending',
      ready_ms: 30_000,
      wait_ms: 30_000,
    });
    const killed = buildWalkReport(running, { now: T0 + 60_000, live: false });
    expect(killed.run).toMatchObject({ status: 'interrupted', in_progress: false });
    expect(killed.rows.find((r) => r.id === 'p/b')?.status).toBe('interrupted');
  });

  it('reads a state of an older platctl (no ready_at, no history_ms) and says what it cannot show', () => {
    const old = state({ 'p/a': done([], 0, 0, 30) });
    delete old.units['p/a']!.ready_at;
    const model = buildWalkReport(old, { now: T0, live: false });
    expect(model.rows[0]!.wait_ms).toBeUndefined();
    expect(model.notes.join(' ')).toMatch(/did not record when units became ready/);
    expect(model.notes.join(' ')).toMatch(/does not record earlier durations/);
  });

  it('keeps parallelism within the limit and the lower bound under the makespan for 120 units', () => {
    const model = buildWalkReport(fixtureState({ count: 120, parallelism: 4, fail: 'preprod/unit-013' }), {
      now: FIXTURE_START,
      live: false,
    });
    expect(model.rows).toHaveLength(120);
    expect(model.counts).toMatchObject({ failed: 1 });
    expect(model.counts.skipped).toBeGreaterThan(0);
    expect(model.parallelism.max).toBe(4);
    expect(model.lower_bound_ms).toBeLessThanOrEqual(model.makespan_ms);
    expect(model.lower_bound_ms).toBeGreaterThan(0);
    // The critical path is a chain: each unit depends on the one before it.
    const byId = new Map(model.rows.map((row) => [row.id, row]));
    for (let i = 1; i < model.critical_path.length; i += 1) {
      expect(byId.get(model.critical_path[i]!)!.dependencies).toContain(model.critical_path[i - 1]);
    }
    expect(model.critical_path_ms).toBe(
      model.critical_path.reduce((sum, id) => sum + (byId.get(id)!.duration_ms ?? 0), 0),
    );
  });

  it('draws a down/up step by step with the recorded sizes', () => {
    const file: ParkFile = {
      version: 1,
      env: 'preprod',
      durations_ms: {},
      record: {
        version: 1,
        env: 'preprod',
        cluster: 'c',
        status: 'parked',
        parked_at: at(0),
        parked_by: { host: 'h', user: 'u' },
        node_groups: { system: { min: 1, max: 3, desired: 2 } },
        karpenter: { nodepools: [], ec2nodeclasses: [] },
        bastions: [{ id: 'i-1', state: 'running' }],
        argocd: { namespace: 'argocd', apps: [] },
      },
      last: {
        op: 'down',
        started_at: at(0),
        by: { host: 'h', user: 'u' },
        status: 'failed',
        ended_at: at(50),
        resumes: 0,
        steps: {
          record: { status: 'completed', started_at: at(0), ended_at: at(5), duration_ms: 5000 },
          'scale-node-groups': { status: 'completed', started_at: at(5), ended_at: at(40), duration_ms: 35_000 },
          verify: {
            status: 'failed',
            started_at: at(40),
            ended_at: at(50),
            duration_ms: 10_000,
            detail: 'still 2 nodes',
          },
        },
      },
    };
    const model = buildParkReport([{ env: 'preprod', file }], { now: T0 + 100_000, live: false });
    expect(model.kind).toBe('park');
    expect(model.run).toMatchObject({ command: 'down', status: 'failed', envs: ['preprod'] });
    expect(model.rows.map((r) => [r.id, r.duration_ms])).toEqual([
      ['preprod/down/record', 5000],
      ['preprod/down/scale-node-groups', 35_000],
      ['preprod/down/verify', 10_000],
    ]);
    expect(model.rows[2]).toMatchObject({ status: 'failed', error: 'still 2 nodes' });
    expect(model.critical_path_ms).toBe(50_000);
    expect(model.sizes).toEqual([
      {
        env: 'preprod',
        op: 'down',
        node_groups: { system: { min: 1, max: 3, desired: 2 } },
        karpenter_nodepools: 0,
        bastions: 1,
        argocd_apps: 0,
      },
    ]);
  });
});
