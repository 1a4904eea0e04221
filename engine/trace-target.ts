/**
 * Whether a run traces, and where to (`--trace` and the OpenTelemetry variables, given as a plain record by the CLI),
 * the tracer that does nothing, and {@link runTraced} (a verb's body run with a tracer, the trace exported at its end).
 * Kept apart from `tracing.ts` so a run without tracing loads neither it nor the OpenTelemetry packages.
 */
import { EXIT } from '../config/exit-codes.js';
import type { RunTracer } from './tracing.js';

/** Where OTLP/HTTP traces go when `--trace` is given and no endpoint is set (the OpenTelemetry default). */
export const DEFAULT_TRACES_URL = 'http://localhost:4318/v1/traces';

/** No tracer: every method does nothing (here, not in tracing.ts, so a run without tracing does not load that). */
export const NO_TRACER: RunTracer = {
  envs: () => undefined,
  walkEvent: () => undefined,
  parkEvent: () => undefined,
  checkResult: () => undefined,
  childEnv: () => ({}),
  finish: () => Promise.resolve(undefined),
};

export type TraceTarget =
  | { readonly type: 'off' }
  | { readonly type: 'on'; readonly url: string }
  | { readonly type: 'invalid'; readonly message: string };

/**
 * Whether to trace, and where to: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the whole URL), else
 * `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, else (with `--trace`) the default. `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none` turn the variables' tracing off; `--trace` still traces.
 */
export function traceTarget(trace: boolean, env: Readonly<Record<string, string | undefined>>): TraceTarget {
  const nonEmpty = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const disabled =
    nonEmpty('OTEL_SDK_DISABLED')?.toLowerCase() === 'true' || nonEmpty('OTEL_TRACES_EXPORTER') === 'none';
  const tracesEndpoint = nonEmpty('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = nonEmpty('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!trace && (disabled || (tracesEndpoint === undefined && endpoint === undefined))) return { type: 'off' };
  const [name, url] =
    tracesEndpoint !== undefined
      ? ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint]
      : endpoint !== undefined
        ? ['OTEL_EXPORTER_OTLP_ENDPOINT', `${endpoint.replace(/\/+$/, '')}/v1/traces`]
        : ['--trace', DEFAULT_TRACES_URL];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {
      type: 'invalid',
      message: `${name}=${url} is not a URL; give the collector's OTLP/HTTP address, e.g. http://localhost:4318`,
    };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return {
      type: 'invalid',
      message: `${name}=${url}: platctl exports traces over OTLP/HTTP only (http:// or https://); give the collector's HTTP port (4318), not gRPC`,
    };
  }
  return { type: 'on', url };
}

/**
 * Runs a verb's body with a tracer, then ends the trace and exports it (bounded; a Ctrl-C, `io.signal`, stops the
 * wait). An export that fails is a warning on stderr: the run's exit code stays its own. A bad endpoint is a usage
 * error before anything runs. `version`: platctl's, read only when tracing.
 */
export async function runTraced(
  verb: string,
  trace: boolean,
  io: {
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly stderr: NodeJS.WritableStream;
    readonly signal: AbortSignal;
  },
  version: () => string,
  body: (tracer: RunTracer) => Promise<number>,
): Promise<number> {
  const target = traceTarget(trace, io.env);
  if (target.type === 'off') return body(NO_TRACER);
  if (target.type === 'invalid') {
    io.stderr.write(`platctl: ${target.message}\n`);
    return EXIT.usage;
  }
  const { startTracing } = await import('./tracing.js');
  const tracer = await startTracing({ url: target.url, verb, version: version(), env: io.env });
  let exitCode: number = EXIT.bug;
  try {
    exitCode = await body(tracer);
    return exitCode;
  } finally {
    const warning = await tracer.finish(exitCode, io.signal);
    if (warning !== undefined) io.stderr.write(`platctl: warning: ${warning}; the run's exit code is unchanged\n`);
  }
}
