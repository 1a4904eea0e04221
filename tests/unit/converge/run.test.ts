/**
 * The convergence phase over a fake clock and scripted looks: bounded waits, progress said as it changes, outcomes
 * recorded for --resume, waits bound to the units that produce them, and a Ctrl-C that ends a wait at once.
 */
import { describe, expect, it } from 'vitest';
import type { ConvergeConfig, ConvergeWait } from '../../../config/schema.js';
import { configSchema } from '../../../config/schema.js';
import { planWaits } from '../../../converge/plan.js';
import { runConvergence } from '../../../converge/run.js';
import type { WalkEvent } from '../../../engine/events.js';
import type { PhaseContext } from '../../../engine/phases.js';
import type { PhaseRecords, RunState } from '../../../engine/state.js';
import type { UnitStatus } from '../../../engine/unit-status.js';
import type { Clock } from '../../../engine/waits.js';
import { renderSummary } from '../../../engine/reporters/summary.js';
import { makePaint } from '../../../engine/reporters/paint.js';
import type { CheckOutcome } from '../../../validate/types.js';
import { runState } from '../engine/helpers.js';

/** `converge:` as the configuration loader would give it. */
function converge(waits: unknown[], interval = '10s'): ConvergeConfig {
  const parsed = configSchema.parse({
    version: 1,
    environments: { platform: { dir: 'live/platform' } },
    converge: { interval, waits },
  });
  if (!parsed.converge) throw new Error('no converge');
  return parsed.converge;
}

function fakeClock(onSleep?: () => void): Clock {
  let now = Date.UTC(2026, 0, 1);
  return {
    now: () => now,
    sleep: (ms, signal) => {
      if (!signal.aborted) now += ms;
      onSleep?.();
      return Promise.resolve();
    },
  };
}

function context(
  options: {
    clock?: Clock;
    units?: Record<string, UnitStatus>;
    partial?: boolean;
    state?: RunState;
    signal?: AbortSignal;
  } = {},
) {
  const clock = options.clock ?? fakeClock();
  const events: WalkEvent[] = [];
  const current: RunState = options.state ?? runState({});
  const ctx: PhaseContext = {
    command: 'bootstrap',
    runId: 'r1',
    partial: options.partial ?? false,
    signal: options.signal ?? new AbortController().signal,
    now: () => clock.now(),
    emit: (event) => events.push(event),
    unitStatus: (unit) => (options.units ?? { 'platform/argocd': 'completed' })[unit],
    records: () => current,
    record: (patch: PhaseRecords) => {
      Object.assign(current, structuredClone(patch));
      return Promise.resolve();
    },
    apply: () => Promise.reject(new Error('no applies in convergence')),
  };
  return { ctx, clock, events, state: current };
}

/** Looks answering from `script` per wait id, in order; the last answer repeats. */
function scripted(script: Record<string, CheckOutcome[]>) {
  const looks: string[] = [];
  const look = (wait: ConvergeWait): Promise<CheckOutcome> => {
    looks.push(wait.id);
    const answers = script[wait.id] ?? [];
    const answer = answers.length > 1 ? answers.shift() : answers[0];
    return Promise.resolve(answer ?? { status: 'pass', message: 'ok' });
  };
  return { look, looks };
}

const notReady = (detail: string): CheckOutcome => ({
  status: 'fail',
  message: '1 of 2 Applications not Synced/Healthy: backstage',
  details: [detail],
});

describe('convergence', () => {
  it('waits until every wait passes, saying what is not ready as it changes, and records each one', async () => {
    const config = converge([
      { id: 'apps', after: ['platform/argocd'], argocd_apps: {} },
      { id: 'crds', after: ['platform/argocd'], crds: ['applications.argoproj.io'] },
    ]);
    const { ctx, clock, events, state } = context();
    const { look } = scripted({
      apps: [
        notReady('backstage: OutOfSync/Progressing'),
        notReady('backstage: OutOfSync/Progressing'),
        notReady('backstage: Synced/Progressing (Deployment backstage is not ready)'),
        { status: 'pass', message: '2 Applications Synced and Healthy' },
      ],
    });
    const result = await runConvergence(ctx, config, ['platform'], { look, clock });
    expect(result).toEqual({ ok: true });
    const progress = events.filter((e) => e.type === 'converge-wait-progress');
    // Said when it changed, not on every look.
    expect(progress.map((e) => e.details)).toEqual([
      ['backstage: OutOfSync/Progressing'],
      ['backstage: Synced/Progressing (Deployment backstage is not ready)'],
    ]);
    expect(state.converge?.status).toBe('completed');
    expect(state.converge?.waits.apps).toMatchObject({ status: 'passed', waited_ms: 30_000 });
    expect(state.converge?.waits.crds?.status).toBe('passed');
  });

  it('fails a wait at its own bound, naming each object not ready with its messages; later waits are not looked at', async () => {
    const config = converge([
      { id: 'apps', after: ['platform/argocd'], timeout: '2m', argocd_apps: {} },
      { id: 'crds', after: ['platform/argocd'], crds: ['applications.argoproj.io'] },
    ]);
    const { ctx, events, state } = context();
    const { look, looks } = scripted({ apps: [notReady('backstage: OutOfSync/Degraded (sync Failed: hook failed)')] });
    const result = await runConvergence(ctx, config, ['platform'], { look, clock: fakeClock() });
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('convergence failed at wait apps') });
    expect(looks.filter((id) => id === 'apps')).toHaveLength(13); // 0s, 10s, ..., 120s
    expect(looks).not.toContain('crds');
    expect(state.converge?.status).toBe('failed');
    expect(state.converge?.waits.apps).toMatchObject({
      status: 'failed',
      waited_ms: 120_000,
      error: 'not ready after 2m00s (converge timeout): 1 of 2 Applications not Synced/Healthy: backstage',
      details: ['backstage: OutOfSync/Degraded (sync Failed: hook failed)'],
    });
    expect(state.converge?.waits.crds).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'converge-wait-finished', wait: 'apps', result: 'failed' });
    const summary = renderSummary({
      state: { ...state, status: 'failed' },
      lastLines: new Map(),
      paint: makePaint(false),
    });
    expect(summary).toContain('CONVERGENCE FAILED at wait apps: not ready after 2m00s');
    expect(summary).toContain('        backstage: OutOfSync/Degraded (sync Failed: hook failed)');
  });

  it('stops at once when a look cannot be made (credentials, permission): waiting longer cannot help', async () => {
    const config = converge([{ id: 'apps', after: ['platform/argocd'], argocd_apps: {} }]);
    const { ctx, state } = context();
    const { look, looks } = scripted({
      apps: [{ status: 'error', message: 'not allowed to read applications.argoproj.io (403)' }],
    });
    const result = await runConvergence(ctx, config, ['platform'], { look, clock: fakeClock() });
    expect(result.ok).toBe(false);
    expect(looks).toHaveLength(1);
    expect(state.converge?.waits.apps?.error).toBe('cannot look: not allowed to read applications.argoproj.io (403)');
  });

  it('waits only for what this run applied: a wait whose after units are outside the selection is skipped', async () => {
    const config = converge([
      { id: 'apps', after: ['platform/argocd'], argocd_apps: {} },
      { id: 'dns', after: ['platform/dns'], http: { url: 'https://example.com/' } },
      { id: 'whole', crds: ['x.example.com'] },
    ]);
    const { ctx, events } = context({ units: { 'platform/argocd': 'completed' }, partial: true });
    const { look, looks } = scripted({});
    expect(await runConvergence(ctx, config, ['platform'], { look, clock: fakeClock() })).toEqual({ ok: true });
    expect(looks).toEqual(['apps']);
    const skipped = events.filter((e) => e.type === 'converge-wait-finished' && e.result === 'skipped');
    expect(skipped.map((e) => (e.type === 'converge-wait-finished' ? [e.wait, e.message] : []))).toEqual([
      ['dns', 'not in this run: platform/dns'],
      ['whole', 'it has no after units and this run covers only part of them'],
    ]);
  });

  it('on --resume looks again only at the waits that had not passed', async () => {
    const config = converge([
      { id: 'crds', after: ['platform/argocd'], crds: ['applications.argoproj.io'] },
      { id: 'apps', after: ['platform/argocd'], argocd_apps: {} },
    ]);
    const state = runState({});
    state.converge = {
      status: 'failed',
      waits: { crds: { status: 'passed', waited_ms: 5 }, apps: { status: 'failed', error: 'x' } },
    };
    const { ctx } = context({ state });
    const { look, looks } = scripted({});
    expect(await runConvergence(ctx, config, ['platform'], { look, clock: fakeClock() })).toEqual({ ok: true });
    expect(looks).toEqual(['apps']);
    expect(state.converge.waits).toMatchObject({ crds: { status: 'passed' }, apps: { status: 'passed' } });
  });

  it('ends a wait on the first Ctrl-C, recorded as interrupted (resumable)', async () => {
    const controller = new AbortController();
    const config = converge([{ id: 'apps', after: ['platform/argocd'], argocd_apps: {} }]);
    let sleeps = 0;
    const clock = fakeClock(() => {
      sleeps += 1;
      if (sleeps === 3) controller.abort('SIGINT');
    });
    const { ctx, state } = context({ clock, signal: controller.signal });
    const { look, looks } = scripted({ apps: [notReady('backstage: OutOfSync/Progressing')] });
    const result = await runConvergence(ctx, config, ['platform'], { look, clock });
    expect(result.ok).toBe(false);
    expect(looks).toHaveLength(3);
    expect(state.converge?.status).toBe('interrupted');
    expect(state.converge?.waits.apps?.status).toBe('interrupted');
  });

  it('bounds every wait: 30 minutes for Argo CD, 10 otherwise, and a timeout outside 1s..6h is refused', () => {
    const config = converge([
      { id: 'apps', after: ['platform/argocd'], argocd_apps: {} },
      { id: 'crds', after: ['platform/argocd'], crds: ['a.example.com'] },
    ]);
    const planned = planWaits({
      converge: config,
      environments: ['platform'],
      unitStatus: () => 'completed',
      partial: false,
    });
    expect(planned.map((w) => [w.id, w.timeoutMs, w.env])).toEqual([
      ['apps', 30 * 60_000, 'platform'],
      ['crds', 10 * 60_000, 'platform'],
    ]);
    expect(() => converge([{ id: 'a', timeout: '7h', crds: ['a.example.com'] }])).toThrow(/longer than timeout allows/);
    expect(() => converge([{ id: 'a', crds: ['a.example.com'], http: { url: 'https://x/' } }])).toThrow(
      /exactly one thing to wait for/,
    );
  });
});
