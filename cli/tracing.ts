/**
 * `--trace` and `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (engine/trace-target.ts) for `bootstrap`, `teardown`,
 * `down`, `up` and `validate`: {@link withTracing} runs a verb's body with a {@link RunTracer} (engine/tracing.ts) and
 * exports the trace at its end, bounded, however it ended. Without tracing the OpenTelemetry packages are not loaded.
 */
import type { RunTracer } from '../engine/tracing.js';
import { NO_TRACER, traceTarget } from '../engine/trace-target.js';
import type { CliIo } from './verb.js';
import { EXIT } from './verb.js';
import { platctlVersion } from './version.js';

/**
 * Runs a verb's body with a tracer, then ends the trace and exports it (bounded; a Ctrl-C stops the wait). An export
 * that fails is a warning on stderr: the run's exit code stays its own. A bad endpoint is a usage error before
 * anything runs.
 */
export async function withTracing(
  verb: string,
  args: { readonly trace?: boolean | undefined },
  io: CliIo,
  body: (tracer: RunTracer) => Promise<number>,
): Promise<number> {
  const target = traceTarget(args.trace === true, io.env);
  if (target.type === 'off') return body(NO_TRACER);
  if (target.type === 'invalid') {
    io.stderr.write(`platctl: ${target.message}\n`);
    return EXIT.usage;
  }
  const { startTracing } = await import('../engine/tracing.js');
  const tracer = await startTracing({ url: target.url, verb, version: platctlVersion(), env: io.env });
  let exitCode: number = EXIT.bug;
  try {
    exitCode = await body(tracer);
    return exitCode;
  } finally {
    const warning = await tracer.finish(exitCode, io.signal);
    if (warning !== undefined) io.stderr.write(`platctl: warning: ${warning}; the run's exit code is unchanged\n`);
  }
}
