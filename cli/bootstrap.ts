/**
 * `platctl bootstrap`: apply every selected unit in dependency order, as parallel as the graph allows, resumable
 * after a failure or an interruption. `cli/teardown.ts` shares everything here through `runWalkVerb`.
 */
import { stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Reporter, WalkEvent } from '../engine/events.js';
import { combineReporters } from '../engine/events.js';
import type { UnitId } from '../engine/graph.js';
import { procMachine } from '../engine/lock.js';
import { formatCommandLine } from '../engine/logs.js';
import type { ExclusionsOf } from '../engine/plan.js';
import { planRun } from '../engine/plan.js';
import { Redactor, secretValues } from '../engine/redact.js';
import { JsonReporter } from '../engine/reporters/json.js';
import { makePaint } from '../engine/reporters/paint.js';
import type { Paint } from '../engine/reporters/paint.js';
import { PlainReporter } from '../engine/reporters/plain.js';
import { renderSummary } from '../engine/reporters/summary.js';
import { TtyReporter } from '../engine/reporters/tty.js';
import type { ConfirmRequest, RunResult } from '../engine/run.js';
import { RUN_ID_ENV, executeRun } from '../engine/run.js';
import {
  DEFAULT_GRACE_MS,
  TerragruntExecutor,
  chooseTools,
  detectTfVersion,
  providerCacheDecision,
  resolveExecutable,
  terragruntArgs,
} from '../engine/terragrunt.js';
import type { Resolved } from '../engine/terragrunt.js';
import type { RunCommand } from '../engine/unit-status.js';
import type { RunState } from '../engine/state.js';
import { tfCommandFor } from '../engine/unit-status.js';
import { excludedUnits } from '../discover/exclude.js';
import { checkWorktree } from '../engine/worktree.js';
import type { PlatctlConfig } from '../config/schema.js';
import { manualStepsPhase } from '../hooks/manual-steps.js';
import { productionHooks, unitHooks } from './hooks.js';
import { buildWalkPlan, renderWalkPlan } from './walk-plan.js';
import { checkRunner, terminalAsk, whoAmI } from './manual-steps.js';
import { walkPhases } from './phases.js';
import { parkedRefusal } from './park-status.js';
import { sharedBackend } from './shared-state.js';
import type { ArgsOf, OptionSpecs } from './args.js';
import type { Project } from './project.js';
import { loadProject } from './project.js';
import { childGroups, exitCodeForSignal, handleInterruptions, processAlive } from './signals.js';
import type { CliIo, GlobalOptions } from './verb.js';
import { EXIT, defineVerb } from './verb.js';
import { platctlVersion } from './version.js';

/** The options shared by `bootstrap` and `teardown`, worded for each. */
export function walkVerbOptions(command: RunCommand) {
  const order = command === 'bootstrap' ? 'dependency order' : 'reverse dependency order';
  return {
    'dry-run': { type: 'boolean', describe: `Print the waves in ${order} and stop` },
    resume: { type: 'boolean', describe: `Continue the last ${command}: completed units are not run again` },
    'break-lock': {
      type: 'boolean',
      describe: 'With state.backend s3: take over an environment lock whose holder stopped renewing it (stale only)',
    },
    force: {
      type: 'boolean',
      describe:
        command === 'bootstrap'
          ? 'With --resume: continue even though the graph changed; also: bootstrap a parked environment'
          : 'With --resume: continue even though the graph changed',
    },
    unit: { type: 'string', value: 'ID', repeatable: true, describe: 'Only this unit id (repeatable)' },
    'with-deps': {
      type: 'boolean',
      describe:
        command === 'bootstrap'
          ? 'With --unit: also every unit the selected ones depend on'
          : 'With --unit: also every unit that depends on the selected ones',
    },
    parallelism: { type: 'integer', value: 'N', min: 1, describe: 'Units run at once (default: parallelism.apply, 4)' },
    'fail-fast': { type: 'boolean', describe: 'Start nothing new after the first failure' },
    yes: {
      type: 'boolean',
      describe: command === 'teardown' ? 'Do not ask for confirmation (required without a terminal)' : 'Assume yes',
    },
    lockdown: {
      type: 'boolean',
      describe:
        command === 'bootstrap'
          ? 'With --unit: still run the lockdown phase after the units'
          : 'With --unit: still run the unlock phase before the units',
    },
    'allow-unresolved': {
      type: 'boolean',
      describe: 'Treat HCL expressions that need a real run as warnings during discovery',
    },
  } as const satisfies OptionSpecs;
}

/** The parsed flags of `bootstrap` and `teardown`. */
export type WalkVerbArgs = ArgsOf<ReturnType<typeof walkVerbOptions>>;

/** Rules between the flags, checked while parsing: a run never starts on a combination that means nothing. */
export function checkWalkArgs(command: RunCommand, args: WalkVerbArgs & GlobalOptions): string | undefined {
  if (args.resume && args['dry-run']) return '--dry-run prints the whole plan; it does not combine with --resume';
  if (args.resume && ((args.unit ?? []).length > 0 || (args.env ?? []).length > 0)) {
    return '--resume continues the last run with its own selection; drop --unit/--env';
  }
  // bootstrap --force also overrides the parked-environment guard; teardown's only meaning is with --resume.
  if (args.force && !args.resume && command !== 'bootstrap') return '--force only applies to --resume';
  if (args['with-deps'] && (args.unit ?? []).length === 0) return '--with-deps needs --unit';
  return undefined;
}

export const bootstrapVerb = defineVerb({
  globals: ['env', 'json'],
  options: walkVerbOptions('bootstrap'),
  check: (args) => checkWalkArgs('bootstrap', args),
  examples: [
    ['platctl bootstrap --dry-run', 'the waves, in the order they would apply'],
    ['platctl bootstrap --unit platform/eks --with-deps', 'platform/eks and everything it needs'],
    ['platctl bootstrap --resume', 'continue after a failure or an interruption'],
  ],
  run: (args, io) => runWalkVerb('bootstrap', args, io),
});

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
}

/** The shared body of `bootstrap` and `teardown`. */
export async function runWalkVerb(
  command: RunCommand,
  args: WalkVerbArgs & GlobalOptions,
  io: CliIo,
  hooks: WalkVerbHooks = {},
): Promise<number> {
  const paint = makePaint(io.color);
  const human = args.json ? io.stderr : io.stdout;
  if (!args['dry-run']) {
    const refusal = hooks.precheck?.();
    if (refusal !== undefined) {
      io.stderr.write(`platctl: ${refusal}\n`);
      return EXIT.refused;
    }
  }

  const loaded = await loadProject({ ...args, allowUnresolved: args['allow-unresolved'] }, io);
  if (!loaded.ok) return loaded.exitCode;
  const { root, config, discovery, configPath } = loaded.project;
  const shared = await sharedBackend(config.state, io, args['break-lock'] === true);
  if (args['break-lock'] && !shared) {
    io.stderr.write(
      `platctl: --break-lock applies to the shared lock of state.backend s3; ${configPath} uses the local backend ` +
        `(its .platctl.lock is taken over automatically once its holder is gone)\n`,
    );
    return EXIT.usage;
  }
  if (command === 'bootstrap' && !args.force && !args['dry-run']) {
    const refusal = await parkedRefusal(root, config, args, io.env);
    if (refusal !== undefined) {
      io.stderr.write(`platctl: refused: ${refusal}\n`);
      return EXIT.refused;
    }
  }
  const preventDestroy = new Set([...discovery.units.values()].filter((u) => u.preventDestroy).map((u) => u.id));
  const selection = { env: args.env ?? [], unit: args.unit ?? [], withDeps: args['with-deps'] === true };
  // Terragrunt `exclude` blocks for the Terraform command this verb runs, decided among the selected units.
  const excluded: ExclusionsOf = (scope) => excludedUnits(scope, discovery.units, tfCommandFor(command));

  if (args['dry-run']) {
    const planned = planRun({ command, graph: discovery.graph, config, selection, preventDestroy, excluded });
    if (planned.type === 'invalid') {
      io.stderr.write(`platctl: ${planned.message}${planned.hint ? `\n  hint: ${planned.hint}` : ''}\n`);
      return EXIT.usage;
    }
    const tools = await toolsForPlan(root, config, io);
    const absDir = (unit: UnitId): string =>
      discovery.units.get(unit)?.absDir ?? resolve(root, discovery.graph.get(unit)?.dir ?? unit);
    const view = await buildWalkPlan({
      command,
      plan: planned.plan,
      graphSize: discovery.graph.size,
      config,
      lockdownFlag: args.lockdown === true,
      commandLine: (unit, tfCommand, tfArgs) => [
        tools.binary,
        ...terragruntArgs(
          { unit, command: tfCommand, absDir: absDir(unit), tfArgs, attempt: 1, timeoutMs: 0 },
          tools.tfPathArg,
          config.terragrunt.extra_args,
        ),
      ],
      ...(command === 'bootstrap'
        ? {
            hooks: unitHooks(config, productionHooks({ environments: config.environments, env: io.env })),
            runCheck: checkRunner(root, io.env),
          }
        : {}),
      signal: io.signal,
    });
    io.stdout.write(args.json ? `${JSON.stringify(view)}\n` : renderWalkPlan(view, paint));
    return EXIT.ok;
  }

  const prepared = await prepareTools(command, root, config, configPath, io);
  if (!prepared.ok) return prepared.exitCode;
  const { binary, tf, tfPathArg, unitEnv } = prepared;
  const registry = productionHooks({ environments: config.environments, env: io.env });

  handleInterruptions();
  // A closed terminal (SIGHUP) or a reader that went away makes every later write fail (EIO, EPIPE). Unhandled, that
  // error would crash platctl mid-run: units SIGKILLed instead of interrupted, state left "running". Nothing can be
  // shown any more, so the error is dropped and the run stops its units and saves its state as on any signal.
  for (const stream of [io.stdout, io.stderr]) dropWriteErrors(stream);
  const reporter = makeReporter(args, io, paint);
  const failureLines = new Map<UnitId, readonly string[]>();
  let tookMs: number | undefined;
  const emit = (event: WalkEvent): void => {
    if (event.type === 'unit-failed') failureLines.set(event.unit, event.last_lines.slice(-8));
    if (event.type === 'run-finished') tookMs = event.duration_ms;
    reporter.event(event);
  };

  const parallelismGuess = args.parallelism ?? config.parallelism.apply;
  if (unitEnv.TF_PLUGIN_CACHE_DIR !== undefined && parallelismGuess > 1) {
    const decision = providerCacheDecision({
      env: unitEnv,
      parallelism: parallelismGuess,
      extraArgs: config.terragrunt.extra_args,
      tfVersion: await detectTfVersion(tf.path, unitEnv, root),
    });
    if (decision.type === 'unset') {
      delete unitEnv.TF_PLUGIN_CACHE_DIR;
      emit({ type: 'warning', at: new Date().toISOString(), message: decision.message });
    }
  }
  const graceMs = parseGrace(io.env.PLATCTL_KILL_GRACE);
  const redactor = new Redactor([...secretValues(io.env), ...secretValues(config.terragrunt.env)]);

  let result: RunResult;
  try {
    result = await executeRun(
      {
        command,
        root,
        graph: discovery.graph,
        absDir: (unit) => discovery.units.get(unit)?.absDir ?? resolve(root, discovery.graph.get(unit)?.dir ?? unit),
        config,
        selection,
        preventDestroy,
        excluded,
        resume: args.resume === true,
        force: args.force === true,
        ...(args.parallelism === undefined ? {} : { parallelism: args.parallelism }),
        failFast: args['fail-fast'] === true,
        commandLine: invocation(command, args),
        platctlVersion: platctlVersion(),
      },
      {
        now: () => Date.now(),
        machine: await procMachine({ pid: process.pid, host: hostname(), isAlive: processAlive }),
        groups: childGroups,
        executor: (runId) =>
          new TerragruntExecutor(
            {
              binary: binary.path,
              tfPath: tfPathArg,
              extraArgs: config.terragrunt.extra_args,
              env: { ...unitEnv, [RUN_ID_ENV]: runId },
              graceMs,
            },
            childGroups,
          ),
        signal: io.signal,
        emit,
        redactor,
        graceMs,
        phases: walkPhases(command, config, {
          lockdown: args.lockdown === true,
          hooks: registry,
          ...(command === 'bootstrap' && config.manual_steps.length > 0
            ? {
                beforeRun: manualStepsPhase(config.manual_steps, {
                  runCheck: checkRunner(root, io.env),
                  ...(terminalAsk(io, paint) ? { ask: terminalAsk(io, paint)! } : {}),
                  yes: args.yes === true,
                  who: whoAmI(io.env),
                }),
              }
            : {}),
        }),
        ...(hooks.confirm ? { confirm: (request: ConfirmRequest) => hooks.confirm!(request, paint) } : {}),
        ...(shared ? { shared } : {}),
      },
    );
  } finally {
    reporter.close();
  }

  switch (result.type) {
    case 'invalid':
      io.stderr.write(
        `platctl: ${result.message}\n${(result.details ?? []).map((d) => `  ${d}\n`).join('')}${result.hint ? `  hint: ${result.hint}\n` : ''}`,
      );
      return EXIT.usage;
    case 'refused':
      io.stderr.write(
        `platctl: refused: ${result.message}\n${(result.details ?? []).map((d) => `  ${d}\n`).join('')}${result.hint ? `  hint: ${result.hint}\n` : ''}`,
      );
      return EXIT.refused;
    case 'cancelled':
      io.stderr.write(`platctl: ${command} cancelled; nothing was changed\n`);
      return io.signal.aborted ? exitCodeForSignal(io.signal.reason) : EXIT.refused;
    case 'finished': {
      human.write(
        renderSummary({
          state: result.state,
          lastLines: failureLines,
          paint,
          resumeCommand: resumeCommand(command, args),
          ...(tookMs === undefined ? {} : { durationMs: tookMs }),
          problems: result.problems,
        }),
      );
      if (result.fenced !== undefined) {
        io.stderr.write(
          `platctl: refused: ${result.fenced}; no unit was started after that, the running ones finished, and the ` +
            `local state has everything.\n  hint: once no other run holds the lock, continue with ` +
            `${resumeCommand(command, args)}\n`,
        );
        return EXIT.refused;
      }
      if (result.status === 'completed')
        return (await hooks.completed?.(result.state, loaded.project, human)) ?? EXIT.ok;
      if (result.status === 'interrupted') return exitCodeForSignal(io.signal.reason);
      return EXIT.failed;
    }
  }
}

/**
 * The terragrunt binary and `--tf-path` argument a run would use, for printing its command lines: resolved like a
 * run resolves them when they are installed, as configured when not (a dry run does not need them).
 */
async function toolsForPlan(
  root: string,
  config: PlatctlConfig,
  io: CliIo,
): Promise<{ binary: string; tfPathArg: string }> {
  const tools = chooseTools(config, io.env);
  const toolBase = (source: string): string => (source.startsWith('PLATCTL_') ? io.cwd : root);
  const binary = await resolveExecutable(tools.binary, io.env, toolBase(tools.binarySource));
  const tf = await resolveExecutable(tools.tfPath, io.env, toolBase(tools.tfPathSource));
  return {
    binary: binary.type === 'ok' ? binary.path : tools.binary,
    tfPathArg: tools.tfPath.includes('/') && tf.type === 'ok' ? tf.path : tools.tfPath,
  };
}

/** The tools every apply needs, checked before anything runs: not from a worktree, terragrunt and tf_path found. */
export async function prepareTools(
  command: string,
  root: string,
  config: PlatctlConfig,
  configPath: string,
  io: CliIo,
): Promise<
  | { ok: true; binary: { path: string }; tf: { path: string }; tfPathArg: string; unitEnv: Record<string, string> }
  | { ok: false; exitCode: number }
> {
  // Refuse from a linked worktree: a different absolute path changes what Terraform sees (see engine/worktree.ts).
  const worktree = await checkWorktree(root, io.env);
  if (worktree.type === 'linked-worktree') {
    io.stderr.write(
      `platctl: refusing to ${command} from a git worktree (${root}).\n` +
        `  Terraform state records absolute paths (module sources, path.module, local-exec directories), and\n` +
        `  destroy-time provisioners (when = destroy) run with the paths of the checkout they run from: applying\n` +
        `  from another directory can replace resources or run destroy-time commands against the wrong tree.\n` +
        `  hint: run platctl from the main checkout (${dirname(worktree.commonDir)}).\n`,
    );
    return { ok: false, exitCode: EXIT.refused };
  }

  const tools = chooseTools(config, io.env);
  const toolBase = (source: string): string => (source.startsWith('PLATCTL_') ? io.cwd : root);
  const binary = await resolveExecutable(tools.binary, io.env, toolBase(tools.binarySource));
  if (binary.type === 'missing') {
    io.stderr.write(missingTool('terragrunt', tools.binary, tools.binarySource, binary, configPath));
    return { ok: false, exitCode: EXIT.refused };
  }
  const tf = await resolveExecutable(tools.tfPath, io.env, toolBase(tools.tfPathSource));
  if (tf.type === 'missing') {
    io.stderr.write(missingTool('tf_path', tools.tfPath, tools.tfPathSource, tf, configPath));
    return { ok: false, exitCode: EXIT.refused };
  }
  // A name stays a name (terragrunt looks it up on PATH); a path is made absolute, since terragrunt resolves a
  // relative --tf-path against each unit's directory.
  const tfPathArg = tools.tfPath.includes('/') ? tf.path : tools.tfPath;

  const unitEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(io.env)) if (value !== undefined) unitEnv[key] = value;
  Object.assign(unitEnv, config.terragrunt.env);
  // tofu warns about a missing CLI config file before printing its version, and terragrunt then fails every unit
  // with "Unable to parse Terraform version output": say so once, before anything runs.
  const cliConfig = unitEnv.TF_CLI_CONFIG_FILE;
  if (cliConfig !== undefined && cliConfig !== '' && !(await isFile(resolve(io.cwd, cliConfig)))) {
    io.stderr.write(
      `platctl: TF_CLI_CONFIG_FILE points at ${cliConfig}, which does not exist; every terragrunt run would fail ` +
        `("Unable to parse Terraform version output"). Nothing was run.\n` +
        `  hint: create the file, point the variable at an existing one, or unset it.\n`,
    );
    return { ok: false, exitCode: EXIT.refused };
  }

  return { ok: true, binary, tf, tfPathArg, unitEnv };
}

/**
 * A live view needs a terminal with a size: a pseudo-terminal of 0 rows (some CI runners, `script` without a
 * terminal) would show nothing, so it gets the plain lines instead.
 */
export function isLiveTerminal(stream: CliIo['stdout']): boolean {
  return stream.isTTY === true && ((stream as { rows?: number }).rows ?? 0) > 0;
}

const droppingErrors = new WeakSet<object>();

function dropWriteErrors(stream: NodeJS.WritableStream): void {
  if (droppingErrors.has(stream)) return;
  droppingErrors.add(stream);
  stream.on('error', () => undefined);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

export function makeReporter(args: GlobalOptions, io: CliIo, paint: Paint): Reporter {
  const now = (): number => Date.now();
  if (args.json) {
    const json = new JsonReporter(io.stdout);
    return isLiveTerminal(io.stderr) ? combineReporters(json, new TtyReporter(io.stderr, paint, { now })) : json;
  }
  return isLiveTerminal(io.stdout) ? new TtyReporter(io.stdout, paint, { now }) : new PlainReporter(io.stdout, paint);
}

/** What to say when a binary cannot be found: which one, where the name came from, and how to fix it. */
function missingTool(
  name: 'terragrunt' | 'tf_path',
  choice: string,
  source: string,
  found: Extract<Resolved, { type: 'missing' }>,
  configPath: string,
): string {
  const problem =
    found.reason === 'not-executable'
      ? 'is not executable'
      : `was not found${found.searched === 'PATH' ? ' on PATH' : ''}`;
  const variable = name === 'terragrunt' ? 'PLATCTL_TERRAGRUNT' : 'PLATCTL_TF_PATH';
  const where = source === variable ? variable : `${source} in ${configPath} (or set ${variable})`;
  return (
    `platctl: ${name} "${choice}" (from ${source}) ${problem}; nothing was run.\n` +
    `  hint: install it (npm run tools builds terragrunt and OpenTofu into .tools/bin), or point ${where} at it.\n`
  );
}

/** `PLATCTL_KILL_GRACE`: seconds between SIGINT and SIGKILL (default 30). */
export function parseGrace(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_GRACE_MS;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : DEFAULT_GRACE_MS;
}

/** The options that shape a run, in the order a person would type them. */
function sharedFlags(args: WalkVerbArgs & GlobalOptions): string[] {
  const out: string[] = [];
  if (args.config !== undefined) out.push('--config', args.config);
  if (args.parallelism !== undefined) out.push('--parallelism', String(args.parallelism));
  if (args['fail-fast']) out.push('--fail-fast');
  if (args.yes) out.push('--yes');
  if (args['allow-unresolved']) out.push('--allow-unresolved');
  if (args.lockdown) out.push('--lockdown');
  return out;
}

/** The command line as typed (for the lock file). */
function invocation(command: RunCommand, args: WalkVerbArgs & GlobalOptions): string {
  const selection = [
    ...(args.env ?? []).flatMap((e) => ['--env', e]),
    ...(args.unit ?? []).flatMap((u) => ['--unit', u]),
    ...(args['with-deps'] ? ['--with-deps'] : []),
  ];
  const resume = [...(args.resume ? ['--resume'] : []), ...(args.force ? ['--force'] : [])];
  return formatCommandLine(['platctl', command, ...resume, ...selection, ...sharedFlags(args)]);
}

/** The exact command that continues this run: the selection is in the state file, so only the flags repeat. */
function resumeCommand(command: RunCommand, args: WalkVerbArgs & GlobalOptions): string {
  return formatCommandLine(['platctl', command, '--resume', ...sharedFlags(args)]);
}
