/**
 * `platctl status [--json]`'s flow: the last run's state, per unit (status, duration, last error line, log path) and
 * in counts, and the park state per environment. Exit 0 only when the last run completed every unit and nothing is
 * parked, so scripts can ask "is the platform up?"; 4 when an environment is parked, 1 when something failed or was
 * killed, 3 when a record cannot be read (engine/status-view.ts's `statusExitCode`).
 *
 * A state file that says `running` is believed only while the lock's holder lives: a platctl killed by `kill -9`, the
 * OOM killer or a power loss never wrote its end, and its run shows as interrupted (killed), not running.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { formatConfigErrors } from '../config/errors.js';
import { EXIT } from '../config/exit-codes.js';
import { findConfig } from '../config/find.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { LockState } from '../engine/lock.js';
import type { Paint } from '../engine/reporters/paint.js';
import { noRunJson, noRunMessage, noRunWhere, renderRunStatus, statusJson } from '../engine/reporters/status.js';
import { sharedRunOrExit } from '../engine/shared-state.js';
import type { LoadedState, RunState } from '../engine/state.js';
import { loadState } from '../engine/state.js';
import {
  localLockReader,
  mayShareState,
  noRunView,
  statusExitCode,
  statusRun,
  viewRun,
  withKilledOps,
} from '../engine/status-view.js';
import type { StateStoreOf, ThisProcess, VerbIo } from '../engine/verb-io.js';
import type { ParkView } from '../park/status.js';
import { parkFacts, parkStatusJson, parkStatusOutput } from '../park/status.js';

/** What status is given by cli/ besides its streams. */
export interface StatusPorts {
  readonly stateStore: StateStoreOf;
  /** The park state of every environment with a park record; `config` undefined: only the local files are read. */
  readonly readPark: (root: string, config: PlatctlConfig | undefined) => Promise<ParkView[]>;
  readonly self: ThisProcess;
  readonly paint: Paint;
}

/** `--config`, `--run` and `--json` as status was given them. */
export interface StatusArgs {
  readonly config?: string | undefined;
  readonly run?: string | undefined;
  readonly json: boolean;
}

/** Runs `platctl status`: what it prints, and its exit code. */
export async function statusCommand(args: StatusArgs, io: VerbIo, ports: StatusPorts): Promise<number> {
  const found = await findConfig(io.cwd, args.config);
  if (!found.ok) {
    io.stderr.write(formatConfigErrors([found.error], io.cwd));
    return EXIT.usage;
  }
  const root = dirname(found.path);
  const configured = await statusConfig(found.path, io);
  if (configured.type === 'error') return configured.exitCode;
  const shared = await sharedStatus(configured.config, args.run, io, ports);
  if (shared.type === 'error') return shared.exitCode;
  // The local lock, read once: it says whether a run (or a down/up) recorded as running still has a live platctl.
  const readLocalLock = localLockReader(root, ports.self);
  const park = await withKilledOps(await ports.readPark(root, configured.config), readLocalLock);
  const namedConfig = args.config === undefined ? undefined : found.path;
  const view: StatusView = { root, namedConfig, json: args.json, park, io, paint: ports.paint };
  const said = parkStatusOutput(park, view.json, namedConfig);
  if (said.stdout !== '') io.stdout.write(said.stdout);
  if (said.stderr !== '') io.stderr.write(said.stderr);
  const asked = statusRun(shared.type === 'loaded' ? shared.loaded : await loadState(root), args.run, root);
  if (asked.type === 'none') return noRun(view, shared.type === 'loaded');
  if (asked.type === 'refused') {
    io.stderr.write(`platctl: ${asked.message}\n`);
    return EXIT.usage;
  }
  const recorded = asked.state;
  const lock =
    recorded.status !== 'running'
      ? undefined
      : shared.type === 'loaded'
        ? await shared.lock(recorded)
        : await readLocalLock();
  return showRun(view, recorded, lock);
}

/** What status has gathered before it shows the run: where, how, and the park state of each environment. */
interface StatusView {
  readonly root: string;
  /** The configuration `--config` named, which the commands shown repeat. */
  readonly namedConfig: string | undefined;
  readonly json: boolean;
  readonly park: readonly ParkView[];
  readonly io: VerbIo;
  readonly paint: Paint;
}

/** No bootstrap or teardown run is recorded: say where status looked, and what to run. */
function noRun({ root, json, park, io }: StatusView, fromShared: boolean): number {
  const { parked, exitCode } = noRunView(parkFacts(park));
  io.stderr.write(noRunMessage(noRunWhere(fromShared, root), parked));
  if (json) io.stdout.write(noRunJson(parkStatusJson(park)));
  return exitCode;
}

/**
 * The recorded run, unit by unit (or as JSON). A run recorded as running whose lock has no live holder was killed:
 * shown as interrupted, with how that is known (engine/status-view.ts).
 */
function showRun(
  { namedConfig, json, park, io, paint }: StatusView,
  recorded: RunState,
  lock: LockState | undefined,
): number {
  const view = viewRun(recorded, lock);
  io.stdout.write(json ? statusJson(view, parkStatusJson(park)) : renderRunStatus(view, paint, namedConfig));
  return statusExitCode(view.complete, parkFacts(park));
}

type SharedStatus =
  | { readonly type: 'local' }
  | { readonly type: 'error'; readonly exitCode: number }
  | {
      readonly type: 'loaded';
      readonly loaded: LoadedState;
      /** What the environment locks in the bucket say about a run recorded as running. */
      readonly lock: (state: RunState) => Promise<LockState>;
    };

/** The configuration, loaded in full only when it may share state (`mayShareState`); else `config` is undefined. */
async function statusConfig(
  configPath: string,
  io: VerbIo,
): Promise<
  { readonly type: 'ok'; readonly config?: PlatctlConfig } | { readonly type: 'error'; readonly exitCode: number }
> {
  if (!mayShareState(await readFile(configPath, 'utf8').catch(() => ''))) return { type: 'ok' };
  const { loadConfig } = await import('../config/load.js');
  const loaded = await loadConfig({ path: configPath, cwd: io.cwd, checkFilesystem: false });
  if (!loaded.ok) {
    io.stderr.write(formatConfigErrors(loaded.errors, io.cwd));
    return { type: 'error', exitCode: EXIT.usage };
  }
  return { type: 'ok', config: loaded.value.config };
}

/** With `state.backend: s3`, the run comes from the bucket: the last one, or `--run`. */
async function sharedStatus(
  config: PlatctlConfig | undefined,
  run: string | undefined,
  io: VerbIo,
  ports: StatusPorts,
): Promise<SharedStatus> {
  if (!config) return { type: 'local' };
  const store = await ports.stateStore(config.state);
  if (!store) return { type: 'local' };
  const shared = await sharedRunOrExit(store, run, io.stderr);
  if (shared.type === 'error') return shared;
  const state = shared.loaded;
  return {
    type: 'loaded',
    loaded: state,
    lock: async (recorded) => (await import('../engine/run-lock.js')).sharedRunLock(store, recorded),
  };
}
