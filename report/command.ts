/**
 * `platctl report [--run RUN_ID] [--park] [--env E] [--output FILE] [--format html|json]`'s flow: one run drawn as a
 * self-contained HTML page (or the same data as JSON): a bootstrap/teardown run from the state (local, or the shared
 * backend's with `--run`), or with `--park` the last down/up of each environment from its park file. The run is
 * found by source.ts, its data built by model.ts, drawn by html.ts and written by output.ts; this file loads the
 * configuration, reads the shared backend, and says what happened.
 */
import { dirname } from 'node:path';
import { formatConfigErrors, noEnvironmentMessage } from '../config/errors.js';
import { EXIT } from '../config/exit-codes.js';
import { explainOutcome } from '../config/explain.js';
import { loadConfig } from '../config/load.js';
import type { Result } from '../config/result.js';
import type { PlatctlConfig } from '../config/schema.js';
import { sharedRunOrExit } from '../engine/shared-state.js';
import { localLockReader } from '../engine/status-view.js';
import type { StateStoreOf, ThisProcess, VerbIo } from '../engine/verb-io.js';
import type { BuildOptions, ReportModel } from './model.js';
import { defaultName, logHref, outputPath, renderReport, reportPlan, unwritableReport, writeReport } from './output.js';
import type { ReportFailure, RunSource } from './source.js';
import { localRunSource, parkReport, reportExitCode, sharedRunSource, walkReport } from './source.js';

/** What `platctl report` was asked. */
export interface ReportArgs<F extends string> {
  readonly config?: string | undefined;
  readonly env?: readonly string[] | undefined;
  readonly run?: string | undefined;
  readonly park?: boolean | undefined;
  readonly json?: boolean | undefined;
  readonly format: F;
  readonly output?: string | undefined;
}

/** What report is given by cli/ besides its streams. */
export interface ReportPorts {
  readonly stateStore: StateStoreOf;
  readonly self: ThisProcess;
}

/** Runs `platctl report`: what it writes and says, and its exit code. */
export async function reportCommand<F extends string>(
  args: ReportArgs<F>,
  io: VerbIo,
  ports: ReportPorts,
): Promise<number> {
  const loaded = await loadConfig({ path: args.config, cwd: io.cwd, checkFilesystem: false });
  if (!loaded.ok) {
    io.stderr.write(formatConfigErrors(loaded.errors, io.cwd));
    return EXIT.usage;
  }
  const { config, path } = loaded.value;
  const root = dirname(path);
  const envs = args.env ?? [];
  const unknown = noEnvironmentMessage(envs, config.environments, path);
  if (unknown !== undefined) {
    io.stderr.write(unknown);
    return EXIT.usage;
  }
  const { format, output, reportDir } = reportPlan(io.cwd, args);
  const lock = localLockReader(root, ports.self);
  const options = (live: boolean): BuildOptions => ({
    now: Date.now(),
    live,
    logHref: (log) => logHref(reportDir, root, log),
  });
  let found: Result<ReportModel, ReportFailure>;
  if (args.park) found = await parkReport(root, envs, lock, options);
  else {
    const source = await readRun(config, root, args.run, io, ports);
    if ('exitCode' in source) return source.exitCode;
    found = await walkReport(source, root, args.run, envs, lock, options);
  }
  if (!found.ok) {
    io.stderr.write(explainOutcome('', found));
    return reportExitCode(found.reason);
  }
  const text = await renderReport(found.value, format);
  return deliver(text, outputPath(io.cwd, output, defaultName(found.value)), io);
}

/** The report written to `file` (its path said on stdout), or to stdout when there is no file. */
async function deliver(text: string, file: string | undefined, io: VerbIo): Promise<number> {
  if (file === undefined) {
    io.stdout.write(text);
    return EXIT.ok;
  }
  const written = await writeReport(file, text);
  if (written !== undefined) {
    io.stderr.write(explainOutcome('', unwritableReport(file, written)));
    return EXIT.usage;
  }
  io.stdout.write(`${file}\n`);
  return EXIT.ok;
}

/** The run from the shared backend (the newest, or `--run`) when the configuration has one, else the local state. */
async function readRun(
  config: PlatctlConfig,
  root: string,
  run: string | undefined,
  io: VerbIo,
  ports: ReportPorts,
): Promise<RunSource | { readonly exitCode: number }> {
  const store = await ports.stateStore(config.state);
  if (!store) return localRunSource(root);
  const shared = await sharedRunOrExit(store, run, io.stderr);
  if (shared.type === 'error') return shared;
  return sharedRunSource(store, shared.loaded);
}
