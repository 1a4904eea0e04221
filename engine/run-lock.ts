/**
 * What the environment locks in the shared state bucket say about a run recorded as running (docs/state.md): held by
 * it and fresh (it is live), held by it but not renewed (its platctl is gone), or no lock of it at all. Read by
 * `platctl status` and `platctl report`; the local backend's lock is read by status-view.ts's `localLockReader`.
 */
import { readEnvLock } from './env-lock.js';
import type { LockState } from './lock.js';
import type { ObjectStore } from './object-store.js';
import { envsOf } from './shared-state.js';
import type { RunState } from './state.js';

/**
 * The lock of `recorded` as `status` shows it: the first of its environments' locks held by this run (fresh: `held`;
 * not renewed: `stale`, with why), a lock that cannot be read, or `free` when no environment holds it.
 */
export async function sharedRunLock(
  store: ObjectStore,
  recorded: Pick<RunState, 'run_id' | 'units'>,
): Promise<LockState> {
  for (const env of envsOf(recorded)) {
    const found = await readEnvLock(store, env);
    if (!found.ok) return { type: 'unreadable', message: found.message };
    const value = found.value;
    if (value.type !== 'held' || value.holder.run_id !== recorded.run_id) continue;
    const holder = {
      pid: value.holder.pid,
      host: value.holder.host,
      command: value.holder.command,
      started_at: value.holder.started_at,
    };
    if (!value.stale) return { type: 'held', holder };
    return {
      type: 'stale',
      holder,
      why: `its lock of environment ${env} was not renewed for ${Math.round(value.ageMs / 1000)} s`,
    };
  }
  return { type: 'free' };
}

/**
 * Whether `state` is live as `report` draws it: one of its environment locks is held, fresh, by this run. A lock that
 * cannot be read is passed over (the page is drawn all the same).
 */
export async function sharedRunLive(store: ObjectStore, state: Pick<RunState, 'run_id' | 'units'>): Promise<boolean> {
  for (const env of envsOf(state)) {
    const found = await readEnvLock(store, env);
    if (found.ok && found.value.type === 'held' && found.value.holder.run_id === state.run_id) {
      return !found.value.stale;
    }
  }
  return false;
}
