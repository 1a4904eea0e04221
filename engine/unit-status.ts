/**
 * The vocabulary of a run: unit statuses, why a unit failed or was skipped, and the two walking verbs. Shared by the
 * scheduler, the walk, the state file and the reporters so every layer spells them the same way.
 */

/**
 * A unit's status in a run (and in `.platctl-state.json`). `excluded`: a Terragrunt `exclude` block leaves the unit
 * out of the verb's command (its own block, or a dependent's `exclude_dependencies`); never run, treated as applied.
 */
export type UnitStatus = 'pending' | 'running' | 'completed' | 'failed' | 'skipped' | 'interrupted' | 'excluded';

/**
 * Why a unit failed. `hook-failed`: a named hook around it failed (the error names the hook). `internal-error`: a bug
 * in platctl while running it (the walk records it instead of losing the unit).
 */
export type FailureReason = 'exit-non-zero' | 'timeout' | 'signal' | 'spawn-error' | 'hook-failed' | 'internal-error';

/** Every failure reason, for the state file's schema. */
export const FAILURE_REASONS = [
  'exit-non-zero',
  'timeout',
  'signal',
  'spawn-error',
  'hook-failed',
  'internal-error',
] as const satisfies readonly FailureReason[];

/** Why a unit was not started. */
export type SkipReason = 'dependency-failed' | 'fail-fast';

/** The verbs that walk the graph and mutate infrastructure. */
export type RunCommand = 'bootstrap' | 'teardown';

/** The Terraform command a verb runs in each unit. */
export function tfCommandFor(command: RunCommand): 'apply' | 'destroy' {
  return command === 'bootstrap' ? 'apply' : 'destroy';
}

/** Exhaustiveness guard for switches over unions. */
export function unreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}
