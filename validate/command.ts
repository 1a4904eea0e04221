/**
 * `platctl validate` from its command line to its exit code: load what the checks need, show the plan under
 * `--dry-run`, run the checks with their still-running lines, print the report, and end 0 healthy, 1 unhealthy,
 * 2 configuration or usage error. The CLI passes in the loading, its streams, environment, colour and signal, and
 * its hooks into the run (`ValidateIo`); the report is rendered by engine/reporters/validate.ts.
 */
import { EXIT } from '../config/exit-codes.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { ValidateHeartbeat } from '../engine/reporters/validate.js';
import type { EnvVars } from '../cloud/env.js';
import type { ParkState } from './deps.js';
import type { PlanInput } from './plan.js';
import type { CheckResult, ValidateReport } from './types.js';

/** What validate needs from a loaded project; units only when a per-unit check can be selected. */
export interface ValidateProject {
  readonly config: PlatctlConfig;
  readonly units: PlanInput['units'];
  /** The repository root, where the park records' local copies live (the bastion check asks if an env is parked). */
  readonly root?: string;
}

/** What validate reads of its command line. */
export interface ValidateArgs {
  readonly env?: string[] | undefined;
  readonly check?: string | undefined;
  readonly concurrency?: number | undefined;
  readonly json?: boolean | undefined;
  readonly 'dry-run'?: boolean | undefined;
}

type Loaded<P> = { ok: true; project: P } | { ok: false; exitCode: number };

/** What an environment's park view tells the bastion check (park/status.ts `ParkView`). */
export interface ParkViewOf {
  readonly env: string;
  readonly unreadable?: { readonly message: string } | undefined;
  readonly record?: { readonly status: string; readonly parked_at: string } | undefined;
}

/** What the CLI gives validate: loading (problems printed), its process, and its hooks into the run. */
export interface ValidateIo {
  /** `.platctl.yaml` alone, `--env` checked against it. */
  loadConfig(): Promise<Loaded<ValidateProject>>;
  /** The configuration and the discovered units, with their remote state. */
  loadUnits(): Promise<Loaded<{ config: PlatctlConfig; root: string; discovery: { units: PlanInput['units'] } }>>;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: EnvVars;
  readonly color: boolean;
  readonly signal: AbortSignal;
  /** The still-running lines' interval on a non-terminal; undefined on a live terminal. */
  readonly heartbeat: ValidateHeartbeat['options'] | undefined;
  /** Each environment's park view, read where its record lives (shared or local). */
  readParkViews(root: string, config: PlatctlConfig): Promise<readonly ParkViewOf[]>;
  /** The checks are about to run over `envs`: metrics and tracing learn them, the signal handlers are installed. */
  starting(envs: readonly string[]): void;
  readonly onResult?: ((result: CheckResult) => void) | undefined;
  readonly onReport?: ((report: ValidateReport) => void) | undefined;
  /** The exit code of the checks' ending: the signal's when one stopped them, else `code`. */
  interruptedOr(code: number): number;
}

/** `platctl validate`: loads, plans or runs the checks, prints, and returns the exit code. */
export async function validateCommand(args: ValidateArgs, io: ValidateIo): Promise<number> {
  const { prefixNeedsUnits } = await import('./plan.js');
  const loaded = await loadForValidate(io, prefixNeedsUnits(args.check));
  if (!loaded.ok) return loaded.exitCode;
  if (args['dry-run'] === true) return printPlan(loaded.project, args, io);
  io.starting(args.env ?? Object.keys(loaded.project.config.environments));
  return runValidate(loaded.project, args, io);
}

/**
 * The configuration, and the discovered units when the run can need them: `--check tailscale` must not pay for
 * discovery (or anything else), so a prefix that cannot reach a `unit/` check loads the configuration only.
 */
async function loadForValidate(io: ValidateIo, needsUnits: boolean): Promise<Loaded<ValidateProject>> {
  if (!needsUnits) return io.loadConfig();
  const loaded = await io.loadUnits();
  if (!loaded.ok) return loaded;
  const { config, discovery, root } = loaded.project;
  return { ok: true, project: { config, units: discovery.units, root } };
}

/** Writes the report: the table and verdict on stdout, or JSON on stdout and the verdict on stderr. */
async function printReport(report: ValidateReport, json: boolean, io: ValidateIo): Promise<void> {
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

/** `--dry-run`: the planned checks (which check each unit gets), with no credentials read and nothing called. */
async function printPlan(project: ValidateProject, args: ValidateArgs, io: ValidateIo): Promise<number> {
  const { planChecks } = await import('./plan.js');
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

/**
 * The running checks' emitter, which a throwing reporter cannot stop: on a non-terminal, still-running lines on
 * stderr (stdout is the table, printed at the end); none on a live terminal, whose run is short, nor with `--json`,
 * whose stdout is one document.
 */
async function checksReporter(json: boolean, io: ValidateIo) {
  const { ValidateReporter } = await import('../engine/reporters/validate.js');
  const { guardEmit, reporterFailed } = await import('../engine/events.js');
  const reporter = new ValidateReporter(
    json || io.heartbeat === undefined ? undefined : { out: io.stderr, options: io.heartbeat },
  );
  const emit = guardEmit(
    (event) => reporter.event(event),
    (error) => io.stderr.write(`platctl: ${reporterFailed(error, 'the checks')}\n`),
  );
  return { emit, close: () => reporter.close() };
}

/** Runs the checks on a loaded project, prints the report, and returns the exit code. */
async function runValidate(project: ValidateProject, args: ValidateArgs, io: ValidateIo): Promise<number> {
  const { validate, createValidateDeps } = await import('./index.js');
  const concurrency = args.concurrency ?? project.config.parallelism.validate;
  // Resolvers for the DNS fallback of dns_delegation (ip or ip:port, comma-separated); the system's when unset.
  const dnsServers = (io.env.PLATCTL_DNS_SERVERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const reporter = await checksReporter(args.json === true, io);
  const outcome = await validate(
    {
      config: project.config,
      units: project.units,
      ...(args.env ? { envs: args.env } : {}),
      ...(args.check !== undefined ? { checkPrefix: args.check } : {}),
      concurrency,
      signal: io.signal,
      ...(io.onResult ? { onResult: io.onResult } : {}),
      emit: reporter.emit,
    },
    createValidateDeps({
      config: project.config,
      env: io.env,
      ...(dnsServers.length > 0 ? { dnsServers } : {}),
      ...(project.root === undefined ? {} : { parkState: parkStates(project.root, project.config, io) }),
    }),
  ).finally(() => reporter.close());
  if (!outcome.ok) {
    io.stderr.write(`platctl: ${outcome.message}\n`);
    return EXIT.usage;
  }
  io.onReport?.(outcome.report);
  await printReport(outcome.report, args.json === true, io);
  return io.interruptedOr(outcome.report.healthy ? EXIT.ok : EXIT.failed);
}

/** Each environment's park state from its park record, read once, where it lives (shared or local), when asked. */
function parkStates(root: string, config: PlatctlConfig, io: ValidateIo): (envName: string) => Promise<ParkState> {
  let views: Promise<Map<string, ParkViewOf>> | undefined;
  return async (envName) => {
    views ??= io.readParkViews(root, config).then((read) => new Map(read.map((view) => [view.env, view])));
    const view = (await views).get(envName);
    if (view?.unreadable) return { state: 'unknown', message: view.unreadable.message };
    if (view?.record?.status === 'parked') return { state: 'parked', since: view.record.parked_at };
    return { state: 'not-parked' };
  };
}
