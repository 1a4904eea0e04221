/**
 * What every check implementation receives, and the mapping from cloud failures to check outcomes.
 */
import type { EnvCloud } from '../../cloud/environment.js';
import type { CloudFailure } from '../../cloud/result.js';
import type { ValidateDeps } from '../deps.js';
import type { CheckOutcome, CheckStatus } from '../types.js';

export interface CheckContext {
  /** Cloud access of an environment, shared by every check of the run. */
  readonly cloud: (env: string) => EnvCloud;
  readonly deps: ValidateDeps;
  /** Aborts when the check's timeout passes. */
  readonly signal: AbortSignal;
  /** How long the run may take: the SSO session and credentials must outlive it. */
  readonly budgetMs: number;
  readonly timeoutMs: number;
}

export function pass(message: string, details?: readonly string[]): CheckOutcome {
  return details && details.length > 0 ? { status: 'pass', message, details } : { status: 'pass', message };
}

export function fail(
  message: string,
  extra: { hint?: string | undefined; details?: readonly string[] } = {},
): CheckOutcome {
  return outcome('fail', message, extra);
}

export function error(
  message: string,
  extra: { hint?: string | undefined; details?: readonly string[] } = {},
): CheckOutcome {
  return outcome('error', message, extra);
}

function outcome(
  status: CheckStatus,
  message: string,
  extra: { hint?: string | undefined; details?: readonly string[] },
): CheckOutcome {
  return {
    status,
    message,
    ...(extra.hint !== undefined ? { hint: extra.hint } : {}),
    ...(extra.details && extra.details.length > 0 ? { details: extra.details } : {}),
  };
}

/**
 * A cloud failure as a check outcome: a missing subject is unhealthy (`fail`); everything else means the check
 * could not look (`error`), and an `auth` failure is flagged so the runner skips the rest of that environment.
 * `unhealthyReasons` lists further reasons that mean "unhealthy" for this check (an API server that does not
 * answer is a failure of the cluster, not of the check).
 */
export function fromCloudFailure(
  result: CloudFailure,
  unhealthyReasons: readonly CloudFailure['reason'][] = [],
): CheckOutcome {
  const status: CheckStatus =
    result.reason === 'not-found' || unhealthyReasons.includes(result.reason) ? 'fail' : 'error';
  return {
    status,
    message: result.message,
    ...(result.hint !== undefined ? { hint: result.hint } : {}),
    ...(result.reason === 'auth' ? { authFailure: true } : {}),
  };
}

/** `3 of 5`, `1 of 1`. */
export function countOf(part: number, whole: number): string {
  return `${part} of ${whole}`;
}

/** Lists at most `max` names, then "and N more". */
export function listNames(names: readonly string[], max = 5): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}
