/**
 * The S3 side of `state: { backend: s3 }` (docs/state.md): one client for the configured bucket, with conditional
 * writes (`If-None-Match: *`, `If-Match`) and conditional deletes, every key under `key_prefix`. Requests are bounded
 * in time: a lock renewal that hangs must fail (and fence the run) rather than wait forever.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { createCredentialProvider } from './credentials.js';
import type { EnvVars } from './env.js';
import { endpointFor } from './env.js';
import { failure } from './result.js';
import type { S3Store } from './s3-store.js';
import { Unavailable, createS3Store } from './s3-store.js';

export interface StateBucketSettings {
  readonly bucket: string;
  readonly keyPrefix: string;
  readonly profile?: string | undefined;
  readonly region?: string | undefined;
  /** Per request (default 10 s). */
  readonly requestTimeoutMs?: number;
}

/** Structurally the `ObjectStore` of `engine/object-store.ts`. */
export type StateBucket = S3Store;

export function createStateBucket(settings: StateBucketSettings, env: EnvVars): StateBucket {
  let client: Promise<S3Client> | undefined;
  const s3 = (): Promise<S3Client> => {
    client ??= stateClient(settings, env);
    client.catch(() => (client = undefined));
    return client;
  };
  return createS3Store({
    bucket: settings.bucket,
    keyPrefix: settings.keyPrefix,
    profile: settings.profile,
    client: s3,
    hints: {
      noBucket: 'create it, or fix state.bucket in .platctl.yaml',
      forbidden: 'the principal needs the permissions listed in docs/state.md',
    },
  });
}

async function stateClient(settings: StateBucketSettings, env: EnvVars): Promise<S3Client> {
  const region = settings.region ?? (env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined);
  if (region === undefined) {
    throw new Unavailable(
      failure('not-configured', 'the state bucket has no region', 'set state.region in .platctl.yaml'),
    );
  }
  const requestTimeout = settings.requestTimeoutMs ?? 10_000;
  let credentials;
  try {
    credentials = await createCredentialProvider({ profile: settings.profile, region }, env, {
      requestTimeoutMs: requestTimeout,
    });
  } catch (error) {
    throw new Unavailable(failure('auth', `resolving credentials for the state bucket: ${String(error)}`));
  }
  const endpoint = endpointFor('S3', env);
  const { S3Client } = await import('@aws-sdk/client-s3');
  return new S3Client({
    region,
    credentials,
    maxAttempts: 2,
    requestHandler: {
      connectionTimeout: Math.min(requestTimeout, 5_000),
      requestTimeout,
      throwOnRequestTimeout: true,
    },
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    followRegionRedirects: true,
  });
}
