/**
 * `--trace` and the OpenTelemetry variables for `bootstrap`, `teardown`, `down`, `up` and `validate`:
 * {@link withTracing} runs a verb's body with a tracer (engine/trace-target.ts's `runTraced` decides and says it
 * all); this file passes the flag, the environment, the streams, the signal and platctl's version.
 */
import type { RunTracer } from '../engine/tracing.js';
import { runTraced } from '../engine/trace-target.js';
import type { CliIo } from './verb.js';
import { platctlVersion } from './version.js';

/** Runs a verb's body with a tracer, the trace exported at its end however it ended (engine/trace-target.ts). */
export function withTracing(
  verb: string,
  args: { readonly trace?: boolean | undefined },
  io: CliIo,
  body: (tracer: RunTracer) => Promise<number>,
): Promise<number> {
  return runTraced(verb, args.trace === true, io, platctlVersion, body);
}
