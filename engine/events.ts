/**
 * What a walk tells the outside world. The walk emits these; reporters (live TTY view, plain lines, NDJSON) render
 * them. Field names are snake_case because `--json` prints them as they are, next to the snake_case state file.
 */
import type { CheckEvent } from './check-report.js';
import { CHECK_EVENT_TYPES } from './check-report.js';
import type { UnitId } from './graph.js';
import type { FailureReason, RunCommand, SkipReason, UnitStatus } from './unit-status.js';

/** Where in a unit's life a named hook runs. */
/** `on-failure`: a recovery (engine/recovery.ts) after a unit's apply failed. */
export type HookPoint = 'before-unit' | 'after-unit' | 'on-failure';

/** `lock`: the lockdown after a bootstrap; `unlock`: its reverse before a teardown. */
export type LockDirection = 'lock' | 'unlock';

/** Units per status. */
export type StatusCounts = Record<UnitStatus, number>;

export type WalkEvent =
  | {
      readonly type: 'run-started';
      readonly at: string;
      readonly run_id: string;
      readonly command: RunCommand;
      readonly resumed: boolean;
      /** With the shared backend, the run resumed: id, environments, who, when (docs/state.md). */
      readonly resuming?: string;
      /** Units in the run (the selection), the kept floor included. */
      readonly total: number;
      /** Units this invocation will try to run. */
      readonly to_run: number;
      readonly parallelism: number;
      /** Teardown floor: never destroyed. */
      readonly kept: readonly UnitId[];
      /** Units a Terragrunt `exclude` block leaves out of this verb: never run, treated as applied. */
      readonly excluded: readonly UnitId[];
      /** Expected duration of each unit to run, from earlier runs (see `estimates_known`), for ETAs. */
      readonly estimates_ms: Readonly<Record<UnitId, number>>;
      /** Per unit to run: expected duration of the heaviest chain from it to the end of the graph. */
      readonly remaining_path_ms: Readonly<Record<UnitId, number>>;
      /** False when no unit has run before: every estimate is a placeholder 1. */
      readonly estimates_known: boolean;
    }
  | {
      readonly type: 'unit-started';
      readonly at: string;
      readonly unit: UnitId;
      readonly wave: number;
      readonly attempt: number;
      readonly log: string;
    }
  | {
      readonly type: 'unit-completed';
      readonly at: string;
      readonly unit: UnitId;
      readonly duration_ms: number;
      readonly log: string;
    }
  | {
      readonly type: 'unit-failed';
      readonly at: string;
      readonly unit: UnitId;
      readonly reason: FailureReason;
      readonly error: string;
      /** With reason `hook-failed`: the hook that failed. */
      readonly hook?: string;
      /** An optional unit (`optional:`): its failure skipped only its dependents. */
      readonly optional?: true;
      readonly exit_code?: number;
      readonly duration_ms: number;
      readonly log: string;
      /** The last lines of the unit's output (redacted). */
      readonly last_lines: readonly string[];
    }
  | {
      readonly type: 'unit-interrupted';
      readonly at: string;
      readonly unit: UnitId;
      readonly duration_ms: number;
      readonly log: string;
    }
  | {
      readonly type: 'unit-skipped';
      readonly at: string;
      readonly unit: UnitId;
      readonly because: UnitId;
      readonly reason: SkipReason;
    }
  | {
      readonly type: 'hook-started';
      readonly at: string;
      readonly unit: UnitId;
      /** The hook's name (its `type` in .platctl.yaml). */
      readonly hook: string;
      readonly point: HookPoint;
    }
  | {
      readonly type: 'hook-finished';
      readonly at: string;
      readonly unit: UnitId;
      readonly hook: string;
      readonly point: HookPoint;
      readonly ok: boolean;
      /** One line: what the hook did, or why it failed. */
      readonly detail?: string;
      readonly duration_ms: number;
    }
  | {
      readonly type: 'lockdown-step-started';
      readonly at: string;
      readonly direction: LockDirection;
      readonly step: string;
      readonly unit: UnitId;
      readonly attempt: number;
      /** Attempts allowed (`lockdown.retry.attempts`). */
      readonly attempts: number;
      readonly log: string;
    }
  | {
      readonly type: 'lockdown-step-finished';
      readonly at: string;
      readonly direction: LockDirection;
      readonly step: string;
      readonly unit: UnitId;
      readonly attempt: number;
      /** `retrying`: a transient error; the step runs again after the interval. */
      readonly result: 'completed' | 'retrying' | 'failed' | 'interrupted';
      /** One line: why it failed or is retried. */
      readonly message?: string;
      readonly duration_ms: number;
      readonly log: string;
    }
  | {
      /** A convergence wait (converge: in .platctl.yaml) began: its first look follows. */
      readonly type: 'converge-wait-started';
      readonly at: string;
      readonly wait: string;
      /** What it waits for, one line: `Argo CD Applications in argocd Synced and Healthy`. */
      readonly what: string;
      readonly timeout_ms: number;
    }
  | {
      /** A look found something not ready yet (sent when that changes, and now and then while it lasts). */
      readonly type: 'converge-wait-progress';
      readonly at: string;
      readonly wait: string;
      readonly waited_ms: number;
      readonly timeout_ms: number;
      /** One line: what is not ready. */
      readonly message: string;
      /** Each object not ready, with its conditions and messages. */
      readonly details: readonly string[];
    }
  | {
      readonly type: 'converge-wait-finished';
      readonly at: string;
      readonly wait: string;
      /** `passed`: ready; `failed`: the timeout passed or the look itself failed; `skipped`: not this run's units. */
      readonly result: 'passed' | 'failed' | 'interrupted' | 'skipped';
      readonly waited_ms: number;
      readonly message?: string;
      readonly details?: readonly string[];
    }
  | {
      /** The rollback probe's answer for one unit, before the first apply (engine/rollback.ts). */
      readonly type: 'rollback-probe';
      readonly at: string;
      readonly unit: UnitId;
      /** `unknown` counts as standing. */
      readonly result: 'absent' | 'standing' | 'unknown';
      readonly detail?: string;
    }
  | {
      /** After a failed bootstrap with rollback on: what goes, or the rule that keeps the platform standing. */
      readonly type: 'rollback-decided';
      readonly at: string;
      readonly action: 'destroy' | 'hold';
      readonly rule?: string;
      readonly message: string;
      /** The units to destroy, in order (`--dry-run`: what a failure would destroy). */
      readonly destroy: readonly UnitId[];
      /** One line per applied unit that stays, and why. */
      readonly kept: readonly string[];
    }
  | {
      readonly type: 'rollback-unit';
      readonly at: string;
      readonly unit: UnitId;
      readonly result: 'started' | 'destroyed' | 'failed' | 'skipped' | 'interrupted';
      readonly error?: string;
      readonly log?: string;
    }
  | {
      readonly type: 'rollback-finished';
      readonly at: string;
      readonly status: 'completed' | 'failed' | 'interrupted';
      readonly destroyed: readonly UnitId[];
      /** Units the rollback did not destroy (failed, skipped, interrupted): still standing. */
      readonly left: readonly UnitId[];
    }
  | { readonly type: 'interrupting'; readonly at: string; readonly signal: string; readonly running: readonly UnitId[] }
  | { readonly type: 'warning'; readonly at: string; readonly message: string }
  | {
      readonly type: 'run-finished';
      readonly at: string;
      readonly run_id: string;
      readonly command: RunCommand;
      readonly status: RunOutcomeStatus;
      readonly counts: StatusCounts;
      readonly duration_ms: number;
    };

/** How a run ended. */
export type RunOutcomeStatus = 'completed' | 'failed' | 'interrupted';

/** Which way a park command goes: `down` parks an environment's compute, `up` brings it back. */
export type ParkOp = 'down' | 'up';

/** The `failed_step` of an outcome stopped in the preflight, before any step (and any journal) began. */
export const PREFLIGHT = 'preflight';

/**
 * What `down`/`up` (park/run.ts) tell the outside world, one environment after another. Defined here, beside the
 * walk's, so that the reporters (engine/reporters/park.ts) and every other reader need not import park/.
 */
export type ParkEvent =
  | {
      readonly type: 'env-started';
      readonly at: string;
      readonly env: string;
      readonly op: ParkOp;
      readonly dry_run: boolean;
      readonly resumed: boolean;
      readonly steps: readonly string[];
      /** Sum of the last known durations of the steps to run, when any is known. */
      readonly eta_ms?: number;
    }
  | {
      readonly type: 'step-started';
      readonly at: string;
      readonly env: string;
      readonly step: string;
      readonly title: string;
    }
  | {
      readonly type: 'step-completed';
      readonly at: string;
      readonly env: string;
      readonly step: string;
      readonly duration_ms: number;
      readonly detail: string;
    }
  | {
      readonly type: 'step-skipped';
      readonly at: string;
      readonly env: string;
      readonly step: string;
      readonly detail: string;
    }
  | {
      readonly type: 'step-failed';
      readonly at: string;
      readonly env: string;
      readonly step: string;
      readonly duration_ms: number;
      readonly reason: string;
      readonly message: string;
      readonly hint?: string;
    }
  | {
      readonly type: 'step-planned';
      readonly env: string;
      readonly step: string;
      readonly title: string;
      readonly touches: readonly string[];
    }
  | { readonly type: 'env-finished'; readonly at: string; readonly env: string; readonly outcome: EnvOutcome };

export type EnvStatus =
  /** Every step ran and verified. */
  | 'completed'
  /** `--dry-run`: described only. */
  | 'planned'
  /** Nothing to do (`up` of an environment that is not parked, `--resume` with nothing unfinished). */
  | 'nothing-to-do'
  /** Preflight failed, or no record to bring up: nothing was touched. */
  | 'refused'
  | 'failed'
  /** A signal stopped it between steps. */
  | 'interrupted'
  /** The run lost its environment lock (state.backend s3): it started no step after that. */
  | 'fenced';

export interface EnvOutcome {
  readonly env: string;
  readonly op: ParkOp;
  readonly status: EnvStatus;
  readonly message?: string;
  readonly hint?: string;
  readonly reason?: string;
  readonly failed_step?: string;
  /** Steps done (this run or an earlier one resumed), and steps not done, in order. */
  readonly done_steps: readonly string[];
  readonly pending_steps: readonly string[];
}

/** Every verb's events: what the reporters render and `--json` prints as it is (validate's, engine/check-report.ts). */
export type RunEvent = WalkEvent | ParkEvent | CheckEvent;

export type { CheckEvent } from './check-report.js';

/** Every park event type, as a record so that a new one fails to compile until it is listed. */
const PARK_EVENT_TYPES: Readonly<Record<ParkEvent['type'], true>> = {
  'env-started': true,
  'step-planned': true,
  'step-started': true,
  'step-skipped': true,
  'step-completed': true,
  'step-failed': true,
  'env-finished': true,
};

/** True for down/up's events (a reporter of one verb's events passes over the others'). */
export function isParkEvent(event: RunEvent): event is ParkEvent {
  return Object.hasOwn(PARK_EVENT_TYPES, event.type);
}

/** True for validate's events (engine/check-report.ts `CHECK_EVENT_TYPES`). */
export function isCheckEvent(event: RunEvent): event is CheckEvent {
  return Object.hasOwn(CHECK_EVENT_TYPES, event.type);
}

/**
 * Renders events, any verb's: one interface for every reporter, so `--json`, a terminal and a log file can be
 * combined for any verb. Reporters never change the run; a reporter that throws is a bug.
 */
export interface Reporter {
  event(event: RunEvent): void;
  /** Flushes and stops timers; called once after `run-finished`. */
  close(): void;
}

/**
 * An emitter that survives a throwing reporter: a reporter is never allowed to stop a run (the units would be left
 * running and the state unsaved). The first error is handed to `onError` once; later ones are dropped.
 */
export function guardEmit<E extends RunEvent>(
  emit: (event: E) => void,
  onError: (error: unknown) => void,
): (event: E) => void {
  let failed = false;
  return (event) => {
    try {
      emit(event);
    } catch (error) {
      if (failed) return;
      failed = true;
      onError(error);
    }
  };
}

/** What a run says when a reporter threw: `what` (the run, the checks) went on without it. */
export function reporterFailed(error: unknown, what: string): string {
  const message = error instanceof Error ? error.message : String(error);
  return `a reporter failed (a bug in platctl): ${message}; ${what} went on without it`;
}

/** One reporter that forwards to several. */
export function combineReporters(...reporters: readonly Reporter[]): Reporter {
  return {
    event: (event) => {
      for (const reporter of reporters) reporter.event(event);
    },
    close: () => {
      for (const reporter of reporters) reporter.close();
    },
  };
}

export function emptyCounts(): StatusCounts {
  return { pending: 0, running: 0, completed: 0, failed: 0, skipped: 0, interrupted: 0, excluded: 0 };
}
