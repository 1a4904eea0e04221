/**
 * `--metrics-file PATH` for `validate`, `down`, `up`, `bootstrap` and `teardown`: {@link withMetrics} runs a verb's
 * body with a sink it fills as it learns (engine/metrics-run.ts's `runWithMetrics` decides and says it all); this
 * file passes the flags, the streams and the reader of a park file (engine/ does not import park/).
 */
import type { MetricsVerb } from '../engine/metrics.js';
import type { MetricsSink } from '../engine/metrics-sink.js';
import { runWithMetrics } from '../engine/metrics-run.js';
import type { ParkRecord } from '../park/record.js';
import type { CliIo } from './verb.js';

/** Runs a verb's body with a sink, what the run knew written to `--metrics-file` however it ended. */
export function withMetrics(
  verb: MetricsVerb,
  args: { readonly 'metrics-file'?: string | undefined; readonly 'dry-run'?: boolean | undefined },
  io: CliIo,
  body: (sink: MetricsSink) => Promise<number>,
): Promise<number> {
  const request = { path: args['metrics-file'], dryRun: args['dry-run'] === true };
  return runWithMetrics(verb, request, io, readParkRecord, body);
}

/** What an environment's park file under `root` says now (for the metrics of a down/up). */
async function readParkRecord(root: string, env: string): Promise<ParkRecord | undefined> {
  const { loadParkFile } = await import('../park/record.js');
  const file = await loadParkFile(root, env);
  return file.type === 'ok' ? file.file.record : undefined;
}
