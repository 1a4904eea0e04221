/**
 * `--metrics-file PATH` for `validate`, `down`, `up`, `bootstrap` and `teardown`: the option, the check of the path
 * before anything runs, and {@link withMetrics}, which runs a verb's body with a {@link MetricsSink} it fills as it
 * learns, then writes what the run knew (engine/metrics.ts) however it ended. Without the flag the sink does nothing
 * and nothing more is loaded.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { RunFacts, RunResultLabel, MetricsVerb } from '../engine/metrics.js';
import type { RunResult } from '../engine/run.js';
import type { EnvOutcome, ParkEvent } from '../park/run.js';
import type { CliIo } from './verb.js';
import { EXIT } from './verb.js';

export { METRICS_OPTION } from './commands/shared.js';

type Facts = Omit<RunFacts, 'verb' | 'exitCode' | 'endedAtMs' | 'envs'>;

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

/** The environment of a unit id (`<env>/<path>`). */
const envOf = (unit: string): string => unit.split('/')[0] ?? unit;

class Collector implements MetricsSink {
  envList: readonly string[] | undefined;
  facts: Facts = {};
  readonly perEnv = new Map<string, { result?: RunResultLabel; startedMs?: number; endedMs?: number }>();

  envs(envs: readonly string[]): void {
    this.envList = [...new Set(envs)].sort();
  }

  validate(report: Parameters<MetricsSink['validate']>[0]): void {
    this.facts = {
      ...this.facts,
      validateDurationMs: report.durationMs,
      checks: report.checks.map((c) => ({ env: c.env ?? '', check: c.id, ok: c.status === 'pass' })),
    };
  }

  parkEvents(next: (event: ParkEvent) => void): (event: ParkEvent) => void {
    return (event) => {
      if (event.type === 'env-started') this.perEnv.set(event.env, { startedMs: Date.parse(event.at) });
      if (event.type === 'env-finished') {
        const known = this.perEnv.get(event.env) ?? {};
        this.perEnv.set(event.env, { ...known, endedMs: Date.parse(event.at) });
      }
      next(event);
    };
  }

  async park(root: string, outcomes: readonly EnvOutcome[]): Promise<void> {
    const { loadParkFile } = await import('../park/record.js');
    const parked: { env: string; parked: boolean }[] = [];
    const nodeGroups: { env: string; group: string; desired: number }[] = [];
    for (const outcome of outcomes) {
      const { env, op, status } = outcome;
      this.perEnv.set(env, { ...this.perEnv.get(env), result: parkResult(status) });
      const file = await loadParkFile(root, env);
      const record = file.type === 'ok' ? file.file.record : undefined;
      if (status === 'completed') parked.push({ env, parked: op === 'down' });
      else if (record) parked.push({ env, parked: record.status === 'parked' });
      // The sizes are known once the node-groups step is done (this run or the one it resumed): 0 after down, the
      // recorded ones after up. Mid-step (or before it) the run cannot say, so it writes nothing for them.
      if (record && (status === 'completed' || outcome.done_steps.includes('node-groups'))) {
        for (const [group, size] of Object.entries(record.node_groups))
          nodeGroups.push({ env, group, desired: op === 'down' ? 0 : size.desired });
      }
    }
    this.facts = { ...this.facts, parked, nodeGroups };
  }

  walk(result: RunResult): void {
    if (result.type !== 'finished') return;
    const units = Object.entries(result.state.units).flatMap(([unit, state]) =>
      state.duration_ms === undefined ? [] : [{ env: envOf(unit), unit, durationMs: state.duration_ms }],
    );
    this.facts = { ...this.facts, units };
    // The run's own units say which environments it covered (a resumed run's selection is in its state).
    const envs = units.length > 0 ? units.map((u) => u.env) : Object.keys(result.state.units).map(envOf);
    if (envs.length > 0) this.envs(envs);
  }
}

function parkResult(status: EnvOutcome['status']): RunResultLabel {
  switch (status) {
    case 'completed':
    case 'nothing-to-do':
    case 'planned':
      return 'success';
    case 'failed':
      return 'failure';
    case 'refused':
    case 'fenced':
      return 'refused';
    case 'interrupted':
      return 'interrupted';
  }
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
  const collector = new Collector();
  const started = Date.now();
  let exitCode: number = EXIT.bug;
  try {
    exitCode = await body(collector);
    return exitCode;
  } finally {
    await writeCollected(verb, resolve(io.cwd, path), collector, { exitCode, started }, io);
  }
}

async function writeCollected(
  verb: MetricsVerb,
  path: string,
  collector: Collector,
  run: { readonly exitCode: number; readonly started: number },
  io: CliIo,
): Promise<void> {
  if (collector.envList === undefined) return;
  const { resultForExitCode, writeMetricsFile } = await import('../engine/metrics.js');
  const endedAtMs = Date.now();
  const runResult = resultForExitCode(run.exitCode);
  const envs = collector.envList.map((env) => {
    const seen = collector.perEnv.get(env);
    const start = seen?.startedMs ?? run.started;
    return { env, result: seen?.result ?? runResult, durationMs: (seen?.endedMs ?? endedAtMs) - start };
  });
  const written = await writeMetricsFile(path, {
    ...collector.facts,
    verb,
    exitCode: run.exitCode,
    endedAtMs,
    envs,
  });
  if (!written.ok) io.stderr.write(`platctl: warning: ${written.message}; the run's exit code is unchanged\n`);
}

/** The environments a bootstrap/teardown covers: `--env`, else those of `--unit`, else every environment. */
export function selectionEnvs(
  args: { readonly env?: readonly string[] | undefined; readonly unit?: readonly string[] | undefined },
  environments: Readonly<Record<string, unknown>>,
): string[] {
  const named = [...(args.env ?? []), ...(args.unit ?? []).map(envOf)];
  return named.length > 0 ? named : Object.keys(environments);
}
