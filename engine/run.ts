/**
 * One mutating run (`bootstrap` or `teardown`) from lock to summary, in its phases: take the repository lock; read
 * the last run's state, stop unit processes a killed platctl left behind, plan (or check a resume against the current
 * graph); with the shared backend, lock the selection's environments (engine/env-lock.ts); confirm; the before-run
 * preflight; write the initial state; the before-walk phase, the walk (with the named
 * hooks around units), the after-walk phase; record how it ended. The phases are `RunPhases` (engine/phases.ts),
 * wired by cli/. Everything the machine provides is injected.
 */
import { randomBytes } from 'node:crypto';
import type { PlatctlConfig } from '../config/schema.js';
import type { RunOutcomeStatus, StatusCounts, WalkEvent } from './events.js';
import { emptyCounts, guardEmit, reporterFailed } from './events.js';
import type { Executor, UnitJob, UnitOutcome } from './executor.js';
import type { Graph, UnitId } from './graph.js';
import { compareIds, remainingPathWeights, waves } from './graph.js';
import { FsError } from './fs-errors.js';
import type { LockEnvironment } from './lock.js';
import { LOCK_FILE, acquireLock, lockRefusal } from './lock.js';
import { LOGS_DIR, UnitLog, formatCommandLine, logRelPath, prepareRunLogs } from './logs.js';
import type { PhaseContext, RunPhases } from './phases.js';
import { AFTER_WALK_PHASES } from './phases.js';
import type { ExclusionsOf, Plan, SelectionArgs } from './plan.js';
import { describeDiff, diffScope, planRun } from './plan.js';
import type { ProcessGroups } from './processes.js';
import { findProcessGroups, isZombie, processHasEnv } from './processes.js';
import type { Redactor } from './redact.js';
import { stripAnsi } from './redact.js';
import type { LoadedState, ManualStepRecord, RunArgs, RunState, StateStoreOptions, UnitState } from './state.js';
import { STATE_VERSION, StateStore, backupState, loadState, removeStaleTempFiles } from './state.js';
import { UNIT_ENV } from './terragrunt.js';
import type { RunCommand } from './unit-status.js';
import { walk } from './walk.js';
import type { HoldRule, StateProbe } from './rollback.js';
import { decideRollback, holdMessage } from './rollback.js';
import { announceDecision, optionalUnits, probeRecord, probeUnits, runRollback } from './rollback-run.js';
import type { EnvLocks } from './env-lock.js';
import type { SharedBackend } from './shared-run.js';
import { checkResumedUnchanged, lockShared, sharedPrevious } from './shared-run.js';
import { RunPublisher } from './shared-state.js';
import { poll, systemClock } from './waits.js';

/** The environment variable that marks a unit process with its run, so a later run can recognise it. */
export const RUN_ID_ENV = 'PLATCTL_RUN_ID';

export interface RunRequest {
  readonly command: RunCommand;
  /** The repository root (the directory of .platctl.yaml). */
  readonly root: string;
  /** The whole discovered graph. */
  readonly graph: Graph;
  /** Absolute directory of a unit. */
  readonly absDir: (unit: UnitId) => string;
  readonly config: PlatctlConfig;
  /** Ignored with `resume`: a resume reuses the selection of the run it continues. */
  readonly selection: SelectionArgs;
  /** Units with `prevent_destroy = true`: teardown keeps them and what they depend on. */
  readonly preventDestroy?: ReadonlySet<UnitId>;
  /** Units Terragrunt `exclude` blocks leave out of the verb, among the selected ones (see `planRun`). */
  readonly excluded?: ExclusionsOf;
  readonly resume: boolean;
  /** Resume even though the graph changed. */
  readonly force: boolean;
  /** `--parallelism`; otherwise the resumed run's, otherwise `parallelism.apply`. */
  readonly parallelism?: number;
  readonly failFast: boolean;
  /**
   * Bootstrap's narrow rollback (engine/rollback.ts): `on_failure` probes before the first apply and destroys what
   * the run created when a unit's apply fails; `refused` (`--no-rollback` over `rollback: on_failure`) only says so.
   */
  readonly rollback?: 'on_failure' | 'refused';
  /** The command line as typed, for the lock file. */
  readonly commandLine: string;
  readonly platctlVersion: string;
}

export interface RunDeps {
  readonly now: () => number;
  readonly machine: LockEnvironment;
  readonly groups: ProcessGroups;
  /** Builds the executor once the run id is known (it goes into every unit's environment). */
  readonly executor: (runId: string) => Executor;
  /** First SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
  readonly emit: (event: WalkEvent) => void;
  /** Masks secrets in logs; each log gets its own fork. */
  readonly redactor: Redactor;
  /** SIGINT to SIGKILL for processes a killed run left. */
  readonly graceMs: number;
  readonly procRoot?: string;
  readonly stateOptions?: StateStoreOptions;
  readonly newRunId?: () => string;
  /** Asked once the plan is known and before anything changes (teardown's confirmation); false cancels. */
  readonly confirm?: (what: ConfirmRequest) => Promise<boolean>;
  /** The run's lifecycle points: manual steps, named hooks, lockdown, unlock (engine/phases.ts). */
  readonly phases?: RunPhases;
  /** The shared state backend (`state.backend: s3`); absent: the local files only. */
  readonly shared?: SharedBackend;
}

/** What a confirmation prompt shows. */
export interface ConfirmRequest {
  readonly command: RunCommand;
  /** Units this invocation will run, in walk order (waves). */
  readonly toRun: readonly UnitId[];
  readonly kept: readonly UnitId[];
  /** Units `exclude` blocks leave out: never run. */
  readonly excluded: readonly UnitId[];
  /** Environments the units to run belong to. */
  readonly envs: readonly string[];
  /** The run id being resumed, if any. */
  readonly resuming?: string;
}

export type RunResult =
  | {
      readonly type: 'finished';
      readonly status: RunOutcomeStatus;
      readonly runId: string;
      readonly counts: StatusCounts;
      readonly problems: readonly string[];
      readonly state: Readonly<RunState>;
      /** The run lost its shared lock: it started nothing more after that (exit 3). */
      readonly fenced?: string;
    }
  | {
      readonly type: 'invalid';
      readonly reason:
        | 'unknown-unit'
        | 'unknown-env'
        | 'empty-selection'
        | 'cycle'
        | 'nothing-to-resume'
        | 'other-command'
        | 'state-unreadable';
      readonly message: string;
      readonly details?: readonly string[];
      readonly hint?: string;
    }
  | { readonly type: 'cancelled' }
  | {
      readonly type: 'refused';
      /**
       * `disk-error`: the lock, the state file or the log directory cannot be written; nothing was run.
       * `preflight-failed`: the before-run phase (manual steps) refused; nothing was run.
       */
      readonly reason:
        | 'lock-held'
        | 'lock-unreadable'
        | 'graph-changed'
        | 'disk-error'
        | 'preflight-failed'
        | 'state-unreachable'
        | 'state-changed';
      readonly message: string;
      readonly details?: readonly string[];
      readonly hint?: string;
      /** With `preflight-failed`: the preflight's own reason (`manual-steps-not-done`). */
      readonly preflight?: string;
    };

/** `20260129T101500Z-3fa2c1`: sortable by time, unique enough to name a log directory. */
export function makeRunId(now: number): string {
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export async function executeRun(request: RunRequest, deps: RunDeps): Promise<RunResult> {
  const problems: string[] = [];
  const emit = guardEmit(deps.emit, (error) => problems.push(reporterFailed(error, 'the run')));
  const run = new RunContext(request, { ...deps, emit }, problems);
  const locked = await takeLock(run);
  if (locked.type !== 'locked') return locked.result;
  try {
    const prepared = await prepare(run);
    if (prepared.type !== 'prepared') return prepared.result;
    const envLocked = await lockEnvironments(run, prepared);
    if (envLocked !== undefined) return envLocked;
    if (prepared.replaces !== undefined) run.warn(prepared.replaces);
    if (!(await confirm(run, prepared))) return { type: 'cancelled' };
    const preflight = (await deps.phases?.beforeRun?.({
      command: request.command,
      plan: prepared.plan,
      resumed: prepared.resumed,
      signal: deps.signal,
      now: deps.now,
    })) ?? { ok: true as const };
    // A check or question the first Ctrl-C cut short is an interruption (130), not a refusal: nothing was run.
    if (!preflight.ok && deps.signal.aborted) return { type: 'cancelled' };
    if (!preflight.ok) {
      const { reason, message, details, hint } = preflight;
      return {
        type: 'refused',
        reason: 'preflight-failed',
        message,
        ...(details ? { details } : {}),
        ...(hint ? { hint } : {}),
        ...(reason ? { preflight: reason } : {}),
      };
    }
    const started = await start(run, prepared, preflight.manualSteps);
    if (started.type !== 'started') return started.result;
    return await walkAndFinish(run, prepared, started);
  } finally {
    for (const problem of (await run.envLocks?.release()) ?? []) run.warn(problem);
    const problem = await locked.release();
    if (problem) run.warn(problem);
  }
}

/** The request, the injected machine and the problems found so far, shared by a run's phases. */
class RunContext {
  /** The shared backend's environment locks, once taken (released when the run ends, whatever happens). */
  envLocks: EnvLocks | undefined;

  constructor(
    readonly request: RunRequest,
    readonly deps: RunDeps,
    readonly problems: string[],
  ) {}

  iso(): string {
    return new Date(this.deps.now()).toISOString();
  }

  warn(message: string): void {
    this.deps.emit({ type: 'warning', at: this.iso(), message });
  }
}

/** Takes the repository lock, or says who holds it. */
async function takeLock(
  run: RunContext,
): Promise<{ type: 'locked'; release: () => Promise<string | undefined> } | { type: 'refused'; result: RunResult }> {
  const { request, deps } = run;
  const { root } = request;
  const locked = await acquireLock(root, { command: request.commandLine, startedAt: run.iso() }, deps.machine);
  if (locked.type !== 'acquired') {
    const { reason, message, details, hint } = lockRefusal(locked, root, deps.machine.host);
    return {
      type: 'refused',
      result: {
        type: 'refused',
        reason,
        message,
        ...(details.length > 0 ? { details } : {}),
        ...(hint === undefined ? {} : { hint }),
      },
    };
  }
  if (locked.tookOver) {
    const h = locked.tookOver;
    run.warn(`took over ${LOCK_FILE} from a run that is gone (pid ${h.pid}, "${h.command}", started ${h.started_at})`);
  }
  return { type: 'locked', release: () => locked.lock.release() };
}

interface Prepared {
  readonly type: 'prepared';
  readonly plan: Plan;
  readonly selection: SelectionArgs;
  readonly previous: RunState | undefined;
  readonly resumed: RunState | undefined;
  /** Why the state file on disk cannot be read: it is kept as a backup before the new run's state replaces it. */
  readonly unreadable: string | undefined;
  /** The resumed run's id, or a new one (the shared locks name it before the state file exists). */
  readonly runId: string;
  /** With the shared backend, the line naming the run resumed (id, environments, who, when). */
  readonly resuming?: string;
  /** The warning that this new run replaces an unfinished run's state: printed once the locks are held. */
  readonly replaces?: string;
}

type Stop = { type: 'stop'; result: RunResult };

function stop(result: RunResult): Stop {
  return { type: 'stop', result };
}

/** Reads the last run's state, stops what a killed run left, plans, and checks a resume against the graph. */
async function prepare(run: RunContext): Promise<Prepared | Stop> {
  const { request, deps } = run;
  const read = await readPrevious(run);
  if (read.type === 'stop') return read;
  const { loaded, previous, resuming } = read;
  const refusal = resumeRefusal(request, previous);
  if (refusal) return stop(refusal);
  const resumed = request.resume ? previous : undefined;
  const selection: SelectionArgs = resumed
    ? { env: resumed.args.env, unit: resumed.args.unit, withDeps: resumed.args.with_deps }
    : request.selection;
  const planned = planRun({
    command: request.command,
    graph: request.graph,
    config: request.config,
    selection,
    ...(request.preventDestroy ? { preventDestroy: request.preventDestroy } : {}),
    ...(request.excluded ? { excluded: request.excluded } : {}),
  });
  if (planned.type === 'invalid') return stop(planned);
  const plan = planned.plan;
  const changed = resumed ? graphChangedRefusal(run, resumed, plan) : undefined;
  if (changed) return stop(changed);
  // Said only once the run holds its locks (executeRun): a run refused for a held lock replaces nothing.
  const replaces =
    previous && !resumed && previous.status !== 'completed'
      ? `the previous ${previous.command} (${previous.run_id}) ended ${previous.status}; this new run replaces its ` +
        `state (platctl ${previous.command} --resume would have continued it)`
      : undefined;
  const unreadable = loaded.type === 'invalid' ? loaded.message : undefined;
  const runId = resumed?.run_id ?? (deps.newRunId ?? (() => makeRunId(deps.now())))();
  return {
    type: 'prepared',
    plan,
    selection,
    previous,
    resumed,
    unreadable,
    runId,
    ...(resumed && resuming ? { resuming } : {}),
    ...(replaces === undefined ? {} : { replaces }),
  };
}

interface PreviousRun {
  readonly type: 'read';
  readonly loaded: LoadedState;
  /** The last run: the shared backend's with one, else this checkout's. */
  readonly previous: RunState | undefined;
  readonly resuming: string | undefined;
}

/**
 * The last run's state, from this checkout and, with one, the shared backend; stops the processes a killed run of
 * this checkout left. Stops when the state cannot serve the resume asked for.
 */
async function readPrevious(run: RunContext): Promise<PreviousRun | Stop> {
  const { request, deps } = run;
  const { root } = request;
  await removeStaleTempFiles(root);
  const loaded = await loadState(root);
  const local = loaded.type === 'ok' ? loaded.state : undefined;
  let previous = local;
  let resuming: string | undefined;
  if (deps.shared) {
    const resume = request.resume ? { command: request.command, envs: request.selection.env } : undefined;
    const remote = await sharedPrevious(deps.shared, local, (message) => run.warn(message), resume);
    if (remote.type !== 'ok') return stop(remote);
    previous = remote.previous;
    resuming = remote.resuming;
  } else if (request.resume && local && request.selection.env.length > 0 && !sameEnvs(local, request.selection.env)) {
    // The local backend keeps one run: --resume --env must name that run's selection.
    return stop({
      type: 'invalid',
      reason: 'nothing-to-resume',
      message:
        `the last run of ${root} (${local.run_id}) was started with ` +
        `${local.args.env.length > 0 ? local.args.env.map((e) => `--env ${e}`).join(' ') : 'no --env'}, ` +
        `not ${request.selection.env.map((e) => `--env ${e}`).join(' ')}`,
      hint: `resume it with its own selection (platctl ${request.command} --resume), or run without --resume`,
    });
  }
  if (loaded.type === 'invalid') {
    if (request.resume)
      return stop({
        type: 'invalid',
        reason: 'state-unreadable',
        message: loaded.message,
        hint: 'run without --resume to start a new run; it keeps the unreadable file as a backup',
      });
  }
  // Only a run of this checkout can have left processes on this machine.
  if (local) await stopOrphans(local, deps, (message) => run.warn(message));
  return { type: 'read', loaded, previous, resuming };
}

/** Why `--resume` cannot continue `previous` (there is none, or it ran another verb); undefined when it can. */
function resumeRefusal(request: RunRequest, previous: RunState | undefined): RunResult | undefined {
  if (!request.resume) return undefined;
  if (!previous) {
    return {
      type: 'invalid',
      reason: 'nothing-to-resume',
      message: `there is no earlier run to resume in ${request.root}`,
      hint: `run platctl ${request.command} without --resume`,
    };
  }
  if (previous.command !== request.command) {
    return {
      type: 'invalid',
      reason: 'other-command',
      message: `the last run was a ${previous.command} (${previous.run_id}); --resume continues only the same verb`,
      hint: `run platctl ${previous.command} --resume to continue it, or platctl ${request.command} without --resume`,
    };
  }
  return undefined;
}

/**
 * A resume whose graph changed since the run started is refused, or with --force goes on with a warning naming the
 * changes; undefined when it may go on.
 */
function graphChangedRefusal(run: RunContext, resumed: RunState, plan: Plan): RunResult | undefined {
  const { request } = run;
  if (resumed.graph_fingerprint === plan.fingerprint) return undefined;
  const details = describeDiff(diffScope(resumed.units, plan.scope));
  if (!request.force) {
    return {
      type: 'refused',
      reason: 'graph-changed',
      message: `the graph changed since run ${resumed.run_id} started, so resuming it could apply units against a stale order`,
      details,
      hint: `check the changes, then resume anyway with platctl ${request.command} --resume --force, or start a new run without --resume`,
    };
  }
  run.warn(`the graph changed since run ${resumed.run_id}; resuming anyway (--force): ${details.join('; ')}`);
  return undefined;
}

/** True when `state` was started with exactly the environments `envs` (`--env`). */
function sameEnvs(state: RunState, envs: readonly string[]): boolean {
  const key = (values: readonly string[]): string => [...new Set(values)].sort().join('\n');
  return key(state.args.env) === key(envs);
}

/**
 * With the shared backend: locks every environment of the selection (sorted, so overlapping runs never deadlock) and,
 * for a resume, checks no other machine resumed the run meanwhile. Undefined when the run may go on; the locks are on
 * `run.envLocks` and released by `executeRun` whatever happens next.
 */
async function lockEnvironments(run: RunContext, prepared: Prepared): Promise<RunResult | undefined> {
  const { request, deps } = run;
  if (!deps.shared) return undefined;
  const { plan, resumed, runId } = prepared;
  const envs = [...new Set(plan.scope.ids().map((id) => plan.scope.get(id)?.env ?? id.split('/')[0] ?? id))];
  const got = await lockShared(
    deps.shared,
    { envs, runId, verb: request.command, command: request.commandLine },
    deps.now,
    (message) => run.warn(message),
  );
  if (got.type === 'refused') return got;
  run.envLocks = got.locks;
  const locks = got.locks;
  locks.fenced.addEventListener('abort', () =>
    run.warn(`${locks.fenceReason}: starting no more units; the running ones finish, then the run stops (exit 3)`),
  );
  return resumed ? await checkResumedUnchanged(deps.shared, resumed) : undefined;
}

/** Asks (teardown) before anything changes; true without a prompt. */
async function confirm(run: RunContext, { plan, resumed }: Prepared): Promise<boolean> {
  const ask = run.deps.confirm;
  if (!ask) return true;
  const completedBefore = new Set(
    resumed ? Object.keys(resumed.units).filter((id) => resumed.units[id]?.status === 'completed') : [],
  );
  const toRun = waves(plan.walkGraph)
    .flat()
    .filter((id) => !completedBefore.has(id));
  const envs = [...new Set(toRun.map((id) => plan.walkGraph.get(id)?.env ?? ''))].sort(compareIds);
  return ask({
    command: run.request.command,
    toRun,
    kept: plan.kept,
    excluded: [...plan.excluded.keys()],
    envs,
    ...(resumed ? { resuming: resumed.run_id } : {}),
  });
}

interface Started {
  readonly type: 'started';
  readonly runId: string;
  readonly store: StateStore;
  readonly parallelism: number;
  readonly failFast: boolean;
  readonly estimates: ReadonlyMap<UnitId, number>;
  readonly startedAt: number;
  /** Uploads the state and the unit logs (shared backend only). */
  readonly publisher: RunPublisher | undefined;
}

/**
 * Keeps an unreadable state file as a backup, writes the run's initial state and log directory, and announces the
 * run. A disk that refuses (read-only, full, no permission) is a refusal: nothing has run yet.
 */
async function start(
  run: RunContext,
  prepared: Prepared,
  manualSteps: Readonly<Record<string, ManualStepRecord>> | undefined,
): Promise<Started | Stop> {
  const { request, deps } = run;
  const { plan, selection, previous, resumed, runId } = prepared;
  const parallelism = Math.max(1, request.parallelism ?? resumed?.args.parallelism ?? request.config.parallelism.apply);
  const failFast = request.failFast || (resumed?.args.fail_fast ?? false);
  const args: RunArgs = {
    env: [...selection.env],
    unit: [...selection.unit],
    with_deps: selection.withDeps,
    parallelism,
    fail_fast: failFast,
  };
  const state = initialState({ request, plan, runId, args, previous, resumed, startedAt: run.iso() });
  if (manualSteps && Object.keys(manualSteps).length > 0) {
    state.manual_steps = { ...(state.manual_steps ?? {}), ...manualSteps };
  }
  // With the shared backend every write of the state file is uploaded too, under the environment locks' fence.
  const locks = run.envLocks;
  const publisher =
    deps.shared && locks
      ? new RunPublisher({ store: deps.shared.store, locks, root: request.root, by: deps.shared.by, envs: locks.envs })
      : undefined;
  const store = new StateStore(request.root, state, {
    now: deps.now,
    ...deps.stateOptions,
    ...(publisher ? { onWritten: (buffers: readonly Uint8Array[]) => publisher.stateWritten(buffers) } : {}),
  });
  try {
    if (prepared.unreadable !== undefined) {
      run.warn(
        `${prepared.unreadable}; kept it as ${await backupState(request.root, deps.now())} and started a new run`,
      );
    }
    await prepareRunLogs(request.root, runId);
    await store.flush();
  } catch (error) {
    if (!(error instanceof FsError)) throw error;
    await publisher?.close();
    return {
      type: 'stop',
      result: { type: 'refused', reason: 'disk-error', message: `${error.message}; nothing was run` },
    };
  }

  const { estimates, known } = estimatesFor(request.command, previous, plan);
  const toRun = plan.walkGraph.ids().filter((id) => state.units[id]?.status !== 'completed');
  const paths = remainingPathWeights(plan.walkGraph, (id) => estimates.get(id) ?? 1);
  deps.emit({
    type: 'run-started',
    at: run.iso(),
    run_id: runId,
    command: request.command,
    resumed: resumed !== undefined,
    ...(prepared.resuming ? { resuming: prepared.resuming } : {}),
    total: plan.scope.size,
    to_run: toRun.length,
    parallelism,
    kept: plan.kept,
    excluded: [...plan.excluded.keys()],
    estimates_ms: Object.fromEntries(toRun.map((id) => [id, estimates.get(id) ?? 1])),
    remaining_path_ms: Object.fromEntries(toRun.map((id) => [id, paths.get(id) ?? 1])),
    estimates_known: known,
  });
  return { type: 'started', runId, store, parallelism, failFast, estimates, startedAt: deps.now(), publisher };
}

/**
 * Before-walk phase, the walk, after-walk phase, and the run's end. Whatever happens in between (a bug included), the
 * run's status and its last transitions are written before this returns or throws.
 */
async function walkAndFinish(run: RunContext, prepared: Prepared, started: Started): Promise<RunResult> {
  const { request, deps, problems } = run;
  const { store, runId } = started;
  const executor = deps.executor(runId);
  const phase = phaseContext(run, prepared, started, executor);
  let status: RunOutcomeStatus = 'failed';
  let counts = emptyCounts();
  try {
    status = await phasesAndWalk(run, prepared, started, executor, phase);
  } catch (error) {
    problems.push(`internal error (a bug in platctl): ${(error as Error).message}`);
    status = 'failed';
  } finally {
    ({ status, counts } = await closeRun(run, prepared, started, status));
  }
  deps.emit({
    type: 'run-finished',
    at: run.iso(),
    run_id: runId,
    command: request.command,
    status,
    counts,
    duration_ms: deps.now() - started.startedAt,
  });
  const fenced = run.envLocks?.fenceReason;
  return {
    type: 'finished',
    status,
    runId,
    counts,
    problems,
    state: store.state,
    ...(fenced === undefined ? {} : { fenced }),
  };
}

/** Asks the shared lock whether it is still this run's (false: fenced, act no more). */
async function stillOurs(run: RunContext): Promise<boolean> {
  return run.envLocks ? await run.envLocks.ensureFresh() : true;
}

/** The rollback probe, the before-walk phase, then the walk and what follows it; the run's status. */
async function phasesAndWalk(
  run: RunContext,
  prepared: Prepared,
  started: Started,
  executor: Executor,
  phase: PhaseContext,
): Promise<RunOutcomeStatus> {
  const { deps, problems } = run;
  const { store } = started;
  // The rollback probe reads what stood before anything is applied (the before-walk phase applies too).
  const probes = await probeBeforeRun(run, prepared, started, executor);
  const before =
    deps.signal.aborted || !(await stillOurs(run))
      ? { ok: true as const }
      : ((await deps.phases?.beforeWalk?.(phase)) ?? { ok: true as const });
  let status: RunOutcomeStatus;
  if (run.envLocks?.fenced.aborted || deps.signal.aborted) {
    status = 'interrupted';
  } else if (!before.ok) {
    problems.push(before.message, ...(before.details ?? []));
    status = deps.signal.aborted ? 'interrupted' : 'failed';
  } else {
    status = await walkAndAfter(run, prepared, started, executor, phase, probes);
  }
  if (probes !== undefined && store.state.rollback?.status === 'armed' && status !== 'completed') {
    // Failed after the walk (the lockdown) or interrupted before it: a rollback follows only a unit's failed apply.
    await holdRollback(run, started, deps.signal.aborted ? 'interrupted' : 'not-a-unit-failure');
  }
  return status;
}

/** The walk, a rollback when one is due, then convergence and the after-walk phase once the core stands. */
async function walkAndAfter(
  run: RunContext,
  prepared: Prepared,
  started: Started,
  executor: Executor,
  phase: PhaseContext,
  probes: Awaited<ReturnType<typeof probeBeforeRun>>,
): Promise<RunOutcomeStatus> {
  const { deps, problems } = run;
  const { plan } = prepared;
  const { store } = started;
  const result = await walkUnits(run, prepared, started, executor);
  problems.push(...result.problems);
  // Fenced: nothing failed, the units left are pending; --resume (once the lock is free) continues them.
  let status = run.envLocks?.fenced.aborted && result.status === 'failed' ? 'interrupted' : result.status;
  const failures = walkFailures(store, plan.walkGraph, result.problems.length > 0);
  if (probes !== undefined) status = await rollBackIfDue(run, prepared, started, executor, probes, status, failures);
  // Only optional units failed: the core stands, so convergence and the after-walk phase (lockdown) run; the run
  // still fails.
  let coreDone = status === 'completed' || (status === 'failed' && failures.onlyOptional);
  for (const name of AFTER_WALK_PHASES) {
    const runPhase = deps.phases?.[name];
    if (!coreDone || !runPhase) continue;
    const ended = (await stillOurs(run)) ? await runPhase(phase) : undefined;
    if (ended === undefined) status = 'interrupted';
    else if (!ended.ok) {
      // A phase recorded as failed is the run's headline (the summary and status show it), not a warning; nothing
      // is rolled back.
      if (store.state[PHASE_RECORD[name]]?.status !== 'failed') problems.push(ended.message, ...(ended.details ?? []));
      status = deps.signal.aborted ? 'interrupted' : 'failed';
    }
    if (ended === undefined || !ended.ok) coreDone = false;
  }
  return status;
}

/** Where each phase after the walk records its progress in the state. */
const PHASE_RECORD = { converge: 'converge', afterWalk: 'lockdown' } as const;

/** The walk of the plan's units, each unit's log opened under the run's logs. */
function walkUnits(run: RunContext, prepared: Prepared, started: Started, executor: Executor): ReturnType<typeof walk> {
  const { request, deps } = run;
  const { plan } = prepared;
  const { store, runId, publisher } = started;
  const locks = run.envLocks;
  // Shared backend: each unit's log is uploaded once the unit ends.
  const emit = (event: WalkEvent): void => {
    if (event.type === 'unit-completed' || event.type === 'unit-failed' || event.type === 'unit-interrupted') {
      publisher?.unitLogClosed(runId, event.log);
    }
    deps.emit(event);
  };
  return walk({
    graph: plan.walkGraph,
    store,
    executor,
    command: request.command,
    parallelism: started.parallelism,
    failFast: started.failFast,
    optional: (id) => store.unit(id)?.optional === true,
    signal: deps.signal,
    ...(locks ? { halt: locks.fenced, beforeSpawn: () => locks.ensureFresh() } : {}),
    now: deps.now,
    emit,
    weight: (id) => started.estimates.get(id) ?? 1,
    job: (unit) => unitJob(request, unit),
    openLog: (unit, header) =>
      UnitLog.open(
        request.root,
        store.unit(unit)?.log ?? logRelPath(runId, plan.waves.get(unit) ?? 0, unit),
        {
          title: request.command,
          unit,
          attempt: header.attempt,
          startedAt: header.startedAt,
          commandLine: formatCommandLine(header.commandLine),
          cwd: request.absDir(unit),
        },
        deps.redactor.fork(),
      ),
    ...(deps.phases?.unitHooks ? { hooks: deps.phases.unitHooks } : {}),
    ...(deps.phases?.recoveries ? { recoveries: deps.phases.recoveries } : {}),
  });
}

/**
 * The run's end, whatever happened before: counts the units, writes the status and closes the state (a disk error
 * there, or a shared upload that did not finish, fails a completed run), and prints the problems.
 */
async function closeRun(
  run: RunContext,
  prepared: Prepared,
  started: Started,
  ended: RunOutcomeStatus,
): Promise<{ status: RunOutcomeStatus; counts: StatusCounts }> {
  const { problems } = run;
  const { plan } = prepared;
  const { store, publisher } = started;
  let status = ended;
  const counts = emptyCounts();
  for (const id of plan.walkGraph.ids()) {
    const unitStatus = store.unit(id)?.status;
    if (unitStatus) counts[unitStatus] += 1;
  }
  // Kept and excluded units are counted in the totals: they are part of the selection and need nothing more.
  counts.completed += plan.kept.length;
  counts.excluded += plan.excluded.size;
  const fenced = run.envLocks?.fenceReason;
  store.patchRun({ status, ended_at: run.iso(), ...(fenced === undefined ? {} : { stopped_because: fenced }) });
  // A disk that filled up (or went read-only) mid-run must not cost the summary and the resume command.
  await store.close().catch((error: unknown) => {
    if (!(error instanceof FsError)) throw error;
    problems.push(
      `${error.message}; the file still shows an earlier moment of this run, so --resume may run again units that completed since`,
    );
    if (status === 'completed') {
      status = 'failed';
      store.patchRun({ status });
    }
  });
  const unpublished = (await publisher?.close()) ?? [];
  problems.push(...unpublished);
  if (unpublished.length > 0 && status === 'completed') {
    status = 'failed';
    store.patchRun({ status });
  }
  for (const problem of problems) run.warn(problem);
  return { status, counts };
}

/**
 * With rollback on (a bootstrap): reads, before the first apply, what each unit the walk will run held; the answers
 * (or, with `--no-rollback`, none) go into the state's `rollback` record. Undefined when rollback is off.
 */
async function probeBeforeRun(
  run: RunContext,
  prepared: Prepared,
  started: Started,
  executor: Executor,
): Promise<Map<UnitId, StateProbe> | undefined> {
  const { request, deps } = run;
  const { store } = started;
  if (request.command !== 'bootstrap' || request.rollback === undefined) return undefined;
  const probes = new Map<UnitId, StateProbe>();
  if (request.rollback === 'on_failure') {
    const walked = new Set(prepared.plan.walkGraph.ids());
    const units = [...walked].filter((id) => store.unit(id)?.status === 'pending');
    // A unit goes only when nothing that depends on it stays, outside the selection too (engine/rollback.ts): the
    // direct dependents outside the walk are probed as well, so one that holds no state does not keep its
    // dependency standing. One whose probe fails counts as standing, as a dependent never probed does.
    const outside = new Set<UnitId>();
    for (const id of walked) {
      for (const dependent of request.graph.get(id)?.dependents ?? []) {
        if (!walked.has(dependent)) outside.add(dependent);
      }
    }
    units.push(...[...outside].sort());
    const found = await probeUnits({
      units,
      executor,
      absDir: request.absDir,
      timeoutMs: (unit) => request.config.units[unit]?.timeout ?? request.config.unit_timeout,
      parallelism: started.parallelism,
      signal: deps.signal,
      emit: deps.emit,
      now: deps.now,
    });
    for (const [unit, probe] of found) probes.set(unit, probe);
  }
  store.patchRun({ rollback: { mode: request.rollback, status: 'armed', probe: probeRecord(probes) } });
  await store.flush();
  return probes;
}

/** The units whose apply failed, and whether they are all optional with nothing else left undone. */
function walkFailures(
  store: StateStore,
  graph: Graph,
  hadProblems: boolean,
): { failed: UnitId[]; onlyOptional: boolean } {
  const failed = graph.ids().filter((id) => store.unit(id)?.status === 'failed');
  const optional = (id: UnitId | undefined): boolean => id !== undefined && store.unit(id)?.optional === true;
  const onlyOptional =
    !hadProblems &&
    failed.length > 0 &&
    graph.ids().every((id) => {
      const unit = store.unit(id);
      if (unit === undefined || unit.status === 'completed' || unit.status === 'excluded') return true;
      if (unit.status === 'failed') return optional(id);
      return unit.status === 'skipped' && unit.skip_reason === 'dependency-failed' && optional(unit.skipped_because);
    });
  return { failed, onlyOptional };
}

/**
 * After the walk, with rollback on: when a unit's apply failed, decides (engine/rollback.ts) and either says which rule
 * keeps the platform standing or destroys what the run created. Returns the run's status after it.
 */
async function rollBackIfDue(
  run: RunContext,
  prepared: Prepared,
  started: Started,
  executor: Executor,
  probes: ReadonlyMap<UnitId, StateProbe>,
  status: RunOutcomeStatus,
  failures: { failed: readonly UnitId[] },
): Promise<RunOutcomeStatus> {
  const { request, deps } = run;
  const { store } = started;
  if (status !== 'failed' || failures.failed.length === 0 || deps.signal.aborted) return status;
  const applied = prepared.plan.walkGraph
    .ids()
    .filter((id) => probes.has(id) && ['completed', 'failed'].includes(store.unit(id)?.status ?? ''));
  const decision = decideRollback({
    graph: request.graph,
    ended: 'unit-failed',
    refused: request.rollback === 'refused',
    failed: failures.failed,
    optional: (id) => store.unit(id)?.optional === true,
    applied,
    before: probes,
    floor: (id) => request.config.units[id]?.teardown_skip === true || request.preventDestroy?.has(id) === true,
  });
  const { event, patch } = announceDecision(decision, run.iso());
  const current = store.state.rollback;
  if (current) store.patchRun({ rollback: { ...current, ...patch } });
  await store.flush();
  deps.emit(event);
  if (decision.type === 'hold') return status;
  const result = await runRollback({
    root: request.root,
    runId: started.runId,
    graph: request.graph,
    order: decision.order,
    config: request.config,
    absDir: request.absDir,
    executor,
    redactor: deps.redactor,
    parallelism: started.parallelism,
    signal: deps.signal,
    now: deps.now,
    emit: deps.emit,
    store,
    platctlVersion: request.platctlVersion,
  });
  return result === 'interrupted' ? 'interrupted' : 'failed';
}

/** Records and says the rule that kept the platform standing when the run failed other than in a unit's apply. */
async function holdRollback(run: RunContext, started: Started, rule: HoldRule): Promise<void> {
  const { store } = started;
  const current = store.state.rollback;
  if (!current) return;
  const message = holdMessage(current.mode === 'refused' ? 'no-rollback' : rule);
  store.patchRun({
    rollback: { ...current, status: 'held', rule: current.mode === 'refused' ? 'no-rollback' : rule, message },
  });
  await store.flush();
  run.deps.emit({ type: 'rollback-decided', at: run.iso(), action: 'hold', rule, message, destroy: [], kept: [] });
}

/** A unit's directory, arguments and time limit for the walk. */
function unitJob(request: RunRequest, unit: UnitId): Omit<UnitJob, 'attempt' | 'command' | 'unit'> {
  const settings = request.config.units[unit];
  return {
    absDir: request.absDir(unit),
    tfArgs: (request.command === 'bootstrap' ? settings?.apply_args : settings?.teardown_args) ?? [],
    timeoutMs: settings?.timeout ?? request.config.unit_timeout,
  };
}

/** What the phases around the walk get: the run's facts, its state, and applies outside the walk. */
function phaseContext(run: RunContext, prepared: Prepared, started: Started, executor: Executor): PhaseContext {
  const { request, deps } = run;
  const { store, runId } = started;
  return {
    command: request.command,
    runId,
    partial: prepared.plan.scope.size < request.graph.size,
    signal: deps.signal,
    now: deps.now,
    emit: deps.emit,
    unitStatus: (unit) => store.unit(unit)?.status,
    records: () => store.state,
    record: async (patch) => {
      store.patchRun(patch);
      await store.flush();
    },
    apply: phaseApply({
      ...request,
      runId,
      executor,
      redactor: deps.redactor,
      now: deps.now,
      signal: deps.signal,
      warn: (message) => run.warn(message),
      // Shared backend: uploaded like a unit's log, once the apply ends.
      onLogClosed: (log) => started.publisher?.unitLogClosed(runId, log),
    }),
  };
}

/** Lines of a phase apply's output kept for its caller. */
const PHASE_OUTPUT_LINES = 2000;

interface PhaseApplyInput {
  readonly root: string;
  readonly runId: string;
  readonly config: PlatctlConfig;
  readonly absDir: (unit: UnitId) => string;
  readonly executor: Executor;
  readonly redactor: Redactor;
  readonly now: () => number;
  readonly signal: AbortSignal;
  /** Says what went wrong around an apply that still has its outcome (a log that could not be finished). */
  readonly warn: (message: string) => void;
  /** Told each log (relative to the root) once its apply ended and it is closed. */
  readonly onLogClosed?: (log: string) => void;
}

/**
 * Applies of a unit outside the walk (lockdown and unlock steps): always `apply`, with the unit's `apply_args` and
 * time limit, each into `.platctl-logs/<run>/<logName>.log` (attempts appended).
 */
export function phaseApply(input: PhaseApplyInput): PhaseContext['apply'] {
  const { config, executor, now } = input;
  return async (apply) => {
    const job: UnitJob = {
      unit: apply.unit,
      command: 'apply',
      absDir: input.absDir(apply.unit),
      tfArgs: [...(config.units[apply.unit]?.apply_args ?? []), ...apply.extraArgs],
      attempt: apply.attempt,
      timeoutMs: config.units[apply.unit]?.timeout ?? config.unit_timeout,
    };
    const rel = `${LOGS_DIR}/${input.runId}/${apply.logName}.log`;
    const startedAt = now();
    let log: UnitLog;
    try {
      log = await UnitLog.open(
        input.root,
        rel,
        {
          title: apply.title,
          unit: apply.unit,
          attempt: apply.attempt,
          startedAt: new Date(startedAt).toISOString(),
          commandLine: formatCommandLine(executor.commandLine(job)),
          cwd: job.absDir,
        },
        input.redactor.fork(),
      );
    } catch (error) {
      // A disk that refuses the log is an expected failure of this apply (nothing ran), not a bug.
      if (!(error instanceof FsError)) throw error;
      return {
        outcome: { type: 'failed', reason: 'spawn-error', message: error.message },
        output: [],
        errorLine: undefined,
        log: rel,
      };
    }
    const { outcome, output } = await runPhaseJob(input, job, log);
    const errorLine = log.errorLine();
    const closed = await closePhaseLog(log, outcome, startedAt, now());
    // The apply's outcome stands; a log that could not be finished is said, not hidden.
    if (closed !== undefined) input.warn(`cannot finish the log ${rel}: ${closed}`);
    input.onLogClosed?.(rel);
    return { outcome, output, errorLine, log: rel };
  };
}

/** Runs a phase's apply into its log, keeping its last output lines (redacted, without escapes) for the caller. */
async function runPhaseJob(
  input: PhaseApplyInput,
  job: UnitJob,
  log: UnitLog,
): Promise<{ outcome: UnitOutcome; output: string[] }> {
  const output: string[] = [];
  const redact = input.redactor.fork();
  let outcome: UnitOutcome;
  try {
    outcome = await input.executor.run(job, {
      output: {
        line: (text, stream) => {
          log.line(text, stream);
          // The log strips escapes itself; the lines kept for the verdict and the messages must not carry them.
          output.push(redact.line(stripAnsi(text)));
          if (output.length > PHASE_OUTPUT_LINES) output.shift();
        },
      },
      signal: input.signal,
    });
  } catch (error) {
    outcome = { type: 'failed', reason: 'spawn-error', message: (error as Error).message };
  }
  return { outcome, output };
}

/** Ends a phase apply's log with its outcome; the disk error's message when it could not be finished. */
async function closePhaseLog(
  log: UnitLog,
  outcome: UnitOutcome,
  startedAt: number,
  ended: number,
): Promise<string | undefined> {
  const exitCode = outcome.type === 'completed' ? 0 : outcome.exitCode;
  return log
    .close({
      result: outcome.type === 'failed' ? `failed (${outcome.reason})` : outcome.type,
      ...(exitCode === undefined ? {} : { exitCode }),
      endedAt: new Date(ended).toISOString(),
      durationMs: Math.max(0, ended - startedAt),
    })
    .then(
      () => undefined,
      (error: unknown) => {
        if (!(error instanceof FsError)) throw error;
        return error.message;
      },
    );
}

/** The state a run starts from: fresh, or the resumed run with everything not completed reset to pending. */
function initialState(input: {
  request: RunRequest;
  plan: Plan;
  runId: string;
  args: RunArgs;
  previous: RunState | undefined;
  resumed: RunState | undefined;
  startedAt: string;
}): RunState {
  const { plan, runId, resumed, previous } = input;
  const kept = new Set(plan.kept);
  const optional = optionalUnits(input.request.config);
  const units: Record<UnitId, UnitState> = {};
  for (const id of plan.scope.ids()) {
    const dependencies = [...(plan.scope.get(id)?.dependencies ?? [])].sort(compareIds);
    const wave = plan.waves.get(id) ?? 0;
    const before = resumed?.units[id];
    const excludedBy = plan.excluded.get(id);
    if (kept.has(id)) {
      units[id] = { status: 'completed', attempts: before?.attempts ?? 0, wave, dependencies, kept: true };
    } else if (excludedBy !== undefined) {
      const by = excludedBy === id ? {} : { excluded_by: excludedBy };
      units[id] = { status: 'excluded', attempts: before?.attempts ?? 0, wave, dependencies, ...by };
    } else if (before?.status === 'completed') {
      units[id] = { ...before, wave, dependencies };
    } else {
      units[id] = {
        status: 'pending',
        attempts: before?.attempts ?? 0,
        wave,
        dependencies,
        log: logRelPath(runId, wave, id),
        // Hooks that finished in an earlier attempt are not run again (a CRD stage that applied).
        ...(before?.hooks ? { hooks: before.hooks } : {}),
      };
    }
  }
  for (const id of plan.scope.ids()) {
    const unit = units[id];
    if (unit && optional(id)) unit.optional = true;
  }
  return {
    version: STATE_VERSION,
    run_id: runId,
    command: input.request.command,
    args: input.args,
    started_at: resumed?.started_at ?? input.startedAt,
    updated_at: input.startedAt,
    status: 'running',
    graph_fingerprint: plan.fingerprint,
    platctl_version: input.request.platctlVersion,
    resumes: resumed ? resumed.resumes + 1 : 0,
    known_durations_ms: previous?.known_durations_ms ?? {},
    // What this run's units are compared with (platctl report); a resumed run keeps the baseline it began with.
    history_ms: resumed?.history_ms ?? Object.fromEntries(knownDurations(input.request.command, previous)),
    ...(resumed?.manual_steps ? { manual_steps: resumed.manual_steps } : {}),
    ...(resumed?.converge ? { converge: resumed.converge } : {}),
    ...(resumed?.lockdown ? { lockdown: resumed.lockdown } : {}),
    units,
  };
}

/** Each unit's last known duration (ms) for `command` from earlier runs: the carried map and the previous run. */
function knownDurations(command: RunCommand, previous: RunState | undefined): Map<UnitId, number> {
  const known = new Map<UnitId, number>(Object.entries(previous?.known_durations_ms[command] ?? {}));
  if (previous?.command === command) {
    for (const [id, unit] of Object.entries(previous.units)) {
      if (unit.status === 'completed' && unit.duration_ms !== undefined && !unit.kept) known.set(id, unit.duration_ms);
    }
  }
  return known;
}

/**
 * Expected duration of each unit (ms) from earlier runs of the same verb. A unit never seen gets the median of the
 * known ones (1 when none is known), so one new unit does not look instant next to units measured in minutes.
 */
function estimatesFor(
  command: RunCommand,
  previous: RunState | undefined,
  plan: Plan,
): { estimates: Map<UnitId, number>; known: boolean } {
  const known = knownDurations(command, previous);
  const values = [...known.values()].sort((a, b) => a - b);
  const fallback = values.length > 0 ? (values[Math.floor(values.length / 2)] ?? 1) : 1;
  const out = new Map<UnitId, number>();
  for (const id of plan.walkGraph.ids()) out.set(id, Math.max(1, known.get(id) ?? fallback));
  return { estimates: out, known: values.length > 0 };
}

/**
 * Units the previous run recorded as running: if platctl was killed (kill -9, OOM, a closed terminal), their
 * Terragrunt processes may still run, detached, holding Terraform state locks. Each one that still carries the old
 * run's id in its environment is interrupted like a timeout (SIGINT, then SIGKILL after the grace period); one that
 * cannot be verified is left alone with a warning (its pid may belong to anything by now).
 */
async function stopOrphans(previous: RunState, deps: RunDeps, warn: (message: string) => void): Promise<void> {
  const candidates: { unit: UnitId; pid: number; recognised: boolean }[] = [];
  for (const [unit, state] of Object.entries(previous.units)) {
    if (state.status !== 'running') continue;
    if (state.pid !== undefined) {
      candidates.push({ unit, pid: state.pid, recognised: false });
      continue;
    }
    // Killed between the spawn and the write that records the pid: look for the unit by its environment.
    const groups = await findProcessGroups({ [RUN_ID_ENV]: previous.run_id, [UNIT_ENV]: unit }, deps.procRoot);
    for (const pid of groups) candidates.push({ unit, pid, recognised: true });
  }
  await Promise.all(
    candidates.map(async ({ unit, pid, recognised }) => {
      if (!deps.groups.alive(pid) || (await isZombie(pid, deps.procRoot))) return;
      if (!recognised && !(await processHasEnv(pid, RUN_ID_ENV, previous.run_id, deps.procRoot))) {
        warn(
          `unit ${unit} of the previous run may still be running as process group ${pid}; platctl cannot tell, so it leaves it alone`,
        );
        return;
      }
      warn(`stopping ${unit} (process group ${pid}), left running by the killed run ${previous.run_id}`);
      deps.groups.signal(pid, 'SIGINT');
      if (await waitForExit(deps, pid, deps.graceMs)) return;
      if (deps.signal.aborted) {
        // An interrupt never makes it more destructive: Terraform may still be releasing its state lock.
        warn(
          `interrupted while ${unit} (process group ${pid}) stopped after SIGINT; it was not killed: ` +
            `check it (ps -g ${pid}) before the next run`,
        );
        return;
      }
      // Whatever is left of the group (or a leader that ignored SIGINT) goes now.
      deps.groups.signal(pid, 'SIGKILL');
      await waitForExit({ ...deps, signal: new AbortController().signal }, pid, 5000);
    }),
  );
}

/** Waits until the group is gone or its leader is a zombie; false after `ms` or on the first Ctrl-C. */
async function waitForExit(
  deps: Pick<RunDeps, 'groups' | 'procRoot' | 'signal'>,
  pgid: number,
  ms: number,
): Promise<boolean> {
  const outcome = await poll({
    clock: systemClock,
    signal: deps.signal,
    timeoutMs: ms,
    intervalMs: 50,
    check: async () => ({
      done: !deps.groups.alive(pgid) || (await isZombie(pgid, deps.procRoot)),
      value: undefined,
    }),
  });
  return outcome.type === 'done';
}
