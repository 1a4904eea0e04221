/**
 * Recognising expired or invalid AWS credentials. One place decides, so every caller (validate, park, hooks) turns
 * "your login expired" into one clear failure instead of a cascade of unrelated-looking errors.
 */
import { describeNonJson, sdkNonJsonAnswer } from './non-json.js';

/**
 * Error names that mean "the credentials are missing, expired or invalid". The provider
 * errors come from resolving credentials locally; the rest are service answers. Query-protocol services (STS, EC2)
 * answer `ExpiredToken` while json services answer `ExpiredTokenException`; S3 has its own `InvalidAccessKeyId`
 * and `InvalidToken`. The clock-skew codes are the SDK's own list (`@smithy/core/retry`): a signature rejected for
 * its time is a credential problem to the user (wrong clock, stale session).
 */
export const AUTH_ERROR_NAMES: ReadonlySet<string> = new Set([
  'CredentialsProviderError',
  'TokenProviderError',
  'ExpiredToken',
  'ExpiredTokenException',
  'RequestExpired',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'AuthFailure',
  'UnauthorizedException',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'RequestTimeTooSkewed',
  'RequestInTheFuture',
  'InvalidAccessKeyId',
  'InvalidToken',
]);

/** True when `error` says the caller's AWS credentials are missing, expired or invalid. */
export function isAuthError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const name = (error as { name?: unknown }).name;
  if (typeof name === 'string' && AUTH_ERROR_NAMES.has(name)) return true;
  // Some S3/EC2 answers carry the wire code in `Code` while `name` is generic.
  const code = (error as { Code?: unknown }).Code;
  return typeof code === 'string' && AUTH_ERROR_NAMES.has(code);
}

/** The command that fixes an expired login for `profile`. */
export function loginHint(profile: string | undefined): string {
  return profile === undefined ? 'run `aws sso login`' : `run \`aws sso login --profile ${profile}\``;
}

/** One line describing an AWS SDK error: its name, HTTP status when known, and message. */
export function describeAwsError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const page = sdkNonJsonAnswer(error, undefined);
  if (page) return describeNonJson(page, 'AWS').message;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const message = error.message && error.message !== 'UnknownError' ? `: ${firstLine(error.message)}` : '';
  return `${error.name}${status === undefined ? '' : ` (HTTP ${status})`}${message}`;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}
