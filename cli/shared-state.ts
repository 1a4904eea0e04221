/**
 * Builds the shared state backend of `state: { backend: s3 }` (docs/state.md) for the verbs that use it. The S3 code
 * is imported only when the backend is s3, so the local backend costs nothing.
 */
import { hostname, userInfo } from 'node:os';
import type { StateConfig } from '../config/schema.js';
import type { ObjectStore } from '../engine/object-store.js';
import type { SharedBackend } from '../engine/shared-run.js';
import type { RunAuthor } from '../engine/shared-state.js';
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
 * The shared run state in the bucket: the latest run, or `run`. A bucket that cannot be read is refused (exit 3), an
 * unknown `run` is a usage error (exit 2), both said on stderr; an unparsable record is a state to report, not an error.
 */
export async function readSharedRun(
  store: ObjectStore,
  run: string | undefined,
  io: Pick<CliIo, 'stderr'>,
): Promise<{ type: 'ok'; loaded: LoadedState } | { type: 'error'; exitCode: number }> {
  const { loadRemoteLatest, loadRemoteRun } = await import('../engine/shared-state.js');
  const remote = run === undefined ? await loadRemoteLatest(store) : await loadRemoteRun(store, run);
  if (!remote.ok) {
    io.stderr.write(`platctl: cannot read the shared run state: ${remote.message}\n`);
    if (remote.hint) io.stderr.write(`  hint: ${remote.hint}\n`);
    return { type: 'error', exitCode: EXIT.refused };
  }
  if (remote.value.type === 'missing' && run !== undefined) {
    io.stderr.write(`platctl: no run ${run} in ${store.location('runs/')}; platctl history lists the runs\n`);
    return { type: 'error', exitCode: EXIT.usage };
  }
  const loaded: LoadedState =
    remote.value.type === 'ok'
      ? { type: 'ok', state: remote.value.state }
      : remote.value.type === 'missing'
        ? { type: 'missing' }
        : { type: 'invalid', reason: 'unparsable', message: remote.value.message };
  return { type: 'ok', loaded };
}
