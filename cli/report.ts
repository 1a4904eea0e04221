/**
 * `platctl report [--run RUN_ID] [--park] [--env E] [--output FILE] [--format html|json]`: one run drawn as a
 * self-contained HTML page (or the same data as JSON): a bootstrap/teardown run from the state (local, or the shared
 * backend's with `--run`), or with `--park` the last down/up of each environment from its park file. The run is
 * found by report/source.ts, its data built by report/model.ts, drawn by report/html.ts and written by
 * report/output.ts; this file reads the arguments, the configuration and the shared backend, and says what happened.
 */
import { dirname } from 'node:path';
import { formatConfigErrors, noEnvironmentMessage } from '../config/errors.js';
import { loadConfig } from '../config/load.js';
import type { Result } from '../config/result.js';
import type { PlatctlConfig } from '../config/schema.js';
import { localLockReader } from '../engine/status-view.js';
import type { BuildOptions, ReportModel } from '../report/model.js';
import {
  defaultName,
  logHref,
  outputPath,
  renderReport,
  reportPlan,
  unwritableReport,
  writeReport,
} from '../report/output.js';
import type { ReportFailure, RunSource } from '../report/source.js';
import { localRunSource, parkReport, reportExitCode, sharedRunSource, walkReport } from '../report/source.js';
import { explainOutcome } from '../discover/problem-text.js';
import { readSharedRun, stateStore } from './shared-state.js';
import { thisProcess } from './signals.js';
import type { CliIo } from './verb.js';
import { EXIT, defineVerb } from './verb.js';
import { REPORT_GRAMMAR } from './commands/report.js';

export const reportVerb = defineVerb(REPORT_GRAMMAR, async (args, io) => {
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
  const lock = localLockReader(root, thisProcess());
  const target = (model: ReportModel) => outputPath(io.cwd, output, defaultName(model));
  const options = (live: boolean): BuildOptions => ({
    now: Date.now(),
    live,
    logHref: (log) => logHref(reportDir, root, log),
  });
  let found: Result<ReportModel, ReportFailure>;
  if (args.park) found = await parkReport(root, envs, lock, options);
  else {
    const source = await readRun(config, root, args.run, io);
    if ('exitCode' in source) return source.exitCode;
    found = await walkReport(source, root, args.run, envs, lock, options);
  }
  if (!found.ok) {
    io.stderr.write(explainOutcome('', found));
    return reportExitCode(found.reason);
  }
  const model = found.value;
  const text = await renderReport(model, format);
  const file = target(model);
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
});

/** The run from the shared backend (the newest, or `--run`) when the configuration has one, else the local state. */
async function readRun(
  config: PlatctlConfig,
  root: string,
  run: string | undefined,
  io: CliIo,
): Promise<RunSource | { readonly exitCode: number }> {
  const store = await stateStore(config.state, io);
  if (!store) return localRunSource(root);
  const shared = await readSharedRun(store, run, io);
  if (shared.type === 'error') return shared;
  return sharedRunSource(store, shared.loaded);
}
