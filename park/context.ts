/**
 * What every park step gets, and what it returns. A step is data: a name, a title, `describe` (what it would touch,
 * read-only, for `--dry-run`) and `run` (idempotent: running it again after it completed, or after it was killed half
 * way, is a success). Steps return values; they never throw for a failure someone can cause.
 */
import type { Failure, Result } from '../config/result.js';
import { failure, ok } from '../config/result.js';
import type { EnvironmentConfig, ParkConfig } from '../config/schema.js';
import type { EnvCloud } from '../cloud/environment.js';
import type { KubeWriter } from '../cloud/kube-writer.js';
import type { NodeGroupSize, ParkAws, WaitOptions } from '../cloud/park-aws.js';
import type { CloudFailureReason, CloudResult } from '../cloud/result.js';
import type { Clock } from '../engine/waits.js';
import { poll } from '../engine/waits.js';
import type { ParkOp, ParkRecord, RecordStore } from './record.js';

export interface ParkContext {
  readonly env: string;
  readonly op: ParkOp;
  readonly cluster: string;
  readonly settings: EnvironmentConfig;
  readonly park: ParkConfig;
  readonly cloud: EnvCloud;
  readonly aws: ParkAws;
  /** The cluster's API, built on first use. */
  readonly kube: () => Promise<CloudResult<KubeWriter>>;
  readonly records: RecordStore;
  /** Re-applies configured units through the engine's executor; undefined when this command configures none. */
  readonly units: UnitApplier | undefined;
  /** The record this run works from: set by `down`'s record step, read by `up` before its first step. */
  record: ParkRecord | undefined;
  readonly who: { readonly host: string; readonly user: string; arn?: string };
  /** Time; every wait goes through it (see `engine/waits.ts`) and ends on the run's signal. */
  readonly clock: Clock;
  readonly now: () => number;
  /** Aborted on the first SIGINT/SIGTERM: no step starts, no wait goes on, nothing more is changed. */
  readonly signal: AbortSignal;
  /** `down --restore-size`: the sizes to record for node groups already at 0 when there is no parked record. */
  readonly restoreSizes?: Readonly<Record<string, NodeGroupSize>> | undefined;
}

/** Why a step failed; `auth` (expired or rejected credentials) stops the whole command at once. */
export type StepFailureReason =
  | CloudFailureReason
  | 'stuck'
  | 'not-zero'
  | 'mismatch'
  | 'not-ready'
  | 'not-parked'
  | 'apply-failed'
  | 'interrupted'
  | 'fenced';

/** How one `terragrunt apply` of a unit ended; `log` is its log file, relative to the repository root. */
export type UnitApplyResult =
  | { readonly ok: true; readonly log: string }
  | {
      readonly ok: false;
      readonly reason: 'apply-failed' | 'interrupted' | 'fenced';
      readonly message: string;
      readonly log: string;
      readonly lastLines: readonly string[];
    };

/**
 * Applies one unit (`terragrunt apply`, through the engine's executor: the unit's `apply_args` and timeout, a log
 * file, the same redaction). Built by the CLI, which checked every configured unit before anything ran.
 */
export interface UnitApplier {
  /** The command line an apply runs, for `--dry-run`. */
  commandLine(unit: string, tfArgs: readonly string[]): string;
  apply(unit: string, tfArgs: readonly string[], signal: AbortSignal): Promise<UnitApplyResult>;
}

/** Why a step failed: the one result type's failure (config/result.ts) with a step's reasons. */
export type StepFailure = Failure<StepFailureReason>;

/** How a step ended: its detail (one line for people: what it did), or why it failed. */
export type StepResult = Result<string, StepFailure>;

export interface ParkStep {
  readonly name: string;
  readonly title: string;
  /** What the step would touch, as it is now; reads only. */
  readonly describe: (ctx: ParkContext) => Promise<CloudResult<string[]>>;
  readonly run: (ctx: ParkContext) => Promise<StepResult>;
}

export function done(detail: string): StepResult {
  return ok(detail);
}

export function failed(reason: StepFailureReason, message: string, hint?: string): StepFailure {
  return failure(reason, message, hint);
}

/** A cloud failure as a step failure. */
export function fromCloud(result: { reason: CloudFailureReason; message: string; hint?: string }): StepFailure {
  return failed(result.reason, result.message, result.hint);
}

/** A record write refused because the run lost its environment lock: nothing was written to the shared store. */
export function lostLock(ctx: ParkContext): StepFailure {
  return failed(
    'fenced',
    `the environment lock of ${ctx.env} was lost: the park record at ${ctx.records.location} was not written`,
    'the local journal has every finished step; once the lock is free (or stale), --resume continues from here',
  );
}

/** How often to poll something bounded by `timeoutMs`: a twentieth of it, between 50 ms and 10 s. */
export function pollInterval(timeoutMs: number): number {
  return Math.min(10_000, Math.max(50, Math.floor(timeoutMs / 20)));
}

export function waitOptions(ctx: ParkContext, timeoutMs: number): WaitOptions {
  return { timeoutMs, pollMs: pollInterval(timeoutMs), clock: ctx.clock, signal: ctx.signal };
}

/** The failure of a step the run's signal stopped: `where` says what it was doing, `state` what it left. */
export function interrupted(ctx: ParkContext, where: string, state?: string): StepFailure {
  const signal = typeof ctx.signal.reason === 'string' ? ctx.signal.reason : 'a signal';
  return failed(
    'interrupted',
    `interrupted (${signal}) ${where}${state ? `: ${state}` : ''}`,
    `nothing more was changed; platctl ${ctx.op} --resume continues from this step`,
  );
}

/**
 * Polls `check` until it says done, fails, or `timeoutMs` passes; then `onTimeout` builds the failure from the last
 * answer. An aborted run (a signal) stops waiting at once.
 */
export async function pollUntil<T>(
  ctx: ParkContext,
  timeoutMs: number,
  check: () => Promise<CloudResult<{ done: boolean; value: T }>>,
  onTimeout: (last: T) => StepFailure,
): Promise<StepFailure | { ok: true; value: T }> {
  const outcome = await poll<T, StepFailure>({
    clock: ctx.clock,
    signal: ctx.signal,
    timeoutMs,
    intervalMs: pollInterval(timeoutMs),
    check: async () => {
      const answer = await check();
      return answer.ok ? answer.value : { failure: fromCloud(answer) };
    },
  });
  switch (outcome.type) {
    case 'done':
      return { ok: true, value: outcome.value };
    case 'failed':
      return ctx.signal.aborted ? interrupted(ctx, 'while waiting') : outcome.failure;
    case 'aborted':
      return interrupted(ctx, 'while waiting');
    case 'timeout':
      return onTimeout(outcome.last);
  }
}

/** Applies `unit` with `tfArgs` through `ctx.units`, as a step failure or the log it wrote. */
export async function applyUnit(
  ctx: ParkContext,
  unit: string,
  tfArgs: readonly string[],
): Promise<StepFailure | { ok: true; log: string }> {
  if (!ctx.units) throw new Error(`park: ${unit} is configured but no unit applier was built`); // a bug: the CLI builds it
  const applied = await ctx.units.apply(unit, tfArgs, ctx.signal);
  if (applied.ok) return applied;
  if (applied.reason === 'interrupted') return failed('interrupted', `interrupted while applying ${unit}`);
  const tail = applied.lastLines.length > 0 ? `\n${applied.lastLines.map((l) => `    ${l}`).join('\n')}` : '';
  return failed(
    'apply-failed',
    `terragrunt apply of ${unit} failed: ${applied.message} (log: ${applied.log})${tail}`,
    `read the log, fix ${unit}, then run platctl ${ctx.op} --resume`,
  );
}

/** `12s`, `3m05s`: the steps' details say durations as their reporter (engine/reporters/park.ts) does. */
export { formatStepDuration as formatDuration } from '../engine/reporters/park.js';

/** `a, b and 3 more`. */
export function listSome(items: readonly string[], max = 8): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}
