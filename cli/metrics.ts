/**
 * `--metrics-file PATH` for `validate`, `down`, `up`, `bootstrap` and `teardown`: the option, the check of the path
 * before anything runs, and {@link withMetrics}, which runs a verb's body with a {@link MetricsSink} it fills as it
 * learns, then writes what the run knew (engine/metrics.ts) however it ended. Without the flag the sink does nothing
 * and nothing more is loaded.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { MetricsVerb } from '../engine/metrics.js';
import type { MetricsCollector } from '../engine/metrics-collect.js';
import type { RunResult } from '../engine/run.js';
import type { EnvOutcome, ParkEvent } from '../park/run.js';
import type { CliIo } from './verb.js';
import { EXIT } from './verb.js';

export { METRICS_OPTION } from './commands/shared.js';

/** What a verb tells the metrics as it learns it; every method does nothing without `--metrics-file`. */
export interface MetricsSink {
  /** The configuration is understood: these environments are the run's (a refusal after this is written). */
  envs(envs: readonly string[]): void;
  /** validate's checks and duration. */
  validate(report: {
    readonly durationMs: number;
    readonly checks: readonly { readonly id: string; readonly env?: string; readonly status: string }[];
  }): void;
  /** down/up: watches the step events (each environment's duration), returning the renderer to pass on to. */
  parkEvents(next: (event: ParkEvent) => void): (event: ParkEvent) => void;
  /** down/up: how each environment ended, and what its park file says now. */
  park(root: string, outcomes: readonly EnvOutcome[]): Promise<void>;
  /** bootstrap/teardown: the run's result (the units' durations). */
  walk(result: RunResult): void;
}

const NO_SINK: MetricsSink = {
  envs: () => undefined,
  validate: () => undefined,
  parkEvents: (next) => next,
  park: () => Promise.resolve(),
  walk: () => undefined,
};

/**
 * The sink of a run with `--metrics-file`: the verbs' own words (park events and outcomes, the walk's result) told to
 * engine/metrics-collect.ts's collector, which knows only environments, checks and units.
 */
function collectorSink(collector: MetricsCollector): MetricsSink {
  return {
    envs: (envs) => collector.envs(envs),
    validate: (report) => collector.validate(report),
    parkEvents: (next) => (event) => {
      if (event.type === 'env-started') collector.envStarted(event.env, Date.parse(event.at));
      if (event.type === 'env-finished') collector.envFinished(event.env, Date.parse(event.at));
      next(event);
    },
    park: async (root, outcomes) => {
      const { loadParkFile } = await import('../park/record.js');
      await collector.park(outcomes, async (env) => {
        const file = await loadParkFile(root, env);
        return file.type === 'ok' ? file.file.record : undefined;
      });
    },
    walk: (result) => {
      if (result.type === 'finished') collector.walk(result.state);
    },
  };
}

/**
 * Where the metrics go, checked before anything runs: an existing, writable directory, and not with `--dry-run`
 * (which runs nothing to report). A message (exit 2), or undefined when fine.
 */
export async function checkMetricsPath(path: string, dryRun: boolean, cwd: string): Promise<string | undefined> {
  if (dryRun) return '--metrics-file reports a run; --dry-run runs nothing: drop one of them';
  const absolute = resolve(cwd, path);
  const dir = dirname(absolute);
  try {
    if (!(await stat(dir)).isDirectory()) return `--metrics-file ${path}: ${dir} is not a directory`;
    await access(dir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT'
      ? `--metrics-file ${path}: the directory ${dir} does not exist; create it (node_exporter's --collector.textfile.directory)`
      : `--metrics-file ${path}: cannot write in ${dir} (${code ?? (error as Error).message}); fix its permissions or pick another path`;
  }
  if ((await stat(absolute).catch(() => undefined))?.isDirectory())
    return `--metrics-file ${path}: is a directory; give a file name, e.g. ${path.replace(/\/$/, '')}/platctl.prom`;
  return undefined;
}

/**
 * Runs a verb's body with a sink, and at its end (success, failure, refusal, interruption, or a bug) writes what the
 * run knew to `--metrics-file`. Nothing is written when the run ended before its configuration was understood (no
 * environment known). A failed write is a warning on stderr; the run's exit code stays its own.
 */
export async function withMetrics(
  verb: MetricsVerb,
  args: { readonly 'metrics-file'?: string | undefined; readonly 'dry-run'?: boolean | undefined },
  io: CliIo,
  body: (sink: MetricsSink) => Promise<number>,
): Promise<number> {
  const path = args['metrics-file'];
  if (path === undefined) return body(NO_SINK);
  const problem = await checkMetricsPath(path, args['dry-run'] === true, io.cwd);
  if (problem !== undefined) {
    io.stderr.write(`platctl: ${problem}\n`);
    return EXIT.usage;
  }
  const { MetricsCollector } = await import('../engine/metrics-collect.js');
  const collector = new MetricsCollector();
  const started = Date.now();
  let exitCode: number = EXIT.bug;
  try {
    exitCode = await body(collectorSink(collector));
    return exitCode;
  } finally {
    await writeCollected(verb, resolve(io.cwd, path), collector, { exitCode, started }, io);
  }
}

async function writeCollected(
  verb: MetricsVerb,
  path: string,
  collector: MetricsCollector,
  run: { readonly exitCode: number; readonly started: number },
  io: CliIo,
): Promise<void> {
  if (collector.envList === undefined) return;
  const { writeMetricsFile } = await import('../engine/metrics.js');
  const facts = collector.runFacts(verb, { exitCode: run.exitCode, startedMs: run.started, endedAtMs: Date.now() });
  if (facts === undefined) return;
  const written = await writeMetricsFile(path, facts);
  if (!written.ok) io.stderr.write(`platctl: warning: ${written.message}; the run's exit code is unchanged\n`);
}

/**
 * The environments a bootstrap/teardown covers: `--env`, else those of `--unit` (`<env>/<path>`), else every
 * environment. (engine/metrics-collect.ts is loaded only with `--metrics-file`: its envOfUnit is not imported here.)
 */
export function selectionEnvs(
  args: { readonly env?: readonly string[] | undefined; readonly unit?: readonly string[] | undefined },
  environments: Readonly<Record<string, unknown>>,
): string[] {
  const named = [...(args.env ?? []), ...(args.unit ?? []).map((unit) => unit.split('/')[0] ?? unit)];
  return named.length > 0 ? named : Object.keys(environments);
}
