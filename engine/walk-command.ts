/**
 * The flow of `bootstrap` and `teardown`, from the parsed flags to the exit code: load and check the project, refuse
 * what must not start, then either print the whole plan (`--dry-run`) or run it through `executeRun` and say how it
 * ended. Each phase is a function below, in the order a run goes through them. What engine/ may not import (loading
 * the project, discovery's exclusions, the park rules, the named hooks and recoveries, the manual steps, the
 * convergence waits, the terminal's questions) comes in as ports (`WalkPorts`), which cli/walk-verb.ts builds.
 */
import { EXIT } from '../config/exit-codes.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { WalkEvent } from './events.js';
import type { UnitId } from './graph.js';
import type { MetricsSink } from './metrics-sink.js';
import { selectionEnvs } from './metrics-sink.js';
import type { PhaseContext, PhaseResult, RunPhases } from './phases.js';
import type { ExclusionsOf } from './plan.js';
import { planRun } from './plan.js';
import type { UnitRecovery } from './recovery.js';
import { RunTrack, renderRunEnd } from './reporters/outcome.js';
import type { Paint } from './reporters/paint.js';
import { renderDryRun } from './reporters/plan.js';
import type { ConfirmRequest, RunDeps, RunResult } from './run.js';
import { executeRun } from './run.js';
import type { Loaded, RunIo } from './run-io.js';
import { dropWriteErrors, interruptedOr, makeReporter, readyOrRefused, runProcess } from './run-io.js';
import type { SharedBackend } from './shared-run.js';
import type { RunState } from './state.js';
import type { OutputsRead } from './terragrunt.js';
import type { ToolsReady } from './tools.js';
import { dropUnsafeProviderCache, planCommandLine, toolsForPlan, unitDir, unitExecutor } from './tools.js';
import type { RunTracer } from './tracing.js';
import type { RunCommand } from './unit-status.js';
import { tfCommandFor } from './unit-status.js';
import type { UnitHook } from './walk.js';
import { walkPhases } from './walk-phases.js';
import type { WalkPlanInput } from './walk-plan.js';
import { buildWalkPlan } from './walk-plan.js';
import type { WalkFlags, WalkProject, WalkScope } from './walk-request.js';
import {
  breakLockMisuse,
  recoveryPlan,
  recoveryResume,
  recoverySwitches,
  resumeCommand,
  rollbackMode,
  runInput,
  unattendedTeardown,
  walkScope,
} from './walk-request.js';

/** The flags of `bootstrap` and `teardown` the flow reads (cli/commands/shared.ts defines them). */
export type WalkCommandFlags = WalkFlags & {
  readonly 'dry-run'?: boolean | undefined;
  readonly json?: boolean | undefined;
};

/** The project a walk loads: the walk's project, and where its configuration is. */
export interface WalkCommandProject extends WalkProject {
  readonly configPath: string;
}

/** `terragrunt output -json` of a unit, bounded by `timeoutMs` and `signal` (converge/checks.ts `OutputReader`). */
export type OutputReader = (unit: string, signal: AbortSignal, timeoutMs: number) => Promise<OutputsRead>;

/** Bootstrap's manual steps (hooks/manual-steps.ts): those a run needs, how to check one, and the preflight. */
export interface ManualStepsPort extends NonNullable<WalkPlanInput['manualSteps']> {
  readonly phase: (yes: boolean) => NonNullable<RunPhases['beforeRun']>;
}

/** What the layers above engine/ and this process bring to a walk (cli/walk-verb.ts builds them). */
export interface WalkPorts<P extends WalkCommandProject> extends RunIo {
  /** This platctl's version, recorded in the run's state. */
  readonly version: string;
  /** Whether stdin is a terminal to ask on (read only when asked: teardown without one refuses unless --yes). */
  readonly terminal: () => boolean;
  /** The configuration and discovery, every problem printed (cli/project.ts). */
  readonly loadProject: () => Promise<Loaded<P>>;
  /** The shared state backend of `state:`, or undefined with the local files only. */
  readonly sharedBackend: (state: PlatctlConfig['state']) => Promise<SharedBackend | undefined>;
  /** Why a bootstrap must not run over a parked environment (park/rules.ts), or undefined. */
  readonly parkRefusal: (project: P) => Promise<string | undefined>;
  /** Terragrunt `exclude` blocks for the Terraform command the verb runs (discover/exclude.ts). */
  readonly excluded: (project: P, tfCommand: 'apply' | 'destroy') => ExclusionsOf;
  /** The named hooks of the configuration's units (hooks/registry.ts). */
  readonly unitHooks: (config: PlatctlConfig) => (unit: UnitId) => readonly UnitHook[];
  /** Bootstrap's recoveries (hooks/registry.ts): those switched on act, the others advise `resume`. */
  readonly recoveries: (
    config: PlatctlConfig,
    switches: { readonly enabled: ReadonlySet<string>; readonly resume: string },
  ) => readonly UnitRecovery[];
  readonly manualSteps: (project: P) => ManualStepsPort;
  /** Bootstrap's convergence waits as a run would decide them (converge/plan.ts). */
  readonly convergeWaits: (config: PlatctlConfig) => NonNullable<WalkPlanInput['convergeWaits']>;
  /** The convergence phase (converge/run.ts) of `converge:`, reading `output` waits' outputs with `outputs`. */
  readonly convergence: (
    project: P,
    converge: NonNullable<PlatctlConfig['converge']>,
    outputs: OutputReader,
  ) => Promise<(ctx: PhaseContext) => Promise<PhaseResult>>;
  /** Teardown's confirmation, asked unless `--yes`; false cancels. */
  readonly confirm?: (request: ConfirmRequest, paint: Paint) => Promise<boolean>;
  /** After a completed run (teardown clears park records); an exit code it returns replaces 0. */
  readonly completed?: (
    state: Readonly<RunState>,
    project: P,
    out: NodeJS.WritableStream,
  ) => Promise<number | undefined>;
  /** `--metrics-file`: told the environments once the project is loaded, and the run's result. */
  readonly metrics?: MetricsSink;
  /** `--trace`: told the environments and every event; gives each Terragrunt process its span's trace context. */
  readonly tracer?: RunTracer;
}

/** `bootstrap` or `teardown`, from the parsed flags to the exit code. */
export async function runWalkCommand<P extends WalkCommandProject>(
  command: RunCommand,
  flags: WalkCommandFlags,
  ports: WalkPorts<P>,
): Promise<number> {
  if (command === 'teardown' && !flags['dry-run']) {
    const refusal = unattendedTeardown(flags, ports.terminal());
    if (refusal !== undefined) {
      ports.stderr.write(`platctl: ${refusal}\n`);
      return EXIT.refused;
    }
  }
  const loaded = await ports.loadProject();
  if (!loaded.ok) return loaded.exitCode;
  const project = loaded.project;
  const envs = selectionEnvs(flags, project.config.environments);
  ports.metrics?.envs(envs);
  ports.tracer?.envs(envs);
  const shared = await ports.sharedBackend(project.config.state);
  const refusal = await refuseToStart(command, flags, project, shared, ports);
  if (refusal !== undefined) return refusal;
  const scope = walkScope(flags, project, ports.excluded(project, tfCommandFor(command)));
  if (flags['dry-run']) return printDryRun(command, flags, project, scope, ports);
  return runWalk(command, flags, project, scope, { shared, ports });
}

/** Flags that do not fit this project, and a bootstrap of a parked environment: refused before anything runs. */
async function refuseToStart<P extends WalkCommandProject>(
  command: RunCommand,
  flags: WalkCommandFlags,
  project: P,
  shared: SharedBackend | undefined,
  ports: WalkPorts<P>,
): Promise<number | undefined> {
  const misuse = breakLockMisuse(flags, shared !== undefined, project.configPath);
  if (misuse !== undefined) {
    ports.stderr.write(ports.explain('', misuse));
    return EXIT.usage;
  }
  if (command === 'bootstrap' && !flags.force && !flags['dry-run']) {
    const refusal = await ports.parkRefusal(project);
    if (refusal !== undefined) {
      ports.stderr.write(`platctl: refused: ${refusal}\n`);
      return EXIT.refused;
    }
  }
  return undefined;
}

/** `--dry-run`: the whole plan (phases, waves, hooks, exact command lines), nothing run. */
async function printDryRun<P extends WalkCommandProject>(
  command: RunCommand,
  flags: WalkCommandFlags,
  project: P,
  scope: WalkScope,
  ports: WalkPorts<P>,
): Promise<number> {
  const { root, config, discovery } = project;
  const { selection, preventDestroy, excluded } = scope;
  const planned = planRun({ command, graph: discovery.graph, config, selection, preventDestroy, excluded });
  if (planned.type === 'invalid') {
    ports.stderr.write(ports.explain('', planned));
    return EXIT.usage;
  }
  const tools = await toolsForPlan(root, config, { env: ports.env, cwd: ports.cwd });
  const view = await buildWalkPlan({
    command,
    plan: planned.plan,
    graphSize: discovery.graph.size,
    config,
    lockdownFlag: flags.lockdown === true,
    commandLine: planCommandLine(tools, config, scope.absDir),
    ...(command === 'bootstrap'
      ? {
          hooks: ports.unitHooks(config),
          recover: recoveryPlan(config, flags),
          manualSteps: ports.manualSteps(project),
          convergeWaits: ports.convergeWaits(config),
        }
      : {}),
    ...(rollbackMode(command, flags, config).rollback === 'on_failure'
      ? { rollback: { graph: discovery.graph, preventDestroy } }
      : {}),
    signal: ports.signal,
  });
  ports.stdout.write(renderDryRun({ kind: 'walk', plan: view }, flags.json === true, ports.paint));
  return EXIT.ok;
}

/** The run itself: the tools checked, the live reporter on, `executeRun`, and how it ended. */
async function runWalk<P extends WalkCommandProject>(
  command: RunCommand,
  flags: WalkCommandFlags,
  project: P,
  scope: WalkScope,
  context: { readonly shared: SharedBackend | undefined; readonly ports: WalkPorts<P> },
): Promise<number> {
  const { ports } = context;
  const tools = await readyOrRefused(command, project, ports);
  if (!tools.ok) return tools.exitCode;
  ports.interruptible();
  // A closed terminal (SIGHUP) or a reader that went away makes every later write fail (EIO, EPIPE). Unhandled, that
  // error would crash platctl mid-run: units SIGKILLed instead of interrupted, state left "running". Nothing can be
  // shown any more, so the error is dropped and the run stops its units and saves its state as on any signal.
  for (const stream of [ports.stdout, ports.stderr]) dropWriteErrors(stream);
  const reporter = makeReporter(flags.json === true, ports);
  const track = new RunTrack();
  const emit = (event: WalkEvent): void => {
    track.event(event);
    ports.tracer?.walkEvent(event);
    reporter.event(event);
  };
  let result: RunResult;
  try {
    const parallelism = flags.parallelism ?? project.config.parallelism.apply;
    const dropped = await dropUnsafeProviderCache(tools, parallelism, project.config, project.root);
    if (dropped !== undefined) emit({ type: 'warning', at: new Date().toISOString(), message: dropped });
    result = await executeRun(
      runInput(command, flags, project, scope, ports.version),
      await runDeps(command, flags, project, tools, { ...context, emit }),
    );
  } finally {
    reporter.close();
  }
  ports.metrics?.walk(result);
  const human = flags.json ? ports.stderr : ports.stdout;
  const completed = ports.completed;
  return reportOutcome(result, {
    command,
    flags,
    ports,
    human,
    track,
    ...(completed ? { completed: (state: Readonly<RunState>) => completed(state, project, human) } : {}),
  });
}

/** How to run it: the clock, this process, terragrunt, the phases around the walk and the shared backend. */
async function runDeps<P extends WalkCommandProject>(
  command: RunCommand,
  flags: WalkCommandFlags,
  project: P,
  tools: ToolsReady,
  context: {
    readonly emit: (event: WalkEvent) => void;
    readonly ports: WalkPorts<P>;
    readonly shared: SharedBackend | undefined;
  },
): Promise<RunDeps> {
  const { config } = project;
  const { ports, shared } = context;
  const { tracer, confirm } = ports;
  const basics = await runProcess(tools, config, ports, tracer ? (job) => tracer.childEnv(job.unit) : undefined);
  const bootstrap = command === 'bootstrap';
  return {
    ...basics,
    groups: ports.groups,
    emit: context.emit,
    phases: walkPhases(command, config, {
      lockdown: flags.lockdown === true,
      unitHooks: ports.unitHooks(config),
      ...(bootstrap
        ? {
            recoveries: ports.recoveries(config, {
              enabled: recoverySwitches(config, flags),
              resume: recoveryResume(flags),
            }),
          }
        : {}),
      ...(bootstrap && config.manual_steps.length > 0
        ? { beforeRun: ports.manualSteps(project).phase(flags.yes === true) }
        : {}),
      ...(bootstrap && config.converge && config.converge.waits.length > 0
        ? {
            converge: await ports.convergence(
              project,
              config.converge,
              outputReader(project, tools, basics.graceMs, ports),
            ),
          }
        : {}),
    }),
    ...(command === 'teardown' && !flags.yes && confirm
      ? { confirm: (request: ConfirmRequest) => confirm(request, ports.paint) }
      : {}),
    ...(shared ? { shared } : {}),
  };
}

/** `terragrunt output -json` of a unit, with the run's tools and environment; one look's bound is its signal's. */
function outputReader(
  project: WalkProject,
  tools: ToolsReady,
  graceMs: number,
  io: Pick<RunIo, 'groups'>,
): OutputReader {
  const executor = unitExecutor(tools, project.config, graceMs, io.groups);
  const absDir = unitDir(project);
  return (unit, signal, timeoutMs) => executor.readOutputs({ unit, absDir: absDir(unit), timeoutMs }, signal);
}

/**
 * Says how the run ended (engine/reporters/outcome.ts words it) and returns its exit code (`completed` runs the
 * verb's completion step, whose code then replaces 0). Human words go to `human` (stderr under `--json`, so stdout
 * stays one JSON stream).
 */
async function reportOutcome(
  result: RunResult,
  context: {
    readonly command: RunCommand;
    readonly flags: WalkCommandFlags;
    readonly ports: RunIo;
    readonly human: NodeJS.WritableStream;
    readonly track: RunTrack;
    readonly completed?: (state: Readonly<RunState>) => Promise<number | undefined>;
  },
): Promise<number> {
  const { command, flags, ports, human, track } = context;
  if (result.type === 'invalid' || result.type === 'refused') {
    ports.stderr.write(ports.explain(result.type === 'refused' ? 'refused: ' : '', result));
    return result.type === 'refused' ? EXIT.refused : EXIT.usage;
  }
  const paint = ports.paint;
  const text = renderRunEnd(result, { command, paint, track, resumeCommand: resumeCommand(command, flags) });
  if (text.human !== undefined) human.write(text.human);
  if (text.stderr !== undefined) ports.stderr.write(text.stderr);
  if (result.type === 'cancelled') return interruptedOr(ports, EXIT.refused);
  if (result.fenced !== undefined) return EXIT.refused;
  if (result.status === 'completed') return (await context.completed?.(result.state)) ?? EXIT.ok;
  if (result.status === 'interrupted') return ports.signalExit(ports.signal.reason);
  return EXIT.failed;
}
