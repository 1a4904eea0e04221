/**
 * `platctl lockdown [--undo] [--dry-run]`: the lockdown phase on its own (bootstrap runs it after a complete walk;
 * teardown runs the unlock first). `--undo` unlocks: the steps in reverse order with their `unlock_args`. Under the
 * repository lock like every mutating run; `.platctl-state.json` is left alone.
 */
import { explainOutcome } from '../discover/problem-text.js';
import { formatCommandLine } from '../engine/logs.js';
import type { LockDirection } from '../engine/events.js';
import type { LockdownConfig } from '../engine/lockdown.js';
import { executeLockdown } from '../engine/lockdown.js';
import { buildLockdownPlan } from '../engine/walk-plan.js';
import { renderLockdownPlan } from '../engine/reporters/plan.js';
import { renderLockdownEnd } from '../engine/reporters/outcome.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { Paint } from '../engine/reporters/paint.js';
import { makePaint } from '../engine/reporters/paint.js';
import { RUN_ID_ENV } from '../engine/run.js';
import { chooseTools, terragruntArgs } from '../engine/terragrunt.js';
import { isLiveTerminal, makeReporter } from './walk-output.js';
import { killGraceMs, prepareTools, runRedactor, thisMachine, unitDir, unitExecutor } from './walk-tools.js';
import { loadProject } from './project.js';
import { exitCodeForSignal, handleInterruptions } from './signals.js';
import type { CliIo } from './verb.js';
import { EXIT, defineVerb } from './verb.js';
import { LOCKDOWN_GRAMMAR } from './commands/lockdown.js';

export const lockdownVerb = defineVerb(LOCKDOWN_GRAMMAR, async (args, io) => {
  const loaded = await loadProject(args, io);
  if (!loaded.ok) return loaded.exitCode;
  const { root, config, configPath } = loaded.project;
  const lockdown = config.lockdown;
  if (!lockdown || lockdown.steps.length === 0) {
    io.stderr.write(
      `platctl: ${configPath} has no lockdown steps, so there is nothing to ${args.undo ? 'unlock' : 'lock down'}.\n` +
        `  hint: add them under lockdown.steps (docs/configuration.md#lockdown).\n`,
    );
    return EXIT.usage;
  }
  const direction = args.undo ? 'unlock' : 'lock';
  const absDir = unitDir(loaded.project);
  const paint = makePaint(io.color);

  if (args['dry-run']) {
    io.stdout.write(await lockdownPlan(config, lockdown, direction, absDir, io.env, args.json === true, paint));
    return EXIT.ok;
  }

  const prepared = await prepareTools('lockdown', root, config, configPath, io);
  if (!prepared.ok) return prepared.exitCode;
  handleInterruptions();
  const reporter = makeReporter(args, io, paint);
  const graceMs = killGraceMs(io.env);
  let outcome;
  try {
    outcome = await executeLockdown(
      {
        root,
        config,
        lockdown,
        direction,
        absDir,
        commandLine: formatCommandLine(['platctl', 'lockdown', ...(args.undo ? ['--undo'] : [])]),
      },
      {
        now: () => Date.now(),
        machine: await thisMachine(),
        executor: (runId) => unitExecutor(prepared, config, graceMs, { env: { [RUN_ID_ENV]: runId } }),
        signal: io.signal,
        emit: (event) => reporter.event(event),
        redactor: runRedactor(io.env, config),
      },
    );
  } finally {
    reporter.close();
  }
  const human = args.json || isLiveTerminal(io.stdout) ? io.stderr : io.stdout;
  if (outcome.type === 'refused') {
    io.stderr.write(explainOutcome('refused: ', outcome));
    return EXIT.refused;
  }
  const text = renderLockdownEnd(outcome.result, {
    direction,
    steps: lockdown.steps.length,
    runId: outcome.runId,
    paint,
  });
  if (text.human !== undefined) human.write(text.human);
  if (text.stderr !== undefined) io.stderr.write(text.stderr);
  if (outcome.result.ok) return EXIT.ok;
  return io.signal.aborted ? exitCodeForSignal(io.signal.reason) : EXIT.failed;
});

/** `lockdown --dry-run`: each step in the order the run takes them, with its exact terragrunt command line. */
async function lockdownPlan(
  config: PlatctlConfig,
  lockdown: LockdownConfig,
  direction: LockDirection,
  absDir: (unit: string) => string,
  env: CliIo['env'],
  json: boolean,
  paint: Paint,
): Promise<string> {
  const tools = chooseTools(config, env);
  const view = await buildLockdownPlan({
    config,
    lockdown,
    direction,
    commandLine: (unit, tfArgs) => {
      const timeoutMs = config.units[unit]?.timeout ?? config.unit_timeout;
      const job = { unit, command: 'apply' as const, absDir: absDir(unit), tfArgs, attempt: 1, timeoutMs };
      return [tools.binary, ...terragruntArgs(job, tools.tfPath, config.terragrunt.extra_args)];
    },
  });
  return json ? `${JSON.stringify(view)}\n` : renderLockdownPlan(view, paint);
}
