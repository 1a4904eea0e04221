/**
 * `platctl lockdown [--undo] [--dry-run]`: the lockdown phase on its own (bootstrap runs it after a complete walk;
 * teardown runs the unlock first). `--undo` unlocks: the steps in reverse order with their `unlock_args`. Under the
 * repository lock like every mutating run; `.platctl-state.json` is left alone.
 */
import { explainOutcome } from '../discover/problem-text.js';
import { executeLockdown, lockdownInvocation, standaloneSteps } from '../engine/lockdown.js';
import { buildLockdownPlan } from '../engine/walk-plan.js';
import { renderDryRun } from '../engine/reporters/plan.js';
import { renderLockdownEnd } from '../engine/reporters/outcome.js';
import { makePaint } from '../engine/reporters/paint.js';
import { lockdownCommandLine, unitDir } from '../engine/tools.js';
import { makeReporter } from './walk-output.js';
import { isLiveTerminal } from './terminal.js';
import { prepareTools, runProcess } from './walk-tools.js';
import { loadProject } from './project.js';
import { handleInterruptions, interruptedOr } from './signals.js';
import { EXIT, defineVerb } from './verb.js';
import { LOCKDOWN_GRAMMAR } from './commands/lockdown.js';

export const lockdownVerb = defineVerb(LOCKDOWN_GRAMMAR, async (args, io) => {
  const loaded = await loadProject(args, io);
  if (!loaded.ok) return loaded.exitCode;
  const { root, config, configPath } = loaded.project;
  const direction = args.undo ? 'unlock' : 'lock';
  const steps = standaloneSteps(config, configPath, direction);
  if (!steps.ok) {
    io.stderr.write(explainOutcome('', steps));
    return EXIT.usage;
  }
  const lockdown = steps.value;
  const absDir = unitDir(loaded.project);
  const paint = makePaint(io.color);

  if (args['dry-run']) {
    const commandLine = lockdownCommandLine(config, absDir, io.env);
    const plan = await buildLockdownPlan({ config, lockdown, direction, commandLine });
    io.stdout.write(renderDryRun({ kind: 'lockdown', plan }, args.json === true, paint));
    return EXIT.ok;
  }

  const prepared = await prepareTools('lockdown', root, config, configPath, io);
  if (!prepared.ok) return prepared.exitCode;
  handleInterruptions();
  const reporter = makeReporter(args, io, paint);
  const basics = await runProcess(prepared, config, io);
  let outcome;
  try {
    outcome = await executeLockdown(
      {
        root,
        config,
        lockdown,
        direction,
        absDir,
        commandLine: lockdownInvocation(direction),
      },
      {
        ...basics,
        emit: (event) => reporter.event(event),
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
  return outcome.result.ok ? EXIT.ok : interruptedOr(io.signal, EXIT.failed);
});
