/**
 * Lockdown and unlock: after a complete bootstrap, the configured steps re-apply their units with `lock_args`, in
 * order (private EKS endpoint, split DNS); before a teardown, the same steps apply `unlock_args` in reverse order
 * (the public endpoint is the only way to reach the cluster once Tailscale goes away).
 *
 * A step is retried, `retry.interval` apart and up to `retry.attempts` tries, only when its output shows a transient
 * EKS error (another update of the cluster is still running). EKS refusing an update because the cluster is already
 * at the desired configuration counts as success. Any other failure stops the phase. Each step's progress is recorded
 * in the state (`lockdown.steps`), so `bootstrap --resume` (or `teardown --resume`) continues where it stopped.
 */
import type { PlatctlConfig } from '../config/schema.js';
import type { LockDirection, WalkEvent } from './events.js';
import type { Executor } from './executor.js';
import type { UnitId } from './graph.js';
import type { LockEnvironment } from './lock.js';
import { FsError } from './fs-errors.js';
import { acquireLock, lockRefusal } from './lock.js';
import { LOGS_DIR, prepareRunLogs } from './logs.js';
import type { PhaseApplyResult, PhaseContext, PhaseResult } from './phases.js';
import type { Redactor } from './redact.js';
import { makeRunId, phaseApply } from './run.js';
import type { LockStepRecord, LockdownRecord, PhaseRecords } from './state.js';
import { abortableSleep } from './timers.js';

export type LockdownConfig = NonNullable<PlatctlConfig['lockdown']>;
export type LockdownStep = LockdownConfig['steps'][number];

/** EKS errors that go away on their own: an update is still in progress on the cluster. */
const TRANSIENT = [/ResourceInUseException/, /\bupdate\b.*\bin progress\b/i];
/** EKS's answer to an update that changes nothing: the step's goal is already reached. */
const ALREADY_DONE = /already at the desired configuration/i;

/** How one try of a step ended, read from its apply. */
export type StepVerdict =
  | { readonly type: 'done'; readonly note?: string }
  | { readonly type: 'transient'; readonly line: string }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'interrupted' };

/** Classifies one apply of a step (pure). */
export function judgeStep(result: Pick<PhaseApplyResult, 'outcome' | 'output' | 'errorLine'>): StepVerdict {
  const { outcome } = result;
  if (outcome.type === 'completed') return { type: 'done' };
  if (outcome.type === 'interrupted') return { type: 'interrupted' };
  const already = result.output.find((line) => ALREADY_DONE.test(line));
  if (already !== undefined && outcome.reason === 'exit-non-zero') {
    return { type: 'done', note: 'already at the desired configuration' };
  }
  if (outcome.reason === 'exit-non-zero') {
    const transient = result.output.find((line) => TRANSIENT.some((pattern) => pattern.test(line)));
    if (transient !== undefined) return { type: 'transient', line: transient.trim() };
  }
  const line = result.errorLine;
  return { type: 'failed', message: line ? `${outcome.message}: ${line}` : outcome.message };
}

/** The steps of a direction, in the order they run. */
export function stepsFor(config: LockdownConfig, direction: LockDirection): readonly LockdownStep[] {
  return direction === 'lock' ? config.steps : [...config.steps].reverse();
}

/** The extra arguments of a step's apply in a direction. */
export function argsFor(step: LockdownStep, direction: LockDirection): readonly string[] {
  return (direction === 'lock' ? step.lock_args : step.unlock_args) ?? [];
}

/** Waits `ms`, or less when `signal` aborts. */
export const sleep = abortableSleep;

/** Runs the lockdown (or unlock) phase; steps a resumed run already finished in this direction are not run again. */
export async function runLockdown(
  ctx: PhaseContext,
  config: LockdownConfig,
  direction: LockDirection,
  wait: (ms: number, signal: AbortSignal) => Promise<void> = sleep,
): Promise<PhaseResult> {
  const earlier = ctx.records().lockdown;
  const record: LockdownRecord = {
    direction,
    status: 'running',
    steps: earlier?.direction === direction ? { ...earlier.steps } : {},
  };
  const save = (id: string, step: LockStepRecord): Promise<void> => {
    record.steps[id] = step;
    return ctx.record({ lockdown: { ...record, steps: { ...record.steps } } });
  };
  await ctx.record({ lockdown: { ...record } });
  const attempts = config.retry?.attempts ?? 1;
  const interval = config.retry?.interval ?? 30_000;
  const what = direction === 'lock' ? 'lockdown' : 'unlock';
  const steps = stepsFor(config, direction);
  for (const [index, step] of steps.entries()) {
    if (record.steps[step.id]?.status === 'completed') continue;
    const logName = `${what}_${index}_${step.id}`;
    for (let attempt = 1; ; attempt += 1) {
      const started = ctx.now();
      await save(step.id, { status: 'running', attempts: attempt });
      ctx.emit({
        type: 'lockdown-step-started',
        at: new Date(started).toISOString(),
        direction,
        step: step.id,
        unit: step.unit,
        attempt,
        attempts,
        log: `${LOGS_DIR}/${ctx.runId}/${logName}.log`,
      });
      const result = await ctx.apply({
        unit: step.unit,
        extraArgs: argsFor(step, direction),
        logName,
        title: `${what} step ${step.id}`,
        attempt,
      });
      const verdict = judgeStep(result);
      const base = {
        direction,
        step: step.id,
        unit: step.unit,
        attempt,
        duration_ms: Math.max(0, ctx.now() - started),
        log: result.log,
      };
      const at = new Date(ctx.now()).toISOString();
      if (verdict.type === 'done') {
        await save(step.id, { status: 'completed', attempts: attempt, ended_at: at, log: result.log });
        ctx.emit({
          type: 'lockdown-step-finished',
          at,
          ...base,
          result: 'completed',
          ...(verdict.note ? { message: verdict.note } : {}),
        });
        break;
      }
      if (verdict.type === 'transient' && attempt < attempts && !ctx.signal.aborted) {
        ctx.emit({
          type: 'lockdown-step-finished',
          at,
          ...base,
          result: 'retrying',
          message: `${verdict.line}; trying again in ${Math.round(interval / 1000)}s (attempt ${attempt + 1} of ${attempts})`,
        });
        await wait(interval, ctx.signal);
        if (!ctx.signal.aborted) continue;
      }
      const error =
        verdict.type === 'interrupted' || ctx.signal.aborted
          ? 'interrupted'
          : verdict.type === 'transient'
            ? `${verdict.line} (still after ${attempt} attempt${attempt === 1 ? '' : 's'}; raise lockdown.retry.attempts if the cluster needs longer)`
            : verdict.message;
      await save(step.id, { status: 'failed', attempts: attempt, ended_at: at, error, log: result.log });
      record.status = 'failed';
      await ctx.record({ lockdown: { ...record, steps: { ...record.steps } } });
      ctx.emit({
        type: 'lockdown-step-finished',
        at,
        ...base,
        result: error === 'interrupted' ? 'interrupted' : 'failed',
        message: error,
      });
      const resume = `platctl ${ctx.command} --resume`;
      return {
        ok: false,
        message: `${what} step ${step.id} (${step.unit}) failed: ${error}`,
        details: [
          `log: ${result.log}`,
          direction === 'lock'
            ? `fix the cause, then ${resume} continues the lockdown at this step (or platctl lockdown)`
            : `nothing was destroyed; fix the cause, then ${resume} (or platctl lockdown --undo, then teardown)`,
        ],
      };
    }
  }
  record.status = 'completed';
  await ctx.record({ lockdown: { ...record, steps: { ...record.steps } } });
  return { ok: true };
}

export interface StandaloneLockdown {
  readonly root: string;
  readonly config: PlatctlConfig;
  readonly lockdown: LockdownConfig;
  readonly direction: LockDirection;
  readonly absDir: (unit: UnitId) => string;
  /** The command line as typed, for the lock file. */
  readonly commandLine: string;
}

export interface StandaloneDeps {
  readonly now: () => number;
  readonly machine: LockEnvironment;
  readonly executor: (runId: string) => Executor;
  readonly signal: AbortSignal;
  readonly emit: (event: WalkEvent) => void;
  readonly redactor: Redactor;
  readonly newRunId?: () => string;
  /** Waits between tries (tests pass a fake). */
  readonly wait?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type StandaloneResult =
  | { readonly type: 'finished'; readonly runId: string; readonly result: PhaseResult }
  | { readonly type: 'refused'; readonly message: string; readonly details: readonly string[]; readonly hint: string };

/**
 * `platctl lockdown [--undo]`: the phase on its own, under the repository lock, with its logs in a run directory of
 * its own. It is not a bootstrap or teardown run, so it leaves `.platctl-state.json` alone (the run recorded there
 * stays resumable) and always runs every step.
 */
export async function executeLockdown(request: StandaloneLockdown, deps: StandaloneDeps): Promise<StandaloneResult> {
  const iso = (): string => new Date(deps.now()).toISOString();
  const locked = await acquireLock(request.root, { command: request.commandLine, startedAt: iso() }, deps.machine);
  if (locked.type !== 'acquired') {
    const { message, details, hint } = lockRefusal(locked, request.root, deps.machine.host);
    return { type: 'refused', message, details, hint: hint ?? DISK_HINT };
  }
  try {
    const runId = (deps.newRunId ?? (() => makeRunId(deps.now())))();
    try {
      await prepareRunLogs(request.root, runId);
    } catch (error) {
      if (!(error instanceof FsError)) throw error;
      return { type: 'refused', message: `${error.message}; nothing was run`, details: [], hint: DISK_HINT };
    }
    const records: PhaseRecords = {};
    const executor = deps.executor(runId);
    const ctx: PhaseContext = {
      command: request.direction === 'lock' ? 'bootstrap' : 'teardown',
      runId,
      partial: false,
      signal: deps.signal,
      now: deps.now,
      emit: deps.emit,
      records: () => records,
      record: (patch) => {
        Object.assign(records, patch);
        return Promise.resolve();
      },
      apply: phaseApply({
        ...request,
        runId,
        executor,
        redactor: deps.redactor,
        now: deps.now,
        signal: deps.signal,
        warn: (message) => deps.emit({ type: 'warning', at: iso(), message }),
      }),
    };
    const result = await runLockdown(ctx, request.lockdown, request.direction, deps.wait);
    return { type: 'finished', runId, result: standaloneAdvice(result, request.direction) };
  } finally {
    const problem = await locked.lock.release();
    if (problem) deps.emit({ type: 'warning', at: iso(), message: problem });
  }
}

const DISK_HINT = 'make the repository writable (or free space on its disk), then run it again';

/** A standalone run has no `--resume`: point at itself instead. */
function standaloneAdvice(result: PhaseResult, direction: LockDirection): PhaseResult {
  if (result.ok) return result;
  const again = direction === 'lock' ? 'platctl lockdown' : 'platctl lockdown --undo';
  return {
    ok: false,
    message: result.message,
    details: [result.details?.[0] ?? '', `fix the cause, then run ${again} again`].filter((d) => d !== ''),
  };
}
