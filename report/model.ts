/**
 * The data of `platctl report`: one run (a bootstrap/teardown walk, or the last down/up of some environments) as
 * rows on a timeline, with the critical path, the lower bound on the makespan, parallelism over time and each unit
 * against its history. Pure: the caller reads the state and park files and passes the clock; the HTML renderer
 * (`html.ts`) and `--format json` both show this one model.
 */
import type { UnitId } from '../engine/graph.js';
import type { RunState, UnitState } from '../engine/state.js';
import type { UnitStatus } from '../engine/unit-status.js';
import type { ParkFile, StepRecord } from '../park/record.js';

export const REPORT_VERSION = 1;

/** A unit slower than its history by both this factor and {@link SLOWER_MIN_MS} is flagged. */
export const SLOWER_FACTOR = 1.25;
export const SLOWER_MIN_MS = 5_000;

export type RowStatus = UnitStatus | 'step-pending' | 'step-running' | 'step-completed' | 'step-failed';

/** One bar of the timeline: a unit of a walk, or a step of a down/up. Times are ms since the run's start. */
export interface ReportRow {
  readonly id: string;
  readonly kind: 'unit' | 'step';
  /** The environment (units) or `<env> <op>` (steps). */
  readonly group: string;
  readonly wave?: number;
  /** Unit statuses as in the state file; steps: pending, running, completed, failed. */
  readonly status: string;
  readonly attempts?: number;
  readonly dependencies: readonly string[];
  /** When it could start (its dependencies were done); absent when the state did not record it. */
  readonly ready_ms?: number;
  readonly start_ms?: number;
  /** Absent while it runs. */
  readonly end_ms?: number;
  /** From ready to start: how long it waited for a free slot. */
  readonly wait_ms?: number;
  /** Its run time; for a unit still running, the time so far. */
  readonly duration_ms?: number;
  readonly running: boolean;
  readonly critical: boolean;
  readonly reason?: string;
  readonly error?: string;
  readonly skipped_because?: string;
  readonly skip_reason?: string;
  /** The log, relative to the repository root, and as a link relative to the report file. */
  readonly log?: string;
  readonly log_href?: string;
  readonly optional: boolean;
  /** A recovery that repaired a failed apply (`helm-pending-recovery: ...`). */
  readonly recovered?: string;
  readonly kept: boolean;
  readonly excluded_by?: string;
  /** Its duration in earlier runs of the same verb, and whether this run was slower. */
  readonly history_ms?: number;
  readonly slower: boolean;
  /** Recorded sizes and details of a down/up step. */
  readonly detail?: string;
}

export interface ParallelismPoint {
  readonly at_ms: number;
  readonly running: number;
  /** Ready and waiting for a slot (only when the state records `ready_at`). */
  readonly waiting: number;
}

export interface ParkSizes {
  readonly env: string;
  readonly op: 'down' | 'up';
  readonly node_groups: Readonly<Record<string, { min: number; max: number; desired: number }>>;
  readonly karpenter_nodepools: number;
  readonly bastions: number;
  readonly argocd_apps: number;
}

export interface ReportModel {
  readonly version: typeof REPORT_VERSION;
  readonly kind: 'walk' | 'park';
  readonly generated_at: string;
  readonly run: {
    readonly id: string;
    readonly command: string;
    readonly status: string;
    readonly in_progress: boolean;
    readonly started_at: string;
    readonly ended_at?: string;
    readonly envs: readonly string[];
    readonly parallelism?: number;
    readonly resumes: number;
    readonly stopped_because?: string;
    readonly by?: string;
  };
  /** From the start to the end (or to now, for a run in progress). */
  readonly makespan_ms: number;
  /** No schedule could have been faster: the longest chain of dependencies, or all the work over the slots. */
  readonly lower_bound_ms: number;
  readonly lower_bound_because: 'critical-path' | 'work-over-parallelism';
  /** Total run time of every unit (the work). */
  readonly work_ms: number;
  /** The longest chain (by run time) through the dependencies, first to last. */
  readonly critical_path: readonly string[];
  readonly critical_path_ms: number;
  readonly rows: readonly ReportRow[];
  readonly parallelism: { readonly limit?: number; readonly max: number; readonly points: readonly ParallelismPoint[] };
  readonly counts: Readonly<Record<string, number>>;
  readonly sizes: readonly ParkSizes[];
  /** Lockdown (or unlock) steps after (before) the walk. */
  readonly lockdown?: {
    readonly direction: string;
    readonly status: string;
    readonly steps: readonly { id: string; status: string; error?: string; log?: string; ended_at?: string }[];
  };
  /** Anything the report could not show (an old state without `ready_at`, times out of order). */
  readonly notes: readonly string[];
}

export interface BuildOptions {
  /** The clock: a run in progress is drawn up to now. */
  readonly now: number;
  /** Whether the run recorded as running still has a live platctl (else it was killed: shown as interrupted). */
  readonly live: boolean;
  /** Turns a log path relative to the repository root into a link relative to the report file. */
  readonly logHref?: (log: string) => string;
}

const time = (iso: string | undefined): number | undefined => {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
};

/** The model of a bootstrap/teardown run. */
export function buildWalkReport(state: Readonly<RunState>, options: BuildOptions): ReportModel {
  const t0 = time(state.started_at) ?? options.now;
  const inProgress = state.status === 'running' && options.live;
  const end = inProgress ? options.now : (time(state.ended_at) ?? time(state.updated_at) ?? options.now);
  const notes: string[] = [];
  const ids = Object.keys(state.units).sort();
  const anyReady = ids.some((id) => state.units[id]?.ready_at !== undefined);
  if (!anyReady && ids.length > 0) {
    notes.push('this state was written by a platctl that did not record when units became ready: no waiting shown');
  }
  const history = state.history_ms;
  if (history === undefined) notes.push('this state does not record earlier durations: no comparison with history');
  const raw = ids.map((id) => unitRow(id, state.units[id]!, t0, end, inProgress, history, options));
  const critical = criticalPath(raw);
  const onPath = new Set(critical.path);
  const rows = raw.map((row) => ({ ...row, critical: onPath.has(row.id) }));
  const work = rows.reduce((sum, row) => sum + (row.kind === 'unit' ? (row.duration_ms ?? 0) : 0), 0);
  const parallelism = state.args.parallelism;
  const bound = lowerBound(critical.ms, work, parallelism);
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.status] = (counts[row.status] ?? 0) + 1;
  const lockdown = state.lockdown;
  return {
    version: REPORT_VERSION,
    kind: 'walk',
    generated_at: new Date(options.now).toISOString(),
    run: {
      id: state.run_id,
      command: state.command,
      status: state.status === 'running' && !options.live ? 'interrupted' : state.status,
      in_progress: inProgress,
      started_at: state.started_at,
      ...(state.ended_at === undefined ? {} : { ended_at: state.ended_at }),
      envs: [...new Set(ids.map((id) => id.slice(0, id.indexOf('/'))))].sort(),
      parallelism,
      resumes: state.resumes,
      ...(state.stopped_because === undefined ? {} : { stopped_because: state.stopped_because }),
    },
    makespan_ms: Math.max(0, end - t0),
    lower_bound_ms: bound.ms,
    lower_bound_because: bound.because,
    work_ms: work,
    critical_path: critical.path,
    critical_path_ms: critical.ms,
    rows,
    parallelism: { limit: parallelism, ...parallelismOver(rows) },
    counts,
    sizes: [],
    ...(lockdown
      ? {
          lockdown: {
            direction: lockdown.direction,
            status: lockdown.status,
            steps: Object.entries(lockdown.steps).map(([id, step]) => ({
              id,
              status: step.status,
              ...(step.error === undefined ? {} : { error: step.error }),
              ...(step.log === undefined ? {} : { log: step.log }),
              ...(step.ended_at === undefined ? {} : { ended_at: step.ended_at }),
            })),
          },
        }
      : {}),
    notes,
  };
}

type RawRow = Omit<ReportRow, 'critical'>;

function unitRow(
  id: UnitId,
  unit: Readonly<UnitState>,
  t0: number,
  end: number,
  inProgress: boolean,
  history: Readonly<Record<string, number>> | undefined,
  options: BuildOptions,
): RawRow {
  // A unit recorded running in a run that is over was killed with it.
  const status = unit.status === 'running' && !inProgress ? 'interrupted' : unit.status;
  const started = time(unit.started_at);
  const ended = time(unit.ended_at);
  const ready = time(unit.ready_at);
  const running = status === 'running';
  const hasRun = started !== undefined && status !== 'pending' && status !== 'skipped' && status !== 'excluded';
  const endMs = hasRun ? (ended ?? (running ? end : undefined)) : undefined;
  const duration = unit.duration_ms ?? (hasRun && endMs !== undefined ? endMs - started : undefined);
  const before = history?.[id];
  const recovered = Object.entries(unit.hooks ?? {}).find(
    ([key, hook]) => key.startsWith('on-failure:') && hook.status === 'completed',
  );
  const slower =
    status === 'completed' &&
    before !== undefined &&
    duration !== undefined &&
    duration > before * SLOWER_FACTOR &&
    duration - before >= SLOWER_MIN_MS;
  const waitStart = ready !== undefined && (started === undefined || ready <= started) ? ready : undefined;
  return {
    id,
    kind: 'unit',
    group: id.slice(0, id.indexOf('/')),
    wave: unit.wave,
    status,
    attempts: unit.attempts,
    dependencies: unit.dependencies,
    ...(waitStart === undefined || (!hasRun && status !== 'pending') ? {} : { ready_ms: waitStart - t0 }),
    ...(hasRun ? { start_ms: started - t0 } : {}),
    ...(hasRun && ended !== undefined ? { end_ms: ended - t0 } : {}),
    ...(hasRun && waitStart !== undefined ? { wait_ms: started - waitStart } : {}),
    ...(!hasRun && status === 'pending' && waitStart !== undefined ? { wait_ms: end - waitStart } : {}),
    ...(hasRun && duration !== undefined ? { duration_ms: Math.max(0, duration) } : {}),
    running,
    ...(unit.reason === undefined ? {} : { reason: unit.reason }),
    ...(unit.error === undefined ? {} : { error: unit.error }),
    ...(unit.skipped_because === undefined ? {} : { skipped_because: unit.skipped_because }),
    ...(unit.skip_reason === undefined ? {} : { skip_reason: unit.skip_reason }),
    ...(unit.log === undefined ? {} : { log: unit.log, log_href: options.logHref?.(unit.log) ?? unit.log }),
    optional: unit.optional === true,
    ...(recovered ? { recovered: `${recovered[0].slice('on-failure:'.length)}${detailOf(recovered[1])}` } : {}),
    kept: unit.kept === true,
    ...(unit.excluded_by === undefined ? {} : { excluded_by: unit.excluded_by }),
    ...(before === undefined ? {} : { history_ms: before }),
    slower,
  };
}

const detailOf = (hook: { detail?: string | undefined }): string => (hook.detail ? `: ${hook.detail}` : '');

/**
 * The longest chain of dependencies by run time (units that did not run weigh 0): no schedule, with any number of
 * slots, finishes before it. Ties go to the smaller id, so the path is the same every time.
 */
export function criticalPath(rows: readonly Pick<ReportRow, 'id' | 'dependencies' | 'duration_ms'>[]): {
  path: string[];
  ms: number;
} {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const best = new Map<string, { ms: number; via: string | undefined }>();
  const visiting = new Set<string>();
  const finish = (id: string): number => {
    const known = best.get(id);
    if (known) return known.ms;
    // A cycle cannot come from a walked graph; guard anyway instead of recursing forever.
    if (visiting.has(id)) return 0;
    visiting.add(id);
    const row = byId.get(id)!;
    let via: string | undefined;
    let longest = 0;
    for (const dep of [...row.dependencies].sort()) {
      if (!byId.has(dep)) continue;
      const ms = finish(dep);
      if (via === undefined || ms > longest) {
        via = dep;
        longest = ms;
      }
    }
    visiting.delete(id);
    const ms = longest + (row.duration_ms ?? 0);
    best.set(id, { ms, via });
    return ms;
  };
  let last: string | undefined;
  let ms = 0;
  for (const id of [...byId.keys()].sort()) {
    const total = finish(id);
    if (last === undefined || total > ms) {
      last = id;
      ms = total;
    }
  }
  const path: string[] = [];
  for (let id = last; id !== undefined; id = best.get(id)?.via) path.unshift(id);
  // Leading units that took no time are not part of what bounds the run.
  while (path.length > 1 && (byId.get(path[0]!)?.duration_ms ?? 0) === 0) path.shift();
  return { path: ms === 0 ? [] : path, ms };
}

/** The larger of the critical path and the work spread evenly over the slots. */
export function lowerBound(
  criticalMs: number,
  workMs: number,
  parallelism: number | undefined,
): { ms: number; because: 'critical-path' | 'work-over-parallelism' } {
  const spread = parallelism === undefined || parallelism < 1 ? 0 : Math.ceil(workMs / parallelism);
  return spread > criticalMs
    ? { ms: spread, because: 'work-over-parallelism' }
    : { ms: criticalMs, because: 'critical-path' };
}

/** How many rows ran (and waited for a slot) at each moment something changed, and the most that ran at once. */
export function parallelismOver(
  rows: readonly Pick<ReportRow, 'start_ms' | 'end_ms' | 'duration_ms' | 'ready_ms' | 'running'>[],
): { max: number; points: ParallelismPoint[] } {
  const changes = new Map<number, { running: number; waiting: number }>();
  const add = (at: number, key: 'running' | 'waiting', delta: number): void => {
    const entry = changes.get(at) ?? { running: 0, waiting: 0 };
    entry[key] += delta;
    changes.set(at, entry);
  };
  let horizon = 0;
  for (const row of rows) {
    if (row.start_ms === undefined) continue;
    const end = row.end_ms ?? row.start_ms + (row.duration_ms ?? 0);
    horizon = Math.max(horizon, end);
  }
  for (const row of rows) {
    if (row.ready_ms !== undefined) {
      const until = row.start_ms ?? horizon;
      if (until > row.ready_ms) {
        add(row.ready_ms, 'waiting', 1);
        add(until, 'waiting', -1);
      }
    }
    if (row.start_ms === undefined) continue;
    const end = row.end_ms ?? row.start_ms + (row.duration_ms ?? 0);
    if (end <= row.start_ms) continue;
    add(row.start_ms, 'running', 1);
    add(end, 'running', -1);
  }
  const points: ParallelismPoint[] = [];
  let running = 0;
  let waiting = 0;
  let max = 0;
  for (const at of [...changes.keys()].sort((a, b) => a - b)) {
    const change = changes.get(at)!;
    running += change.running;
    waiting += change.waiting;
    max = Math.max(max, running);
    points.push({ at_ms: at, running, waiting });
  }
  return { max, points };
}

/** One environment's park file, for {@link buildParkReport}. */
export interface ParkInput {
  readonly env: string;
  readonly file: ParkFile;
}

/** The model of the last down/up of each environment given: each step a row, in the order it ran. */
export function buildParkReport(parks: readonly ParkInput[], options: BuildOptions): ReportModel {
  const withOps = parks.filter((park) => park.file.last !== undefined);
  const starts = withOps.map((park) => time(park.file.last!.started_at)).filter((t) => t !== undefined);
  const t0 = starts.length > 0 ? Math.min(...starts) : options.now;
  const running = withOps.some((park) => park.file.last!.status === 'running');
  const inProgress = running && options.live;
  const ends = withOps.map((park) => time(park.file.last!.ended_at) ?? options.now);
  const end = inProgress || ends.length === 0 ? options.now : Math.max(...ends);
  const rows: RawRow[] = [];
  const chains: { path: string[]; ms: number }[] = [];
  for (const { env, file } of withOps) {
    const op = file.last!;
    const chain: string[] = [];
    let previous: string | undefined;
    let chainMs = 0;
    for (const [step, record] of Object.entries(op.steps)) {
      const id = `${env}/${op.op}/${step}`;
      const row = stepRow(id, `${env} ${op.op}`, record, previous, t0, end, inProgress);
      rows.push(row);
      chain.push(id);
      chainMs += row.duration_ms ?? 0;
      previous = id;
    }
    chains.push({ path: chain, ms: chainMs });
  }
  // Steps of one environment run one after the other: its chain is its critical path; the longest one bounds the run.
  const longest = chains.reduce<{ path: string[]; ms: number }>((a, b) => (b.ms > a.ms ? b : a), { path: [], ms: 0 });
  const onPath = new Set(longest.path);
  const all = rows.map((row) => ({ ...row, critical: onPath.has(row.id) }));
  const work = all.reduce((sum, row) => sum + (row.duration_ms ?? 0), 0);
  const counts: Record<string, number> = {};
  for (const row of all) counts[row.status] = (counts[row.status] ?? 0) + 1;
  const ops = [...new Set(withOps.map((park) => park.file.last!.op))];
  const failed = withOps.some((park) => park.file.last!.status === 'failed');
  const status = inProgress ? 'running' : running ? 'interrupted' : failed ? 'failed' : 'completed';
  const first = withOps[0]?.file.last;
  return {
    version: REPORT_VERSION,
    kind: 'park',
    generated_at: new Date(options.now).toISOString(),
    run: {
      id: first ? `${ops.join('+')} ${first.started_at}` : 'none',
      command: ops.join('+') || 'down/up',
      status,
      in_progress: inProgress,
      started_at: new Date(t0).toISOString(),
      ...(inProgress || ends.length === 0 ? {} : { ended_at: new Date(end).toISOString() }),
      envs: withOps.map((park) => park.env),
      resumes: Math.max(0, ...withOps.map((park) => park.file.last!.resumes)),
      ...(first ? { by: `${first.by.user}@${first.by.host}` } : {}),
    },
    makespan_ms: Math.max(0, end - t0),
    lower_bound_ms: longest.ms,
    lower_bound_because: 'critical-path',
    work_ms: work,
    critical_path: longest.ms === 0 ? [] : longest.path,
    critical_path_ms: longest.ms,
    rows: all,
    parallelism: parallelismOver(all),
    counts,
    sizes: withOps.flatMap(({ env, file }) => (file.record ? [sizesOf(env, file)] : [])),
    notes: parks.filter((park) => park.file.last === undefined).map((park) => `${park.env}: no down/up recorded`),
  };
}

function stepRow(
  id: string,
  group: string,
  step: Readonly<StepRecord>,
  previous: string | undefined,
  t0: number,
  end: number,
  inProgress: boolean,
): RawRow {
  const status = step.status === 'running' && !inProgress ? 'interrupted' : step.status;
  const started = time(step.started_at);
  const ended = time(step.ended_at);
  const running = status === 'running';
  const endMs = ended ?? (running ? end : undefined);
  const duration = step.duration_ms ?? (started !== undefined && endMs !== undefined ? endMs - started : undefined);
  return {
    id,
    kind: 'step',
    group,
    status,
    dependencies: previous === undefined ? [] : [previous],
    ...(started === undefined ? {} : { start_ms: started - t0 }),
    ...(started !== undefined && ended !== undefined ? { end_ms: ended - t0 } : {}),
    ...(started !== undefined && duration !== undefined ? { duration_ms: Math.max(0, duration) } : {}),
    running,
    ...(step.reason === undefined ? {} : { reason: step.reason }),
    ...(step.detail === undefined ? {} : step.status === 'failed' ? { error: step.detail } : { detail: step.detail }),
    optional: false,
    kept: false,
    slower: false,
  };
}

function sizesOf(env: string, file: ParkFile): ParkSizes {
  const record = file.record!;
  return {
    env,
    op: file.last!.op,
    node_groups: Object.fromEntries(
      Object.entries(record.node_groups).map(([name, size]) => [
        name,
        { min: size.min, max: size.max, desired: size.desired },
      ]),
    ),
    karpenter_nodepools: record.karpenter.nodepools.length,
    bastions: record.bastions.length,
    argocd_apps: record.argocd.apps.length,
  };
}
