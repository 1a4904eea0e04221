/**
 * The locks of a `down`/`up` that are not the process's: what a held checkout lock means for it, the warning when it
 * took over a dead holder's, and the environment locks of `state.backend: s3`, taken as bootstrap and teardown take
 * them. The CLI acquires the checkout lock (its pid, host and process table) and builds the shared backend.
 */
import type { LockInfo, LockRefusal, LockResult } from '../engine/lock.js';
import { lockRefusal } from '../engine/lock.js';
import type { EnvLocks } from '../engine/env-lock.js';
import type { Paint } from '../engine/reporters/paint.js';
import { makeRunId } from '../engine/run.js';
import { lockShared } from '../engine/shared-run.js';
import type { SharedBackend, SharedRefusal } from '../engine/shared-run.js';
import type { ParkOp } from './record.js';
import type { ParkFence } from './run.js';

/** Why the checkout lock refuses a `down`/`up` (the engine's words), and that it would race a live holder. */
export function checkoutLockRefusal(
  op: ParkOp,
  lock: Exclude<LockResult, { type: 'acquired' }>,
  root: string,
  host: string,
): LockRefusal {
  const refusal = lockRefusal(lock, root, host);
  return lock.type === 'held' ? { ...refusal, message: `${refusal.message}; ${op} would race it` } : refusal;
}

/** The warning line when the checkout lock was taken over from a platctl that died. */
export function tookOverWarning(paint: Paint, tookOver: Pick<LockInfo, 'command' | 'pid'>): string {
  return `${paint.yellow('warning')}: took over the lock of a platctl that died (${tookOver.command}, pid ${tookOver.pid})\n`;
}

/**
 * With `state.backend: s3` (`shared`): locks the environments of a `down`/`up` as bootstrap and teardown do (sorted,
 * never waiting, `--break-lock` for a stale one only), so one of them refuses while the other holds an environment.
 * Undefined with the local backend. `say` gets the lines for people: warnings, and the loss of the locks mid-run.
 */
export async function lockParkEnvs(
  shared: SharedBackend | undefined,
  request: { readonly op: ParkOp; readonly envs: readonly string[]; readonly command: string },
  now: () => number,
  say: (line: string) => void,
): Promise<{ type: 'ok'; locks: EnvLocks } | SharedRefusal | undefined> {
  if (!shared) return undefined;
  const got = await lockShared(
    shared,
    { envs: request.envs, runId: makeRunId(now()), verb: request.op, command: request.command },
    now,
    (message) => say(`warning: ${message}\n`),
  );
  if (got.type !== 'ok') return got;
  got.locks.fenced.addEventListener('abort', () =>
    say(`warning: ${got.locks.fenceReason}: starting no more steps and making no more changes to AWS (exit 3)\n`),
  );
  return { type: 'ok', locks: got.locks };
}

/** The fence `runPark` checks before each step: the environment locks, while they are still this run's. */
export function parkFence(locks: EnvLocks | undefined): ParkFence | undefined {
  return (
    locks && {
      stillOurs: () => locks.ensureFresh(),
      get reason() {
        return locks.fenceReason;
      },
    }
  );
}
