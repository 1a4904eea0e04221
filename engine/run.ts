/**
 * One mutating run (`bootstrap` or `teardown`) from lock to summary: take the repository lock, read the last run's
 * state, stop unit processes a killed platctl left behind, plan (or check a resume against the current graph), write
 * the initial state, walk, and record how it ended. Everything the machine provides is injected.
 */
import { randomBytes } from 'node:crypto';
import type { PlatctlConfig } from '../config/schema.js';
import type { RunOutcomeStatus, StatusCounts, WalkEvent } from './events.js';
import type { Executor } from './executor.js';
import type { Graph, UnitId } from './graph.js';
import { compareIds, remainingPathWeights, waves } from './graph.js';
import type { LockEnvironment } from './lock.js';
import { FsError } from './fs-errors.js';
import { LOCK_FILE, acquireLock } from './lock.js';
import { UnitLog, formatCommandLine, logRelPath, prepareRunLogs } from './logs.js';
import type { ExclusionsOf, Plan, SelectionArgs } from './plan.js';
import { describeDiff, diffScope, planRun } from './plan.js';
import type { ProcessGroups } from './processes.js';
import { findProcessGroups, isZombie, processHasEnv } from './processes.js';
import type { Redactor } from './redact.js';
import type { RunArgs, RunState, StateStoreOptions, UnitState } from './state.js';
import { STATE_VERSION, StateStore, backupState, loadState, removeStaleTempFiles } from './state.js';
import { UNIT_ENV } from './terragrunt.js';
import type { RunCommand } from './unit-status.js';
import { walk } from './walk.js';

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
      /** `disk-error`: the lock, the state file or the log directory cannot be written; nothing was run. */
      readonly reason: 'lock-held' | 'lock-unreadable' | 'graph-changed' | 'disk-error';
      readonly message: string;
      readonly details?: readonly string[];
      readonly hint?: string;
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
  const { root } = request;
  const iso = (): string => new Date(deps.now()).toISOString();
  const warn = (message: string): void => deps.emit({ type: 'warning', at: iso(), message });

  const locked = await acquireLock(root, { command: request.commandLine, startedAt: iso() }, deps.machine);
  if (locked.type === 'held') {
    const h = locked.holder;
    return {
      type: 'refused',
      reason: 'lock-held',
      message: `another platctl run holds ${LOCK_FILE} in ${root}`,
      details: [`pid ${h.pid} on ${h.host}`, `command: ${h.command}`, `started: ${h.started_at}`],
      hint:
        h.host === deps.machine.host
          ? 'wait for it to finish (platctl status shows its progress)'
          : `it runs on another host; if you are sure it is gone, delete ${LOCK_FILE}`,
    };
  }
  if (locked.type === 'unreadable') {
    return {
      type: 'refused',
      reason: 'lock-unreadable',
      message: `${locked.path} exists but cannot be read (${locked.message})`,
      hint: locked.hint ?? 'if no platctl run is in progress, delete it',
    };
  }
  if (locked.type === 'unwritable') {
    return { type: 'refused', reason: 'disk-error', message: `${locked.message}; nothing was run` };
  }
  const lock = locked.lock;
  try {
    if (locked.tookOver) {
      const h = locked.tookOver;
      warn(`took over ${LOCK_FILE} from a run that is gone (pid ${h.pid}, "${h.command}", started ${h.started_at})`);
    }
    await removeStaleTempFiles(root);
    const loaded = await loadState(root);
    const previous = loaded.type === 'ok' ? loaded.state : undefined;
    if (loaded.type === 'invalid') {
      if (request.resume)
        return {
          type: 'invalid',
          reason: 'state-unreadable',
          message: loaded.message,
          hint: 'run without --resume to start a new run; it keeps the unreadable file as a backup',
        };
    }
    if (previous) await stopOrphans(previous, deps, warn);

    if (request.resume && !previous) {
      return {
        type: 'invalid',
        reason: 'nothing-to-resume',
        message: `there is no earlier run to resume in ${root}`,
        hint: `run platctl ${request.command} without --resume`,
      };
    }
    if (request.resume && previous && previous.command !== request.command) {
      return {
        type: 'invalid',
        reason: 'other-command',
        message: `the last run was a ${previous.command} (${previous.run_id}); --resume continues only the same verb`,
        hint: `run platctl ${previous.command} --resume to continue it, or platctl ${request.command} without --resume`,
      };
    }
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
    if (planned.type === 'invalid') return planned;
    const plan = planned.plan;

    if (resumed && resumed.graph_fingerprint !== plan.fingerprint) {
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
      warn(`the graph changed since run ${resumed.run_id}; resuming anyway (--force): ${details.join('; ')}`);
    }
    if (previous && !resumed && previous.status !== 'completed') {
      warn(
        `the previous ${previous.command} (${previous.run_id}) ended ${previous.status}; this new run replaces its state ` +
          `(platctl ${previous.command} --resume would have continued it)`,
      );
    }

    if (deps.confirm) {
      const completedBefore = new Set(
        resumed ? Object.keys(resumed.units).filter((id) => resumed.units[id]?.status === 'completed') : [],
      );
      const toRun = waves(plan.walkGraph)
        .flat()
        .filter((id) => !completedBefore.has(id));
      const envs = [...new Set(toRun.map((id) => plan.walkGraph.get(id)?.env ?? ''))].sort(compareIds);
      const confirmed = await deps.confirm({
        command: request.command,
        toRun,
        kept: plan.kept,
        excluded: [...plan.excluded.keys()],
        envs,
        ...(resumed ? { resuming: resumed.run_id } : {}),
      });
      if (!confirmed) return { type: 'cancelled' };
    }

    const parallelism = Math.max(
      1,
      request.parallelism ?? resumed?.args.parallelism ?? request.config.parallelism.apply,
    );
    const failFast = request.failFast || (resumed?.args.fail_fast ?? false);
    const runId = resumed?.run_id ?? (deps.newRunId ?? (() => makeRunId(deps.now())))();
    const args: RunArgs = {
      env: [...selection.env],
      unit: [...selection.unit],
      with_deps: selection.withDeps,
      parallelism,
      fail_fast: failFast,
    };
    const state = initialState({ request, plan, runId, args, previous, resumed, startedAt: iso() });
    const store = new StateStore(root, state, { now: deps.now, ...deps.stateOptions });
    try {
      if (loaded.type === 'invalid') {
        warn(`${loaded.message}; kept it as ${await backupState(root, deps.now())} and started a new run`);
      }
      await prepareRunLogs(root, runId);
      await store.flush();
    } catch (error) {
      if (!(error instanceof FsError)) throw error;
      return { type: 'refused', reason: 'disk-error', message: `${error.message}; nothing was run` };
    }

    const { estimates, known } = estimatesFor(request.command, previous, plan);
    const kept = new Set(plan.kept);
    const toRun = plan.walkGraph.ids().filter((id) => state.units[id]?.status !== 'completed');
    const paths = remainingPathWeights(plan.walkGraph, (id) => estimates.get(id) ?? 1);
    deps.emit({
      type: 'run-started',
      at: iso(),
      run_id: runId,
      command: request.command,
      resumed: resumed !== undefined,
      total: plan.scope.size,
      to_run: toRun.length,
      parallelism,
      kept: plan.kept,
      excluded: [...plan.excluded.keys()],
      estimates_ms: Object.fromEntries(toRun.map((id) => [id, estimates.get(id) ?? 1])),
      remaining_path_ms: Object.fromEntries(toRun.map((id) => [id, paths.get(id) ?? 1])),
      estimates_known: known,
    });

    const started = deps.now();
    const executor = deps.executor(runId);
    const result = await walk({
      graph: plan.walkGraph,
      store,
      executor,
      command: request.command,
      parallelism,
      failFast,
      signal: deps.signal,
      now: deps.now,
      emit: deps.emit,
      weight: (id) => estimates.get(id) ?? 1,
      job: (unit) => ({
        absDir: request.absDir(unit),
        tfArgs:
          (request.command === 'bootstrap'
            ? request.config.units[unit]?.apply_args
            : request.config.units[unit]?.teardown_args) ?? [],
        timeoutMs: request.config.units[unit]?.timeout ?? request.config.unit_timeout,
      }),
      openLog: (unit, header) =>
        UnitLog.open(
          root,
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
    });
    // Kept and excluded units are counted in the totals: they are part of the selection and need nothing more.
    const counts = { ...result.counts };
    counts.completed += kept.size;
    counts.excluded += plan.excluded.size;
    store.patchRun({ status: result.status, ended_at: iso() });
    // A disk that filled up (or went read-only) mid-run must not cost the summary and the resume command.
    const problems = [...result.problems];
    await store.close().catch((error: unknown) => {
      if (!(error instanceof FsError)) throw error;
      problems.push(
        `${error.message}; the file still shows an earlier moment of this run, so --resume may run again units that completed since`,
      );
    });
    const status = problems.length > 0 && result.status === 'completed' ? 'failed' : result.status;
    if (status !== result.status) store.patchRun({ status });
    for (const problem of problems) warn(problem);
    deps.emit({
      type: 'run-finished',
      at: iso(),
      run_id: runId,
      command: request.command,
      status,
      counts,
      duration_ms: deps.now() - started,
    });
    return { type: 'finished', status, runId, counts, problems, state: store.state };
  } finally {
    const problem = await lock.release();
    if (problem) warn(problem);
  }
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
      };
    }
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
    units,
  };
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
  const known = new Map<UnitId, number>(Object.entries(previous?.known_durations_ms[command] ?? {}));
  if (previous?.command === command) {
    for (const [id, unit] of Object.entries(previous.units)) {
      if (unit.status === 'completed' && unit.duration_ms !== undefined && !unit.kept) known.set(id, unit.duration_ms);
    }
  }
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
      await waitForExit(deps.groups, pid, deps.graceMs, deps.procRoot);
      // Whatever is left of the group (or a leader that ignored SIGINT) goes now.
      deps.groups.signal(pid, 'SIGKILL');
      await waitForExit(deps.groups, pid, 5000, deps.procRoot);
    }),
  );
}

/** Waits until the group is gone or its leader is a zombie; false after `ms`. */
async function waitForExit(groups: ProcessGroups, pgid: number, ms: number, procRoot?: string): Promise<boolean> {
  const step = 50;
  for (let waited = 0; waited <= ms; waited += step) {
    if (!groups.alive(pgid) || (await isZombie(pgid, procRoot))) return true;
    await new Promise((resolve) => setTimeout(resolve, step));
  }
  return false;
}
