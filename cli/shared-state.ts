/**
 * Builds the shared state backend of `state: { backend: s3 }` (docs/state.md) for the verbs that use it. The S3 code
 * is imported only when the backend is s3, so the local backend costs nothing.
 */
import { hostname, userInfo } from 'node:os';
import type { StateConfig } from '../config/schema.js';
import type { ObjectStore } from '../engine/object-store.js';
import type { SharedBackend } from '../engine/shared-run.js';
import type { RunAuthor } from '../engine/shared-state.js';
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

/**
 * Who runs, as runs, locks and `history` name them: `USER` (or `LOGNAME`, `USERNAME`), else the operating system's
 * account (a cron job or a container often sets no `USER`), and this host.
 */
export function runAuthor(env: Readonly<Record<string, string | undefined>>): RunAuthor {
  return { user: env.USER || env.LOGNAME || env.USERNAME || osUser(), host: hostname() };
}

function osUser(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    // No passwd entry for the uid (a container run with an arbitrary uid).
    return `uid ${process.getuid?.() ?? '?'}`;
  }
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
 * Where the park record of an environment is shared (docs/park.md): with the s3 backend, `<key_prefix>/park/<env>.json`
 * in the state bucket, and the environment's `aws.state_bucket` (`s3://<bucket>/platctl/park/<env>.json`) is where an
 * earlier configuration kept it, read once to move it; with the local backend, that environment bucket, if any.
 */
export function parkRecordPlaces(
  state: ObjectStore | undefined,
  envBucket: ObjectStore | undefined,
): { readonly shared?: ObjectStore; readonly previous?: ObjectStore } {
  if (!state) return envBucket ? { shared: envBucket } : {};
  // The same object when state.bucket is the environment's bucket and key_prefix the default: nothing to move.
  const same = envBucket !== undefined && envBucket.location('park/') === state.location('park/');
  return envBucket && !same ? { shared: state, previous: envBucket } : { shared: state };
}
