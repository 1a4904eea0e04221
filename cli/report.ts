/**
 * `platctl report [--run RUN_ID] [--park] [--env E] [--output FILE] [--format html|json]`: one run drawn as a
 * self-contained HTML page (or the same data as JSON): a bootstrap/teardown run from the state (local, or the shared
 * backend's with `--run`), or with `--park` the last down/up of each environment from its park file. The data is
 * built by report/model.ts and drawn by report/html.ts; this file only finds the run and writes the file.
 */
import { readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { writeFileAtomic } from '../config/atomic-write.js';
import { formatConfigErrors } from '../config/errors.js';
import { loadConfig } from '../config/load.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { LockState } from '../engine/lock.js';
import { inspectLock, procMachine } from '../engine/lock.js';
import type { LoadedState, RunState } from '../engine/state.js';
import { STATE_FILE, loadState } from '../engine/state.js';
import { PARK_DIR, loadParkFile } from '../park/record.js';
import type { BuildOptions, ParkInput, ReportModel } from '../report/model.js';
import { buildParkReport, buildWalkReport } from '../report/model.js';
import { readSharedRun, stateStore } from './shared-state.js';
import { processAlive } from './signals.js';
import type { CliIo } from './verb.js';
import { EXIT, defineVerb } from './verb.js';
import { REPORT_GRAMMAR } from './commands/report.js';

export { REPORT_FORMATS } from './commands/report.js';

type Found = { readonly ok: true; readonly model: ReportModel } | { readonly ok: false; readonly exitCode: number };

export const reportVerb = defineVerb(REPORT_GRAMMAR, async (args, io) => {
  const loaded = await loadConfig({ path: args.config, cwd: io.cwd, checkFilesystem: false });
  if (!loaded.ok) {
    io.stderr.write(formatConfigErrors(loaded.errors, io.cwd));
    return EXIT.usage;
  }
  const { config, path } = loaded.value;
  const root = dirname(path);
  const envs = args.env ?? [];
  const unknown = envs.find((env) => !(env in config.environments));
  if (unknown !== undefined) {
    io.stderr.write(
      `platctl: no environment ${unknown} in ${path} (known: ${Object.keys(config.environments).join(', ')})\n`,
    );
    return EXIT.usage;
  }
  const format = args.json ? 'json' : args.format;
  const output = args.output ?? (format === 'json' ? '-' : undefined);
  const lock = lazyLock(root);
  const target = (model: ReportModel) => outputPath(io.cwd, output, defaultName(model));
  // A default name is always in the working directory: the links can be made before the model has a name.
  const reportDir = output === undefined || output === '-' ? io.cwd : dirname(resolve(io.cwd, output));
  const options = (live: boolean): BuildOptions => ({
    now: Date.now(),
    live,
    logHref: (log) => logHref(reportDir, root, log),
  });
  const found = args.park
    ? await parkReport(root, envs, lock, options, io)
    : await walkReport(config, root, args.run, envs, lock, options, io);
  if (!found.ok) return found.exitCode;
  const model = found.model;
  const text =
    format === 'json'
      ? `${JSON.stringify(model, null, 2)}\n`
      : (await import('../report/html.js')).renderReportHtml(model);
  const file = target(model);
  if (file === undefined) {
    io.stdout.write(text);
    return EXIT.ok;
  }
  const written = await writeAtomically(file, text);
  if (written !== undefined) {
    io.stderr.write(
      `platctl: cannot write the report to ${file}: ${written}\n  hint: pass --output FILE in a directory you can write\n`,
    );
    return EXIT.usage;
  }
  io.stdout.write(`${file}\n`);
  return EXIT.ok;
});

/** The report file's absolute path; undefined for stdout. Before the model exists, `name` stands in for its name. */
function outputPath(cwd: string, output: string | undefined, name: string): string | undefined {
  if (output === '-') return undefined;
  return resolve(cwd, output ?? name);
}

function defaultName(model: ReportModel): string {
  const id = model.kind === 'walk' ? model.run.id : `${model.run.command}-${model.run.envs.join('-')}`;
  return `platctl-report-${id.replace(/[^A-Za-z0-9._+-]+/g, '_')}.html`;
}

/**
 * A unit's log (relative to the repository root) as a link from the report: relative to the directory the report is
 * written to (the working directory for stdout), so the page opens its logs from disk; each segment percent-encoded.
 */
function logHref(reportDir: string, root: string, log: string): string {
  const path = relative(reportDir, join(root, log)).split(sep).map(encodeURIComponent).join('/');
  return path === '' ? '.' : path;
}

/** The local lock, read once: whether a run recorded as running still has a live platctl. */
function lazyLock(root: string): () => Promise<LockState> {
  let lock: Promise<LockState> | undefined;
  return () =>
    (lock ??= procMachine({ pid: process.pid, host: hostname(), isAlive: processAlive }).then((machine) =>
      inspectLock(root, machine),
    ));
}

async function walkReport(
  config: PlatctlConfig,
  root: string,
  run: string | undefined,
  envs: readonly string[],
  lock: () => Promise<LockState>,
  options: (live: boolean) => BuildOptions,
  io: CliIo,
): Promise<Found> {
  const source = await readRun(config, root, run, io);
  if (source.type === 'error') return { ok: false, exitCode: source.exitCode };
  const loaded = source.loaded;
  if (loaded.type === 'missing') {
    io.stderr.write(`platctl: no bootstrap or teardown run recorded ${source.where}; nothing to report\n`);
    return { ok: false, exitCode: EXIT.failed };
  }
  if (loaded.type === 'invalid') {
    io.stderr.write(`platctl: ${loaded.message}\n`);
    return { ok: false, exitCode: EXIT.usage };
  }
  if (run !== undefined && loaded.state.run_id !== run) {
    io.stderr.write(
      `platctl: run ${run} is not the last run of ${root} (${loaded.state.run_id}); the local backend keeps only the ` +
        `last run (state.backend s3 keeps them all: docs/state.md)\n`,
    );
    return { ok: false, exitCode: EXIT.usage };
  }
  const state = onlyEnvs(loaded.state, envs);
  if (Object.keys(state.units).length === 0 && envs.length > 0) {
    io.stderr.write(`platctl: run ${state.run_id} has no unit of ${envs.join(', ')}; nothing to report\n`);
    return { ok: false, exitCode: EXIT.failed };
  }
  const live = state.status === 'running' && (await source.live(state, lock));
  return { ok: true, model: buildWalkReport(state, options(live)) };
}

/** The run with only the units of `envs` (all when empty). */
function onlyEnvs(state: RunState, envs: readonly string[]): RunState {
  if (envs.length === 0) return state;
  const units = Object.fromEntries(
    Object.entries(state.units).filter(([id]) => envs.includes(id.slice(0, id.indexOf('/')))),
  );
  return { ...state, units };
}

type RunSource =
  | { readonly type: 'error'; readonly exitCode: number }
  | {
      readonly type: 'ok';
      readonly loaded: LoadedState;
      readonly where: string;
      readonly live: (state: RunState, lock: () => Promise<LockState>) => Promise<boolean>;
    };

/** The run from the shared backend (the newest, or `--run`) when the configuration has one, else the local state. */
async function readRun(config: PlatctlConfig, root: string, run: string | undefined, io: CliIo): Promise<RunSource> {
  const store = await stateStore(config.state, io);
  if (!store) {
    const localLive = async (_: RunState, lock: () => Promise<LockState>) => (await lock()).type === 'held';
    return {
      type: 'ok',
      loaded: await loadState(root),
      where: `in ${root} (${STATE_FILE} is absent)`,
      live: localLive,
    };
  }
  const { envsOf } = await import('../engine/shared-state.js');
  const shared = await readSharedRun(store, run, io);
  if (shared.type === 'error') return shared;
  const loaded = shared.loaded;
  // Live while one of its environment locks in the bucket is held, fresh, by this run.
  const live = async (state: RunState): Promise<boolean> => {
    const { readEnvLock } = await import('../engine/env-lock.js');
    for (const env of envsOf(state)) {
      const found = await readEnvLock(store, env);
      if (found.ok && found.value.type === 'held' && found.value.holder.run_id === state.run_id) {
        return !found.value.stale;
      }
    }
    return false;
  };
  return { type: 'ok', loaded, where: `in the shared state (${store.location('runs/')})`, live };
}

async function parkReport(
  root: string,
  envs: readonly string[],
  lock: () => Promise<LockState>,
  options: (live: boolean) => BuildOptions,
  io: CliIo,
): Promise<Found> {
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
    if (loaded.type === 'invalid') {
      io.stderr.write(`platctl: ${loaded.message}\n  hint: ${loaded.hint}\n`);
      return { ok: false, exitCode: EXIT.refused };
    }
    if (loaded.type === 'ok' && loaded.file.last !== undefined) parks.push({ env, file: loaded.file });
  }
  if (parks.length === 0) {
    const which = envs.length > 0 ? envs.join(', ') : 'any environment';
    io.stderr.write(`platctl: no down or up recorded for ${which} in ${join(root, PARK_DIR)}; nothing to report\n`);
    return { ok: false, exitCode: EXIT.failed };
  }
  const running = parks.filter((park) => park.file.last?.status === 'running');
  let live = false;
  if (running.length > 0) {
    const now = await lock();
    live =
      now.type === 'held' &&
      running.some((park) => now.holder.command.startsWith(`platctl ${park.file.last?.op ?? ''}`));
  }
  return { ok: true, model: buildParkReport(parks, options(live)) };
}

/** Writes `text` to `path` through a temp file in the same directory, so a reader never sees half a report. */
async function writeAtomically(path: string, text: string): Promise<string | undefined> {
  try {
    // A page is cheap to write again: not fsynced.
    await writeFileAtomic(path, text, { fsync: false });
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT'
      ? `its directory ${dirname(path)} does not exist`
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'it is a directory'
          : (error as Error).message;
  }
}
