/**
 * OpenTelemetry traces of a run (docs/tracing.md), exported over OTLP/HTTP. The spans are derived from the events a
 * run already emits: the walk's (engine/events.ts), down/up's (park/run.ts) and validate's check results. Nothing in
 * the run waits on tracing, and an unreachable collector only costs a warning at the end.
 *
 * The tree:
 *
 *   platctl <verb>                                    the whole invocation (exit code, result)
 *   ├── phase unlock | phase walk | phase lockdown    bootstrap/teardown: the phases around and of the walk
 *   │   ├── unit <id>                                 one attempt of a unit (env, attempt, wave, result, exit code)
 *   │   │   ├── hook <name>                           a named hook around the unit
 *   │   │   └── (terragrunt's own spans, through TRACEPARENT)
 *   │   └── lockdown <step> | unlock <step>           a lockdown step's attempt
 *   ├── down <env> | up <env>                         down/up: one environment
 *   │   └── step <step>                               (up's terragrunt applies under it, through TRACEPARENT)
 *   └── checks <phase>                                validate: a phase of checks (iam, cluster, units, cross)
 *       └── check <id>
 *
 * The OpenTelemetry packages are loaded by {@link startTracing} only, so a run without tracing never loads them.
 */
import type { Attributes, Context, Span, TextMapPropagator, Tracer } from '@opentelemetry/api';
import type { SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import type * as OtelApi from '@opentelemetry/api';
import type { ExportResultCode } from '@opentelemetry/core';
import type { CheckResult } from './check-report.js';
import type { ParkEvent, WalkEvent } from './events.js';
import type { UnitId } from './graph.js';
import { abortableSleep } from './timers.js';

/** How long the export at the end may take (and each export request), before the run ends without it. */
export const FLUSH_TIMEOUT_MS = 5_000;
/** When the run was interrupted (Ctrl-C), the export at the end gets this much, then the run ends. */
export const INTERRUPTED_FLUSH_TIMEOUT_MS = 1_000;

/** The environment variable Terragrunt reads to pick its trace exporter. */
export const TG_TRACE_EXPORTER_ENV = 'TG_TELEMETRY_TRACE_EXPORTER';

export interface TracingSettings {
  /** The OTLP/HTTP traces URL (`.../v1/traces`). */
  readonly url: string;
  /** The verb (`bootstrap`, `validate`, ...): the root span is `platctl <verb>`. */
  readonly verb: string;
  readonly version: string;
  /** platctl's own environment: its `TRACEPARENT` (a traced CI job) parents the root span; Terragrunt's settings. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Overrides {@link FLUSH_TIMEOUT_MS} (tests). */
  readonly flushTimeoutMs?: number;
}

/** What a verb tells the trace; every method of trace-target.ts's `NO_TRACER` does nothing. */
export interface RunTracer {
  /** The environments the run covers (an attribute of the root span). */
  envs(envs: readonly string[]): void;
  walkEvent(event: WalkEvent): void;
  parkEvent(event: ParkEvent): void;
  checkResult(result: CheckResult): void;
  /**
   * The variables for a Terragrunt process started for `unit` now: `TRACEPARENT` (and `TRACESTATE`) of the unit's
   * span (or of its lockdown step's, its rollback destroy's, or the down/up step that applies it), and what makes
   * Terragrunt export its spans to the same collector.
   */
  childEnv(unit: UnitId): Readonly<Record<string, string>>;
  /** Ends the trace and exports it, bounded; a message when the export failed (a warning: never the exit code). */
  finish(exitCode: number, signal: AbortSignal): Promise<string | undefined>;
}

/** The OpenTelemetry modules a trace needs, loaded on first use. */
interface Otel {
  readonly api: typeof OtelApi;
  readonly propagator: TextMapPropagator;
}

/** Loads the OpenTelemetry SDK and starts the root span. */
export async function startTracing(settings: TracingSettings): Promise<RunTracer> {
  const [api, core, sdk, exporterModule, resources, semconv] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const timeoutMs = settings.flushTimeoutMs ?? FLUSH_TIMEOUT_MS;
  const exporter = new WatchedExporter(
    new exporterModule.OTLPTraceExporter({ url: settings.url, timeoutMillis: timeoutMs }),
    core.ExportResultCode.SUCCESS,
  );
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({
      [semconv.ATTR_SERVICE_NAME]: 'platctl',
      [semconv.ATTR_SERVICE_VERSION]: settings.version,
    }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter, exportTimeoutMillis: timeoutMs })],
  });
  const otel: Otel = { api, propagator: new core.W3CTraceContextPropagator() };
  return new Tracing(otel, provider, exporter, settings, timeoutMs);
}

/** Counts failed exports, to say so at the end (the SDK itself stays silent). */
class WatchedExporter implements SpanExporter {
  failure: string | undefined;
  readonly #inner: SpanExporter;
  readonly #success: ExportResultCode;

  constructor(inner: SpanExporter, success: ExportResultCode) {
    this.#inner = inner;
    this.#success = success;
  }

  export(...[spans, done]: Parameters<SpanExporter['export']>): void {
    this.#inner.export(spans, (result) => {
      if (result.code !== this.#success) this.failure ??= result.error?.message ?? 'the export failed';
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush?.() ?? Promise.resolve();
  }
}

interface Open {
  readonly span: Span;
  readonly ctx: Context;
}

type WalkPhase = 'walk' | 'converge' | 'rollback' | 'lockdown' | 'unlock';

/** A validate check's result and when it arrived (epoch ms). */
interface EndedCheck {
  readonly result: CheckResult;
  readonly ended: number;
}

const envOf = (unit: string): string => unit.split('/')[0] ?? unit;
const time = (at: string): Date => new Date(at);

class Tracing implements RunTracer {
  readonly #otel: Otel;
  readonly #provider: TracerProvider;
  readonly #exporter: WatchedExporter;
  readonly #settings: TracingSettings;
  readonly #timeoutMs: number;
  readonly #tracer: Tracer;
  readonly #root: Open;
  #phase: (Open & { readonly name: WalkPhase }) | undefined;
  readonly #units = new Map<UnitId, Open>();
  readonly #hooks = new Map<string, Span>();
  /** Lockdown steps by unit (a Terragrunt process of the step is started under it) and park steps by env/step. */
  readonly #steps = new Map<string, Open>();
  readonly #parkEnvs = new Map<string, Open>();
  /** The step running in each environment of a down/up (its Terragrunt processes are started under it). */
  readonly #parkRunning = new Map<string, Open>();
  readonly #waits = new Map<string, Open>();
  readonly #checks: EndedCheck[] = [];
  #result: string | undefined;

  constructor(
    otel: Otel,
    provider: TracerProvider,
    exporter: WatchedExporter,
    settings: TracingSettings,
    timeoutMs: number,
  ) {
    this.#otel = otel;
    this.#provider = provider;
    this.#exporter = exporter;
    this.#settings = settings;
    this.#timeoutMs = timeoutMs;
    this.#tracer = provider.getTracer('platctl', settings.version);
    const { api, propagator } = otel;
    // A TRACEPARENT in platctl's own environment (a traced CI job) makes the run a part of that trace.
    const carrier = { traceparent: settings.env.TRACEPARENT, tracestate: settings.env.TRACESTATE };
    const parent = propagator.extract(api.ROOT_CONTEXT, carrier, api.defaultTextMapGetter);
    this.#root = this.#open(`platctl ${settings.verb}`, parent, { 'platctl.verb': settings.verb });
  }

  #open(name: string, parent: Context, attributes: Attributes, startTime?: Date | number): Open {
    const span = this.#tracer.startSpan(name, { attributes, ...(startTime ? { startTime } : {}) }, parent);
    return { span, ctx: this.#otel.api.trace.setSpan(parent, span) };
  }

  #end(span: Span, at: Date | number, attributes: Attributes, error?: string): void {
    span.setAttributes(attributes);
    if (error !== undefined) span.setStatus({ code: this.#otel.api.SpanStatusCode.ERROR, message: error });
    span.end(at);
  }

  envs(envs: readonly string[]): void {
    this.#root.span.setAttribute('platctl.env', [...new Set(envs)].sort().join(','));
  }

  walkEvent(event: WalkEvent): void {
    const phase = phaseOf(event);
    if (phase !== undefined && phase !== this.#phase?.name) this.#switchPhase(phase, event.at);
    switch (event.type) {
      case 'run-started':
        this.#root.span.setAttributes({ 'platctl.run_id': event.run_id, 'platctl.resumed': event.resumed });
        return;
      case 'unit-started':
        return this.#unitStarted(event);
      case 'unit-completed':
        return this.#unitEnded(event.unit, event.at, { 'platctl.result': 'completed', 'platctl.exit_code': 0 });
      case 'unit-failed':
        return this.#unitEnded(
          event.unit,
          event.at,
          {
            'platctl.result': 'failed',
            'platctl.reason': event.reason,
            ...(event.exit_code === undefined ? {} : { 'platctl.exit_code': event.exit_code }),
            ...(event.hook === undefined ? {} : { 'platctl.hook': event.hook }),
          },
          event.error,
        );
      case 'unit-interrupted':
        return this.#unitEnded(event.unit, event.at, { 'platctl.result': 'interrupted' });
      case 'unit-skipped':
        return this.#unitSkipped(event);
      case 'hook-started':
      case 'hook-finished':
        return this.#hookEvent(event);
      case 'lockdown-step-started':
      case 'lockdown-step-finished':
        return this.#lockdownStepEvent(event);
      case 'converge-wait-started':
      case 'converge-wait-progress':
      case 'converge-wait-finished':
        return this.#convergeEvent(event);
      case 'rollback-probe':
      case 'rollback-decided':
      case 'rollback-unit':
      case 'rollback-finished':
        return this.#rollbackEvent(event);
      case 'warning':
        this.#root.span.addEvent('warning', { message: event.message }, time(event.at));
        return;
      case 'interrupting':
        this.#root.span.addEvent('interrupting', { signal: event.signal }, time(event.at));
        return;
      case 'run-finished':
        this.#closePhase(time(event.at));
        this.#result = event.status;
        return;
    }
  }

  /** A skipped unit: a span that says why it was skipped. */
  #unitSkipped(event: Extract<WalkEvent, { type: 'unit-skipped' }>): void {
    const skipped = this.#open(`unit ${event.unit}`, this.#phase?.ctx ?? this.#root.ctx, unitAttrs(event.unit));
    skipped.span.setAttributes({ 'platctl.skip_reason': event.reason, 'platctl.skipped_because': event.because });
    return this.#end(skipped.span, time(event.at), { 'platctl.result': 'skipped' });
  }

  /** A hook is a span under its unit's (or, around the walk, the phase's). */
  #hookEvent(event: Extract<WalkEvent, { type: `hook-${string}` }>): void {
    switch (event.type) {
      case 'hook-started': {
        const parent = this.#units.get(event.unit)?.ctx ?? this.#phase?.ctx ?? this.#root.ctx;
        const hook = this.#open(
          `hook ${event.hook}`,
          parent,
          { 'platctl.hook': event.hook, 'platctl.point': event.point },
          time(event.at),
        );
        this.#hooks.set(hookKey(event), hook.span);
        return;
      }
      case 'hook-finished': {
        const span = this.#hooks.get(hookKey(event));
        this.#hooks.delete(hookKey(event));
        if (span)
          this.#end(
            span,
            time(event.at),
            { 'platctl.result': event.ok ? 'ok' : 'failed' },
            event.ok ? undefined : event.detail,
          );
        return;
      }
    }
  }

  /** A lockdown or unlock step is a span under the phase; a failed or retried one says why. */
  #lockdownStepEvent(event: Extract<WalkEvent, { type: `lockdown-step-${string}` }>): void {
    switch (event.type) {
      case 'lockdown-step-started': {
        const attributes = { ...unitAttrs(event.unit), 'platctl.step': event.step, 'platctl.attempt': event.attempt };
        const parent = this.#phase?.ctx ?? this.#root.ctx;
        this.#steps.set(event.unit, this.#open(`${event.direction} ${event.step}`, parent, attributes, time(event.at)));
        return;
      }
      case 'lockdown-step-finished': {
        const step = this.#steps.get(event.unit);
        this.#steps.delete(event.unit);
        const failed = event.result === 'failed' || event.result === 'retrying';
        if (step)
          this.#end(
            step.span,
            time(event.at),
            { 'platctl.result': event.result },
            failed ? (event.message ?? event.result) : undefined,
          );
        return;
      }
    }
  }

  /** A convergence wait is a span under the converge phase; each look that found something not ready, an event. */
  #convergeEvent(event: Extract<WalkEvent, { type: `converge-wait-${string}` }>): void {
    const at = time(event.at);
    switch (event.type) {
      case 'converge-wait-started': {
        const attributes = {
          'platctl.wait': event.wait,
          'platctl.what': event.what,
          'platctl.timeout_ms': event.timeout_ms,
        };
        this.#waits.set(
          event.wait,
          this.#open(`wait ${event.wait}`, this.#phase?.ctx ?? this.#root.ctx, attributes, at),
        );
        return;
      }
      case 'converge-wait-progress':
        this.#waits
          .get(event.wait)
          ?.span.addEvent('not ready', { message: event.message, waited_ms: event.waited_ms }, at);
        return;
      case 'converge-wait-finished': {
        const open =
          this.#waits.get(event.wait) ??
          this.#open(`wait ${event.wait}`, this.#phase?.ctx ?? this.#root.ctx, { 'platctl.wait': event.wait }, at);
        this.#waits.delete(event.wait);
        const failed = event.result === 'failed';
        this.#end(
          open.span,
          at,
          { 'platctl.result': event.result, 'platctl.waited_ms': event.waited_ms },
          failed ? (event.message ?? 'failed') : undefined,
        );
        return;
      }
    }
  }

  /**
   * The probe's answers are events on the run (they come before the walk); the rollback is a phase whose destroys
   * are spans, each the parent of its Terragrunt process (kept with the lockdown steps, which childEnv reads).
   */
  #rollbackEvent(event: Extract<WalkEvent, { type: `rollback-${string}` }>): void {
    const at = time(event.at);
    switch (event.type) {
      case 'rollback-probe':
        this.#root.span.addEvent('rollback probe', { unit: event.unit, result: event.result }, at);
        return;
      case 'rollback-decided':
        this.#phase?.span.setAttributes({
          'platctl.rollback.action': event.action,
          ...(event.rule === undefined ? {} : { 'platctl.rollback.rule': event.rule }),
        });
        this.#phase?.span.addEvent('rollback decided', { action: event.action, message: event.message }, at);
        return;
      case 'rollback-unit': {
        if (event.result === 'started') {
          this.#steps.set(
            event.unit,
            this.#open(`destroy ${event.unit}`, this.#phase?.ctx ?? this.#root.ctx, unitAttrs(event.unit), at),
          );
          return;
        }
        const open =
          this.#steps.get(event.unit) ??
          this.#open(`destroy ${event.unit}`, this.#phase?.ctx ?? this.#root.ctx, unitAttrs(event.unit), at);
        this.#steps.delete(event.unit);
        this.#end(
          open.span,
          at,
          { 'platctl.result': event.result },
          event.result === 'failed' ? (event.error ?? 'failed') : undefined,
        );
        return;
      }
      case 'rollback-finished':
        this.#phase?.span.setAttributes({ 'platctl.result': event.status });
        return;
    }
  }

  #switchPhase(name: WalkPhase, at: string): void {
    this.#closePhase(time(at));
    this.#phase = { name, ...this.#open(`phase ${name}`, this.#root.ctx, { 'platctl.phase': name }, time(at)) };
  }

  #closePhase(at: Date): void {
    this.#phase?.span.end(at);
    this.#phase = undefined;
  }

  #unitStarted(event: Extract<WalkEvent, { type: 'unit-started' }>): void {
    this.#units.get(event.unit)?.span.end(time(event.at));
    const attributes = { ...unitAttrs(event.unit), 'platctl.attempt': event.attempt, 'platctl.wave': event.wave };
    this.#units.set(
      event.unit,
      this.#open(`unit ${event.unit}`, this.#phase?.ctx ?? this.#root.ctx, attributes, time(event.at)),
    );
  }

  #unitEnded(unit: UnitId, at: string, attributes: Attributes, error?: string): void {
    const open = this.#units.get(unit);
    if (!open) return;
    this.#units.delete(unit);
    this.#end(open.span, time(at), attributes, error);
  }

  parkEvent(event: ParkEvent): void {
    switch (event.type) {
      case 'env-started': {
        const attributes = { 'platctl.env': event.env, 'platctl.op': event.op, 'platctl.resumed': event.resumed };
        this.#parkEnvs.set(
          event.env,
          this.#open(`${event.op} ${event.env}`, this.#root.ctx, attributes, time(event.at)),
        );
        return;
      }
      case 'step-started': {
        const parent = this.#parkEnvs.get(event.env)?.ctx ?? this.#root.ctx;
        const attributes = { 'platctl.env': event.env, 'platctl.step': event.step };
        const open = this.#open(`step ${event.step}`, parent, attributes, time(event.at));
        this.#steps.set(`${event.env}\0${event.step}`, open);
        this.#parkRunning.set(event.env, open);
        return;
      }
      case 'step-completed':
      case 'step-failed': {
        const key = `${event.env}\0${event.step}`;
        const step = this.#steps.get(key);
        this.#steps.delete(key);
        if (!step) return;
        if (this.#parkRunning.get(event.env) === step) this.#parkRunning.delete(event.env);
        if (event.type === 'step-completed') this.#end(step.span, time(event.at), { 'platctl.result': 'completed' });
        else
          this.#end(
            step.span,
            time(event.at),
            { 'platctl.result': 'failed', 'platctl.reason': event.reason },
            event.message,
          );
        return;
      }
      case 'step-skipped': {
        const parent = this.#parkEnvs.get(event.env)?.ctx ?? this.#root.ctx;
        const skipped = this.#open(
          `step ${event.step}`,
          parent,
          { 'platctl.env': event.env, 'platctl.step': event.step },
          time(event.at),
        );
        this.#end(skipped.span, time(event.at), { 'platctl.result': 'skipped' });
        return;
      }
      case 'env-finished': {
        const open = this.#parkEnvs.get(event.env);
        this.#parkEnvs.delete(event.env);
        this.#parkRunning.delete(event.env);
        const status = event.outcome.status;
        const failed = status === 'failed' || status === 'refused' || status === 'fenced';
        if (open) this.#end(open.span, time(event.at), { 'platctl.result': status }, failed ? status : undefined);
        return;
      }
      case 'step-planned':
        return;
    }
  }

  checkResult(result: CheckResult): void {
    this.#checks.push({ result, ended: Date.now() });
  }

  /** Validate's checks, grouped by phase, each phase spanning its checks (a check result says when it ended). */
  #emitChecks(): void {
    const phases = new Map<string, { start: number; end: number; checks: EndedCheck[] }>();
    for (const entry of this.#checks) {
      const start = entry.ended - entry.result.durationMs;
      const known = phases.get(entry.result.phase);
      if (known) {
        known.start = Math.min(known.start, start);
        known.end = Math.max(known.end, entry.ended);
        known.checks.push(entry);
      } else phases.set(entry.result.phase, { start, end: entry.ended, checks: [entry] });
    }
    for (const [phase, { start, end, checks }] of phases) {
      const open = this.#open(`checks ${phase}`, this.#root.ctx, { 'platctl.phase': phase }, start);
      for (const { result, ended } of checks) {
        const attributes = {
          'platctl.check': result.check,
          'platctl.target': result.target,
          ...(result.env === undefined ? {} : { 'platctl.env': result.env }),
        };
        const check = this.#open(`check ${result.id}`, open.ctx, attributes, ended - result.durationMs);
        const unhealthy = result.status === 'fail' || result.status === 'error';
        this.#end(check.span, ended, { 'platctl.result': result.status }, unhealthy ? result.message : undefined);
      }
      open.span.end(end);
    }
  }

  childEnv(unit: UnitId): Readonly<Record<string, string>> {
    const open = this.#steps.get(unit) ?? this.#units.get(unit) ?? this.#parkStepOf(unit);
    if (!open) return {};
    const carrier: Record<string, string> = {};
    this.#otel.propagator.inject(open.ctx, carrier, this.#otel.api.defaultTextMapSetter);
    const env: Record<string, string> = {};
    if (carrier.traceparent !== undefined) env.TRACEPARENT = carrier.traceparent;
    if (carrier.tracestate !== undefined) env.TRACESTATE = carrier.tracestate;
    // Terragrunt exports its spans only when told to; an operator's own choice of exporter is kept.
    if (this.#settings.env[TG_TRACE_EXPORTER_ENV] === undefined) {
      env[TG_TRACE_EXPORTER_ENV] = 'otlpHttp';
      env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = this.#settings.url;
    }
    return env;
  }

  /**
   * The down/up step a unit's Terragrunt runs under (`up` re-applies units within a step): the step running in the
   * unit's environment, else the only step running at all.
   */
  #parkStepOf(unit: UnitId): Open | undefined {
    const own = this.#parkRunning.get(envOf(unit));
    if (own) return own;
    return this.#parkRunning.size === 1 ? [...this.#parkRunning.values()][0] : undefined;
  }

  async finish(exitCode: number, signal: AbortSignal): Promise<string | undefined> {
    const now = Date.now();
    this.#emitChecks();
    for (const open of [...this.#hooks.values()]) open.end(now);
    for (const open of [
      ...this.#steps.values(),
      ...this.#waits.values(),
      ...this.#units.values(),
      ...this.#parkEnvs.values(),
    ])
      open.span.end(now);
    this.#closePhase(new Date(now));
    const failed = exitCode !== 0;
    this.#end(
      this.#root.span,
      now,
      { 'platctl.exit_code': exitCode, 'platctl.result': this.#result ?? resultOf(exitCode) },
      failed ? `exit code ${exitCode}` : undefined,
    );
    const bound = signal.aborted ? Math.min(INTERRUPTED_FLUSH_TIMEOUT_MS, this.#timeoutMs) : this.#timeoutMs;
    const stop = new AbortController();
    const flushed = await Promise.race([
      this.#provider.shutdown().then(
        () => ({ type: 'done' as const, error: this.#exporter.failure }),
        (error: unknown) => ({ type: 'done' as const, error: error instanceof Error ? error.message : String(error) }),
      ),
      abortableSleep(
        bound,
        // After a Ctrl-C the signal is already aborted: the shorter bound applies instead of no wait at all.
        signal.aborted ? stop.signal : AbortSignal.any([signal, stop.signal]),
      ).then(() => ({ type: 'gave-up' as const })),
    ]);
    stop.abort();
    const where = `the trace was not exported to ${this.#settings.url}`;
    if (flushed.type === 'gave-up') {
      return `${where} within ${bound} ms (${this.#exporter.failure ?? 'the collector did not answer'})`;
    }
    return flushed.error === undefined ? undefined : `${where}: ${flushed.error}`;
  }
}

function phaseOf(event: WalkEvent): WalkPhase | undefined {
  switch (event.type) {
    case 'unit-started':
    case 'unit-completed':
    case 'unit-failed':
    case 'unit-interrupted':
    case 'unit-skipped':
      return 'walk';
    case 'lockdown-step-started':
    case 'lockdown-step-finished':
      return event.direction === 'lock' ? 'lockdown' : 'unlock';
    case 'converge-wait-started':
    case 'converge-wait-progress':
    case 'converge-wait-finished':
      return 'converge';
    case 'rollback-decided':
    case 'rollback-unit':
    case 'rollback-finished':
      return 'rollback';
    case 'rollback-probe':
    case 'run-started':
    case 'run-finished':
    case 'hook-started':
    case 'hook-finished':
    case 'interrupting':
    case 'warning':
      return undefined;
  }
}

function unitAttrs(unit: UnitId): Attributes {
  return { 'platctl.unit.id': unit, 'platctl.env': envOf(unit) };
}

function hookKey(event: { readonly unit: UnitId; readonly hook: string; readonly point: string }): string {
  return `${event.unit}\0${event.hook}\0${event.point}`;
}

function resultOf(exitCode: number): string {
  if (exitCode === 0) return 'completed';
  if (exitCode === 1) return 'failed';
  if (exitCode === 2) return 'usage-error';
  if (exitCode === 3) return 'refused';
  if (exitCode === 70) return 'bug';
  return exitCode >= 128 ? 'interrupted' : 'failed';
}
