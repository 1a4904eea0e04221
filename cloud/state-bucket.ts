/**
 * The S3 side of `state: { backend: s3 }` (docs/state.md): one client for the configured bucket, with conditional
 * writes (`If-None-Match: *`, `If-Match`) and conditional deletes, every key under `key_prefix`. Requests are bounded
 * in time: a lock renewal that hangs must fail (and fence the run) rather than wait forever.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { describeAwsError, isAuthError, loginHint } from './auth-errors.js';
import { createCredentialProvider } from './credentials.js';
import type { EnvVars } from './env.js';
import { endpointFor } from './env.js';
import type { CloudFailure, CloudResult } from './result.js';
import { failure, isAbortError, networkErrorCode, ok } from './result.js';

export interface StateBucketSettings {
  readonly bucket: string;
  readonly keyPrefix: string;
  readonly profile?: string | undefined;
  readonly region?: string | undefined;
  /** Per request (default 10 s). */
  readonly requestTimeoutMs?: number;
}

export type StatePut = { readonly type: 'written'; readonly etag: string } | { readonly type: 'conflict' };

/** Structurally the `ObjectStore` of `engine/object-store.ts`. */
export interface StateBucket {
  location(key: string): string;
  get(key: string): Promise<CloudResult<{ body: string; etag: string } | undefined>>;
  put(
    key: string,
    body: string | Uint8Array,
    condition: { readonly ifNoneMatch: true } | { readonly ifMatch: string } | { readonly always: true },
  ): Promise<CloudResult<StatePut>>;
  remove(key: string, ifMatch: string): Promise<CloudResult<'deleted' | 'conflict' | 'missing'>>;
  list(prefix: string): Promise<CloudResult<{ objects: string[]; folders: string[] }>>;
}

export function createStateBucket(settings: StateBucketSettings, env: EnvVars): StateBucket {
  return new S3StateBucket(settings, env);
}

/** S3 error names of a failed condition: 412, or 409 while another conditional write to the key is in flight. */
const CONFLICT_NAMES = new Set(['PreconditionFailed', 'ConditionalRequestConflict']);

class S3StateBucket implements StateBucket {
  readonly #settings: StateBucketSettings;
  readonly #env: EnvVars;
  #client: Promise<S3Client> | undefined;

  constructor(settings: StateBucketSettings, env: EnvVars) {
    this.#settings = settings;
    this.#env = env;
  }

  #key(key: string): string {
    return `${this.#settings.keyPrefix}/${key}`;
  }

  location(key: string): string {
    return `s3://${this.#settings.bucket}/${this.#key(key)}`;
  }

  async get(key: string): Promise<CloudResult<{ body: string; etag: string } | undefined>> {
    const what = `reading ${this.location(key)}`;
    try {
      const [{ GetObjectCommand }, s3] = await Promise.all([import('@aws-sdk/client-s3'), this.#s3()]);
      const answer = await s3.send(new GetObjectCommand({ Bucket: this.#settings.bucket, Key: this.#key(key) }));
      return ok({ body: (await answer.Body?.transformToString('utf8')) ?? '', etag: answer.ETag ?? '' });
    } catch (error) {
      if (error instanceof Error && error.name === 'NoSuchKey') return ok(undefined);
      return this.#failure(error, what);
    }
  }

  async put(
    key: string,
    body: string | Uint8Array,
    condition: { readonly ifNoneMatch: true } | { readonly ifMatch: string } | { readonly always: true },
  ): Promise<CloudResult<StatePut>> {
    try {
      const [{ PutObjectCommand }, s3] = await Promise.all([import('@aws-sdk/client-s3'), this.#s3()]);
      const answer = await s3.send(
        new PutObjectCommand({
          Bucket: this.#settings.bucket,
          Key: this.#key(key),
          Body: body,
          ContentType: key.endsWith('.json') ? 'application/json' : 'text/plain; charset=utf-8',
          ...('ifNoneMatch' in condition ? { IfNoneMatch: '*' } : {}),
          ...('ifMatch' in condition ? { IfMatch: condition.ifMatch } : {}),
        }),
      );
      return ok({ type: 'written', etag: answer.ETag ?? '' });
    } catch (error) {
      if (error instanceof Error && CONFLICT_NAMES.has(error.name)) return ok({ type: 'conflict' });
      // If-Match on a key that is gone answers 404 NoSuchKey: the object we expected is not there any more.
      if ('ifMatch' in condition && error instanceof Error && error.name === 'NoSuchKey') {
        return ok({ type: 'conflict' });
      }
      return this.#failure(error, `writing ${this.location(key)}`);
    }
  }

  async remove(key: string, ifMatch: string): Promise<CloudResult<'deleted' | 'conflict' | 'missing'>> {
    try {
      const [{ DeleteObjectCommand }, s3] = await Promise.all([import('@aws-sdk/client-s3'), this.#s3()]);
      await s3.send(new DeleteObjectCommand({ Bucket: this.#settings.bucket, Key: this.#key(key), IfMatch: ifMatch }));
      return ok('deleted');
    } catch (error) {
      if (error instanceof Error && CONFLICT_NAMES.has(error.name)) return ok('conflict');
      if (error instanceof Error && error.name === 'NoSuchKey') return ok('missing');
      return this.#failure(error, `deleting ${this.location(key)}`);
    }
  }

  async list(prefix: string): Promise<CloudResult<{ objects: string[]; folders: string[] }>> {
    const full = this.#key(prefix);
    try {
      const [{ ListObjectsV2Command }, s3] = await Promise.all([import('@aws-sdk/client-s3'), this.#s3()]);
      const objects: string[] = [];
      const folders: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(
          new ListObjectsV2Command({
            Bucket: this.#settings.bucket,
            Prefix: full,
            Delimiter: '/',
            ...(token ? { ContinuationToken: token } : {}),
          }),
        );
        for (const item of page.Contents ?? []) if (item.Key) objects.push(item.Key.slice(full.length));
        for (const item of page.CommonPrefixes ?? []) {
          if (item.Prefix) folders.push(item.Prefix.slice(full.length).replace(/\/$/, ''));
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return ok({ objects, folders });
    } catch (error) {
      return this.#failure(error, `listing ${this.location(prefix)}`);
    }
  }

  #failure(error: unknown, what: string): CloudFailure {
    if (error instanceof Unavailable) return error.result;
    if (isAuthError(error)) {
      return failure(
        'auth',
        `AWS rejected the credentials ${what}: ${describeAwsError(error)}`,
        loginHint(this.#settings.profile),
      );
    }
    if (isAbortError(error)) return failure('timeout', `no answer from S3 ${what}`);
    const name = error instanceof Error ? error.name : '';
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (name === 'NoSuchBucket') {
      return failure(
        'not-found',
        `${what}: the bucket ${this.#settings.bucket} does not exist`,
        'create it, or fix state.bucket in .platctl.yaml',
      );
    }
    if (['AccessDenied', 'Forbidden'].includes(name) || status === 403) {
      return failure(
        'forbidden',
        `${what}: ${describeAwsError(error)}`,
        'the principal needs the permissions listed in docs/state.md',
      );
    }
    const code = networkErrorCode(error);
    if (code) return failure('unreachable', `cannot reach S3 ${what} (${code})`);
    return failure('error', `${what}: ${describeAwsError(error)}`);
  }

  #s3(): Promise<S3Client> {
    this.#client ??= (async () => {
      const region = this.#settings.region ?? (this.#env.AWS_REGION || this.#env.AWS_DEFAULT_REGION || undefined);
      if (region === undefined) {
        throw new Unavailable(
          failure('not-configured', 'the state bucket has no region', 'set state.region in .platctl.yaml'),
        );
      }
      const requestTimeout = this.#settings.requestTimeoutMs ?? 10_000;
      let credentials;
      try {
        credentials = await createCredentialProvider({ profile: this.#settings.profile, region }, this.#env, {
          requestTimeoutMs: requestTimeout,
        });
      } catch (error) {
        throw new Unavailable(failure('auth', `resolving credentials for the state bucket: ${String(error)}`));
      }
      const endpoint = endpointFor('S3', this.#env);
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
    })();
    this.#client.catch(() => (this.#client = undefined));
    return this.#client;
  }
}

/** Carries a credentials failure out of client construction. */
class Unavailable extends Error {
  readonly result: CloudFailure;
  constructor(result: CloudFailure) {
    super(result.message);
    this.result = result;
  }
}
