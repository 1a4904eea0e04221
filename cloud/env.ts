/**
 * The environment variables the cloud layer honours, read from an injected map (never `process.env` directly), and
 * the endpoint override rules of the AWS SDK, so tests can point every client at moto.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Environment variables as the CLI passes them down. */
export type EnvVars = Readonly<Record<string, string | undefined>>;

/**
 * The endpoint a client for `serviceId` should use, or undefined for the SDK's normal AWS endpoint. Mirrors the
 * SDK's own order: `AWS_ENDPOINT_URL_<SERVICE_ID>` beats `AWS_ENDPOINT_URL`, and
 * `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true` turns both off. The SDK would read these from `process.env` itself;
 * resolving them here from the injected map keeps in-process tests independent of the test runner's environment.
 *
 * @param serviceId the client's serviceId, e.g. `STS`, `S3`, `EKS`, `Route 53`.
 */
export function endpointFor(serviceId: string, env: EnvVars): string | undefined {
  if ((env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS ?? '').toLowerCase() === 'true') return undefined;
  const specific = env[`AWS_ENDPOINT_URL_${serviceId.toUpperCase().replace(/ /g, '_')}`];
  if (specific) return specific;
  return env.AWS_ENDPOINT_URL || undefined;
}

/** The user's home directory according to `env` (HOME, then USERPROFILE), falling back to the OS account's. */
export function homeDir(env: EnvVars): string {
  return env.HOME || env.USERPROFILE || homedir();
}

/** Paths of the shared AWS config and credentials files, honouring AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE. */
export function awsFilePaths(env: EnvVars): { configFile: string; credentialsFile: string } {
  const home = homeDir(env);
  return {
    configFile: env.AWS_CONFIG_FILE || join(home, '.aws', 'config'),
    credentialsFile: env.AWS_SHARED_CREDENTIALS_FILE || join(home, '.aws', 'credentials'),
  };
}

/** How long one AWS or Kubernetes API request may go unanswered by default (`PLATCTL_REQUEST_TIMEOUT`). */
export const REQUEST_TIMEOUT_MS = 30_000;

/** The largest `PLATCTL_REQUEST_TIMEOUT` accepted, in seconds: an hour is already no limit in practice. */
export const REQUEST_TIMEOUT_MAX_S = 3600;

/**
 * `PLATCTL_REQUEST_TIMEOUT` (seconds, a number between 0.1 and 3600) in milliseconds, or an error message for a value
 * that is not one. Unset or empty: the default (30 s).
 */
export function parseRequestTimeout(value: string | undefined): { ms: number } | { error: string } {
  if (value === undefined || value.trim() === '') return { ms: REQUEST_TIMEOUT_MS };
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0.1 || seconds > REQUEST_TIMEOUT_MAX_S) {
    return {
      error: `PLATCTL_REQUEST_TIMEOUT="${value}" is not a number of seconds between 0.1 and ${REQUEST_TIMEOUT_MAX_S}`,
    };
  }
  return { ms: Math.round(seconds * 1000) };
}

/** The request timeout in effect for `env` (the CLI refuses a bad value before any verb runs; here it is the default). */
export function requestTimeoutMs(env: EnvVars): number {
  const parsed = parseRequestTimeout(env.PLATCTL_REQUEST_TIMEOUT);
  return 'ms' in parsed ? parsed.ms : REQUEST_TIMEOUT_MS;
}

/** `30s`, `1.5s`. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))}s`;
}

/**
 * The time limits every AWS SDK client of platctl is built with: a connection that does not open within 10 s (or the
 * request timeout, if shorter), and a request with no answer within the request timeout, fail with `TimeoutError`
 * (the SDK only warns unless told to throw); `maxAttempts` bounds the retries, so a black-holed endpoint costs at most
 * `maxAttempts` timeouts plus the back-off between them.
 */
export function sdkTimeouts(env: EnvVars, maxAttempts: number) {
  const requestTimeout = requestTimeoutMs(env);
  return {
    maxAttempts,
    requestHandler: {
      connectionTimeout: Math.min(requestTimeout, 10_000),
      requestTimeout,
      throwOnRequestTimeout: true,
    },
  };
}

/** A service for messages: `EKS at http://127.0.0.1:4566` when its endpoint is overridden, else `EKS`. */
export function serviceAt(serviceId: string, env: EnvVars): string {
  const endpoint = endpointFor(serviceId, env);
  return endpoint ? `${serviceId} at ${endpoint}` : serviceId;
}

/** The hint of a request that got no answer in time. */
export const NO_ANSWER_HINT =
  'check that the endpoint is reachable from here (network, proxy, VPC endpoint); PLATCTL_REQUEST_TIMEOUT sets how long one request may take';
