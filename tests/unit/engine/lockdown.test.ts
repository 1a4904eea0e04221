import { describe, expect, it } from 'vitest';
import type { WalkEvent } from '../../../engine/events.js';
import type { LockdownConfig } from '../../../engine/lockdown.js';
import { judgeStep, runLockdown, standaloneSteps } from '../../../engine/lockdown.js';
import type { PhaseApply, PhaseApplyResult, PhaseContext } from '../../../engine/phases.js';
import type { PhaseRecords, RunState } from '../../../engine/state.js';
import type { UnitOutcome } from '../../../engine/executor.js';
import { manualClock, runState } from './helpers.js';

const config: LockdownConfig = {
  env: 'p',
  retry: { attempts: 3, interval: 45_000 },
  steps: [
    { id: 'split-dns', unit: 'p/tailscale', lock_args: ['-var=split_dns=true'], unlock_args: ['-var=split_dns=false'] },
    { id: 'private-endpoint', unit: 'p/eks', lock_args: ['-var=public=false'], unlock_args: ['-var=public=true'] },
  ],
};

const failed = (message = 'exit code 1'): UnitOutcome => ({
  type: 'failed',
  reason: 'exit-non-zero',
  exitCode: 1,
  message,
});

/** A phase context whose applies answer from `script` (per step id, one answer per try). */
function fakeContext(
  script: Record<string, { outcome: UnitOutcome; output?: string[] }[]>,
  state: RunState = runState({}),
) {
  const clock = manualClock();
  const applies: PhaseApply[] = [];
  const events: WalkEvent[] = [];
  const records: PhaseRecords[] = [];
  const waits: number[] = [];
  const current: RunState = { ...state };
  const ctx: PhaseContext = {
    command: 'bootstrap',
    runId: 'r1',
    partial: false,
    signal: new AbortController().signal,
    now: clock.now,
    emit: (event) => events.push(event),
    records: () => current,
    record: (patch) => {
      records.push(structuredClone(patch));
      Object.assign(current, patch);
      return Promise.resolve();
    },
    apply: (request): Promise<PhaseApplyResult> => {
      applies.push(request);
      const id = request.logName.split('_').slice(2).join('_');
      const answer = script[id]?.shift() ?? { outcome: { type: 'completed' } };
      clock.advance(1000);
      const output = answer.output ?? [];
      return Promise.resolve({
        outcome: answer.outcome,
        output,
        errorLine: output.findLast((l) => /error/i.test(l)),
        log: `.platctl-logs/r1/${request.logName}.log`,
      });
    },
  };
  const wait = (ms: number): Promise<void> => {
    waits.push(ms);
    return Promise.resolve();
  };
  return { ctx, applies, events, records, waits, current, wait };
}

describe('lockdown', () => {
  it('applies the steps in order with their lock_args, retrying a transient EKS error', async () => {
    const f = fakeContext({
      'private-endpoint': [
        { outcome: failed(), output: ['Error: updating EKS Cluster: ResourceInUseException: Cluster is busy'] },
        { outcome: failed(), output: ['Error: An update is already in progress for cluster p'] },
      ],
    });
    const result = await runLockdown(f.ctx, config, 'lock', f.wait);
    expect(result).toEqual({ ok: true });
    expect(f.applies.map((a) => [a.unit, a.extraArgs.join(' '), a.attempt])).toEqual([
      ['p/tailscale', '-var=split_dns=true', 1],
      ['p/eks', '-var=public=false', 1],
      ['p/eks', '-var=public=false', 2],
      ['p/eks', '-var=public=false', 3],
    ]);
    expect(f.waits).toEqual([45_000, 45_000]);
    expect(f.current.lockdown).toMatchObject({
      direction: 'lock',
      status: 'completed',
      steps: {
        'split-dns': { status: 'completed', attempts: 1 },
        'private-endpoint': { status: 'completed', attempts: 3 },
      },
    });
    const finished = f.events.flatMap((e) => (e.type === 'lockdown-step-finished' ? [`${e.step}:${e.result}`] : []));
    expect(finished).toEqual([
      'split-dns:completed',
      'private-endpoint:retrying',
      'private-endpoint:retrying',
      'private-endpoint:completed',
    ]);
  });

  it('counts "already at the desired configuration" as done', async () => {
    const f = fakeContext({
      'split-dns': [
        {
          outcome: failed(),
          output: [
            'Error: InvalidParameterException: Cluster is already at the desired configuration with endpointPrivateAccess: true',
          ],
        },
      ],
    });
    expect(await runLockdown(f.ctx, config, 'lock', f.wait)).toEqual({ ok: true });
    expect(f.applies).toHaveLength(2);
    expect(f.events.find((e) => e.type === 'lockdown-step-finished')).toMatchObject({
      result: 'completed',
      message: 'already at the desired configuration',
    });
  });

  it('stops at any other failure without retrying it, and says where the log is and how to continue', async () => {
    const f = fakeContext({ 'split-dns': [{ outcome: failed(), output: ['Error: Unauthorized: token expired'] }] });
    const result = await runLockdown(f.ctx, config, 'lock', f.wait);
    expect(result).toEqual({
      ok: false,
      message: 'lockdown step split-dns (p/tailscale) failed: exit code 1: Error: Unauthorized: token expired',
      details: [
        'log: .platctl-logs/r1/lockdown_0_split-dns.log',
        'fix the cause, then platctl bootstrap --resume continues the lockdown at this step (or platctl lockdown)',
      ],
    });
    expect(f.applies).toHaveLength(1);
    expect(f.waits).toEqual([]);
    expect(f.current.lockdown).toMatchObject({ status: 'failed', steps: { 'split-dns': { status: 'failed' } } });
  });

  it('gives up on a transient error after retry.attempts tries', async () => {
    const busy = { outcome: failed(), output: ['Error: ResourceInUseException: update in progress'] };
    const f = fakeContext({ 'split-dns': [busy, busy, busy] });
    const result = await runLockdown(f.ctx, config, 'lock', f.wait);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/still after 3 attempts; raise lockdown.retry.attempts/);
    expect(f.applies).toHaveLength(3);
  });

  it('continues a resumed lockdown at the first unfinished step', async () => {
    const state = runState({});
    state.lockdown = {
      direction: 'lock',
      status: 'failed',
      steps: {
        'split-dns': { status: 'completed', attempts: 1 },
        'private-endpoint': { status: 'failed', attempts: 3 },
      },
    };
    const f = fakeContext({}, state);
    expect(await runLockdown(f.ctx, config, 'lock', f.wait)).toEqual({ ok: true });
    expect(f.applies.map((a) => a.unit)).toEqual(['p/eks']);
  });

  it('unlocks in reverse order with unlock_args, ignoring an earlier lockdown record', async () => {
    const state = runState({});
    state.lockdown = {
      direction: 'lock',
      status: 'completed',
      steps: { 'split-dns': { status: 'completed', attempts: 1 } },
    };
    const f = fakeContext({}, state);
    expect(await runLockdown(f.ctx, config, 'unlock', f.wait)).toEqual({ ok: true });
    expect(f.applies.map((a) => [a.unit, a.extraArgs.join(' '), a.logName])).toEqual([
      ['p/eks', '-var=public=true', 'unlock_0_private-endpoint'],
      ['p/tailscale', '-var=split_dns=false', 'unlock_1_split-dns'],
    ]);
  });

  it('starts no further step once the run was interrupted, and says which step did not run', async () => {
    const controller = new AbortController();
    const f = fakeContext({});
    const ctx: PhaseContext = {
      ...f.ctx,
      signal: controller.signal,
      apply: async (request) => {
        controller.abort();
        return f.ctx.apply(request);
      },
    };
    const result = await runLockdown(ctx, config, 'lock', f.wait);
    expect(result).toEqual({
      ok: false,
      message: 'lockdown step private-endpoint (p/eks) failed: interrupted',
      details: [
        'fix the cause, then platctl bootstrap --resume continues the lockdown at this step (or platctl lockdown)',
      ],
    });
    expect(f.applies.map((a) => a.unit)).toEqual(['p/tailscale']);
    expect(f.current.lockdown).toMatchObject({ status: 'failed', steps: { 'split-dns': { status: 'completed' } } });
    expect(f.current.lockdown?.steps['private-endpoint']).toBeUndefined();
  });

  it('does not mistake a timeout for "already done"', () => {
    expect(
      judgeStep({
        outcome: { type: 'failed', reason: 'timeout', message: 'timed out' },
        output: ['already at the desired configuration'],
        errorLine: undefined,
      }),
    ).toEqual({ type: 'failed', message: 'timed out' });
  });
});

describe('standaloneSteps', () => {
  it('gives the configured steps, or says there is nothing to lock down or unlock and where to add them', () => {
    expect(standaloneSteps({ lockdown: config }, '/r/.platctl.yaml', 'lock')).toEqual({ ok: true, value: config });
    const none = standaloneSteps({ lockdown: { ...config, steps: [] } }, '/r/.platctl.yaml', 'unlock');
    expect(none).toMatchObject({
      ok: false,
      reason: 'no-lockdown-steps',
      message: '/r/.platctl.yaml has no lockdown steps, so there is nothing to unlock.',
    });
    expect(standaloneSteps({}, '/r/.platctl.yaml', 'lock')).toMatchObject({
      message: '/r/.platctl.yaml has no lockdown steps, so there is nothing to lock down.',
    });
  });
});
