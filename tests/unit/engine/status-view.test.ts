/**
 * `platctl status`'s reading of the recorded state (engine/status-view.ts) and its output around the unit table
 * (engine/reporters/status.ts): a killed run, a live one, a completed one, a killed down/up, the JSON and the no-run
 * sentence.
 */
import { describe, expect, it } from 'vitest';
import type { LockState } from '../../../engine/lock.js';
import { makePaint } from '../../../engine/reporters/paint.js';
import { noRunJson, noRunMessage, renderRunStatus, statusJson } from '../../../engine/reporters/status.js';
import type { RunState } from '../../../engine/state.js';
import {
  heldByOp,
  localLockReader,
  notLastRunMessage,
  statusRun,
  viewRun,
  withKilledOps,
} from '../../../engine/status-view.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const at = '2026-01-01T10:00:00.000Z';
const run = (status: RunState['status'], units: RunState['units']): RunState => ({
  version: 1,
  run_id: 'r1',
  command: 'bootstrap',
  args: { env: ['p'], unit: [], with_deps: false, parallelism: 4, fail_fast: false },
  started_at: at,
  updated_at: at,
  status,
  graph_fingerprint: 'f',
  platctl_version: 't',
  resumes: 0,
  known_durations_ms: {},
  units,
});
const unit = (status: RunState['units'][string]['status']) => ({ status, attempts: 1, wave: 0, dependencies: [] });
const holder = { pid: 7, host: 'h', command: 'platctl down --env p', started_at: at };

describe('viewRun', () => {
  it('a run recorded as running with no live lock was killed: interrupted, with why', () => {
    const view = viewRun(run('running', { 'p/a': unit('running'), 'p/b': unit('completed') }), { type: 'free' });
    expect(view.live).toBe(false);
    expect(view.killed).toBe('it left no lock behind');
    expect(view.state.status).toBe('interrupted');
    expect(view.state.units['p/a']?.status).toBe('interrupted');
    expect(view.complete).toBe(false);
  });

  it('a held lock means running now, nothing changed', () => {
    const recorded = run('running', { 'p/a': unit('running') });
    const view = viewRun(recorded, { type: 'held', holder });
    expect(view).toMatchObject({ live: true, killed: undefined, state: recorded });
  });

  it('complete when completed and every unit applied or excluded', () => {
    const view = viewRun(run('completed', { 'p/a': unit('completed'), 'p/b': unit('excluded') }), undefined);
    expect(view.complete).toBe(true);
    expect(view.counts.completed).toBe(1);
    expect(viewRun(run('completed', { 'p/a': unit('skipped') }), undefined).complete).toBe(false);
  });
});

describe('withKilledOps', () => {
  it('marks a running down/up killed unless a live platctl of that verb holds the lock; reads the lock lazily', async () => {
    let reads = 0;
    const lock = (state: LockState) => () => {
      reads += 1;
      return Promise.resolve(state);
    };
    const views = [{ env: 'a' }, { env: 'p', last: { op: 'down', status: 'running' } }];
    expect(await withKilledOps([views[0]!], lock({ type: 'free' }))).toEqual([{ env: 'a' }]);
    expect(reads).toBe(0);
    expect(await withKilledOps(views, lock({ type: 'held', holder }))).toEqual(views);
    const killed = await withKilledOps(views, lock({ type: 'held', holder: { ...holder, command: 'platctl up' } }));
    expect(killed[1]).toEqual({ ...views[1], killed: 'its lock is held by another run' });
    expect(heldByOp({ type: 'free' }, 'down')).toBe(false);
  });
});

describe('status output', () => {
  const paint = makePaint(false);

  it('a killed run says so and how to resume, with the named --config', () => {
    const view = viewRun(run('running', { 'p/a': unit('running') }), { type: 'free' });
    const text = renderRunStatus(view, paint, '/x/.platctl.yaml');
    expect(text).toContain('The run did not end: platctl was killed (it left no lock behind).\n');
    expect(text.endsWith('Resume with: platctl bootstrap --resume --env p --config /x/.platctl.yaml\n')).toBe(true);
    expect(
      renderRunStatus(viewRun(run('completed', { 'p/a': unit('completed') }), undefined), paint, undefined),
    ).not.toContain('Resume with');
  });

  it('the JSON document: run with in_progress and killed, units by id, counts, complete, park as given', () => {
    const view = viewRun(run('running', { 'p/b': unit('running'), 'p/a': unit('completed') }), { type: 'free' });
    const doc = JSON.parse(statusJson(view, [{ env: 'p' }])) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['run', 'units', 'counts', 'complete', 'park']);
    expect(doc.run).toMatchObject({ run_id: 'r1', in_progress: false, killed: true, status: 'interrupted' });
    expect((doc.units as { id: string }[]).map((u) => u.id)).toEqual(['p/a', 'p/b']);
    expect(doc.park).toEqual([{ env: 'p' }]);
    expect(noRunJson([])).toBe('{"run":null,"units":[],"counts":null,"complete":false,"park":[]}\n');
  });

  it('no run: the advice is bootstrap, or up for parked environments', () => {
    expect(noRunMessage('in /r', [])).toBe('platctl: no run recorded in /r; run platctl bootstrap\n');
    expect(noRunMessage('in /r', ['a', 'b'])).toBe(
      'platctl: no bootstrap or teardown run recorded in /r; a, b are parked: platctl up --env a --env b brings them back\n',
    );
  });
});

describe('localLockReader', () => {
  it('reads the lock once, on first need: no lock file is free', async () => {
    const root = await mkdtemp(join(tmpdir(), 'platctl-status-'));
    try {
      const read = localLockReader(root, { pid: process.pid, host: 'h', isAlive: () => true });
      const first = read();
      expect(read()).toBe(first);
      expect(await first).toEqual({ type: 'free' });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
    expect(notLastRunMessage('r0', '/r', 'r1')).toBe(
      'run r0 is not the last run of /r (r1); the local backend keeps only the last run (state.backend s3 keeps them all: docs/state.md)',
    );
  });
});

describe('statusRun', () => {
  const recorded = run('completed', { 'p/a': unit('completed') });
  it('shows the recorded run, or the one --run names when it is the last', () => {
    expect(statusRun({ type: 'ok', state: recorded }, undefined, '/repo')).toEqual({ type: 'show', state: recorded });
    expect(statusRun({ type: 'ok', state: recorded }, 'r1', '/repo')).toEqual({ type: 'show', state: recorded });
  });
  it('refuses a --run that is not the last, and a state file it cannot read; says when none is recorded', () => {
    expect(statusRun({ type: 'ok', state: recorded }, 'r0', '/repo')).toEqual({
      type: 'refused',
      message: notLastRunMessage('r0', '/repo', 'r1'),
    });
    const invalid = { type: 'invalid', reason: 'unparsable', message: 'not JSON' } as const;
    expect(statusRun(invalid, undefined, '/repo')).toEqual({ type: 'refused', message: 'not JSON' });
    expect(statusRun({ type: 'missing' }, 'r0', '/repo')).toEqual({ type: 'none' });
  });
});
