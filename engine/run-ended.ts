/**
 * How a run recorded as `running` really ended, when the platctl that ran it is gone: why that is known (from its
 * lock), and the run as it ended (interrupted). Read by `platctl status`; the state file itself is left as it is.
 */
import type { LockState } from './lock.js';
import type { RunState } from './state.js';

/** Why the platctl of a run recorded `running` is known to be gone. */
export function killedBecause(lock: LockState | undefined): string {
  if (lock === undefined || lock.type === 'free') return 'it left no lock behind';
  if (lock.type === 'stale') {
    return `pid ${lock.holder.pid} on ${lock.holder.host}, which held the lock, is gone: ${lock.why}`;
  }
  if (lock.type === 'unreadable') return `its lock cannot be read: ${lock.message}`;
  return 'its lock is held by another run';
}

/** The run as it really ended: interrupted, its running units too. The file itself is left as it is. */
export function asInterrupted(state: Readonly<RunState>): RunState {
  const units: RunState['units'] = {};
  for (const [id, unit] of Object.entries(state.units)) {
    units[id] = unit.status === 'running' ? { ...unit, status: 'interrupted' } : unit;
  }
  return { ...state, status: 'interrupted', units };
}
