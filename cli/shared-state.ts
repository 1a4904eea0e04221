/**
 * Builds the shared state backend of `state: { backend: s3 }` (docs/state.md) for the verbs that use it. The S3 code
 * is imported only when the backend is s3, so the local backend costs nothing.
 */
import type { StateConfig } from '../config/schema.js';
import type { ObjectStore } from '../engine/object-store.js';
import type { SharedBackend } from '../engine/shared-run.js';
import { runAuthor } from '../engine/shared-state.js';
import type { CliIo } from './verb.js';

/** The bucket behind `state`, or undefined with the local backend. */
export async function stateStore(state: StateConfig, io: Pick<CliIo, 'env'>): Promise<ObjectStore | undefined> {
  if (state.backend !== 's3' || state.bucket === undefined) return undefined;
  const { createStateBucket } = await import('../cloud/state-bucket.js');
  return createStateBucket(
    { bucket: state.bucket, keyPrefix: state.key_prefix, profile: state.profile, region: state.region },
    io.env,
  );
}

/** Everything a run needs from the shared backend, or undefined with the local backend. */
export async function sharedBackend(
  state: StateConfig,
  io: Pick<CliIo, 'env'>,
  breakLock: boolean,
): Promise<SharedBackend | undefined> {
  const store = await stateStore(state, io);
  if (!store) return undefined;
  return { store, heartbeatMs: state.heartbeat, breakLock, by: runAuthor(io.env), pid: process.pid };
}
