/**
 * The vocabulary of `platctl validate`: the per-unit checker names and small helpers. What a check concludes and the
 * report are the engine's contract (`engine/check-report.ts`), re-exported here for the checks.
 */
export type {
  CheckEvent,
  CheckOutcome,
  CheckPhase,
  CheckResult,
  CheckStatus,
  ValidateReport,
} from '../engine/check-report.js';
export { PHASE_ORDER, UNHEALTHY, checkFinished } from '../engine/check-report.js';

/** The names of the per-unit checkers `validate.checkers` can map a prefix to. */
export type UnitCheckerName = 'eks_cluster' | 'cilium_agent' | 'argocd_apps';

export function unreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}

/** A timeout for messages: `10s`, `0.4s`. */
export function formatTimeout(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
