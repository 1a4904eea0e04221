/**
 * The result type of every cloud read: platctl's one result type (`config/result.ts`) with the reasons a cloud call
 * fails for. Expected failures (no permission, not found, expired login, timeout) are values with a kebab-case
 * reason, so callers decide what they mean without catching.
 */
import type { Failure, Result } from '../config/result.js';
import { failure as failureOf } from '../config/result.js';

export { ok } from '../config/result.js';

export type CloudFailureReason =
  /** AWS credentials missing, expired or rejected: the fix is a login, not a retry. */
  | 'auth'
  /**
   * The Kubernetes API server answered 401 to a token (no EKS access entry for the principal, a stale kubeconfig
   * user). Not `auth`: AWS may well accept the same credentials, so nothing else of the environment is affected.
   */
  | 'unauthorized'
  /** HTTP 403 / AccessDenied: the principal lacks a permission. */
  | 'forbidden'
  /** The thing asked about does not exist. */
  | 'not-found'
  /** No answer within the time allowed. */
  | 'timeout'
  /** Connection refused, DNS failure, TLS failure: the endpoint was not reached. */
  | 'unreachable'
  /** A configuration value needed for the call is missing. */
  | 'not-configured'
  | 'error';

export type CloudFailure = Failure<CloudFailureReason>;

export type CloudResult<T> = Result<T, CloudFailure>;

export function failure(reason: CloudFailureReason, message: string, hint?: string): CloudFailure {
  return failureOf(reason, message, hint);
}

/** Node's codes for a server certificate that the trusted CAs do not verify (OpenSSL's verify errors). */
export const TLS_VERIFY_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Network-level failure codes Node reports on `error.cause.code` (fetch) or `error.code`. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  ...TLS_VERIFY_CODES,
]);

/** The network error code inside `error` (or its cause chain), if any. */
export function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True for an abort or timeout raised by an AbortSignal. */
export function isAbortError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const name = (error as { name?: unknown }).name;
  return name === 'AbortError' || name === 'TimeoutError' || (error as { type?: unknown }).type === 'aborted';
}
