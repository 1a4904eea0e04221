/**
 * One S3 bucket under a key prefix as the `ObjectStore` of `engine/object-store.ts`: reads with the ETag,
 * conditional writes (`If-None-Match: *`, `If-Match`), conditional deletes, listing. Both S3 users build it: the
 * shared state backend (`cloud/state-bucket.ts`, its own credentials) and the park record at its old place
 * (`cloud/park-aws.ts`, the environment's credentials). Only the client differs, so the client is injected.
 *
 * {@link awsFailure} is the one mapping of an AWS SDK error to a `CloudFailure` that both use, and that
 * `cloud/park-aws.ts` uses for its EKS and EC2 calls too.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { describeAwsError, isAuthError, loginHint } from './auth-errors.js';
import { NO_ANSWER_HINT } from './env.js';
import type { CloudFailure, CloudResult } from './result.js';
import { failure, isAbortError, networkErrorCode, ok } from './result.js';

/** Where the store lives and how to get its client. */
export interface S3StoreSettings {
  readonly bucket: string;
  /** Keys are `<keyPrefix>/<key>`. */
  readonly keyPrefix: string;
  /** For the login hint of an auth failure. */
  readonly profile?: string | undefined;
  /** Builds (or reuses) the client; may throw {@link Unavailable}. */
  readonly client: () => Promise<S3Client>;
  /** Hints for a missing bucket and a refused permission, worded for the configuration key behind the bucket. */
  readonly hints?: { readonly noBucket?: string; readonly forbidden?: string };
}

export type S3PutCondition = { readonly ifNoneMatch: true } | { readonly ifMatch: string } | { readonly always: true };

/**
 * An object as read: its body and ETag, and the bucket's own clock (ms since the epoch, second resolution): when it
 * was last written (`Last-Modified`) and when S3 answered (the response's `Date`). Their difference is an age that no
 * client's clock can skew.
 */
export interface StoredS3Object {
  readonly body: string;
  readonly etag: string;
  readonly modifiedAt?: number;
  readonly readAt?: number;
}

/** Structurally the `ObjectStore` of `engine/object-store.ts` (cloud/ does not import the engine). */
export interface S3Store {
  location(key: string): string;
  get(key: string): Promise<CloudResult<StoredS3Object | undefined>>;
  put(
    key: string,
    body: string | Uint8Array,
    condition: S3PutCondition,
  ): Promise<CloudResult<{ readonly type: 'written'; readonly etag: string } | { readonly type: 'conflict' }>>;
  remove(key: string, ifMatch: string): Promise<CloudResult<'deleted' | 'conflict' | 'missing'>>;
  list(prefix: string): Promise<CloudResult<{ objects: string[]; folders: string[] }>>;
}

/** S3 error names of a failed condition: 412, or 409 while another conditional write to the key is in flight. */
const CONFLICT_NAMES = new Set(['PreconditionFailed', 'ConditionalRequestConflict']);

/** True when `error` is S3 saying a conditional write or delete lost: someone else wrote first. */
export function isConditionConflict(error: unknown): boolean {
  return error instanceof Error && CONFLICT_NAMES.has(error.name);
}

export function createS3Store(settings: S3StoreSettings): S3Store {
  return new S3ObjectStore(settings);
}

class S3ObjectStore implements S3Store {
  readonly #settings: S3StoreSettings;

  constructor(settings: S3StoreSettings) {
    this.#settings = settings;
  }

  #key(key: string): string {
    return this.#settings.keyPrefix === '' ? key : `${this.#settings.keyPrefix}/${key}`;
  }

  location(key: string): string {
    return `s3://${this.#settings.bucket}/${this.#key(key)}`;
  }

  async get(key: string): Promise<CloudResult<StoredS3Object | undefined>> {
    try {
      const [{ GetObjectCommand }, s3] = await Promise.all([import('@aws-sdk/client-s3'), this.#settings.client()]);
      const command = new GetObjectCommand({ Bucket: this.#settings.bucket, Key: this.#key(key) });
      let date: string | undefined;
      command.middlewareStack.add(
        (next) => async (args) => {
          const result = await next(args);
          const headers = (result.response as { headers?: Record<string, string | undefined> }).headers;
          date = headers?.date;
          return result;
        },
        { step: 'deserialize', name: 'platctlServerDate' },
      );
      const answer = await s3.send(command);
      const readAt = date === undefined ? Number.NaN : Date.parse(date);
      const modifiedAt = answer.LastModified?.getTime() ?? Number.NaN;
      return ok({
        body: (await answer.Body?.transformToString('utf8')) ?? '',
        etag: answer.ETag ?? '',
        ...(Number.isFinite(modifiedAt) ? { modifiedAt } : {}),
        ...(Number.isFinite(readAt) ? { readAt } : {}),
      });
    } catch (error) {
      if (error instanceof Error && error.name === 'NoSuchKey') return ok(undefined);
      return this.#failure(error, `reading ${this.location(key)}`);
    }
  }

  async put(
    key: string,
    body: string | Uint8Array,
    condition: S3PutCondition,
  ): Promise<CloudResult<{ readonly type: 'written'; readonly etag: string } | { readonly type: 'conflict' }>> {
    try {
      const [{ PutObjectCommand }, s3] = await Promise.all([import('@aws-sdk/client-s3'), this.#settings.client()]);
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
      if (isConditionConflict(error)) return ok({ type: 'conflict' });
      // If-Match on a key that is gone answers 404 NoSuchKey: the object we expected is not there any more.
      if ('ifMatch' in condition && error instanceof Error && error.name === 'NoSuchKey') {
        return ok({ type: 'conflict' });
      }
      return this.#failure(error, `writing ${this.location(key)}`);
    }
  }

  async remove(key: string, ifMatch: string): Promise<CloudResult<'deleted' | 'conflict' | 'missing'>> {
    try {
      const [{ DeleteObjectCommand }, s3] = await Promise.all([import('@aws-sdk/client-s3'), this.#settings.client()]);
      await s3.send(new DeleteObjectCommand({ Bucket: this.#settings.bucket, Key: this.#key(key), IfMatch: ifMatch }));
      return ok('deleted');
    } catch (error) {
      if (isConditionConflict(error)) return ok('conflict');
      if (error instanceof Error && error.name === 'NoSuchKey') return ok('missing');
      return this.#failure(error, `deleting ${this.location(key)}`);
    }
  }

  async list(prefix: string): Promise<CloudResult<{ objects: string[]; folders: string[] }>> {
    const full = this.#key(prefix);
    try {
      const [{ ListObjectsV2Command }, s3] = await Promise.all([import('@aws-sdk/client-s3'), this.#settings.client()]);
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
    const { bucket, profile, hints } = this.#settings;
    if (error instanceof Error && error.name === 'NoSuchBucket') {
      return failure(
        'not-found',
        `${what}: the bucket ${bucket} does not exist`,
        hints?.noBucket ?? 'create it, or fix the bucket name in .platctl.yaml',
      );
    }
    return awsFailure(error, what, {
      service: 'S3',
      profile,
      ...(hints?.forbidden ? { forbidden: hints.forbidden } : {}),
    });
  }
}

/** Carries a failure (no credentials, no region) out of client construction into the call that needed the client. */
export class Unavailable extends Error {
  readonly result: CloudFailure;
  constructor(result: CloudFailure) {
    super(result.message);
    this.result = result;
  }
}

/** Error names meaning "no such thing", across S3, EKS and EC2. */
const NOT_FOUND_NAMES = new Set(['NotFound', 'NoSuchKey', 'NoSuchBucket', 'ResourceNotFoundException']);
const FORBIDDEN_NAMES = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation', 'Forbidden']);

/**
 * An AWS SDK error `what` ran into, as a `CloudFailure`: the credentials (`auth`, with the login hint of `profile`),
 * no answer in time, not found, a missing permission, an endpoint not reached, anything else.
 */
export function awsFailure(
  error: unknown,
  what: string,
  options: { readonly service: string; readonly profile?: string | undefined; readonly forbidden?: string },
): CloudFailure {
  if (error instanceof Unavailable) return error.result;
  if (isAuthError(error)) {
    return failure(
      'auth',
      `AWS rejected the credentials ${what}: ${describeAwsError(error)}`,
      loginHint(options.profile),
    );
  }
  if (isAbortError(error)) return failure('timeout', `no answer from ${options.service} ${what}`, NO_ANSWER_HINT);
  const name = error instanceof Error ? error.name : '';
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (NOT_FOUND_NAMES.has(name) || status === 404) return failure('not-found', `${what}: ${describeAwsError(error)}`);
  if (FORBIDDEN_NAMES.has(name) || status === 403) {
    return failure('forbidden', `${what}: ${describeAwsError(error)}`, options.forbidden);
  }
  const code = networkErrorCode(error);
  if (code) return failure('unreachable', `cannot reach ${options.service} ${what} (${code})`);
  return failure('error', `${what}: ${describeAwsError(error)}`);
}
