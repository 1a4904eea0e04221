/**
 * The named lifecycle points of a mutating run, all inside the repository lock. `cli/` wires them (manual steps,
 * named hooks, lockdown, unlock); tests pass fakes. In the order a run reaches them:
 *
 * 1. `beforeRun`: after the plan and the confirmation, before the state file is written. Read-only preflight (the
 *    manual steps): it may refuse, and then nothing ran and the previous run's state is untouched. What it returns is
 *    recorded in the new state.
 * 2. `beforeWalk`: the state is written, no unit has run (teardown's unlock). A failure ends the run `failed` without
 *    walking.
 * 3. `unitHooks`: the named hooks around each unit (before-unit, after-unit), run by the walk.
 * 4. `converge`: only when the walk completed, before `afterWalk` (bootstrap's convergence waits). A failure makes
 *    the run `failed` and `afterWalk` does not run.
 * 5. `afterWalk`: only when the walk completed every unit (bootstrap's lockdown). A failure makes the run `failed`.
 */
import type { LockDirection, WalkEvent } from './events.js';
import type { UnitOutcome } from './executor.js';
import type { UnitId } from './graph.js';
import type { Plan } from './plan.js';
import type { ManualStepRecord, PhaseRecords, RunState } from './state.js';
import type { RunCommand, UnitStatus } from './unit-status.js';
import type { UnitRecovery } from './recovery.js';
import type { UnitHook } from './walk.js';

/** The phases a run goes through after the walk, in order, each only while the core stands (engine/run.ts). */
export const AFTER_WALK_PHASES = ['converge', 'afterWalk'] as const;

/**
 * Every lifecycle point in the order a run reaches them (`walk`: the units, with `unitHooks` around each). The run
 * goes through them in this order and the dry-run plan (engine/walk-plan.ts) shows them in it; a test holds the two
 * together.
 */
export const RUN_PHASE_ORDER = ['beforeRun', 'beforeWalk', 'walk', ...AFTER_WALK_PHASES] as const;
export type RunPhaseName = (typeof RUN_PHASE_ORDER)[number];

/** Where lockdown sits in each run: bootstrap locks down after the walk, teardown unlocks before it. */
export const LOCKDOWN_PHASE = {
  bootstrap: { direction: 'lock', phase: 'afterWalk' },
  teardown: { direction: 'unlock', phase: 'beforeWalk' },
} as const satisfies Record<RunCommand, { direction: LockDirection; phase: RunPhaseName }>;

export interface RunPhases {
  readonly beforeRun?: (ctx: BeforeRunContext) => Promise<BeforeRunResult>;
  readonly beforeWalk?: (ctx: PhaseContext) => Promise<PhaseResult>;
  readonly unitHooks?: (unit: UnitId) => readonly UnitHook[];
  /** Tried after a unit's apply failed (engine/recovery.ts); bootstrap's `helm-pending`. */
  readonly recoveries?: readonly UnitRecovery[];
  readonly converge?: (ctx: PhaseContext) => Promise<PhaseResult>;
  readonly afterWalk?: (ctx: PhaseContext) => Promise<PhaseResult>;
}

/** What the preflight sees: the plan, and the run it resumes (if any). */
export interface BeforeRunContext {
  readonly command: RunCommand;
  readonly plan: Plan;
  readonly resumed: Readonly<RunState> | undefined;
  readonly signal: AbortSignal;
  readonly now: () => number;
}

export type BeforeRunResult =
  | { readonly ok: true; readonly manualSteps?: Readonly<Record<string, ManualStepRecord>> }
  | {
      readonly ok: false;
      /** Kebab-case, for `--json` and tests. */
      readonly reason: string;
      readonly message: string;
      readonly details?: readonly string[];
      readonly hint?: string;
    };

/** A phase's outcome. A failure stops the run (exit 1); `message` says what failed and what to do. */
export type PhaseResult =
  { readonly ok: true } | { readonly ok: false; readonly message: string; readonly details?: readonly string[] };

/** What a phase around the walk gets. */
export interface PhaseContext {
  readonly command: RunCommand;
  readonly runId: string;
  /** The run does not cover every discovered unit (`--unit`, or `--env` leaving some out). */
  readonly partial: boolean;
  readonly signal: AbortSignal;
  readonly now: () => number;
  readonly emit: (event: WalkEvent) => void;
  /** A unit's status in this run (a resumed run's completed units included); undefined outside the selection. */
  readonly unitStatus?: (unit: UnitId) => UnitStatus | undefined;
  /** The run's phase records as they are now (a resumed run's included). */
  readonly records: () => Readonly<PhaseRecords>;
  /** Records a phase's progress in the state file, written before this resolves. */
  record(patch: PhaseRecords): Promise<void>;
  /** Runs a unit's Terraform command with extra arguments, outside the walk, into a log file of its own. */
  apply(request: PhaseApply): Promise<PhaseApplyResult>;
}

export interface PhaseApply {
  readonly unit: UnitId;
  /** After the unit's configured arguments (`apply_args` / `teardown_args` are not used: this is always an apply). */
  readonly extraArgs: readonly string[];
  /** The log file's name inside the run's log directory, without `.log`. */
  readonly logName: string;
  /** The log header's title (`lockdown step eks-private-endpoint`). */
  readonly title: string;
  readonly attempt: number;
}

export interface PhaseApplyResult {
  readonly outcome: UnitOutcome;
  /** The output (redacted; its last 2,000 lines): transient errors are recognised there. */
  readonly output: readonly string[];
  /** The most telling line for a one-line error. */
  readonly errorLine: string | undefined;
  /** The log, relative to the repository root. */
  readonly log: string;
}
