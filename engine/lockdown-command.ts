/**
 * The flow of `platctl lockdown [--undo] [--dry-run]`, from the parsed flags to the exit code: the lockdown phase on
 * its own (its steps, or their unlock in reverse order), printed as a plan or run under the repository lock with the
 * live reporter, and how it ended. The project is loaded by cli/lockdown.ts's port, which also builds the `RunIo`.
 */
import { EXIT } from '../config/exit-codes.js';
import type { PlatctlConfig } from '../config/schema.js';
import { executeLockdown, lockdownInvocation, standaloneSteps } from './lockdown.js';
import { renderLockdownEnd } from './reporters/outcome.js';
import { renderDryRun } from './reporters/plan.js';
import type { Loaded, RunIo } from './run-io.js';
import { interruptedOr, makeReporter, readyOrRefused, runProcess } from './run-io.js';
import type { UnitDirs } from './tools.js';
import { lockdownCommandLine, unitDir } from './tools.js';
import { buildLockdownPlan } from './walk-plan.js';

/** The flags of `platctl lockdown` (cli/commands/lockdown.ts defines them). */
export interface LockdownFlags {
  readonly undo?: boolean | undefined;
  readonly 'dry-run'?: boolean | undefined;
  readonly json?: boolean | undefined;
}

/** The project lockdown runs over: its configuration, where it is, and its units' directories. */
export interface LockdownProject extends UnitDirs {
  readonly config: PlatctlConfig;
  readonly configPath: string;
}

/** `platctl lockdown`: its plan under `--dry-run`, else its steps run and how they ended, as an exit code. */
export async function runLockdownCommand(
  flags: LockdownFlags,
  ports: RunIo & { readonly loadProject: () => Promise<Loaded<LockdownProject>> },
): Promise<number> {
  const loaded = await ports.loadProject();
  if (!loaded.ok) return loaded.exitCode;
  const { root, config, configPath } = loaded.project;
  const direction = flags.undo ? 'unlock' : 'lock';
  const steps = standaloneSteps(config, configPath, direction);
  if (!steps.ok) {
    ports.stderr.write(ports.explain('', steps));
    return EXIT.usage;
  }
  const lockdown = steps.value;
  const absDir = unitDir(loaded.project);

  if (flags['dry-run']) {
    const commandLine = lockdownCommandLine(config, absDir, ports.env);
    const plan = await buildLockdownPlan({ config, lockdown, direction, commandLine });
    ports.stdout.write(renderDryRun({ kind: 'lockdown', plan }, flags.json === true, ports.paint));
    return EXIT.ok;
  }

  const prepared = await readyOrRefused('lockdown', loaded.project, ports);
  if (!prepared.ok) return prepared.exitCode;
  ports.interruptible();
  const reporter = makeReporter(flags.json === true, ports);
  const basics = await runProcess(prepared, config, ports);
  let outcome;
  try {
    outcome = await executeLockdown(
      { root, config, lockdown, direction, absDir, commandLine: lockdownInvocation(direction) },
      { ...basics, emit: (event) => reporter.event(event) },
    );
  } finally {
    reporter.close();
  }
  const human = flags.json || ports.live(ports.stdout) ? ports.stderr : ports.stdout;
  if (outcome.type === 'refused') {
    ports.stderr.write(ports.explain('refused: ', outcome));
    return EXIT.refused;
  }
  const text = renderLockdownEnd(outcome.result, {
    direction,
    steps: lockdown.steps.length,
    runId: outcome.runId,
    paint: ports.paint,
  });
  if (text.human !== undefined) human.write(text.human);
  if (text.stderr !== undefined) ports.stderr.write(text.stderr);
  return outcome.result.ok ? EXIT.ok : interruptedOr(ports, EXIT.failed);
}
