/**
 * Waiting, one way for everyone: a sleep that the run's abort signal ends at once, and a poll loop bounded by a
 * deadline, over an injectable clock so tests move time instead of waiting for it. Every loop that waits on
 * something outside platctl (a node group update, NodeClaims going, a PodDisruptionBudget allowing an eviction)
 * goes through {@link poll}: it stops on the first Ctrl-C and never runs past its deadline.
 */

import { abortableSleep } from './timers.js';

/** Time as platctl sees it: tests inject one that advances on `sleep` instead of waiting. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` is (or becomes) aborted. Never rejects. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now(), sleep: abortableSleep };

/** One look at what is being waited for. */
export type PollAnswer<T, F> =
  | { readonly done: boolean; readonly value: T }
  /** Stop now: the look itself failed (an API refused, credentials rejected). */
  | { readonly failure: F };

/** How a poll ended; `last` is the last answer seen (for a message that says what was still not done). */
export type PollOutcome<T, F> =
  | { readonly type: 'done'; readonly value: T; readonly waitedMs: number }
  | { readonly type: 'failed'; readonly failure: F; readonly waitedMs: number }
  | { readonly type: 'timeout'; readonly last: T; readonly waitedMs: number }
  /** The signal aborted: `last` is undefined when it aborted before the first look. */
  | { readonly type: 'aborted'; readonly last: T | undefined; readonly waitedMs: number };

export interface PollOptions<T, F> {
  readonly clock: Clock;
  readonly signal: AbortSignal;
  /** Give up this long after the first look. */
  readonly timeoutMs: number;
  /** Between two looks (the last sleep is cut at the deadline). */
  readonly intervalMs: number;
  readonly check: () => Promise<PollAnswer<T, F>>;
}

/**
 * Looks with `check` until it says done, fails, `timeoutMs` passes or `signal` aborts; never looks again after an
 * abort, and does not look at all when the signal is already aborted.
 */
export async function poll<T, F>(options: PollOptions<T, F>): Promise<PollOutcome<T, F>> {
  const { clock, signal } = options;
  const started = clock.now();
  const deadline = started + options.timeoutMs;
  const waited = (): number => clock.now() - started;
  let last: T | undefined;
  for (;;) {
    if (signal.aborted) return { type: 'aborted', last, waitedMs: waited() };
    const answer = await options.check();
    if ('failure' in answer) return { type: 'failed', failure: answer.failure, waitedMs: waited() };
    if (answer.done) return { type: 'done', value: answer.value, waitedMs: waited() };
    last = answer.value;
    if (signal.aborted) return { type: 'aborted', last, waitedMs: waited() };
    const left = deadline - clock.now();
    if (left <= 0) return { type: 'timeout', last: answer.value, waitedMs: waited() };
    await clock.sleep(Math.min(options.intervalMs, left), signal);
  }
}
