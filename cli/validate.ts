/**
 * `platctl validate`: is the platform healthy, and if not, exactly what is broken. Exit 0 healthy, 1 unhealthy,
 * 2 configuration or usage error. The checks and their order live in validate/; this file loads the project,
 * wires the real clients and renders the report.
 */
import type { PlatctlConfig } from '../config/schema.js';
import type { ParkView } from '../park/status.js';
import type { ParkState, ValidateDeps } from '../validate/deps.js';
import type { ValidateReport } from '../validate/types.js';
import type { MetricsSink } from '../engine/metrics-sink.js';
import type { Reporter } from '../engine/events.js';
import { withMetrics } from './metrics.js';
import { withTracing } from './tracing.js';
import type { RunTracer } from '../engine/tracing.js';
import type { CheckResult } from '../validate/types.js';
import type { ValidateProject } from './project.js';
import { loadConfigOnly, loadProject } from './project.js';
import { handleInterruptions, interruptedOr } from './signals.js';
import type { ArgsOf } from './options.js';
import type { CliIo, GlobalOptions } from './verb.js';
import { EXIT, defineVerb } from './verb.js';
import type { VALIDATE_OPTIONS } from './commands/validate.js';
import { VALIDATE_GRAMMAR } from './commands/validate.js';

export type ValidateArgs = ArgsOf<typeof VALIDATE_OPTIONS>;

type Loaded = { ok: true; project: ValidateProject } | { ok: false; exitCode: number };

/**
 * The configuration, and the discovered units when the run can need them: `--check tailscale` must not pay for
 * discovery (or anything else), so a prefix that cannot reach a `unit/` check loads the configuration only.
 */
async function loadForValidate(args: ValidateArgs & GlobalOptions, io: CliIo, needsUnits: boolean): Promise<Loaded> {
  if (needsUnits) {
    const loaded = await loadProject({ ...args, allowUnresolved: args['allow-unresolved'], withRemoteState: true }, io);
    if (!loaded.ok) return loaded;
    const { config, discovery, root } = loaded.project;
    return { ok: true, project: { config, units: discovery.units, root } };
  }
  return loadConfigOnly(args, io);
}

/** Writes the report: the table and verdict on stdout, or JSON on stdout and the verdict on stderr. */
export async function printReport(report: ValidateReport, json: boolean, io: CliIo): Promise<void> {
  const { renderTable, renderVerdict, toJson } = await import('../engine/reporters/validate.js');
  const { makePaint } = await import('../engine/reporters/paint.js');
  const colour = { paint: makePaint(io.color), color: io.color };
  const columns = (io.stdout as { columns?: number }).columns;
  if (json) {
    io.stdout.write(`${JSON.stringify(toJson(report))}\n`);
    io.stderr.write(renderVerdict(report, colour));
    return;
  }
  io.stdout.write(renderTable(report, { ...colour, ...(columns ? { width: columns } : {}) }));
  io.stdout.write(renderVerdict(report, colour));
}

/**
 * The reporter of the running checks: on a non-terminal, still-running lines on stderr (stdout is the table, printed
 * at the end); none on a live terminal, whose run is short, nor with `--json`, whose stdout is one document.
 */
async function checksReporter(json: boolean, io: CliIo): Promise<Reporter> {
  const [{ ValidateReporter }, { isLiveTerminal, plainHeartbeat }] = await Promise.all([
    import('../engine/reporters/validate.js'),
    import('./terminal.js'),
  ]);
  const quiet = json || isLiveTerminal(io.stdout);
  return new ValidateReporter(quiet ? undefined : { out: io.stderr, options: plainHeartbeat(io) });
}

/** `--dry-run`: the planned checks (which check each unit gets), with no credentials read and nothing called. */
export async function printPlan(
  project: ValidateProject,
  args: ValidateArgs & GlobalOptions,
  io: CliIo,
): Promise<number> {
  const { planChecks } = await import('../validate/plan.js');
  const { planToJson, renderPlan } = await import('../engine/reporters/validate.js');
  const plan = planChecks({
    config: project.config,
    units: project.units,
    ...(args.env ? { envs: args.env } : {}),
    ...(args.check !== undefined ? { checkPrefix: args.check } : {}),
  });
  if (!plan.ok) {
    io.stderr.write(`platctl: ${plan.message}\n`);
    return EXIT.usage;
  }
  io.stdout.write(args.json === true ? `${JSON.stringify(planToJson(plan.checks))}\n` : renderPlan(plan.checks));
  return EXIT.ok;
}

/** Runs validate on a loaded project; the verb's body without the loading, for tests. */
export async function runValidate(
  project: ValidateProject,
  args: ValidateArgs & GlobalOptions,
  io: CliIo,
  deps?: ValidateDeps,
  metrics?: MetricsSink,
  tracer?: RunTracer,
): Promise<number> {
  const { validate, createValidateDeps } = await import('../validate/index.js');
  const { guardEmit, reporterFailed } = await import('../engine/events.js');
  const concurrency = args.concurrency ?? project.config.parallelism.validate;
  // Resolvers for the DNS fallback of dns_delegation (ip or ip:port, comma-separated); the system's when unset.
  const dnsServers = (io.env.PLATCTL_DNS_SERVERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const reporter = await checksReporter(args.json === true, io);
  const emit = guardEmit(
    (event) => reporter.event(event),
    (error) => io.stderr.write(`platctl: ${reporterFailed(error, 'the checks')}\n`),
  );
  const outcome = await validate(
    {
      config: project.config,
      units: project.units,
      ...(args.env ? { envs: args.env } : {}),
      ...(args.check !== undefined ? { checkPrefix: args.check } : {}),
      concurrency,
      signal: io.signal,
      ...(tracer ? { onResult: (result: CheckResult) => tracer.checkResult(result) } : {}),
      emit,
    },
    deps ??
      createValidateDeps({
        config: project.config,
        env: io.env,
        ...(dnsServers.length > 0 ? { dnsServers } : {}),
        ...(project.root === undefined ? {} : { parkState: parkStates(project.root, project.config, io.env) }),
      }),
  ).finally(() => reporter.close());
  if (!outcome.ok) {
    io.stderr.write(`platctl: ${outcome.message}\n`);
    return EXIT.usage;
  }
  metrics?.validate(outcome.report);
  await printReport(outcome.report, args.json === true, io);
  return interruptedOr(io.signal, outcome.report.healthy ? EXIT.ok : EXIT.failed);
}

/** Each environment's park state from its park record, read once, where it lives (shared or local), when asked. */
function parkStates(root: string, config: PlatctlConfig, env: CliIo['env']): (envName: string) => Promise<ParkState> {
  let views: Promise<Map<string, ParkView>> | undefined;
  return async (envName) => {
    views ??= import('./park-status.js').then(async ({ readParkStatus }) => {
      const read = await readParkStatus(root, config, env);
      return new Map(read.map((view) => [view.env, view]));
    });
    const view = (await views).get(envName);
    if (view?.unreadable) return { state: 'unknown', message: view.unreadable.message };
    if (view?.record?.status === 'parked') return { state: 'parked', since: view.record.parked_at };
    return { state: 'not-parked' };
  };
}

export const validateVerb = defineVerb(VALIDATE_GRAMMAR, (args, io) =>
  withTracing('validate', args, io, (tracer) => validateTraced(args, io, tracer)),
);

function validateTraced(args: ValidateArgs & GlobalOptions, io: CliIo, tracer: RunTracer): Promise<number> {
  return withMetrics('validate', args, io, async (metrics) => {
    const { prefixNeedsUnits } = await import('../validate/plan.js');
    const loaded = await loadForValidate(args, io, prefixNeedsUnits(args.check));
    if (!loaded.ok) return loaded.exitCode;
    if (args['dry-run'] === true) return printPlan(loaded.project, args, io);
    metrics.envs(args.env ?? Object.keys(loaded.project.config.environments));
    tracer.envs(args.env ?? Object.keys(loaded.project.config.environments));
    // The first SIGINT/SIGTERM ends the checks and still prints the report (a cron `timeout` gets one too).
    handleInterruptions();
    return runValidate(loaded.project, args, io, undefined, metrics, tracer);
  });
}
