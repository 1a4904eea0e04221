/**
 * The one result type: what an operation that can fail in an expected way returns, in every layer (cloud reads, the
 * object store, park steps, hooks). A success carries its `value`; a failure carries a kebab-case `reason` callers
 * switch on, one line of `message` saying what went wrong, and a `hint` saying what to do. Exceptions stay for bugs.
 *
 * It lives in config/, the bottom layer, because every layer may import it; it imports nothing.
 */

export interface Ok<T> {
  readonly ok: true;
  readonly value: T;
}

export interface Failure<R extends string = string> {
  readonly ok: false;
  readonly reason: R;
  /** One line: what went wrong. */
  readonly message: string;
  /** What to do about it. */
  readonly hint?: string;
}

/** A value, or a failure with a reason. `F` narrows the reasons (or adds fields) for one family of operations. */
export type Result<T, F extends Failure = Failure> = Ok<T> | F;

export function ok<T>(value: T): Ok<T> {
  return { ok: true, value };
}

export function failure<R extends string>(reason: R, message: string, hint?: string): Failure<R> {
  return hint === undefined ? { ok: false, reason, message } : { ok: false, reason, message, hint };
}
