/**
 * Builds the shared state backend of `state: { backend: s3 }` (docs/state.md) for the verbs that use it. The S3 code
 * is imported only when the backend is s3, so the local backend costs nothing.
 */
import type { StateConfig } from '../config/schema.js';
import type { ObjectStore } from '../engine/object-store.js';
import type { SharedBackend } from '../engine/shared-run.js';
import { runAuthor } from '../engine/shared-state.js';
import type { LoadedState } from '../engine/state.js';
import type { CliIo } from './verb.js';
import { EXIT } from './verb.js';

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

/**
 * The shared run state in the bucket (engine/shared-state.ts): the latest run, or `run`. A bucket that cannot be read
 * is refused (exit 3), an unknown `run` is a usage error (exit 2), both said on stderr.
 */
export async function readSharedRun(
  store: ObjectStore,
  run: string | undefined,
  io: Pick<CliIo, 'stderr'>,
): Promise<{ type: 'ok'; loaded: LoadedState } | { type: 'error'; exitCode: number }> {
  const { readSharedRun: read } = await import('../engine/shared-state.js');
  const loaded = await read(store, run);
  if (loaded.ok) return { type: 'ok', loaded: loaded.value };
  io.stderr.write(`platctl: ${loaded.message}\n${loaded.hint ? `  hint: ${loaded.hint}\n` : ''}`);
  return { type: 'error', exitCode: loaded.reason === 'unreadable' ? EXIT.refused : EXIT.usage };
}
