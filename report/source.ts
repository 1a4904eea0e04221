/**
 * Where `platctl report`'s model comes from: a bootstrap/teardown run (the local state, or the shared backend's run
 * the CLI read) narrowed to some environments, or the last down/up of each environment from its park file; and
 * whether what it draws is running now. An expected failure (nothing recorded, a run that is not the last one, an
 * unreadable park file) is a value with a reason the CLI turns into its exit code.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT } from '../config/exit-codes.js';
import type { Failure, Result } from '../config/result.js';
import { failure, ok } from '../config/result.js';
import type { LockState } from '../engine/lock.js';
import type { ObjectStore } from '../engine/object-store.js';
import type { LoadedState, RunState } from '../engine/state.js';
import { STATE_FILE, loadState } from '../engine/state.js';
import { heldByOp, notLastRunMessage } from '../engine/status-view.js';
import { PARK_DIR, loadParkFile } from '../park/record.js';
import type { BuildOptions, ParkInput, ReportModel } from './model.js';
import { buildParkReport, buildWalkReport } from './model.js';

/** Why there is no report: `usage` and `refused` ones are the user's to fix, `nothing` ones have nothing to draw. */
export type ReportFailure = Failure<
  'no-run' | 'invalid-state' | 'not-last-run' | 'no-units' | 'invalid-park' | 'no-park'
>;

/**
 * The exit code of each reason there is no report (README, exit codes): nothing recorded is 1, a bad request 2, an
 * unreadable file 3.
 */
export function reportExitCode(reason: ReportFailure['reason']): number {
  switch (reason) {
    case 'no-run':
    case 'no-units':
    case 'no-park':
      return EXIT.failed;
    case 'invalid-state':
    case 'not-last-run':
      return EXIT.usage;
    case 'invalid-park':
      return EXIT.refused;
  }
}

/** The local lock, read at most once, on first need. */
export type ReadLock = () => Promise<LockState>;

/** A bootstrap/teardown run as read, where it was looked for, and how to tell whether it is running now. */
export interface RunSource {
  readonly loaded: LoadedState;
  /** Where the run was looked for, as the "nothing recorded" sentence says it. */
  readonly where: string;
  readonly live: (state: RunState, lock: ReadLock) => Promise<boolean>;
}

/** The local state of `root`: live while a platctl holds the local lock. */
export async function localRunSource(root: string): Promise<RunSource> {
  return {
    loaded: await loadState(root),
    where: `in ${root} (${STATE_FILE} is absent)`,
    live: async (_, lock) => (await lock()).type === 'held',
  };
}

/** A run read from the shared backend: live while one of its environment locks in the bucket is held, fresh, by it. */
export function sharedRunSource(store: ObjectStore, loaded: LoadedState): RunSource {
  return {
    loaded,
    where: `in the shared state (${store.location('runs/')})`,
    live: async (state) => (await import('../engine/run-lock.js')).sharedRunLive(store, state),
  };
}

/** The report of the run in `source` (`run`: the one asked for), with only the units of `envs` (all when empty). */
export async function walkReport(
  source: RunSource,
  root: string,
  run: string | undefined,
  envs: readonly string[],
  lock: ReadLock,
  options: (live: boolean) => BuildOptions,
): Promise<Result<ReportModel, ReportFailure>> {
  const loaded = source.loaded;
  if (loaded.type === 'missing') {
    return failure('no-run', `no bootstrap or teardown run recorded ${source.where}; nothing to report`);
  }
  if (loaded.type === 'invalid') return failure('invalid-state', loaded.message);
  if (run !== undefined && loaded.state.run_id !== run) {
    return failure('not-last-run', notLastRunMessage(run, root, loaded.state.run_id));
  }
  const state = onlyEnvs(loaded.state, envs);
  if (Object.keys(state.units).length === 0 && envs.length > 0) {
    return failure('no-units', `run ${state.run_id} has no unit of ${envs.join(', ')}; nothing to report`);
  }
  const live = state.status === 'running' && (await source.live(state, lock));
  return ok(buildWalkReport(state, options(live)));
}

/** The run with only the units of `envs` (all when empty). */
export function onlyEnvs(state: RunState, envs: readonly string[]): RunState {
  if (envs.length === 0) return state;
  const units = Object.fromEntries(
    Object.entries(state.units).filter(([id]) => envs.includes(id.slice(0, id.indexOf('/')))),
  );
  return { ...state, units };
}

/** The report of the last down/up of `envs` (all with a park file when empty), from the park files in `root`. */
export async function parkReport(
  root: string,
  envs: readonly string[],
  lock: ReadLock,
  options: (live: boolean) => BuildOptions,
): Promise<Result<ReportModel, ReportFailure>> {
  const names =
    envs.length > 0
      ? envs
      : (await readdir(join(root, PARK_DIR)).catch(() => []))
          .filter((name) => name.endsWith('.json'))
          .map((name) => name.slice(0, -'.json'.length))
          .sort();
  const parks: ParkInput[] = [];
  for (const env of names) {
    const loaded = await loadParkFile(root, env);
    if (loaded.type === 'invalid') return failure('invalid-park', loaded.message, loaded.hint);
    if (loaded.type === 'ok' && loaded.file.last !== undefined) parks.push({ env, file: loaded.file });
  }
  if (parks.length === 0) {
    const which = envs.length > 0 ? envs.join(', ') : 'any environment';
    return failure('no-park', `no down or up recorded for ${which} in ${join(root, PARK_DIR)}; nothing to report`);
  }
  const running = parks.filter((park) => park.file.last?.status === 'running');
  let live = false;
  if (running.length > 0) {
    const now = await lock();
    live = running.some((park) => heldByOp(now, park.file.last?.op ?? ''));
  }
  return ok(buildParkReport(parks, options(live)));
}
