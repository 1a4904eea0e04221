/**
 * The shared body of `bootstrap` and `teardown`: load and check the project, refuse what must not start, then either
 * print the whole plan (`--dry-run`) or run it through `executeRun` and say how it ended. Each phase is a function
 * below, in the order a run goes through them.
 */
import type { ConvergeConfig, PlatctlConfig } from '../config/schema.js';
import { explainOutcome } from '../discover/problem-text.js';
import type { OutputReader } from '../converge/checks.js';
import { runConvergence } from '../converge/run.js';
import type { PhaseContext, PhaseResult } from '../engine/phases.js';
import { walkPhases } from '../engine/walk-phases.js';
import { excludedUnits } from '../discover/exclude.js';
import type { WalkEvent } from '../engine/events.js';
import { planRun } from '../engine/plan.js';
import type { Paint } from '../engine/reporters/paint.js';
import { makePaint } from '../engine/reporters/paint.js';
import type { ConfirmRequest, RunDeps, RunResult } from '../engine/run.js';
import { executeRun } from '../engine/run.js';
import type { SharedBackend } from '../engine/shared-run.js';
import type { RunState } from '../engine/state.js';
import type { ToolsReady } from '../engine/tools.js';
import { dropUnsafeProviderCache, planCommandLine, toolsForPlan, unitDir, unitExecutor } from '../engine/tools.js';
import type { RunTracer } from '../engine/tracing.js';
import type { RunCommand } from '../engine/unit-status.js';
import { tfCommandFor } from '../engine/unit-status.js';
import {
  MANUAL_STEP_ANSWER,
  manualStepQuestion,
  manualStepsPhase,
  stepsForRun,
  whoAmI,
} from '../hooks/manual-steps.js';
import { planWaits } from '../converge/plan.js';
import { buildWalkPlan } from '../engine/walk-plan.js';
import { renderDryRun } from '../engine/reporters/plan.js';
import type { WalkScope } from '../engine/walk-request.js';
import {
  breakLockMisuse,
  recoveryPlan,
  recoverySwitches,
  recoveryResume,
  rollbackMode,
  runInput,
  walkScope,
} from '../engine/walk-request.js';
import { RunTrack } from '../engine/reporters/outcome.js';
import type { WalkVerbArgs } from './commands/shared.js';
import { productionHooks, productionRecoveries, unitHooks } from '../hooks/registry.js';
import type { ManualStep } from '../hooks/manual-steps.js';
import { askOnTerminal } from './prompt.js';
import { manualCheckRunner } from '../hooks/manual-step-checks.js';
import type { MetricsSink } from '../engine/metrics-sink.js';
import { selectionEnvs } from '../engine/metrics-sink.js';
import { bootstrapParkRefusal } from './park-status.js';
import type { Project } from './project.js';
import { loadProject } from './project.js';
import { sharedBackend } from './shared-state.js';
import { childGroups, handleInterruptions } from './signals.js';
import type { CliIo, GlobalOptions } from './verb.js';
import { EXIT } from './verb.js';
import { dropWriteErrors, makeReporter, reportOutcome } from './walk-output.js';
import { prepareTools, runProcess } from './walk-tools.js';
import { platctlVersion } from './version.js';

/** Optional hooks for `runWalkVerb` (teardown's confirmation prompt). */
export interface WalkVerbHooks {
  readonly confirm?: (request: ConfirmRequest, paint: Paint) => Promise<boolean>;
  /** Refuses before anything is loaded (teardown without a terminal and without --yes). */
  readonly precheck?: () => string | undefined;
  /** After a completed run (teardown clears park records); an exit code it returns replaces 0. */
  readonly completed?: (
    state: Readonly<RunState>,
    project: Project,
    out: NodeJS.WritableStream,
  ) => Promise<number | undefined>;
  /** `--metrics-file`: told the environments once the project is loaded, and the run's result. */
  readonly metrics?: MetricsSink;
  /** `--trace`: told the environments and every event; gives each Terragrunt process its span's trace context. */
  readonly tracer?: RunTracer;
}

type Args = WalkVerbArgs & GlobalOptions;

/** `bootstrap` or `teardown`, from the parsed flags to the exit code. */
export async function runWalkVerb(
  command: RunCommand,
  args: Args,
  io: CliIo,
  hooks: WalkVerbHooks = {},
): Promise<number> {
  const paint = makePaint(io.color);
  if (!args['dry-run']) {
    const refusal = hooks.precheck?.();
    if (refusal !== undefined) {
      io.stderr.write(`platctl: ${refusal}\n`);
      return EXIT.refused;
    }
  }
  const loaded = await loadProject({ ...args, allowUnresolved: args['allow-unresolved'] }, io);
  if (!loaded.ok) return loaded.exitCode;
  const project = loaded.project;
  const envs = selectionEnvs(args, project.config.environments);
  hooks.metrics?.envs(envs);
  hooks.tracer?.envs(envs);
  const shared = await sharedBackend(project.config.state, io, args['break-lock'] === true);
  const refusal = await refuseToStart(command, args, project, shared, io);
  if (refusal !== undefined) return refusal;
  const { discovery } = project;
  const scope = walkScope(args, project, (graph) => excludedUnits(graph, discovery.units, tfCommandFor(command)));
  if (args['dry-run']) return printDryRun(command, args, project, scope, io, paint);

  const tools = await prepareTools(command, project.root, project.config, project.configPath, io);
  if (!tools.ok) return tools.exitCode;
  handleInterruptions();
  // A closed terminal (SIGHUP) or a reader that went away makes every later write fail (EIO, EPIPE). Unhandled, that
  // error would crash platctl mid-run: units SIGKILLed instead of interrupted, state left "running". Nothing can be
  // shown any more, so the error is dropped and the run stops its units and saves its state as on any signal.
  for (const stream of [io.stdout, io.stderr]) dropWriteErrors(stream);
  const reporter = makeReporter(args, io, paint);
  const track = new RunTrack();
  const emit = (event: WalkEvent): void => {
    track.event(event);
    hooks.tracer?.walkEvent(event);
    reporter.event(event);
  };
  let result: RunResult;
  try {
    const parallelism = args.parallelism ?? project.config.parallelism.apply;
    const dropped = await dropUnsafeProviderCache(tools, parallelism, project.config, project.root);
    if (dropped !== undefined) emit({ type: 'warning', at: new Date().toISOString(), message: dropped });
    result = await executeRun(
      runInput(command, args, project, scope, platctlVersion()),
      await runDeps(command, args, project, tools, { emit, paint, io, hooks, shared }),
    );
  } finally {
    reporter.close();
  }
  hooks.metrics?.walk(result);
  const human = args.json ? io.stderr : io.stdout;
  return reportOutcome(result, {
    command,
    args,
    io,
    paint,
    human,
    track,
    ...(hooks.completed ? { completed: (state) => hooks.completed!(state, project, human) } : {}),
  });
}

/** Flags that do not fit this project, and a bootstrap of a parked environment: refused before anything runs. */
async function refuseToStart(
  command: RunCommand,
  args: Args,
  project: Project,
  shared: SharedBackend | undefined,
  io: CliIo,
): Promise<number | undefined> {
  const misuse = breakLockMisuse(args, shared !== undefined, project.configPath);
  if (misuse !== undefined) {
    io.stderr.write(explainOutcome('', misuse));
    return EXIT.usage;
  }
  if (command === 'bootstrap' && !args.force && !args['dry-run']) {
    const refusal = await bootstrapParkRefusal(project.root, project.config, args, io.env);
    if (refusal !== undefined) {
      io.stderr.write(`platctl: refused: ${refusal}\n`);
      return EXIT.refused;
    }
  }
  return undefined;
}

/** `--dry-run`: the whole plan (phases, waves, hooks, exact command lines), nothing run. */
async function printDryRun(
  command: RunCommand,
  args: Args,
  project: Project,
  scope: WalkScope,
  io: CliIo,
  paint: Paint,
): Promise<number> {
  const { root, config, discovery } = project;
  const { selection, preventDestroy, excluded } = scope;
  const planned = planRun({ command, graph: discovery.graph, config, selection, preventDestroy, excluded });
  if (planned.type === 'invalid') {
    io.stderr.write(explainOutcome('', planned));
    return EXIT.usage;
  }
  const tools = await toolsForPlan(root, config, { env: io.env, cwd: io.cwd });
  const view = await buildWalkPlan({
    command,
    plan: planned.plan,
    graphSize: discovery.graph.size,
    config,
    lockdownFlag: args.lockdown === true,
    commandLine: planCommandLine(tools, config, scope.absDir),
    ...(command === 'bootstrap'
      ? {
          hooks: namedHooks(config, io),
          recover: recoveryPlan(config, args),
          manualSteps: {
            forRun: (units) => stepsForRun(config.manual_steps, units),
            runCheck: manualCheckRunner(root, io.env, config, childGroups),
          },
          convergeWaits: (run) =>
            planWaits({ converge: config.converge, environments: Object.keys(config.environments), ...run }),
        }
      : {}),
    ...(rollbackMode(command, args, config).rollback === 'on_failure'
      ? { rollback: { graph: discovery.graph, preventDestroy } }
      : {}),
    signal: io.signal,
  });
  io.stdout.write(renderDryRun({ kind: 'walk', plan: view }, args.json === true, paint));
  return EXIT.ok;
}

/** How to run it: the clock, this process, terragrunt, the phases around the walk and the shared backend. */
async function runDeps(
  command: RunCommand,
  args: Args,
  project: Project,
  tools: ToolsReady,
  context: {
    readonly emit: (event: WalkEvent) => void;
    readonly paint: Paint;
    readonly io: CliIo;
    readonly hooks: WalkVerbHooks;
    readonly shared: SharedBackend | undefined;
  },
): Promise<RunDeps> {
  const { root, config } = project;
  const { io, paint, hooks, shared } = context;
  const tracer = hooks.tracer;
  const basics = await runProcess(tools, config, io, tracer ? (job) => tracer.childEnv(job.unit) : undefined);
  return {
    ...basics,
    groups: childGroups,
    emit: context.emit,
    phases: walkPhases(command, config, {
      lockdown: args.lockdown === true,
      unitHooks: namedHooks(config, io),
      ...(command === 'bootstrap'
        ? {
            recoveries: productionRecoveries({
              environments: config.environments,
              env: io.env,
              enabled: recoverySwitches(config, args),
              resume: recoveryResume(args),
            }),
          }
        : {}),
      ...(command === 'bootstrap' && config.manual_steps.length > 0
        ? { beforeRun: manualSteps(root, config, args, io, paint) }
        : {}),
      ...(command === 'bootstrap' && config.converge && config.converge.waits.length > 0
        ? { converge: await convergence(project, config.converge, io, outputReader(project, tools, basics.graceMs)) }
        : {}),
    }),
    ...(hooks.confirm ? { confirm: (request: ConfirmRequest) => hooks.confirm!(request, paint) } : {}),
    ...(shared ? { shared } : {}),
  };
}

/** The named hooks of the configuration's units, over the production registry (each hook's clients built on first use). */
function namedHooks(config: PlatctlConfig, io: CliIo) {
  return unitHooks(config, productionHooks({ environments: config.environments, env: io.env }));
}

/**
 * The convergence waits, looking with validate's checks over validate's cluster access, and `output` waits' reader
 * (loaded only when configured).
 */
async function convergence(
  project: Project,
  converge: ConvergeConfig,
  io: CliIo,
  outputs: OutputReader,
): Promise<(ctx: PhaseContext) => Promise<PhaseResult>> {
  const [{ createValidateDeps }, { LOOK_TIMEOUT_MS, waitLooks }] = await Promise.all([
    import('../validate/index.js'),
    import('../converge/checks.js'),
  ]);
  const deps = {
    look: waitLooks(createValidateDeps({ config: project.config, env: io.env }), LOOK_TIMEOUT_MS, outputs),
  };
  return (ctx) => runConvergence(ctx, converge, Object.keys(project.config.environments), deps);
}

/** `terragrunt output -json` of a unit, with the run's tools and environment; one look's bound is its signal's. */
function outputReader(project: Project, tools: ToolsReady, graceMs: number): OutputReader {
  const executor = unitExecutor(tools, project.config, graceMs, childGroups);
  const absDir = unitDir(project);
  return (unit, signal, timeoutMs) => executor.readOutputs({ unit, absDir: absDir(unit), timeoutMs }, signal);
}

/** Bootstrap's manual steps, asked on the terminal (stderr) when stdin is one (hooks/manual-steps.ts words it). */
function manualSteps(root: string, config: PlatctlConfig, args: Args, io: CliIo, paint: Paint) {
  const ask = async (step: ManualStep, failedCheck: string | undefined): Promise<boolean> => {
    io.stderr.write(manualStepQuestion(step, failedCheck, paint));
    return MANUAL_STEP_ANSWER.done(await askOnTerminal(MANUAL_STEP_ANSWER.question, io));
  };
  return manualStepsPhase(config.manual_steps, {
    runCheck: manualCheckRunner(root, io.env, config, childGroups),
    ...(process.stdin.isTTY ? { ask } : {}),
    yes: args.yes === true,
    who: whoAmI(io.env),
  });
}
