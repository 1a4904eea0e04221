/**
 * The one runner of ordered, resumable steps. Lockdown and unlock (engine/lockdown.ts) and park's `down` and `up`
 * (park/run.ts) are each a list of {@link Step}s run here; `--dry-run` describes the same list, in the same order.
 *
 * What stays with each caller is its journal (how it knows a step completed, how it records a step's start and end:
 * lockdown's `lockdown.steps` in the run state, park's `.platctl-park/<env>.json`, each in its own on-disk format) and
 * how it shows progress (the runner's events, translated into the caller's own). The runner owns the order: skip what
 * the journal says completed, stop before a step when the run's signal aborted or its lock is lost, record each try's
 * start and end, retry a try that failed transiently under the step's policy (the wait between tries is the one
 * abortable sleep: a Ctrl-C ends it at once), and stop at the first failure.
 *
 * Expected failures are values (`F`); an exception from a step is a bug and propagates, after the journal saw the
 * step start (the caller records where it happened).
 */
import type { Clock } from './waits.js';
import { systemClock } from './waits.js';

/** How often a step is tried when a try fails transiently: `attempts` tries in all, `intervalMs` apart. */
export interface RetryPolicy {
  readonly attempts: number;
  readonly intervalMs: number;
}

/** One try, no retry: the policy of a step that says none. */
export const ONCE: RetryPolicy = { attempts: 1, intervalMs: 0 };

/** How one try of a step ended. Only a failure marked `transient` is tried again (under the step's policy). */
export type TryResult<D, F> =
  { readonly ok: true; readonly value: D } | { readonly ok: false; readonly failure: F; readonly transient?: boolean };

/**
 * A step: a name (its key in the journal), `run` (idempotent: running it again after it completed, or after a kill
 * half way, is a success), its retry policy, what it is to its caller (`about`, handed back in every event), and
 * `describe` for `--dry-run` (reads only).
 */
export interface Step<D, F, M, X = never> {
  readonly name: string;
  readonly about: M;
  readonly retry?: RetryPolicy;
  readonly run: (attempt: number) => Promise<TryResult<D, F>>;
  readonly describe?: () => Promise<X>;
}

/** The final end of a step's try (a try that will be retried is not final). `at` and durations from `now()`. */
export type StepEnd<D, F> =
  | {
      readonly type: 'done';
      readonly attempt: number;
      readonly at: number;
      readonly durationMs: number;
      readonly value: D;
    }
  | {
      readonly type: 'failed';
      readonly attempt: number;
      readonly at: number;
      readonly durationMs: number;
      readonly failure: F;
    };

/** The caller's journal: it keeps its own format; the runner only asks and tells. */
export interface StepJournal<D, F> {
  /** The step completed in this run or in the run it resumes: it is skipped. */
  completed(name: string): boolean;
  /** A try begins at `at`: recorded before the step runs, so a crash never looks like success. */
  started(name: string, attempt: number, at: number): Promise<void>;
  /** A step's last try ended. */
  ended(name: string, end: StepEnd<D, F>): Promise<void>;
}

export type StepEvent<D, F, M> =
  | { readonly type: 'skipped'; readonly step: string; readonly about: M }
  | {
      readonly type: 'started';
      readonly step: string;
      readonly about: M;
      readonly attempt: number;
      readonly attempts: number;
      readonly at: number;
    }
  | {
      readonly type: 'retrying';
      readonly step: string;
      readonly about: M;
      readonly attempt: number;
      readonly attempts: number;
      readonly at: number;
      readonly durationMs: number;
      readonly failure: F;
      readonly waitMs: number;
    }
  | ({ readonly step: string; readonly about: M } & StepEnd<D, F>);

/** How a list of steps ended: `step` is where it stopped. */
export type StepsOutcome<F> =
  | { readonly type: 'completed' }
  | { readonly type: 'failed'; readonly step: string; readonly attempt: number; readonly failure: F }
  /** The signal aborted before `step` started: it did not start. */
  | { readonly type: 'interrupted'; readonly step: string }
  /** The fence said the lock is lost before `step` started: it did not start. */
  | { readonly type: 'fenced'; readonly step: string };

export interface StepRunOptions<D, F, M> {
  readonly journal: StepJournal<D, F>;
  readonly signal: AbortSignal;
  /**
   * "Is the lock still ours?", asked before each step starts (not before a retry: a step's own changes ask their
   * fence themselves). Absent: the run has no lock it can lose.
   */
  readonly fence?: () => Promise<boolean>;
  readonly now: () => number;
  /** The wait between tries (default: the system clock's abortable sleep; tests pass their own). */
  readonly sleep?: Clock['sleep'];
  readonly emit?: (event: StepEvent<D, F, M>) => void;
}

/** Runs `steps` in order, skipping what the journal says completed; stops at the first failure, abort or lost lock. */
export async function runSteps<D, F, M>(
  steps: readonly Step<D, F, M, unknown>[],
  options: StepRunOptions<D, F, M>,
): Promise<StepsOutcome<F>> {
  const { journal, signal } = options;
  const emit = options.emit ?? ((): void => undefined);
  for (const step of steps) {
    if (journal.completed(step.name)) {
      emit({ type: 'skipped', step: step.name, about: step.about });
      continue;
    }
    if (signal.aborted) return { type: 'interrupted', step: step.name };
    if (options.fence && !(await options.fence())) return { type: 'fenced', step: step.name };
    const end = await runStep(step, options, emit);
    if (end.type === 'failed') return { type: 'failed', step: step.name, attempt: end.attempt, failure: end.failure };
  }
  return { type: 'completed' };
}

/** One step, tried until it is done, fails for good, runs out of tries or the signal aborts. */
async function runStep<D, F, M>(
  step: Step<D, F, M, unknown>,
  options: StepRunOptions<D, F, M>,
  emit: (event: StepEvent<D, F, M>) => void,
): Promise<StepEnd<D, F>> {
  const { journal, signal, now } = options;
  const policy = step.retry ?? ONCE;
  const sleep = options.sleep ?? ((ms: number, s: AbortSignal) => systemClock.sleep(ms, s));
  const named = { step: step.name, about: step.about };
  for (let attempt = 1; ; attempt += 1) {
    const began = now();
    await journal.started(step.name, attempt, began);
    emit({ type: 'started', ...named, attempt, attempts: policy.attempts, at: began });
    const result = await step.run(attempt);
    const at = now();
    const durationMs = Math.max(0, at - began);
    if (!result.ok && result.transient === true && attempt < policy.attempts && !signal.aborted) {
      const { failure } = result;
      emit({
        type: 'retrying',
        ...named,
        attempt,
        attempts: policy.attempts,
        at,
        durationMs,
        failure,
        waitMs: policy.intervalMs,
      });
      await sleep(policy.intervalMs, signal);
      if (!signal.aborted) continue;
    }
    const end: StepEnd<D, F> = result.ok
      ? { type: 'done', attempt, at, durationMs, value: result.value }
      : { type: 'failed', attempt, at, durationMs, failure: result.failure };
    await journal.ended(step.name, end);
    emit({ ...named, ...end });
    return end;
  }
}

/** Each step with its description, in the order {@link runSteps} runs them; the caller stops reading when it likes. */
export async function* describeSteps<M, X>(
  steps: readonly Step<unknown, unknown, M, X>[],
): AsyncGenerator<{ readonly step: string; readonly about: M; readonly description: X | undefined }> {
  for (const step of steps) {
    yield { step: step.name, about: step.about, description: step.describe ? await step.describe() : undefined };
  }
}
