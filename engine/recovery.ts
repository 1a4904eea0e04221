/**
 * Recoveries: named repairs the walk may try when a unit's apply fails in a way it recognises (today only
 * `helm-pending`: a Helm release left `pending-*` by an interrupted apply). The walk owns the rule that matters:
 * a recovery runs at most once per attempt of a unit, only after a failed exit of the unit's own apply, and when it
 * repaired something the unit is applied exactly once more; a second failure is a plain failure.
 *
 * A recovery only says what it did. It never changes the unit's state itself: the walk records its result in the
 * unit's `hooks` record under `on-failure:<name>` and in the unit's log.
 */
import type { UnitId } from './graph.js';

/** What a recovery gets for one failed apply. */
export interface RecoveryContext {
  readonly unit: UnitId;
  /** The unit's environment (the key under `environments:`). */
  readonly env: string;
  /** The failed apply's output lines (escape sequences removed), in order, at most the last few thousand. */
  readonly lines: readonly string[];
  /** Aborted on the first SIGINT/SIGTERM: stop and return `failed`. */
  readonly signal: AbortSignal;
  /** Writes one line into the unit's log. Never print. */
  log(line: string): void;
}

export type RecoveryVerdict =
  /** It repaired the cause: the walk applies the unit once more. `detail`: one line, what it did. */
  | { readonly type: 'recovered'; readonly detail: string }
  /** Recognised, not repaired (switched off): `advice` says what a person does, it joins the unit's error. */
  | { readonly type: 'advice'; readonly advice: string }
  /** Recognised, tried and refused or failed (nothing, or only what `message` says, was changed). */
  | { readonly type: 'failed'; readonly message: string };

export interface UnitRecovery {
  /** Its name in `recover:` and `--recover` (`helm-pending`). */
  readonly name: string;
  /** Undefined when the failure is not one this recovery knows. */
  handle(ctx: RecoveryContext): Promise<RecoveryVerdict | undefined>;
}
