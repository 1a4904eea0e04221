/**
 * The wiring of `bootstrap` and `teardown` (engine/walk-command.ts owns their flow): the ports it needs from the
 * layers above engine/ and from this process, built here: the project loaded, the state bucket, the park rules,
 * discovery's exclusions, the named hooks and recoveries, the manual steps asked on the terminal, the convergence
 * waits over validate's checks.
 */
import type { ConvergeConfig } from '../config/schema.js';
import { runConvergence } from '../converge/run.js';
import { planWaits } from '../converge/plan.js';
import { excludedUnits } from '../discover/exclude.js';
import type { PhaseContext } from '../engine/phases.js';
import type { Paint } from '../engine/reporters/paint.js';
import type { RunCommand } from '../engine/unit-status.js';
import type { ManualStepsPort, OutputReader, WalkPorts } from '../engine/walk-command.js';
import { runWalkCommand } from '../engine/walk-command.js';
import { manualCheckRunner } from '../hooks/manual-step-checks.js';
import type { ManualStep } from '../hooks/manual-steps.js';
import {
  MANUAL_STEP_ANSWER,
  manualStepQuestion,
  manualStepsPhase,
  stepsForRun,
  whoAmI,
} from '../hooks/manual-steps.js';
import { productionHooks, productionRecoveries, unitHooks } from '../hooks/registry.js';
import type { WalkVerbArgs } from './commands/shared.js';
import { bootstrapParkRefusal } from './park-status.js';
import type { Project } from './project.js';
import { loadProject } from './project.js';
import { askOnTerminal } from './prompt.js';
import { sharedBackend } from './shared-state.js';
import { childGroups } from './signals.js';
import type { CliIo, GlobalOptions } from './verb.js';
import { platctlVersion } from './version.js';
import { runIo } from './walk-tools.js';

/** What a verb adds to the shared wiring: teardown's confirmation and completion step, `--metrics-file`, `--trace`. */
export type WalkVerbHooks = Pick<WalkPorts<Project>, 'confirm' | 'completed' | 'metrics' | 'tracer'>;

/** `bootstrap` or `teardown`, from the parsed flags to the exit code. */
export function runWalkVerb(
  command: RunCommand,
  args: WalkVerbArgs & GlobalOptions,
  io: CliIo,
  hooks: WalkVerbHooks = {},
): Promise<number> {
  const run = runIo(io);
  const { env } = io;
  return runWalkCommand(command, args, {
    ...run,
    ...hooks,
    version: platctlVersion(),
    terminal: () => process.stdin.isTTY === true,
    loadProject: () => loadProject({ ...args, allowUnresolved: args['allow-unresolved'] }, io),
    sharedBackend: (state) => sharedBackend(state, io, args['break-lock'] === true),
    parkRefusal: ({ root, config }) => bootstrapParkRefusal(root, config, args, env),
    excluded:
      ({ discovery }, tf) =>
      (graph) =>
        excludedUnits(graph, discovery.units, tf),
    unitHooks: (config) => unitHooks(config, productionHooks({ environments: config.environments, env })),
    recoveries: (config, switches) => productionRecoveries({ environments: config.environments, env, ...switches }),
    manualSteps: (project) => manualSteps(project, io, run.paint),
    convergeWaits: (config) => (walk) =>
      planWaits({ converge: config.converge, environments: Object.keys(config.environments), ...walk }),
    convergence: (project, converge, outputs) => convergence(project, converge, io, outputs),
  });
}

/**
 * The convergence waits, looking with validate's checks over validate's cluster access, and `output` waits' reader
 * (loaded only when configured).
 */
async function convergence(project: Project, converge: ConvergeConfig, io: CliIo, outputs: OutputReader) {
  const [{ createValidateDeps }, { LOOK_TIMEOUT_MS, waitLooks }] = await Promise.all([
    import('../validate/index.js'),
    import('../converge/checks.js'),
  ]);
  const deps = {
    look: waitLooks(createValidateDeps({ config: project.config, env: io.env }), LOOK_TIMEOUT_MS, outputs),
  };
  return (ctx: PhaseContext) => runConvergence(ctx, converge, Object.keys(project.config.environments), deps);
}

/** Bootstrap's manual steps, asked on the terminal (stderr) when stdin is one (hooks/manual-steps.ts words it). */
function manualSteps({ root, config }: Project, io: CliIo, paint: Paint): ManualStepsPort {
  const runCheck = manualCheckRunner(root, io.env, config, childGroups);
  const ask = async (step: ManualStep, failedCheck: string | undefined): Promise<boolean> => {
    io.stderr.write(manualStepQuestion(step, failedCheck, paint));
    return MANUAL_STEP_ANSWER.done(await askOnTerminal(MANUAL_STEP_ANSWER.question, io));
  };
  return {
    forRun: (units) => stepsForRun(config.manual_steps, units),
    runCheck,
    phase: (yes) =>
      manualStepsPhase(config.manual_steps, {
        runCheck,
        ...(process.stdin.isTTY ? { ask } : {}),
        yes,
        who: whoAmI(io.env),
      }),
  };
}
