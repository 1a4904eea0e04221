/**
 * The seam between the walk and whatever runs a unit: the Terragrunt executor in production, a fake that finishes
 * units when a test (or the benchmark) says so. An executor only runs and reports; the walk owns all state.
 */
import type { UnitId } from './graph.js';
import type { StateProbe } from './rollback.js';
import type { FailureReason } from './unit-status.js';

/** Everything an executor needs to run one unit once. */
export interface UnitJob {
  readonly unit: UnitId;
  /** The Terraform command to run in the unit. */
  readonly command: 'apply' | 'destroy';
  /** Absolute unit directory. */
  readonly absDir: string;
  /** Extra arguments after the Terraform command (`units.<id>.teardown_args` / `apply_args`). */
  readonly tfArgs: readonly string[];
  /** 1 for the first run of the unit in this run, 2 after a resume, ... */
  readonly attempt: number;
  /** Milliseconds before the unit is interrupted and failed with reason `timeout`. */
  readonly timeoutMs: number;
}

/** Which of the unit's output streams a line came from. */
export type OutputStream = 'stdout' | 'stderr';

/** Where a running unit's output goes (the unit's log file, redacted). */
export interface UnitOutput {
  /** One line of the unit's output, without its line break; `stream` when the executor knows it. */
  line(text: string, stream?: OutputStream): void;
}

/** What the executor tells the walk while a unit runs. */
export interface RunHooks {
  readonly output: UnitOutput;
  /** Aborted on the first SIGINT/SIGTERM: forward an interrupt, wait up to the grace period, then kill. */
  readonly signal: AbortSignal;
  /** Called once the process exists, with its pid (the process group id). */
  readonly onSpawn?: (pid: number) => void;
}

/** How one run of one unit ended. */
export type UnitOutcome =
  | { readonly type: 'completed' }
  | {
      readonly type: 'failed';
      readonly reason: FailureReason;
      /** One line for the summary and the state file. */
      readonly message: string;
      readonly exitCode?: number;
      readonly signal?: string;
      /** With reason `hook-failed`: the hook that failed. */
      readonly hook?: string;
      /** What a person does about it (a recovery's advice, engine/recovery.ts), after the error line. */
      readonly advice?: string;
    }
  | { readonly type: 'interrupted'; readonly exitCode?: number; readonly signal?: string };

/** One read of a unit's Terraform state (the rollback probe, engine/rollback.ts). */
export interface ProbeJob {
  readonly unit: UnitId;
  readonly absDir: string;
  readonly timeoutMs: number;
}

export interface Executor {
  /** The command line a job runs, for the log header (already redacted by the caller). */
  commandLine(job: UnitJob): readonly string[];
  /** Runs the job to its end. Expected failures are outcomes, never exceptions. */
  run(job: UnitJob, hooks: RunHooks): Promise<UnitOutcome>;
  /**
   * What the unit's Terraform state holds, read without changing anything; any doubt is `unknown`, never `absent`.
   * An executor without it cannot tell (every unit counts as standing).
   */
  probeState?(job: ProbeJob, hooks: RunHooks): Promise<StateProbe>;
}
