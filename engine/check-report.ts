/**
 * What a health check concludes and the report a run of checks makes: the contract between the checks (validate/,
 * converge/'s looks) and what renders them (`engine/reporters/validate.ts`). The engine owns it, as it owns the
 * scheduler the checks run on. Pure types, constants and the functions that build its events.
 */

/**
 * - `pass`: checked, healthy.
 * - `fail`: checked, unhealthy (or missing).
 * - `error`: could not be checked (credentials rejected, no permission, timeout, bad configuration).
 * - `skip`: not run; `skippedBecause` names the failed check it depends on, or the message says why not.
 */
export type CheckStatus = 'pass' | 'fail' | 'skip' | 'error';

/**
 * Phase 1 `iam` (credentials, deployer role, state bucket per environment) gates everything else of that
 * environment; `cluster` (the Kubernetes API answers) gates the checks that read the cluster; `units` are the
 * per-unit checks; `cross` the cross-cutting ones (HTTP endpoints, DNS delegation, gateway, Tailscale).
 */
export type CheckPhase = 'iam' | 'cluster' | 'units' | 'cross';

export const PHASE_ORDER: readonly CheckPhase[] = ['iam', 'cluster', 'units', 'cross'];

/** The statuses that make a platform unhealthy. */
export const UNHEALTHY: ReadonlySet<CheckStatus> = new Set(['fail', 'error']);

/** What a check implementation concludes. */
export interface CheckOutcome {
  readonly status: CheckStatus;
  /** One line. */
  readonly message: string;
  /** What to do about it. */
  readonly hint?: string;
  /** Extra lines: the Applications out of sync, the nodes not Ready. */
  readonly details?: readonly string[];
  /** True when the failure means this environment's credentials are no longer accepted. */
  readonly authFailure?: boolean;
}

export interface CheckResult extends CheckOutcome {
  /** `<check>:<target>`, e.g. `unit/eks_cluster:platform/eks`; what `--check PREFIX` matches. */
  readonly id: string;
  /** e.g. `unit/eks_cluster`. */
  readonly check: string;
  /** e.g. `platform/eks`. */
  readonly target: string;
  readonly phase: CheckPhase;
  /** The environment whose credentials the check uses; undefined for a check of no environment (tailscale). */
  readonly env?: string;
  readonly durationMs: number;
  /** The id of the failed check this one depended on. */
  readonly skippedBecause?: string;
}

export interface ValidateReport {
  readonly healthy: boolean;
  readonly checks: readonly CheckResult[];
  readonly durationMs: number;
}

/** A check's result as JSON (snake_case): a row of the `validate --json` document and the body of `check-finished`. */
export interface CheckResultJson {
  readonly id: string;
  readonly check: string;
  readonly target: string;
  readonly phase: CheckPhase;
  readonly status: CheckStatus;
  readonly message: string;
  readonly duration_ms: number;
  readonly skipped_because?: string;
  readonly hint?: string;
  readonly details?: readonly string[];
}

export function checkResultJson(result: CheckResult): CheckResultJson {
  return {
    id: result.id,
    check: result.check,
    target: result.target,
    phase: result.phase,
    status: result.status,
    message: result.message,
    duration_ms: Math.round(result.durationMs),
    ...(result.skippedBecause !== undefined ? { skipped_because: result.skippedBecause } : {}),
    ...(result.hint !== undefined ? { hint: result.hint } : {}),
    ...(result.details && result.details.length > 0 ? { details: result.details } : {}),
  };
}

/** Which check an event is about. */
interface CheckSubject {
  readonly at: string;
  readonly id: string;
  readonly check: string;
  readonly target: string;
  readonly phase: CheckPhase;
  readonly env?: string;
}

/**
 * What a run of checks tells the outside world as it goes, beside the walk's and down/up's events in `RunEvent`
 * (engine/events.ts): a reporter shows what is still running (the heartbeat of a non-terminal). Defined here, with
 * the rest of the checks' contract, because validate/ emits them and may import this file but not the events.
 * Field names are snake_case like every event's.
 */
export type CheckEvent =
  | ({ readonly type: 'check-started' } & CheckSubject)
  | ({
      /** Every check ends with one, the skipped ones too (they have no `check-started`). */
      readonly type: 'check-finished';
      readonly at: string;
      readonly env?: string;
    } & CheckResultJson);

/** Every check event type, as a record so that a new one fails to compile until it is listed. */
export const CHECK_EVENT_TYPES: Readonly<Record<CheckEvent['type'], true>> = {
  'check-started': true,
  'check-finished': true,
};

/** The `check-finished` event of a result, at `at` (an ISO instant). */
export function checkFinished(result: CheckResult, at: string): CheckEvent {
  return {
    type: 'check-finished',
    at,
    ...(result.env !== undefined ? { env: result.env } : {}),
    ...checkResultJson(result),
  };
}
