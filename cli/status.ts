/**
 * `platctl status [--json]`: the last run's state, per unit (status, duration, last error line, log path) and in
 * counts, and the park state per environment. Exit 0 only when the last run completed every unit and nothing is
 * parked, so scripts can ask "is the platform up?"; 4 when an environment is parked, 1 when something failed or was
 * killed, 3 when a record cannot be read ({@link statusExitCode}).
 *
 * A state file that says `running` is believed only while the lock's holder lives: a platctl killed by `kill -9`, the
 * OOM killer or a power loss never wrote its end, and its run shows as interrupted (killed), not running.
 */
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { compareIds } from '../engine/graph.js';
import type { LockState } from '../engine/lock.js';
import { inspectLock, procMachine } from '../engine/lock.js';
import { countStatuses, renderStatus } from '../engine/reporters/summary.js';
import { makePaint } from '../engine/reporters/paint.js';
import type { RunState } from '../engine/state.js';
import { asInterrupted, killedBecause } from '../engine/run-ended.js';
import type { LoadedState } from '../engine/state.js';
import { STATE_FILE, loadState } from '../engine/state.js';
import { findConfig } from '../config/find.js';
import { formatConfigErrors } from '../config/errors.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { ParkView } from '../park/status.js';
import { parkVerdict, renderParkStatus, unknownParkSentence } from '../park/status.js';
import { parkStatusJson, readParkStatus } from './park-status.js';
import { readSharedRun, stateStore } from './shared-state.js';
import { processAlive } from './signals.js';
import type { CliIo } from './verb.js';
import { EXIT, defineVerb } from './verb.js';
import { STATUS_GRAMMAR } from './commands/status.js';

export const statusVerb = defineVerb(STATUS_GRAMMAR, async (args, io) => {
  const found = await findConfig(io.cwd, args.config);
  if (!found.ok) {
    io.stderr.write(formatConfigErrors([found.error], io.cwd));
    return EXIT.usage;
  }
  const root = dirname(found.path);
  const configured = await statusConfig(found.path, io);
  if (configured.type === 'error') return configured.exitCode;
  const shared = await sharedStatus(configured.config, args.run, io);
  if (shared.type === 'error') return shared.exitCode;
  // The local lock, read once: it says whether a run (or a down/up) recorded as running still has a live platctl.
  let localLock: Promise<LockState> | undefined;
  const readLocalLock = (): Promise<LockState> =>
    (localLock ??= procMachine({ pid: process.pid, host: hostname(), isAlive: processAlive }).then((machine) =>
      inspectLock(root, machine),
    ));
  const park = await withKilledParks(await readParkStatus(root, configured.config, io.env), readLocalLock);
  const view: StatusView = { root, configPath: found.path, json: args.json === true, park, io };
  if (!view.json) io.stdout.write(renderParkStatus(park, args.config === undefined ? [] : ['--config', found.path]));
  else
    for (const unknown of park.filter((v) => v.unreadable !== undefined)) {
      io.stderr.write(`platctl: ${unknownParkSentence(unknown)}\n`);
    }
  const loaded = shared.type === 'loaded' ? shared.loaded : await loadState(root);
  if (args.run !== undefined && loaded.type === 'ok' && loaded.state.run_id !== args.run) {
    io.stderr.write(
      `platctl: run ${args.run} is not the last run of ${root} (${loaded.state.run_id}); the local backend keeps ` +
        `only the last run (state.backend s3 keeps them all: docs/state.md)\n`,
    );
    return EXIT.usage;
  }
  if (loaded.type === 'missing') return noRun(view, shared.type === 'loaded');
  if (loaded.type === 'invalid') {
    io.stderr.write(`platctl: ${loaded.message}\n`);
    return EXIT.usage;
  }
  const recorded = loaded.state;
  const lock =
    recorded.status !== 'running'
      ? undefined
      : shared.type === 'loaded'
        ? await shared.lock(recorded)
        : await readLocalLock();
  return showRun(view, recorded, lock, args.config !== undefined);
});

/** What status has gathered before it shows the run: where, how, and the park state of each environment. */
interface StatusView {
  readonly root: string;
  readonly configPath: string;
  readonly json: boolean;
  readonly park: readonly ParkView[];
  readonly io: CliIo;
}

/** No bootstrap or teardown run is recorded: say where status looked, and what to run. */
function noRun({ root, json, park, io }: StatusView, fromShared: boolean): number {
  const where = fromShared ? 'in the shared state (state.bucket)' : `in ${root} (${STATE_FILE} is absent)`;
  // bootstrap refuses a parked environment: the advice for one is up.
  const parked = park.filter((view) => parkVerdict(view) === 'parked').map((view) => view.env);
  io.stderr.write(
    parked.length > 0
      ? `platctl: no bootstrap or teardown run recorded ${where}; ${parked.join(', ')} ` +
          `${parked.length === 1 ? 'is' : 'are'} parked: platctl up ${parked.map((env) => `--env ${env}`).join(' ')} ` +
          `brings ${parked.length === 1 ? 'it' : 'them'} back\n`
      : `platctl: no run recorded ${where}; run platctl bootstrap\n`,
  );
  if (json) {
    const out = { run: null, units: [], counts: null, complete: false, park: parkStatusJson(park) };
    io.stdout.write(`${JSON.stringify(out)}\n`);
  }
  // A checkout that only parks (a cron runner) has no bootstrap run: its park state is the verdict.
  return statusExitCode(park.some((view) => view.record !== undefined) ? EXIT.ok : EXIT.failed, park);
}

/**
 * The recorded run, unit by unit (or as JSON). A run recorded as running whose lock has no live holder was killed:
 * shown as interrupted, with how that is known.
 */
function showRun(
  { configPath, json, park, io }: StatusView,
  recorded: RunState,
  lock: LockState | undefined,
  namedConfig: boolean,
): number {
  const live = lock?.type === 'held';
  const killed = recorded.status === 'running' && !live ? killedBecause(lock) : undefined;
  const state = killed === undefined ? recorded : asInterrupted(recorded);
  const counts = countStatuses(state);
  // An excluded unit needs nothing: Terragrunt's exclude block leaves it out, and it counts as applied.
  const complete =
    state.status === 'completed' && counts.completed + counts.excluded === Object.keys(state.units).length;
  if (json) {
    const { units, ...run } = state;
    io.stdout.write(
      `${JSON.stringify({
        run: { ...run, in_progress: live, ...(killed === undefined ? {} : { killed: true }) },
        units: Object.entries(units)
          .sort((a, b) => compareIds(a[0], b[0]))
          .map(([id, unit]) => ({ id, ...unit })),
        counts,
        complete,
        park: parkStatusJson(park),
      })}\n`,
    );
  } else {
    io.stdout.write(renderStatus(state, makePaint(io.color), { live }));
    if (killed !== undefined) io.stdout.write(`The run did not end: platctl was killed (${killed}).\n`);
    if (state.status !== 'completed' && !live) {
      const config = namedConfig ? ` --config ${configPath}` : '';
      // --env names which run to resume (the shared backend keeps many: docs/state.md).
      const envs = state.args.env.map((env) => ` --env ${env}`).join('');
      io.stdout.write(`Resume with: platctl ${state.command} --resume${envs}${config}\n`);
    }
  }
  return statusExitCode(complete ? EXIT.ok : EXIT.failed, park);
}

/**
 * status's exit code (README, "Exit codes"): 3 when a park record cannot be read or is not understood (status
 * cannot say whether the platform is up, as for a shared run state it cannot read); 1 when the run (`code`) did not
 * complete or the last down/up of an environment failed or was killed; 4 when an environment is parked and nothing
 * else is wrong; else `code`.
 */
function statusExitCode(code: number, park: readonly ParkView[]): number {
  const verdicts = park.map(parkVerdict);
  if (verdicts.includes('unknown')) return EXIT.refused;
  if (code !== EXIT.ok || verdicts.includes('trouble')) return EXIT.failed;
  return verdicts.includes('parked') ? EXIT.parked : code;
}

/**
 * Marks each environment whose journal says its last down/up is running while no live platctl of that verb holds
 * the lock: it was killed, and `killedBecause` (engine/run-ended.ts) says how that is known (as for a bootstrap run).
 */
async function withKilledParks(views: ParkView[], lock: () => Promise<LockState>): Promise<ParkView[]> {
  const out: ParkView[] = [];
  for (const view of views) {
    const last = view.last;
    if (last?.status !== 'running') {
      out.push(view);
      continue;
    }
    const now = await lock();
    const live = now.type === 'held' && now.holder.command.startsWith(`platctl ${last.op}`);
    out.push(live ? view : { ...view, killed: killedBecause(now) });
  }
  return out;
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

/**
 * The configuration, loaded in full only when the file may have a `state:` section, or `park:` and a `state_bucket`
 * (the only ones that can make status read S3), so status stays fast and offline otherwise: `config` is undefined
 * then.
 */
async function statusConfig(
  configPath: string,
  io: CliIo,
): Promise<
  { readonly type: 'ok'; readonly config?: PlatctlConfig } | { readonly type: 'error'; readonly exitCode: number }
> {
  const text = await readFile(configPath, 'utf8').catch(() => '');
  // Only a state backend or a parked environment with a state bucket can share anything (docs/park.md). The words
  // anywhere, not keys at the start of a line: YAML may spell the same mapping in flow style (`{state: ...}`, JSON),
  // quoted, or merged in from an anchor. A word in a comment only costs loading the configuration in full.
  const word = (name: string) => new RegExp(`\\b${name}\\b`).test(text);
  if (!word('state') && !(word('park') && word('state_bucket'))) return { type: 'ok' };
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
  io: CliIo,
): Promise<SharedStatus> {
  if (!config) return { type: 'local' };
  const store = await stateStore(config.state, io);
  if (!store) return { type: 'local' };
  const { envsOf } = await import('../engine/shared-state.js');
  const shared = await readSharedRun(store, run, io);
  if (shared.type === 'error') return shared;
  const state = shared.loaded;
  return {
    type: 'loaded',
    loaded: state,
    lock: async (recorded) => {
      const { readEnvLock } = await import('../engine/env-lock.js');
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
    },
  };
}
