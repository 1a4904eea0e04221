/**
 * Lockdown and unlock: after a complete bootstrap, the configured steps re-apply their units with `lock_args`, in
 * order (private EKS endpoint, split DNS); before a teardown, the same steps apply `unlock_args` in reverse order
 * (the public endpoint is the only way to reach the cluster once Tailscale goes away).
 *
 * A step is retried, `retry.interval` apart and up to `retry.attempts` tries, only when its output shows a transient
 * EKS error (another update of the cluster is still running). EKS refusing an update because the cluster is already
 * at the desired configuration counts as success. Any other failure stops the phase. Each step's progress is recorded
 * in the state (`lockdown.steps`), so `bootstrap --resume` (or `teardown --resume`) continues where it stopped. The
 * steps run on the one runner of ordered, resumable steps (engine/steps.ts), with `lockdown.steps` as its journal.
 */
import type { Failure, Result } from '../config/result.js';
import { ok } from '../config/result.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { LockDirection, WalkEvent } from './events.js';
import type { Executor } from './executor.js';
import type { UnitId } from './graph.js';
import type { LockEnvironment } from './lock.js';
import { FsError } from './fs-errors.js';
import { acquireLock, lockRefusal } from './lock.js';
import { LOGS_DIR, formatCommandLine, prepareRunLogs } from './logs.js';
import type { PhaseApplyResult, PhaseContext, PhaseResult } from './phases.js';
import type { Redactor } from './redact.js';
import { makeRunId, phaseApply } from './run.js';
import type { LockStepRecord, LockdownRecord, PhaseRecords } from './state.js';
import type { Step, StepEvent, StepJournal, TryResult } from './steps.js';
import { describeSteps, runSteps } from './steps.js';
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
function stepsFor(config: LockdownConfig, direction: LockDirection): readonly LockdownStep[] {
  return direction === 'lock' ? config.steps : [...config.steps].reverse();
}

/** The extra arguments of a step's apply in a direction. */
function argsFor(step: LockdownStep, direction: LockDirection): readonly string[] {
  return (direction === 'lock' ? step.lock_args : step.unlock_args) ?? [];
}

/** Waits `ms`, or less when `signal` aborts. */
export const sleep = abortableSleep;

/** What a step's apply left: its log, and why it counts as done when it did not exit 0. */
interface LockTry {
  readonly log: string;
  readonly note?: string;
}

/** Why a step's last try failed. */
type LockFailure = { readonly log: string; readonly verdict: Exclude<StepVerdict, { type: 'done' }> };

/** A lockdown step as the runner of engine/steps.ts sees it. */
interface LockAbout {
  readonly step: LockdownStep;
  readonly logName: string;
}

/** A lockdown step as `--dry-run` shows it: its unit's apply takes `args` after the unit's own `apply_args`. */
export interface LockStepPlan {
  readonly id: string;
  readonly unit: UnitId;
  readonly args: readonly string[];
}

/**
 * The steps of a direction as `--dry-run` shows them, described (engine/steps.ts `describeSteps`) from the same list
 * {@link runLockdown} runs, so the plan cannot drift from the run.
 */
export async function planLockdown(config: LockdownConfig, direction: LockDirection): Promise<LockStepPlan[]> {
  const apply = (): never => {
    throw new Error('lockdown: a dry run applies nothing'); // a bug
  };
  const out: LockStepPlan[] = [];
  for await (const { step, description } of describeSteps(lockdownSteps({ apply }, config, direction))) {
    if (!description) throw new Error(`lockdown: step ${step} has no description`); // a bug: every step has one
    out.push(description);
  }
  return out;
}

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
  const write = (): Promise<void> => ctx.record({ lockdown: { ...record, steps: { ...record.steps } } });
  await ctx.record({ lockdown: { ...record } });
  const steps = lockdownSteps(ctx, config, direction);
  const outcome = await runSteps(steps, {
    journal: lockdownJournal(record, write, ctx.signal),
    signal: ctx.signal,
    now: ctx.now,
    sleep: wait,
    emit: (event) => emitLockdownEvent(ctx, direction, record, event),
  });
  record.status = outcome.type === 'completed' ? 'completed' : 'failed';
  await write();
  if (outcome.type === 'completed') return { ok: true };
  const about = steps.find((s) => s.name === outcome.step)?.about;
  if (!about) throw new Error(`lockdown: step ${outcome.step} is not in the list`); // a bug
  const error = outcome.type === 'failed' ? (record.steps[outcome.step]?.error ?? 'failed') : 'interrupted';
  const log = outcome.type === 'failed' ? outcome.failure.log : undefined;
  return lockdownFailure(ctx, direction, about.step, error, log);
}

/**
 * Lockdown (unlock) as a phase of a bootstrap (teardown) run: a partial selection skips it, with a warning and a
 * `skipped` record, unless `force` (`--lockdown`): a few units do not make a finished platform.
 */
export async function lockdownPhase(
  ctx: PhaseContext,
  config: LockdownConfig,
  direction: LockDirection,
  options: { readonly force: boolean; readonly wait?: (ms: number, signal: AbortSignal) => Promise<void> },
): Promise<PhaseResult> {
  if (ctx.partial && !options.force) {
    const what = direction === 'lock' ? 'lockdown' : 'unlock';
    ctx.emit({
      type: 'warning',
      at: new Date(ctx.now()).toISOString(),
      message:
        `${what} skipped: this ${ctx.command} covers only part of the units; pass --lockdown to run it anyway, ` +
        `or run platctl lockdown${direction === 'unlock' ? ' --undo' : ''} on its own`,
    });
    await ctx.record({ lockdown: { direction, status: 'skipped', steps: {} } });
    return { ok: true };
  }
  return runLockdown(ctx, config, direction, options.wait);
}

/** The steps of a direction on the runner: each applies its unit with the direction's arguments. */
function lockdownSteps(
  ctx: Pick<PhaseContext, 'apply'>,
  config: LockdownConfig,
  direction: LockDirection,
): Step<LockTry, LockFailure, LockAbout, LockStepPlan>[] {
  const retry = { attempts: config.retry?.attempts ?? 1, intervalMs: config.retry?.interval ?? 30_000 };
  const what = direction === 'lock' ? 'lockdown' : 'unlock';
  return stepsFor(config, direction).map((step, index) => {
    const logName = `${what}_${index}_${step.id}`;
    const extraArgs = argsFor(step, direction);
    return {
      name: step.id,
      about: { step, logName },
      retry,
      describe: () => Promise.resolve({ id: step.id, unit: step.unit, args: extraArgs }),
      run: async (attempt): Promise<TryResult<LockTry, LockFailure>> => {
        const result = await ctx.apply({
          unit: step.unit,
          extraArgs,
          logName,
          title: `${what} step ${step.id}`,
          attempt,
        });
        const verdict = judgeStep(result);
        if (verdict.type === 'done')
          return { ok: true, value: { log: result.log, ...(verdict.note ? { note: verdict.note } : {}) } };
        return { ok: false, failure: { log: result.log, verdict }, transient: verdict.type === 'transient' };
      },
    };
  });
}

/** `lockdown.steps` in the run state as the runner's journal; a step's error is decided once, here. */
function lockdownJournal(
  record: LockdownRecord,
  write: () => Promise<void>,
  signal: AbortSignal,
): StepJournal<LockTry, LockFailure> {
  const save = (id: string, step: LockStepRecord): Promise<void> => {
    record.steps[id] = step;
    return write();
  };
  return {
    completed: (id) => record.steps[id]?.status === 'completed',
    started: (id, attempt) => save(id, { status: 'running', attempts: attempt }),
    ended: (id, end) => {
      const ended_at = new Date(end.at).toISOString();
      if (end.type === 'done')
        return save(id, { status: 'completed', attempts: end.attempt, ended_at, log: end.value.log });
      const error = lockError(end.failure.verdict, end.attempt, signal.aborted);
      return save(id, { status: 'failed', attempts: end.attempt, ended_at, error, log: end.failure.log });
    },
  };
}
/** A failed step's one line: interrupted, still transient after every try, or what failed. */
function lockError(verdict: LockFailure['verdict'], attempt: number, aborted: boolean): string {
  if (verdict.type === 'interrupted' || aborted) return 'interrupted';
  if (verdict.type === 'failed') return verdict.message;
  return `${verdict.line} (still after ${attempt} attempt${attempt === 1 ? '' : 's'}; raise lockdown.retry.attempts if the cluster needs longer)`;
}

/** The runner's events as lockdown's own (a skipped step says nothing). */
function emitLockdownEvent(
  ctx: PhaseContext,
  direction: LockDirection,
  record: LockdownRecord,
  event: StepEvent<LockTry, LockFailure, LockAbout>,
): void {
  const { step, logName } = event.about;
  if (event.type === 'skipped') return;
  const at = new Date(event.at).toISOString();
  const { attempt } = event;
  const ids = { direction, step: step.id, unit: step.unit, attempt };
  if (event.type === 'started') {
    const log = `${LOGS_DIR}/${ctx.runId}/${logName}.log`;
    ctx.emit({ type: 'lockdown-step-started', at, ...ids, attempts: event.attempts, log });
    return;
  }
  const finished = { type: 'lockdown-step-finished', at, ...ids, duration_ms: event.durationMs } as const;
  if (event.type === 'retrying') {
    const { verdict, log } = event.failure;
    const line = verdict.type === 'transient' ? verdict.line : '';
    const next = `trying again in ${Math.round(event.waitMs / 1000)}s (attempt ${attempt + 1} of ${event.attempts})`;
    ctx.emit({ ...finished, log, result: 'retrying', message: `${line}; ${next}` });
  } else if (event.type === 'done') {
    const { log, note } = event.value;
    ctx.emit({ ...finished, log, result: 'completed', ...(note ? { message: note } : {}) });
  } else {
    const error = record.steps[step.id]?.error ?? 'failed';
    const result = error === 'interrupted' ? 'interrupted' : 'failed';
    ctx.emit({ ...finished, log: event.failure.log, result, message: error });
  }
}

/** The phase's failure: which step, why, its log, and how to continue. */
function lockdownFailure(
  ctx: PhaseContext,
  direction: LockDirection,
  step: LockdownStep,
  error: string,
  log: string | undefined,
): PhaseResult {
  const what = direction === 'lock' ? 'lockdown' : 'unlock';
  const resume = `platctl ${ctx.command} --resume`;
  return {
    ok: false,
    message: `${what} step ${step.id} (${step.unit}) failed: ${error}`,
    details: [
      ...(log === undefined ? [] : [`log: ${log}`]),
      direction === 'lock'
        ? `fix the cause, then ${resume} continues the lockdown at this step (or platctl lockdown)`
        : `nothing was destroyed; fix the cause, then ${resume} (or platctl lockdown --undo, then teardown)`,
    ],
  };
}

/** The command line `platctl lockdown` records as its lock's command: `--undo` when it unlocks. */
export function lockdownInvocation(direction: LockDirection): string {
  return formatCommandLine(['platctl', 'lockdown', ...(direction === 'unlock' ? ['--undo'] : [])]);
}

/** `platctl lockdown`'s steps, or why there is nothing to run: a configuration without lockdown steps. */
export function standaloneSteps(
  config: Pick<PlatctlConfig, 'lockdown'>,
  configPath: string,
  direction: LockDirection,
): Result<LockdownConfig, Failure<'no-lockdown-steps'>> {
  const lockdown = config.lockdown;
  if (lockdown && lockdown.steps.length > 0) return ok(lockdown);
  return {
    ok: false,
    reason: 'no-lockdown-steps',
    message: `${configPath} has no lockdown steps, so there is nothing to ${direction === 'unlock' ? 'unlock' : 'lock down'}.`,
    hint: 'add them under lockdown.steps (docs/configuration.md#lockdown).',
  };
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
    // Keep the log line; the resume advice is the bootstrap's or teardown's, not this command's.
    details: [...(result.details ?? []).filter((d) => d.startsWith('log: ')), `fix the cause, then run ${again} again`],
  };
}
