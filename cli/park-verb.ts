/**
 * What `platctl down` and `platctl up` share: their flags, checking the command, the lock, the prompt, wiring the
 * clouds, and rendering the steps (lines, or NDJSON with `--json`). The sequences themselves are in park/; the verbs
 * are cli/down.ts and cli/up.ts.
 */
import { explainOutcome } from '../discover/problem-text.js';
import { hostname } from 'node:os';
import { createInterface } from 'node:readline';
import { createEnvCloud } from '../cloud/environment.js';
import type { EnvCloud } from '../cloud/environment.js';
import { kubeWriterForEnv } from '../cloud/kube-writer.js';
import type { KubeWriter } from '../cloud/kube-writer.js';
import { createParkAws } from '../cloud/park-aws.js';
import type { NodeGroupSize } from '../cloud/park-aws.js';
import type { CloudResult } from '../cloud/result.js';
import type { PlatctlConfig, StateConfig } from '../config/schema.js';
import type { EnvLocks } from '../engine/env-lock.js';
import type { ObjectStore } from '../engine/object-store.js';
import { acquireLock, lockRefusal } from '../engine/lock.js';
import { makeRunId } from '../engine/run.js';
import { systemClock } from '../engine/waits.js';
import { lockShared } from '../engine/shared-run.js';
import { formatCommandLine } from '../engine/logs.js';
import { makePaint } from '../engine/reporters/paint.js';
import type { Paint } from '../engine/reporters/paint.js';
import type { UnitApplier } from '../park/context.js';
import type { ParkOp } from '../park/record.js';
import type { EnvOutcome, ParkEvent } from '../engine/events.js';
import type { EnvAccess } from '../park/run.js';
import { runPark } from '../park/run.js';
import { chooseParkEnvs, parkEnding, parkNext, parseRestoreSizes } from '../park/command.js';
import { parkOutput } from './park-output.js';
import { discoverParkUnits, parkUnitApplier } from './park-units.js';
import type { MetricsSink } from './metrics.js';
import type { RunTracer } from '../engine/tracing.js';
import { loadCheckedConfig } from './project.js';
import { parkRecordPlaces, runAuthor, sharedBackend, stateStore } from './shared-state.js';
import { exitCodeForSignal, handleInterruptions, processAlive } from './signals.js';
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

/** What `runPark` reaches each environment through: its AWS clients (one per environment), records and cluster. */
function parkAccess(context: {
  readonly config: PlatctlConfig;
  readonly io: CliIo;
  readonly human: NodeJS.WritableStream;
  readonly state: ObjectStore | undefined;
  readonly locks: EnvLocks | undefined;
  readonly applier: UnitApplier | undefined;
}): (env: string) => EnvAccess {
  const { config, io, human, state, locks, applier } = context;
  const clouds = new Map<string, EnvCloud>();
  const cloudOf = (env: string): EnvCloud => {
    let cloud = clouds.get(env);
    if (!cloud) {
      const settings = config.environments[env];
      if (!settings) throw new Error(`park: unknown environment ${env}`); // checked by the config loader
      cloud = createEnvCloud({ envName: env, settings, env: io.env, maxAttempts: 3 });
      clouds.set(env, cloud);
    }
    return cloud;
  };
  return (env: string): EnvAccess => {
    const cloud = cloudOf(env);
    const settings = config.environments[env];
    let kube: Promise<CloudResult<KubeWriter>> | undefined;
    const aws = createParkAws(cloud, io.env, settings?.cluster?.name ?? env, io.signal);
    const envBucket = settings?.aws?.state_bucket;
    return {
      cloud,
      aws,
      records: {
        ...parkRecordPlaces(state, envBucket === undefined ? undefined : aws.stateBucketRecords(envBucket)),
        ...(locks ? { mayWrite: () => locks.ensureFresh() } : {}),
        onMoved: (from, to) => human.write(`moved the park record of ${env} from ${from} to ${to}\n`),
      },
      kube: () => {
        kube ??= settings
          ? kubeWriterForEnv(cloud, settings, io.env, io.signal)
          : Promise.reject(new Error('no settings'));
        return kube;
      },
      alsoCheck: (config.park[env]?.preflight_envs ?? []).filter((other) => other !== env).map(cloudOf),
      ...(applier ? { units: applier } : {}),
    };
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
  const checked = await checkParkCommand(op, args, io, metrics, tracer);
  if (typeof checked === 'number') return checked;
  const paint = makePaint(io.color);
  const output = parkOutput(io, args.json === true, op, paint);
  const human = output.human;
  const confirmed = await confirmDown(op, args, io, paint, checked.envs);
  if (confirmed !== undefined) return confirmed;
  const command = invocation(op, args);
  const locked = await lockParkRun(op, args, checked, command, io, human, paint);
  if (typeof locked === 'number') return locked;
  const { lock, locks } = locked;

  handleInterruptions();
  const { config, root, state, applier } = checked;
  const access = parkAccess({ config, io, human, state, locks, applier });
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
      dryRun: args['dry-run'] === true,
      resume: args.resume === true,
      who: runAuthor(io.env),
      access,
      emit: render,
      now: () => Date.now(),
      clock: systemClock,
      signal: io.signal,
      ...(checked.restoreSizes ? { restoreSizes: checked.restoreSizes } : {}),
      fence: locks && {
        stillOurs: () => locks.ensureFresh(),
        get reason() {
          return locks.fenceReason;
        },
      },
    });
  } finally {
    output.close();
    for (const problem of (await locks?.release()) ?? []) io.stderr.write(`platctl: warning: ${problem}\n`);
    if (lock?.type === 'acquired') await lock.lock.release();
  }
  await metrics?.park(root, outcomes);
  return reportParkOutcomes(op, args, outcomes, io, human);
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
  args: ParkArgs & GlobalOptions,
  io: CliIo,
  metrics: MetricsSink | undefined,
  tracer: RunTracer | undefined,
): Promise<CheckedParkCommand | number> {
  if (args.resume && args['dry-run']) {
    io.stderr.write('platctl: --dry-run shows the whole sequence; it does not combine with --resume\n');
    return EXIT.usage;
  }
  const restoreSizes = parseRestoreSizes(args['restore-size'] ?? [], {
    resume: args.resume === true,
    envCount: (args.env ?? []).length,
  });
  if ('error' in restoreSizes) {
    io.stderr.write(`platctl: ${restoreSizes.error}\n  hint: platctl down --help lists its options\n`);
    return EXIT.usage;
  }
  const checked = await loadCheckedConfig(args, io);
  if (!checked.ok) return checked.exitCode;
  const { config, root } = checked.loaded;
  const chosen = chooseParkEnvs(op, config, args.env ?? []);
  if ('error' in chosen) {
    io.stderr.write(`platctl: ${chosen.error}\n`);
    return EXIT.usage;
  }
  metrics?.envs(chosen.envs);
  tracer?.envs(chosen.envs);
  const state = await stateStore(config.state, io);
  if (args['break-lock'] && !state) {
    io.stderr.write(
      `platctl: --break-lock applies to the shared lock of state.backend s3; ${checked.loaded.path} uses the ` +
        `local backend (its .platctl.lock is taken over automatically once its holder is gone)\n`,
    );
    return EXIT.usage;
  }
  const parkUnits = await discoverParkUnits(chosen.envs, checked.loaded, args, io);
  if (!parkUnits.ok) return parkUnits.exitCode;
  const units =
    op === 'up' ? await parkUnitApplier(chosen.envs, checked.loaded, parkUnits.dirs, io, tracer) : undefined;
  if (units && !units.ok) return units.exitCode;
  return { config, root, envs: chosen.envs, state, applier: units?.applier, restoreSizes: restoreSizes.sizes };
}

/** down scales clusters to zero: it asks on a terminal unless --yes, and refuses without one. Undefined: go on. */
async function confirmDown(
  op: ParkOp,
  args: ParkArgs & GlobalOptions,
  io: CliIo,
  paint: Paint,
  envs: readonly string[],
): Promise<number | undefined> {
  if (op !== 'down' || args['dry-run'] === true || args.yes) return undefined;
  if (!process.stdin.isTTY) {
    io.stderr.write(
      'platctl: refused: down scales clusters to zero and there is no terminal to confirm on; pass --yes to run it unattended (cron)\n',
    );
    return EXIT.refused;
  }
  if (await confirm(io, paint, envs)) return undefined;
  io.stderr.write('platctl: down cancelled; nothing was changed\n');
  return io.signal.aborted ? exitCodeForSignal(io.signal.reason) : EXIT.refused;
}

/**
 * The checkout's lock and, on the shared backend, each environment's lock (none for a dry run). A number is the
 * exit code of a refusal, already explained, with whatever was taken released.
 */
async function lockParkRun(
  op: ParkOp,
  args: ParkArgs & GlobalOptions,
  checked: CheckedParkCommand,
  command: string,
  io: CliIo,
  human: NodeJS.WritableStream,
  paint: Paint,
): Promise<{ lock: Awaited<ReturnType<typeof acquireLock>> | undefined; locks: EnvLocks | undefined } | number> {
  if (args['dry-run'] === true) return { lock: undefined, locks: undefined };
  const { root, envs, config } = checked;
  const lock = await acquireLock(
    root,
    { command, startedAt: new Date().toISOString() },
    { pid: process.pid, host: hostname(), isAlive: processAlive },
  );
  if (lock.type !== 'acquired') {
    const refusal = lockRefusal(lock, root, hostname());
    const raced = lock.type === 'held' ? { message: `${refusal.message}; ${op} would race it` } : {};
    io.stderr.write(explainOutcome('refused: ', { ...refusal, ...raced }));
    return EXIT.refused;
  }
  if (lock.tookOver) {
    human.write(
      `${paint.yellow('warning')}: took over the lock of a platctl that died (${lock.tookOver.command}, pid ${lock.tookOver.pid})\n`,
    );
  }
  const envLocks = await lockParkEnvs({ op, envs, command }, config.state, args['break-lock'] === true, io, human);
  if (envLocks?.type === 'refused') {
    await lock.lock.release();
    return EXIT.refused;
  }
  return { lock, locks: envLocks?.locks };
}

/** The exit code, the JSON summary, and the command line that resumes (or repeats) a run that stopped. */
function reportParkOutcomes(
  op: ParkOp,
  args: ParkArgs & GlobalOptions,
  outcomes: EnvOutcome[],
  io: CliIo,
  human: NodeJS.WritableStream,
): number {
  const exitCode = exitCodeFor(outcomes, io);
  const resume = formatCommandLine([
    'platctl',
    op,
    '--resume',
    ...(args.config ? ['--config', args.config] : []),
    ...(op === 'down' ? ['--yes'] : []),
  ]);
  if (args.json) {
    const summary = { type: 'summary', op, dry_run: args['dry-run'] === true, exit_code: exitCode, envs: outcomes };
    io.stdout.write(`${JSON.stringify(summary)}\n`);
  }
  const next = parkNext(outcomes);
  if (next === 'resume') human.write(`Resume with: ${resume}\n`);
  else if (next === 'repeat')
    human.write(`Nothing was changed; run it again: ${formatCommandLine(invocationArgs(op, args))}\n`);
  return exitCode;
}

/** The exit code of a command's ending (park/command.ts); fenced is a refusal (3), as a lock held at the start. */
function exitCodeFor(outcomes: readonly EnvOutcome[], io: CliIo): number {
  const ending = parkEnding(outcomes, io.signal.aborted);
  if (ending === 'interrupted') return exitCodeForSignal(io.signal.reason);
  return ending === 'fenced' ? EXIT.refused : EXIT[ending];
}

function invocationArgs(op: ParkOp, args: ParkArgs & GlobalOptions, withConfig = true): string[] {
  return [
    'platctl',
    op,
    ...(args.env ?? []).flatMap((e) => ['--env', e]),
    ...(withConfig && args.config ? ['--config', args.config] : []),
    ...(args.resume ? ['--resume'] : []),
    ...(args.yes ? ['--yes'] : []),
    ...(args['break-lock'] ? ['--break-lock'] : []),
  ];
}

function invocation(op: ParkOp, args: ParkArgs & GlobalOptions): string {
  return formatCommandLine(invocationArgs(op, args, false));
}

/**
 * With `state.backend: s3`: locks the environments of a `down`/`up` as bootstrap and teardown do (sorted, never
 * waiting, `--break-lock` for a stale one only), so one of them refuses while the other holds an environment.
 * Undefined with the local backend; a refusal has been printed.
 */
async function lockParkEnvs(
  request: { readonly op: ParkOp; readonly envs: readonly string[]; readonly command: string },
  state: StateConfig,
  breakLock: boolean,
  io: CliIo,
  human: NodeJS.WritableStream,
): Promise<{ type: 'ok'; locks: EnvLocks } | { type: 'refused' } | undefined> {
  const shared = await sharedBackend(state, io, breakLock);
  if (!shared) return undefined;
  const got = await lockShared(
    shared,
    { envs: request.envs, runId: makeRunId(Date.now()), verb: request.op, command: request.command },
    () => Date.now(),
    (message) => human.write(`warning: ${message}\n`),
  );
  if (got.type === 'ok') {
    got.locks.fenced.addEventListener('abort', () =>
      human.write(
        `warning: ${got.locks.fenceReason}: starting no more steps and making no more changes to AWS (exit 3)\n`,
      ),
    );
    return { type: 'ok', locks: got.locks };
  }
  io.stderr.write(
    `platctl: refused: ${got.message}\n${(got.details ?? []).map((d) => `  ${d}\n`).join('')}` +
      `${got.hint ? `  hint: ${got.hint}\n` : ''}`,
  );
  return { type: 'refused' };
}

async function confirm(io: CliIo, paint: Paint, envs: readonly string[]): Promise<boolean> {
  io.stderr.write(
    `${paint.bold(`down parks ${envs.join(', ')}`)}: node groups to 0, Karpenter capacity deleted, bastion stopped.\n`,
  );
  const rl = createInterface({ input: process.stdin, output: io.stderr, terminal: false });
  const onAbort = (): void => rl.close();
  io.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const answer = await new Promise<string | undefined>((resolve) => {
      rl.question('Type "yes" to park: ', resolve);
      rl.once('close', () => resolve(undefined));
    });
    return answer?.trim() === 'yes';
  } finally {
    io.signal.removeEventListener('abort', onAbort);
    rl.close();
    process.stdin.pause();
    process.stdin.unref();
  }
}
