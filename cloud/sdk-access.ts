/**
 * What the writers added for the named hooks and `platctl access` share: the SDK configuration of a client for one
 * environment (its credentials, region and endpoint override), and the mapping of an SDK error to a
 * {@link CloudFailure}. Kept apart from environment.ts so its clients stay lazily imported one by one.
 */
import { describeAwsError, isAuthError, loginHint } from './auth-errors.js';
import type { CredentialProvider } from './credentials.js';
import type { EnvVars } from './env.js';
import { NO_ANSWER_HINT, endpointFor, sdkTimeouts } from './env.js';
import { describeNonJson, sdkNonJsonAnswer } from './non-json.js';
import type { EnvCloud } from './environment.js';
import type { CloudFailure, CloudResult } from './result.js';
import { failure, isAbortError, networkErrorCode, ok } from './result.js';

/** Everything an SDK client of one environment needs. */
export interface AwsAccess {
  readonly envName: string;
  readonly region: string;
  readonly credentials: CredentialProvider;
  /** The variables endpoint overrides are read from (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_<SERVICE>). */
  readonly env: EnvVars;
  /** For login hints. */
  readonly profile?: string | undefined;
  /** Attempts per call (default 3: these calls change things, a throttled one deserves a retry). */
  readonly maxAttempts?: number;
}

/**
 * The access of `cloud`'s environment once its credentials passed the preflight (asked to last `budgetMs`), the one
 * check before a command calls AWS; else why not (the preflight's failure, else {@link awsAccessOf}'s).
 */
export async function preflightedAccess(
  cloud: EnvCloud,
  env: EnvVars,
  budgetMs: number,
  signal: AbortSignal,
): Promise<{ readonly ok: true; readonly value: AwsAccess } | { readonly ok: false; readonly line: string }> {
  const preflight = await cloud.preflight(budgetMs, signal);
  const access = preflight.ok ? await awsAccessOf(cloud, env) : undefined;
  if (preflight.ok && access?.ok) return { ok: true, value: access.value };
  const failed = !preflight.ok ? preflight : access && !access.ok ? access : undefined;
  return {
    ok: false,
    line: `credentials preflight failed: ${failed?.message ?? 'no credentials'}${failed?.hint ? ` (${failed.hint})` : ''}`,
  };
}

/** The access of `cloud`'s environment, or why there is none (no region, no credentials). */
export async function awsAccessOf(cloud: EnvCloud, env: EnvVars): Promise<CloudResult<AwsAccess>> {
  if (cloud.region === undefined) {
    return failure(
      'not-configured',
      `environment ${cloud.envName} has no AWS region`,
      `set environments.${cloud.envName}.aws.region in .platctl.yaml`,
    );
  }
  const credentials = await cloud.credentials();
  if (!credentials.ok) return credentials;
  return ok({
    envName: cloud.envName,
    region: cloud.region,
    credentials: credentials.value,
    env,
    profile: cloud.profile,
  });
}

/** The constructor argument of an SDK client for `serviceId` (e.g. `Secrets Manager`, `EC2`, `EKS`). */
export function sdkConfig(access: AwsAccess, serviceId: string) {
  const endpoint = endpointFor(serviceId, access.env);
  return {
    region: access.region,
    credentials: access.credentials,
    ...sdkTimeouts(access.env, access.maxAttempts ?? 3),
    ...(endpoint ? { endpoint } : {}),
  };
}

/**
 * One SDK client made on first use and shared by every later call: the SDK module loads only when a call needs it
 * (start-up). A client that could not be made is not kept, so the next call tries again.
 */
export function lazyClient<T>(make: () => Promise<T>): () => Promise<T> {
  let client: Promise<T> | undefined;
  return () => {
    if (client === undefined) {
      client = make();
      client.catch(() => (client = undefined));
    }
    return client;
  };
}

/** The URL a client of `serviceId` calls (its endpoint override, else the regional AWS endpoint of `host`). */
export function endpointUrl(access: AwsAccess, serviceId: string, host: string): string {
  return endpointFor(serviceId, access.env) ?? `https://${host}.${access.region}.amazonaws.com`;
}

/** Error names that mean "no such thing", across the services used here. */
const NOT_FOUND = new Set(['ResourceNotFoundException', 'NotFoundException', 'NotFound']);
const FORBIDDEN = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation', 'Forbidden']);

/**
 * An SDK error as a failure value: `what` says which call on which resource, `profile` feeds the login hint,
 * `endpoint` (the URL the client calls, when known) says what answered a non-JSON page.
 */
export function sdkFailure(
  error: unknown,
  what: string,
  profile: string | undefined,
  endpoint?: { readonly service: string; readonly url: string },
): CloudFailure {
  const page = sdkNonJsonAnswer(error, endpoint?.url);
  if (page) {
    const { message, hint } = describeNonJson(page, endpoint?.service ?? 'AWS');
    return failure('error', `${what}: ${message}`, hint);
  }
  if (isAuthError(error)) {
    return failure('auth', `AWS rejected the credentials ${what}: ${describeAwsError(error)}`, loginHint(profile));
  }
  if (isAbortError(error)) return failure('timeout', `no answer from AWS ${what}`, NO_ANSWER_HINT);
  const name = error instanceof Error ? error.name : '';
  if (NOT_FOUND.has(name) || name.endsWith('.NotFound'))
    return failure('not-found', `${what}: ${describeAwsError(error)}`);
  if (FORBIDDEN.has(name)) {
    return failure(
      'forbidden',
      `${what}: ${describeAwsError(error)}`,
      'the principal lacks the permission named above',
    );
  }
  const code = networkErrorCode(error);
  if (code) return failure('unreachable', `cannot reach AWS ${what} (${code})`);
  return failure('error', `${what}: ${describeAwsError(error)}`);
}

/** The SDK's per-call options for an optional signal. */
export function callOptions(signal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return signal ? { abortSignal: signal } : {};
}
