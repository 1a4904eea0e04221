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
