/**
 * What `platctl down` and `platctl up` share: reading their flags, building the clouds and stores, taking the
 * checkout lock, prompting on the terminal, picking the streams and setting the exit code. What a command line means,
 * the locks' words and the exit code policy are park/command.ts and park/lock.ts; the sequences are in park/; the
 * verbs are cli/down.ts and cli/up.ts.
 */
import { explainOutcome } from '../discover/problem-text.js';
import type { NodeGroupSize } from '../cloud/park-aws.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { EnvLocks } from '../engine/env-lock.js';
import type { ObjectStore } from '../engine/object-store.js';
import { acquireLock } from '../engine/lock.js';
import type { RepoLock } from '../engine/lock.js';
import { systemClock } from '../engine/waits.js';
import { makePaint } from '../engine/reporters/paint.js';
import type { Paint } from '../engine/reporters/paint.js';
import type { UnitApplier } from '../park/context.js';
import type { ParkOp } from '../park/record.js';
import type { EnvOutcome, ParkEvent } from '../engine/events.js';
import { parkAccess } from '../park/access.js';
import { runPark } from '../park/run.js';
import type { ParkCommandLine } from '../park/command.js';
import {
  DOWN_CONFIRM,
  breakLockLocalError,
  checkParkOptions,
  chooseParkEnvs,
  mustConfirm,
  parkEnding,
  parkExitCode,
  parkInvocation,
  parkNextLine,
  parkSummary,
} from '../park/command.js';
import { checkoutLockRefusal, lockParkEnvs, parkFence, tookOverWarning } from '../park/lock.js';
import { parkOutput } from './park-output.js';
import { askOnTerminal } from './prompt.js';
import { discoverParkUnits, parkUnitApplier } from './park-units.js';
import type { MetricsSink } from '../engine/metrics-sink.js';
import type { RunTracer } from '../engine/tracing.js';
import { loadCheckedConfig } from './project.js';
import { runAuthor } from '../engine/shared-state.js';
import { sharedBackend, stateStore } from './shared-state.js';
import { exitCodeForSignal, handleInterruptions, interruptedOr, thisProcess } from './signals.js';
import type { CliIo, GlobalOptions } from './verb.js';
import { EXIT } from './verb.js';

export interface ParkArgs {
  'dry-run'?: boolean | undefined;
  resume?: boolean | undefined;
  yes?: boolean | undefined;
  'break-lock'?: boolean | undefined;
  'restore-size'?: string[] | undefined;
  'metrics-file'?: string | undefined;
  trace?: boolean | undefined;
}

/** The flags as park/command.ts reads them. */
function commandLine(args: ParkArgs & GlobalOptions): ParkCommandLine {
  return {
    env: args.env ?? [],
    config: args.config,
    dryRun: args['dry-run'] === true,
    resume: args.resume === true,
    yes: args.yes === true,
    breakLock: args['break-lock'] === true,
    restoreSize: args['restore-size'] ?? [],
  };
}

/** The shared body of `down` and `up`: check everything, confirm, lock, run the sequences, say how they ended. */
export async function runParkVerb(
  op: ParkOp,
  args: ParkArgs & GlobalOptions,
  io: CliIo,
  metrics?: MetricsSink,
  tracer?: RunTracer,
): Promise<number> {
  const line = commandLine(args);
  const checked = await checkParkCommand(op, line, args, io, metrics, tracer);
  if (typeof checked === 'number') return checked;
  const paint = makePaint(io.color);
  const output = parkOutput(io, args.json === true, op, paint);
  const human = output.human;
  const confirmed = await confirmDown(op, line, io, paint, checked.envs);
  if (confirmed !== undefined) return confirmed;
  const locked = await lockParkRun(op, line, checked, io, human, paint);
  if (typeof locked === 'number') return locked;
  const { lock, locks } = locked;

  handleInterruptions();
  const { config, root, state, applier } = checked;
  const say = (text: string): void => void human.write(text);
  const access = parkAccess({ config, vars: io.env, signal: io.signal, state, locks, applier, say });
  const traced = (event: ParkEvent): void => {
    tracer?.parkEvent(event);
    output.render(event);
  };
  const render = metrics ? metrics.parkEvents(traced) : traced;
  let outcomes: EnvOutcome[];
  try {
    outcomes = await runPark({
      op,
      root,
      envs: checked.envs,
      environments: config.environments,
      park: config.park,
      dryRun: line.dryRun,
      resume: line.resume,
      who: runAuthor(io.env),
      access,
      emit: render,
      now: () => Date.now(),
      clock: systemClock,
      signal: io.signal,
      ...(checked.restoreSizes ? { restoreSizes: checked.restoreSizes } : {}),
      fence: parkFence(locks),
    });
  } finally {
    output.close();
    for (const problem of (await locks?.release()) ?? []) io.stderr.write(`platctl: warning: ${problem}\n`);
    await lock?.release();
  }
  await metrics?.park(root, outcomes);
  const exitCode = parkExitCode(parkEnding(outcomes, io.signal.aborted), exitCodeForSignal(io.signal.reason));
  if (args.json) io.stdout.write(`${JSON.stringify(parkSummary(op, line.dryRun, exitCode, outcomes))}\n`);
  const next = parkNextLine(op, line, outcomes);
  if (next) human.write(next);
  return exitCode;
}

/** What a park command needs once its whole command line, configuration and units are understood. */
interface CheckedParkCommand {
  readonly config: PlatctlConfig;
  readonly root: string;
  readonly envs: readonly string[];
  readonly state: ObjectStore | undefined;
  readonly applier: UnitApplier | undefined;
  readonly restoreSizes: Record<string, NodeGroupSize> | undefined;
}

/**
 * Everything checked before anything is touched: the options together, the configuration, the environments, the
 * lock options, and the units park names (node_group_units, karpenter.unit, reconnect_units), by down too: it must
 * not park what up could not bring back. A number is the exit code of a refusal, already explained.
 */
async function checkParkCommand(
  op: ParkOp,
  line: ParkCommandLine,
  args: GlobalOptions,
  io: CliIo,
  metrics: MetricsSink | undefined,
  tracer: RunTracer | undefined,
): Promise<CheckedParkCommand | number> {
  const options = checkParkOptions(line);
  if ('error' in options) {
    io.stderr.write(explainOutcome('', { message: options.error, hint: options.hint }));
    return EXIT.usage;
  }
  const checked = await loadCheckedConfig(args, io);
  if (!checked.ok) return checked.exitCode;
  const { config, root } = checked.loaded;
  const chosen = chooseParkEnvs(op, config, line.env);
  if ('error' in chosen) {
    io.stderr.write(`platctl: ${chosen.error}\n`);
    return EXIT.usage;
  }
  metrics?.envs(chosen.envs);
  tracer?.envs(chosen.envs);
  const state = await stateStore(config.state, io);
  if (line.breakLock && !state) {
    io.stderr.write(`platctl: ${breakLockLocalError(checked.loaded.path)}\n`);
    return EXIT.usage;
  }
  const parkUnits = await discoverParkUnits(chosen.envs, checked.loaded, args, io);
  if (!parkUnits.ok) return parkUnits.exitCode;
  const units =
    op === 'up' ? await parkUnitApplier(chosen.envs, checked.loaded, parkUnits.dirs, io, tracer) : undefined;
  if (units && !units.ok) return units.exitCode;
  return { config, root, envs: chosen.envs, state, applier: units?.applier, restoreSizes: options.sizes };
}

/** down asks on a terminal unless --yes, and refuses without one (park/command.ts). Undefined: go on. */
async function confirmDown(
  op: ParkOp,
  line: ParkCommandLine,
  io: CliIo,
  paint: Paint,
  envs: readonly string[],
): Promise<number | undefined> {
  if (!mustConfirm(op, line)) return undefined;
  if (!process.stdin.isTTY) {
    io.stderr.write(`platctl: ${DOWN_CONFIRM.noTerminal}\n`);
    return EXIT.refused;
  }
  io.stderr.write(DOWN_CONFIRM.intro(paint, envs));
  if (DOWN_CONFIRM.confirmed(await askOnTerminal(DOWN_CONFIRM.question, io))) return undefined;
  io.stderr.write(`platctl: ${DOWN_CONFIRM.cancelled}\n`);
  return interruptedOr(io.signal, EXIT.refused);
}

/**
 * The checkout's lock and, on the shared backend, each environment's lock (park/lock.ts; none for a dry run). A
 * number is the exit code of a refusal, already explained, with whatever was taken released.
 */
async function lockParkRun(
  op: ParkOp,
  line: ParkCommandLine,
  checked: CheckedParkCommand,
  io: CliIo,
  human: NodeJS.WritableStream,
  paint: Paint,
): Promise<{ lock: RepoLock | undefined; locks: EnvLocks | undefined } | number> {
  if (line.dryRun) return { lock: undefined, locks: undefined };
  const { root, envs, config } = checked;
  const command = parkInvocation(op, line, false);
  const self = thisProcess();
  const lock = await acquireLock(root, { command, startedAt: new Date().toISOString() }, self);
  if (lock.type !== 'acquired') {
    io.stderr.write(explainOutcome('refused: ', checkoutLockRefusal(op, lock, root, self.host)));
    return EXIT.refused;
  }
  if (lock.tookOver) human.write(tookOverWarning(paint, lock.tookOver));
  const shared = await sharedBackend(config.state, io, line.breakLock);
  const say = (text: string): void => void human.write(text);
  const envLocks = await lockParkEnvs(shared, { op, envs, command }, () => Date.now(), say);
  if (envLocks?.type === 'refused') {
    io.stderr.write(explainOutcome('refused: ', envLocks));
    await lock.lock.release();
    return EXIT.refused;
  }
  return { lock: lock.lock, locks: envLocks?.locks };
}
