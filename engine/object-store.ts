/**
 * What the shared state backend (docs/state.md) needs from an object store: read with the ETag, write only if absent
 * or only if unchanged, delete only if unchanged, list. `cloud/state-bucket.ts` implements it on S3; the engine sees
 * only this interface (only `cloud/` builds AWS clients). Keys are relative to the configured `key_prefix`.
 *
 * Expected failures (no network, no permission, no bucket) are values; a failed condition is not a failure but
 * `conflict`: someone else wrote first.
 */

import type { Result } from '../config/result.js';
import { failure } from '../config/result.js';

/** platctl's one result type (`config/result.ts`); the S3 store's `CloudResult` is one of these. */
export type StoreResult<T> = Result<T>;

export interface StoredObject {
  readonly body: string;
  readonly etag: string;
  /**
   * The store's own clock (ms since the epoch): when the object was last written (`Last-Modified`) and when the store
   * answered the read (`Date`). Both come from one clock, so their difference is an age no host's clock can skew.
   * Undefined when the store did not say.
   */
  readonly modifiedAt?: number;
  readonly readAt?: number;
}

export type PutCondition =
  /** Only if no object has the key (`If-None-Match: *`). */
  | { readonly ifNoneMatch: true }
  /** Only if the object still has this ETag (`If-Match`). */
  | { readonly ifMatch: string }
  | { readonly always: true };

export type PutOutcome = { readonly type: 'written'; readonly etag: string } | { readonly type: 'conflict' };

export type DeleteOutcome = 'deleted' | 'conflict' | 'missing';

export interface ObjectStore {
  /** `s3://bucket/prefix/key`: for messages. */
  location(key: string): string;
  /** The object and its ETag; undefined when there is none. */
  get(key: string): Promise<StoreResult<StoredObject | undefined>>;
  put(key: string, body: string | Uint8Array, condition: PutCondition): Promise<StoreResult<PutOutcome>>;
  /** Deletes the object if it still has `ifMatch` as its ETag. */
  remove(key: string, ifMatch: string): Promise<StoreResult<DeleteOutcome>>;
  /** Keys directly under `prefix` (`objects`) and the next level of "folders" (`folders`, without the prefix). */
  list(prefix: string): Promise<StoreResult<{ objects: string[]; folders: string[] }>>;
}

/** A failure of the store: unreachable, forbidden, no bucket. */
export const storeFailure = failure;
