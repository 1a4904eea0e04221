/**
 * The contract between a verb and `--metrics-file`: the {@link MetricsSink} a verb fills as it learns (the one that
 * does nothing without the flag, here so that a run without it loads nothing more; the collecting one is
 * metrics-collect.ts's `collectorSink`), the check of the path before anything runs, and which environments a
 * bootstrap/teardown covers.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { EnvOutcome, ParkEvent } from './events.js';
import type { RunResult } from './run.js';

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

export const NO_SINK: MetricsSink = {
  envs: () => undefined,
  validate: () => undefined,
  parkEvents: (next) => next,
  park: () => Promise.resolve(),
  walk: () => undefined,
};

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
 * The environments a bootstrap/teardown covers: `--env`, else those of `--unit` (`<env>/<path>`), else every
 * environment. (metrics-collect.ts is loaded only with `--metrics-file`: its envOfUnit is not imported here.)
 */
export function selectionEnvs(
  args: { readonly env?: readonly string[] | undefined; readonly unit?: readonly string[] | undefined },
  environments: Readonly<Record<string, unknown>>,
): string[] {
  const named = [...(args.env ?? []), ...(args.unit ?? []).map((unit) => unit.split('/')[0] ?? unit)];
  return named.length > 0 ? named : Object.keys(environments);
}
