/**
 * The convergence phase: after bootstrap applied every selected unit and before lockdown, wait until the platform
 * settles (Argo CD Applications Synced and Healthy, CRDs Established, workloads Available, endpoints answering).
 * Each wait is bounded by its own timeout, looks every `converge.interval` through engine/waits.ts (so the first
 * Ctrl-C ends it at once, and tests move a clock instead of waiting), says what is still not ready and for how long,
 * and records its outcome in the run state: `bootstrap --resume` looks again only at the waits that had not passed.
 *
 * A wait that does not pass in time fails the run (exit 1) naming every object not ready with its conditions and
 * messages; nothing is rolled back (the cloud is fine, and what did not settle is what needs diagnosing).
 */
import type { ConvergeConfig } from '../config/schema.js';
import type { WalkEvent } from '../engine/events.js';
import { formatDuration } from '../engine/logs.js';
import type { PhaseContext, PhaseResult } from '../engine/phases.js';
import type { ConvergeRecord, ConvergeWaitRecord } from '../engine/state.js';
import type { Clock } from '../engine/waits.js';
import { poll, systemClock } from '../engine/waits.js';
import type { CheckOutcome } from '../validate/types.js';
import type { WaitLook } from './checks.js';
import type { PlannedWait } from './plan.js';
import { planWaits } from './plan.js';

/** Say a wait that is still not ready again after this long, even when nothing changed. */
export const REPORT_EVERY_MS = 60_000;

export interface ConvergeDeps {
  readonly look: WaitLook;
  readonly clock?: Clock;
  readonly reportEveryMs?: number;
}

/** Runs the configured waits in order; stops at the first that does not pass. */
export async function runConvergence(
  ctx: PhaseContext,
  config: ConvergeConfig,
  environments: readonly string[],
  deps: ConvergeDeps,
): Promise<PhaseResult> {
  const clock = deps.clock ?? systemClock;
  const earlier = ctx.records().converge?.waits ?? {};
  const planned = planWaits({
    converge: config,
    environments,
    unitStatus: ctx.unitStatus ?? (() => undefined),
    partial: ctx.partial,
    earlier,
  });
  const waits: Record<string, ConvergeWaitRecord> = { ...earlier };
  const save = (status: ConvergeRecord['status']): Promise<void> =>
    ctx.record({ converge: { status, waits: { ...waits } } });
  const at = (): string => new Date(ctx.now()).toISOString();
  await save('running');
  for (const wait of planned) {
    if (wait.decision === 'passed') continue;
    if (wait.decision === 'not-applied') {
      const reason = wait.reason ?? 'not applied by this run';
      waits[wait.id] = { status: 'skipped', error: reason };
      ctx.emit({
        type: 'converge-wait-finished',
        at: at(),
        wait: wait.id,
        result: 'skipped',
        waited_ms: 0,
        message: reason,
      });
      continue;
    }
    waits[wait.id] = { status: 'running' };
    await save('running');
    const ended = await runWait(ctx, wait, config.interval, { ...deps, clock });
    waits[wait.id] = { ...ended.record, ended_at: at() };
    if (ended.record.status !== 'passed') {
      const status = ended.record.status === 'interrupted' ? 'interrupted' : 'failed';
      await save(status);
      return {
        ok: false,
        message: `convergence ${status === 'failed' ? 'failed' : 'interrupted'} at wait ${wait.id}: ${ended.record.error ?? ''}`,
        ...(ended.record.details ? { details: ended.record.details } : {}),
      };
    }
    await save('running');
  }
  await save('completed');
  return { ok: true };
}

/** Looks until ready, failed, timed out or interrupted; reports progress and the outcome as events. */
async function runWait(
  ctx: PhaseContext,
  wait: PlannedWait,
  intervalMs: number,
  deps: ConvergeDeps & { readonly clock: Clock },
): Promise<{ record: ConvergeWaitRecord }> {
  const { clock } = deps;
  const at = (): string => new Date(ctx.now()).toISOString();
  const emit = (event: WalkEvent): void => ctx.emit(event);
  const started = clock.now();
  const reportEvery = deps.reportEveryMs ?? REPORT_EVERY_MS;
  let lastSaid: { text: string; at: number } | undefined;
  emit({ type: 'converge-wait-started', at: at(), wait: wait.id, what: wait.what, timeout_ms: wait.timeoutMs });
  const outcome = await poll<CheckOutcome, CheckOutcome>({
    clock,
    signal: ctx.signal,
    timeoutMs: wait.timeoutMs,
    intervalMs,
    check: async () => {
      const seen = await deps.look(wait.wait, wait.env, ctx.signal);
      if (seen.status === 'pass') return { done: true, value: seen };
      // `error`: the look itself failed (credentials, permission, configuration): waiting longer cannot help.
      if (seen.status === 'error' && !ctx.signal.aborted) return { failure: seen };
      const text = [seen.message, ...(seen.details ?? [])].join('\n');
      const now = clock.now();
      if (lastSaid === undefined || lastSaid.text !== text || now - lastSaid.at >= reportEvery) {
        lastSaid = { text, at: now };
        emit({
          type: 'converge-wait-progress',
          at: at(),
          wait: wait.id,
          waited_ms: now - started,
          timeout_ms: wait.timeoutMs,
          message: seen.message,
          details: seen.details ?? [],
        });
      }
      return { done: false, value: seen };
    },
  });
  const waited = outcome.waitedMs;
  const finish = (
    result: 'passed' | 'failed' | 'interrupted',
    record: ConvergeWaitRecord,
  ): { record: ConvergeWaitRecord } => {
    emit({
      type: 'converge-wait-finished',
      at: at(),
      wait: wait.id,
      result,
      waited_ms: waited,
      ...(record.error === undefined ? {} : { message: record.error }),
      ...(record.details === undefined ? {} : { details: record.details }),
    });
    return { record };
  };
  switch (outcome.type) {
    case 'done':
      return finish('passed', { status: 'passed', waited_ms: waited });
    case 'failed':
      return finish('failed', failedRecord(outcome.failure, waited, 'cannot look'));
    case 'timeout':
      return finish(
        'failed',
        failedRecord(outcome.last, waited, `not ready after ${formatDuration(wait.timeoutMs)} (converge timeout)`),
      );
    case 'aborted':
      return finish('interrupted', {
        status: 'interrupted',
        waited_ms: waited,
        error: `interrupted after ${formatDuration(waited)}${outcome.last ? `: ${outcome.last.message}` : ''}`,
        ...(outcome.last?.details ? { details: [...outcome.last.details] } : {}),
      });
  }
}

function failedRecord(seen: CheckOutcome, waited: number, why: string): ConvergeWaitRecord {
  const hint = seen.hint === undefined ? [] : [`hint: ${seen.hint}`];
  const details = [...(seen.details ?? []), ...hint];
  return {
    status: 'failed',
    waited_ms: waited,
    error: `${why}: ${seen.message}`,
    ...(details.length > 0 ? { details } : {}),
  };
}
