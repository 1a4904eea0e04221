/**
 * `platctl status`'s reading of the recorded state: a run recorded as running is believed only while its lock has a
 * live holder (else it was killed, and shows as interrupted: `run-ended.ts`), whether the run completed, and which
 * down/up recorded as running was killed. Pure apart from the lock reads its callers pass in; the lock itself is read
 * by status's flow, report/status.ts (local file or the shared bucket's environment locks).
 */
import { EXIT } from '../config/exit-codes.js';
import type { StatusCounts } from './events.js';
import type { LockState } from './lock.js';
import { inspectLock, procMachine } from './lock.js';
import { countStatuses } from './reporters/summary.js';
import { asInterrupted, killedBecause } from './run-ended.js';
import type { LoadedState, RunState } from './state.js';

/** The recorded run as status shows it. */
export interface RunView {
  /** The run as it really is: interrupted when it was killed. */
  readonly state: RunState;
  /** A live platctl holds its lock: it is running now. */
  readonly live: boolean;
  /** Why the run, recorded as running, is known to have been killed; undefined when it was not. */
  readonly killed?: string | undefined;
  readonly counts: StatusCounts;
  /** The run completed and every unit is applied (an excluded unit needs nothing: it counts as applied). */
  readonly complete: boolean;
}

/** The run `recorded` as it really is, given its lock (read only when it is recorded as running). */
export function viewRun(recorded: RunState, lock: LockState | undefined): RunView {
  const live = lock?.type === 'held';
  const killed = recorded.status === 'running' && !live ? killedBecause(lock) : undefined;
  const state = killed === undefined ? recorded : asInterrupted(recorded);
  const counts = countStatuses(state);
  const complete =
    state.status === 'completed' && counts.completed + counts.excluded === Object.keys(state.units).length;
  return { state, live, killed, counts, complete };
}

/** Whether `lock` is held by a live platctl running `op` (`down`, `up`): what its command line starts with. */
export function heldByOp(lock: LockState, op: string): boolean {
  return lock.type === 'held' && lock.holder.command.startsWith(`platctl ${op}`);
}

/** An environment's view whose last operation (a down or up) may be recorded as running. */
export interface OpView {
  readonly last?: { readonly status: string; readonly op: string } | undefined;
  readonly killed?: string | undefined;
}

/**
 * Marks each view whose journal says its last down/up is running while no live platctl of that verb holds the lock:
 * it was killed, and `killedBecause` says how that is known (as for a bootstrap run). The lock is read only when a
 * view needs it.
 */
export async function withKilledOps<V extends OpView>(
  views: readonly V[],
  lock: () => Promise<LockState>,
): Promise<V[]> {
  const out: V[] = [];
  for (const view of views) {
    const last = view.last;
    if (last?.status !== 'running') {
      out.push(view);
      continue;
    }
    const now = await lock();
    out.push(heldByOp(now, last.op) ? view : { ...view, killed: killedBecause(now) });
  }
  return out;
}

/**
 * What status does with the state it read (`run`: `--run`): show the recorded run, say no run is recorded, or refuse
 * (the usage exit code) with why: a `--run` that is not the local state's, or a state file it cannot read.
 */
export function statusRun(
  loaded: LoadedState,
  run: string | undefined,
  root: string,
):
  | { readonly type: 'show'; readonly state: RunState }
  | { readonly type: 'none' }
  | { readonly type: 'refused'; readonly message: string } {
  if (run !== undefined && loaded.type === 'ok' && loaded.state.run_id !== run) {
    return { type: 'refused', message: notLastRunMessage(run, root, loaded.state.run_id) };
  }
  if (loaded.type === 'missing') return { type: 'none' };
  if (loaded.type === 'invalid') return { type: 'refused', message: loaded.message };
  return { type: 'show', state: loaded.state };
}

/** `--run` names a run that is not the local state's: the local backend keeps only its last run. */
export function notLastRunMessage(run: string, root: string, last: string): string {
  return (
    `run ${run} is not the last run of ${root} (${last}); the local backend keeps only the last run ` +
    `(state.backend s3 keeps them all: docs/state.md)`
  );
}

/**
 * The local lock of `root` (`.platctl.lock`), read once on first need: whether a run (or a down/up) recorded as
 * running still has a live platctl. `self` is this process (its pid, host, and how to tell a pid is alive).
 */
export function localLockReader(
  root: string,
  self: { readonly pid: number; readonly host: string; readonly isAlive: (pid: number) => boolean },
): () => Promise<LockState> {
  let lock: Promise<LockState> | undefined;
  return () => (lock ??= procMachine(self).then((machine) => inspectLock(root, machine)));
}

/**
 * What status weighs of one environment's park state (park/status.ts's `parkFacts`): its verdict (`unknown`: the
 * record cannot be read; `trouble`: the last down/up failed or was killed) and whether it has a record at all.
 */
export interface ParkFacts {
  readonly env: string;
  readonly verdict: 'unknown' | 'trouble' | 'parked' | 'fine';
  readonly recorded: boolean;
}

/**
 * status's exit code (README, "Exit codes"): 3 when a park record cannot be read or is not understood (status
 * cannot say whether the platform is up, as for a shared run state it cannot read); 1 when the run did not complete
 * (`runOk` false) or the last down/up of an environment failed or was killed; 4 when an environment is parked and
 * nothing else is wrong; else 0.
 */
export function statusExitCode(runOk: boolean, park: readonly ParkFacts[]): number {
  const verdicts = park.map((facts) => facts.verdict);
  if (verdicts.includes('unknown')) return EXIT.refused;
  if (!runOk || verdicts.includes('trouble')) return EXIT.failed;
  return verdicts.includes('parked') ? EXIT.parked : EXIT.ok;
}

/**
 * No bootstrap or teardown run is recorded: the parked environments (named in what to run), and the exit code. A
 * checkout that only parks (a cron runner) has no bootstrap run: its park state is the verdict.
 */
export function noRunView(park: readonly ParkFacts[]): { readonly parked: string[]; readonly exitCode: number } {
  const parked = park.filter((facts) => facts.verdict === 'parked').map((facts) => facts.env);
  return {
    parked,
    exitCode: statusExitCode(
      park.some((facts) => facts.recorded),
      park,
    ),
  };
}

/**
 * Whether a configuration's text may make status read the shared state (so status loads it in full only then, and
 * stays fast and offline otherwise): only a `state:` section, or `park:` with a `state_bucket`, can (docs/park.md).
 * The words anywhere, not keys at the start of a line: YAML may spell the same mapping in flow style (`{state: ...}`,
 * JSON), quoted, or merged in from an anchor. A word in a comment only costs loading the configuration in full.
 */
export function mayShareState(configText: string): boolean {
  const word = (name: string) => new RegExp(`\\b${name}\\b`).test(configText);
  return word('state') || (word('park') && word('state_bucket'));
}
