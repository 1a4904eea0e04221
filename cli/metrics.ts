/**
 * `--metrics-file PATH` for `validate`, `down`, `up`, `bootstrap` and `teardown`: the option, the check of the path
 * before anything runs (engine/metrics-sink.ts), and {@link withMetrics}, which runs a verb's body with a {@link MetricsSink} it fills as it
 * learns, then writes what the run knew (engine/metrics.ts) however it ended. Without the flag the sink does nothing
 * and nothing more is loaded.
 */
import { resolve } from 'node:path';
import type { MetricsVerb } from '../engine/metrics.js';
import type { MetricsSink } from '../engine/metrics-sink.js';
import { NO_SINK, checkMetricsPath } from '../engine/metrics-sink.js';
import type { ParkRecord } from '../park/record.js';
import type { CliIo } from './verb.js';
import { EXIT } from './verb.js';

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
  const { MetricsCollector, collectorSink, writeCollected } = await import('../engine/metrics-collect.js');
  const collector = new MetricsCollector();
  const started = Date.now();
  let exitCode: number = EXIT.bug;
  try {
    exitCode = await body(collectorSink(collector, readParkRecord));
    return exitCode;
  } finally {
    const warning = await writeCollected(collector, verb, resolve(io.cwd, path), { exitCode, startedMs: started });
    if (warning !== undefined) io.stderr.write(`platctl: warning: ${warning}; the run's exit code is unchanged\n`);
  }
}

/** What an environment's park file under `root` says now (for the metrics of a down/up). */
async function readParkRecord(root: string, env: string): Promise<ParkRecord | undefined> {
  const { loadParkFile } = await import('../park/record.js');
  const file = await loadParkFile(root, env);
  return file.type === 'ok' ? file.file.record : undefined;
}
