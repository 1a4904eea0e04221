/**
 * `--metrics-file` around a verb: its body run with a sink (metrics-sink.ts), and what the run knew written however
 * it ended. Without the flag the sink does nothing and nothing more is loaded (metrics-collect.ts and metrics.ts load
 * only with it).
 */
import { resolve } from 'node:path';
import { EXIT } from '../config/exit-codes.js';
import type { ParkRecordFacts } from './metrics-collect.js';
import type { MetricsSink } from './metrics-sink.js';
import { NO_SINK, checkMetricsPath } from './metrics-sink.js';
import type { MetricsVerb } from './metrics.js';

/**
 * Runs a verb's body with a sink, and at its end (success, failure, refusal, interruption, or a bug) writes what the
 * run knew to `--metrics-file` (`path`, relative to `io.cwd`). Nothing is written when the run ended before its
 * configuration was understood (no environment known). A failed write is a warning on stderr; the run's exit code
 * stays its own. `readRecord`: what an environment's park file under a root says now (engine/ does not import park/).
 */
export async function runWithMetrics(
  verb: MetricsVerb,
  request: { readonly path: string | undefined; readonly dryRun: boolean },
  io: { readonly cwd: string; readonly stderr: NodeJS.WritableStream },
  readRecord: (root: string, env: string) => Promise<ParkRecordFacts | undefined>,
  body: (sink: MetricsSink) => Promise<number>,
): Promise<number> {
  const { path } = request;
  if (path === undefined) return body(NO_SINK);
  const problem = await checkMetricsPath(path, request.dryRun, io.cwd);
  if (problem !== undefined) {
    io.stderr.write(`platctl: ${problem}\n`);
    return EXIT.usage;
  }
  const { MetricsCollector, collectorSink, writeCollected } = await import('./metrics-collect.js');
  const collector = new MetricsCollector();
  const started = Date.now();
  let exitCode: number = EXIT.bug;
  try {
    exitCode = await body(collectorSink(collector, readRecord));
    return exitCode;
  } finally {
    const warning = await writeCollected(collector, verb, resolve(io.cwd, path), { exitCode, startedMs: started });
    if (warning !== undefined) io.stderr.write(`platctl: warning: ${warning}; the run's exit code is unchanged\n`);
  }
}
