/**
 * The steps a run adds with the shared state backend (`state.backend: s3`, docs/state.md), kept out of run.ts so
 * the run reads the same with either backend: read the previous run from the bucket (uploading a local state the
 * first time), lock the selection's environments, check a resumed run did not move meanwhile.
 */
import type { AcquireResult, EnvLocks, FoundLock } from './env-lock.js';
import { STALE_AFTER_BEATS, acquireEnvLocks } from './env-lock.js';
import type { ObjectStore } from './object-store.js';
import type { RunAuthor } from './shared-state.js';
import {
  RESUME_SEARCH,
  describeRun,
  findResumable,
  loadRemoteLatest,
  loadRemoteRun,
  uploadState,
} from './shared-state.js';
import type { RunState } from './state.js';
import type { RunCommand } from './unit-status.js';

/** What the run needs to use the shared backend. */
export interface SharedBackend {
  readonly store: ObjectStore;
  readonly heartbeatMs: number;
  /** `--break-lock`: take over a stale lock (only a stale one). */
  readonly breakLock: boolean;
  readonly by: RunAuthor;
  readonly pid: number;
}

export interface SharedRefusal {
  readonly type: 'refused';
  readonly reason: 'lock-held' | 'lock-unreadable' | 'state-unreachable' | 'state-changed';
  readonly message: string;
  readonly details?: readonly string[];
  readonly hint?: string;
}

/**
 * The previous run as the bucket knows it. The first time (nothing in the bucket yet) a local state is uploaded, so a
 * repository moving to the shared backend keeps its resume point and its durations.
 */
export async function sharedPrevious(
  shared: SharedBackend,
  local: RunState | undefined,
  warn: (message: string) => void,
  resume?: ResumeRequest,
): Promise<SharedPrevious> {
  const latest = await latestShared(shared, local, warn);
  if (latest.type !== 'ok' || !resume) return latest;
  return resumable(shared, resume);
}

/** What `--resume` asks the bucket for: the newest run of this `--env` selection (empty: without `--env`). */
export interface ResumeRequest {
  readonly command: RunCommand;
  readonly envs: readonly string[];
}

export type SharedPrevious =
  | {
      readonly type: 'ok';
      readonly previous: RunState | undefined;
      /** With `--resume`: the line naming the run resumed (id, who, when). */
      readonly resuming?: string;
    }
  | SharedRefusal
  | {
      readonly type: 'invalid';
      readonly reason: 'nothing-to-resume';
      readonly message: string;
      readonly details: readonly string[];
      readonly hint: string;
    };

/**
 * The run `--resume` continues: the newest one started with the same `--env` selection, never one of other
 * environments that happens to be newer. None: say so, with the runs there are and how to list them.
 */
async function resumable(shared: SharedBackend, resume: ResumeRequest): Promise<SharedPrevious> {
  const found = await findResumable(shared.store, resume.envs);
  const unreachable = (message: string, hint?: string): SharedRefusal => ({
    type: 'refused',
    reason: 'state-unreachable',
    message: `cannot read the shared run history: ${message}; nothing was run`,
    hint: hint ?? 'check the network and the credentials for state.bucket, then run again',
  });
  if (!found.ok) return unreachable(found.message, found.hint);
  const { match, newer } = found.value;
  const flags = resume.envs.map((env) => `--env ${env}`).join(' ');
  const history = `platctl history${resume.envs.length === 1 ? ` --env ${resume.envs[0] ?? ''}` : ''}`;
  if (!match) {
    return {
      type: 'invalid',
      reason: 'nothing-to-resume',
      message:
        `no run started ${flags ? `with ${flags}` : 'without --env'} in ${shared.store.location('runs/')} ` +
        `(among the ${RESUME_SEARCH} newest) to resume`,
      details: newer.slice(0, 5).map(describeRun),
      hint:
        `${history} lists the runs; resume one with the --env it was started with ` +
        `(platctl ${resume.command} --resume --env ENV), or run platctl ${resume.command} without --resume`,
    };
  }
  const run = await loadRemoteRun(shared.store, match.run_id);
  if (!run.ok) return unreachable(run.message, run.hint);
  if (run.value.type !== 'ok') {
    return {
      type: 'invalid',
      reason: 'nothing-to-resume',
      message: `run ${match.run_id} has no readable state in ${shared.store.location(`runs/${match.run_id}/`)}`,
      details: run.value.type === 'invalid' ? [run.value.message] : [],
      hint: `${history} lists the runs; run platctl ${resume.command} without --resume to start a new one`,
    };
  }
  const others =
    newer.length > 0 ? ` (${newer.length} newer run${newer.length === 1 ? ' is' : 's are'} of other environments)` : '';
  return { type: 'ok', previous: run.value.state, resuming: `${describeRun(match)}${others}` };
}

/** The newest run in the bucket, uploading the local state the first time. */
async function latestShared(
  shared: SharedBackend,
  local: RunState | undefined,
  warn: (message: string) => void,
): Promise<{ readonly type: 'ok'; readonly previous: RunState | undefined } | SharedRefusal> {
  const remote = await loadRemoteLatest(shared.store);
  if (!remote.ok) {
    return {
      type: 'refused',
      reason: 'state-unreachable',
      message: `cannot read the shared run state: ${remote.message}; nothing was run`,
      hint: remote.hint ?? 'check the network and the credentials for state.bucket, then run again',
    };
  }
  if (remote.value.type === 'invalid') {
    warn(`${remote.value.message}; starting without the previous run's state`);
    return { type: 'ok', previous: local };
  }
  if (remote.value.type === 'ok') return { type: 'ok', previous: remote.value.state };
  if (local === undefined) return { type: 'ok', previous: undefined };
  const uploaded = await uploadState(shared.store, local, shared.by);
  if (!uploaded.ok) {
    return {
      type: 'refused',
      reason: 'state-unreachable',
      message: `cannot upload the local state to the shared backend: ${uploaded.message}; nothing was run`,
      hint: uploaded.hint ?? 'check the credentials for state.bucket (docs/state.md lists the permissions)',
    };
  }
  warn(`uploaded the local state of run ${local.run_id} to ${shared.store.location('')} (first run on this backend)`);
  return { type: 'ok', previous: local };
}

/** Locks `envs` for this run, or says who holds one and what to do. */
export async function lockShared(
  shared: SharedBackend,
  request: {
    readonly envs: readonly string[];
    readonly runId: string;
    readonly verb: string;
    readonly command: string;
  },
  now: () => number,
  warn: (message: string) => void,
): Promise<{ readonly type: 'ok'; readonly locks: EnvLocks } | SharedRefusal> {
  const result: AcquireResult = await acquireEnvLocks(
    request.envs,
    {
      run_id: request.runId,
      verb: request.verb,
      command: request.command,
      host: shared.by.host,
      user: shared.by.user,
      pid: shared.pid,
    },
    {
      store: shared.store,
      now,
      heartbeatMs: shared.heartbeatMs,
      breakLock: shared.breakLock,
      onBreak: (found) => warn(`breaking the stale lock of environment ${found.env}: ${describeHolder(found)}`),
    },
  );
  switch (result.type) {
    case 'acquired':
      result.locks.start();
      return { type: 'ok', locks: result.locks };
    case 'held':
      return {
        type: 'refused',
        reason: 'lock-held',
        message: `environment ${result.env} is locked by another platctl run (${shared.store.location(`locks/${result.env}.json`)})`,
        details: holderDetails(result),
        hint: result.stale
          ? `its heartbeat stopped ${seconds(result.ageMs)} ago (stale after ${STALE_AFTER_BEATS} missed heartbeats): ` +
            `if that run is gone, run again with --break-lock`
          : Number.isNaN(result.ageMs)
            ? 'the bucket did not say when the lock was last renewed, so platctl cannot judge it stale: wait for ' +
              'that run to finish; if it is gone, delete the lock object'
            : 'wait for it to finish (platctl status shows its progress); --break-lock takes over only a stale lock',
      };
    case 'unreadable':
      return {
        type: 'refused',
        reason: 'lock-unreadable',
        message: `${result.location} exists but is not a platctl lock (${result.message})`,
        hint: 'if no platctl run is in progress on that environment, delete the object',
      };
    case 'error':
      return {
        type: 'refused',
        reason: 'state-unreachable',
        message: `${result.message}; nothing was run`,
        hint: result.hint ?? 'check the network and the credentials for state.bucket, then run again',
      };
  }
}

/**
 * A resumed run, re-read once its environments are locked: if another machine resumed it between our first read and
 * our locks, this run must not continue from the older copy.
 */
export async function checkResumedUnchanged(
  shared: SharedBackend,
  resumed: RunState,
): Promise<SharedRefusal | undefined> {
  const again = await loadRemoteRun(shared.store, resumed.run_id);
  if (!again.ok) {
    return {
      type: 'refused',
      reason: 'state-unreachable',
      message: `cannot read the shared run state: ${again.message}; nothing was run`,
      ...(again.hint === undefined ? {} : { hint: again.hint }),
    };
  }
  if (again.value.type === 'ok' && again.value.state.updated_at === resumed.updated_at) return undefined;
  return {
    type: 'refused',
    reason: 'state-changed',
    message: `run ${resumed.run_id} changed in the shared state while this run was locking its environments`,
    hint: 'another runner resumed it meanwhile; check platctl status, then run again',
  };
}

export function holderDetails(found: FoundLock): string[] {
  const h = found.holder;
  return [
    `run ${h.run_id}: ${h.verb} (${h.command})`,
    `by ${h.user}@${h.host}, pid ${h.pid}, started ${h.started_at}`,
    `last heartbeat ${seconds(found.ageMs)} ago by the bucket's clock${found.stale ? ' (stale)' : ''}`,
  ];
}

function describeHolder(found: FoundLock): string {
  const h = found.holder;
  return `run ${h.run_id} (${h.verb}) by ${h.user}@${h.host} pid ${h.pid}, started ${h.started_at}, last heartbeat ${seconds(found.ageMs)} ago`;
}

function seconds(ms: number): string {
  if (!Number.isFinite(ms)) return 'an unknown time';
  return ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}
