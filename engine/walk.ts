/**
 * The run loop: asks the scheduler for ready units while a slot is free, runs them through the executor, and records
 * every transition in the state store. The walk owns all state; executors only report outcomes, and the loop is the
 * only place that changes a unit's status.
 *
 * Ordering rules that matter:
 * - A unit is recorded `running` and the state flushed before it is spawned, so a crash never looks like success
 *   (and a later run can find the process a killed platctl left).
 * - A failure is recorded (and its dependents skipped) before its slot is released, so the next unit picked already
 *   sees it.
 */
import type { WalkEvent, RunOutcomeStatus, StatusCounts } from './events.js';
import { emptyCounts } from './events.js';
import type { Executor, UnitJob, UnitOutcome, UnitOutput } from './executor.js';
import type { Graph, UnitId } from './graph.js';
import type { LogFooter } from './logs.js';
import type { Skipped } from './scheduler.js';
import { Scheduler } from './scheduler.js';
import type { StateStore } from './state.js';
import type { RunCommand, SkipReason } from './unit-status.js';
import { tfCommandFor, unreachable } from './unit-status.js';

/** One attempt's log, as the walk uses it (`UnitLog` in production, memory in tests). */
export interface AttemptLog extends UnitOutput {
  lastLines(count: number): string[];
  errorLine(): string | undefined;
  close(footer: LogFooter): Promise<void>;
}

export interface WalkOptions {
  /** The graph to walk, already restricted to the selection and reversed for teardown. */
  readonly graph: Graph;
  /** Holds every unit of `graph`; units already `completed` there count as done. */
  readonly store: StateStore;
  readonly executor: Executor;
  readonly command: RunCommand;
  /** At most this many units run at once. */
  readonly parallelism: number;
  /** Start nothing new after the first failure. */
  readonly failFast: boolean;
  /** Aborted on the first SIGINT/SIGTERM; its `reason` is the signal name. */
  readonly signal: AbortSignal;
  readonly now: () => number;
  readonly emit: (event: WalkEvent) => void;
  /** Per-unit facts for its job: directory, Terraform arguments, timeout. */
  readonly job: (unit: UnitId) => Omit<UnitJob, 'attempt' | 'command' | 'unit'>;
  /** Opens the unit's log for an attempt and writes its header. */
  readonly openLog: (
    unit: UnitId,
    header: { attempt: number; commandLine: readonly string[]; startedAt: string },
  ) => Promise<AttemptLog>;
  /** Expected duration per unit (milliseconds) for the critical-path priority. */
  readonly weight?: (unit: UnitId) => number;
  /** Trailing log lines carried by `unit-failed` events. */
  readonly failureLines?: number;
}

export interface WalkResult {
  readonly status: RunOutcomeStatus;
  readonly counts: StatusCounts;
  /** Problems outside any unit (the state file could not be written, the graph stalled). */
  readonly problems: readonly string[];
}

/** Walks the graph to the end (or to the interruption) and returns how it went. */
export async function walk(options: WalkOptions): Promise<WalkResult> {
  const { store, graph, signal, now, emit } = options;
  const iso = (ms: number = now()): string => new Date(ms).toISOString();
  const done = graph.ids().filter((id) => store.unit(id)?.status === 'completed');
  const scheduler = new Scheduler(graph, { done, ...(options.weight ? { weight: options.weight } : {}) });
  const running = new Map<UnitId, Promise<void>>();
  const problems: string[] = [];
  const durations = new Map<UnitId, number>();
  let failFastCause: UnitId | undefined;
  let fatal = false;
  let wake: (() => void) | undefined;
  const nudge = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  const stopped = (): boolean => signal.aborted || failFastCause !== undefined || fatal;

  const recordSkips = (skipped: readonly Skipped[], reason: SkipReason): void => {
    for (const { unit, because } of skipped) {
      store.patchUnit(unit, { status: 'skipped', skipped_because: because, skip_reason: reason });
      emit({ type: 'unit-skipped', at: iso(), unit, because, reason });
    }
  };

  const onAbort = (): void => {
    emit({ type: 'interrupting', at: iso(), signal: String(signal.reason ?? 'SIGINT'), running: [...running.keys()] });
    nudge();
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });

  const runOne = async (unit: UnitId, flushed: Promise<void>, previous: { attempts: number }): Promise<void> => {
    try {
      await flushed;
    } catch (error) {
      if (!fatal) problems.push(`cannot write the state file: ${(error as Error).message}; stopping`);
      fatal = true;
    }
    if (stopped()) {
      // Marked running but never spawned: put it back as it was.
      scheduler.release(unit);
      store.patchUnit(unit, { status: 'pending', attempts: previous.attempts, started_at: undefined });
      running.delete(unit);
      nudge();
      return;
    }
    const state = store.unit(unit);
    const attempt = state?.attempts ?? 1;
    const job: UnitJob = { ...options.job(unit), unit, command: tfCommandFor(options.command), attempt };
    const started = now();
    let outcome: UnitOutcome;
    let log: AttemptLog | undefined;
    try {
      log = await options.openLog(unit, {
        attempt,
        commandLine: options.executor.commandLine(job),
        startedAt: iso(started),
      });
      const attemptLog = log;
      outcome = await options.executor.run(job, {
        output: attemptLog,
        signal,
        onSpawn: (pid) => {
          store.patchUnit(unit, { pid });
          store.schedule();
        },
      });
    } catch (error) {
      // Executors return expected failures as values; an exception here is a bug or an unwritable log directory.
      outcome = { type: 'failed', reason: 'spawn-error', message: (error as Error).message };
    }
    const ended = now();
    const durationMs = Math.max(0, ended - started);
    await finish(unit, outcome, log, ended, durationMs);
  };

  /** A log that cannot be finished (disk full) must not lose the unit's outcome: warn and go on. */
  const closeLog = async (unit: UnitId, log: AttemptLog | undefined, footer: LogFooter): Promise<void> => {
    try {
      await log?.close(footer);
    } catch (error) {
      const path = store.unit(unit)?.log ?? 'its log';
      emit({
        type: 'warning',
        at: iso(),
        message: `cannot finish the log of ${unit} (${path}): ${(error as Error).message}`,
      });
    }
  };

  const finish = async (
    unit: UnitId,
    outcome: UnitOutcome,
    log: AttemptLog | undefined,
    ended: number,
    durationMs: number,
  ): Promise<void> => {
    const logPath = store.unit(unit)?.log ?? '';
    const common = { ended_at: iso(ended), duration_ms: durationMs, pid: undefined };
    // An interruption nobody asked for (no abort) is a unit killed from outside: a failure.
    const effective: UnitOutcome =
      outcome.type === 'interrupted' && !signal.aborted
        ? {
            type: 'failed',
            reason: 'signal',
            message: `interrupted by ${outcome.signal ?? 'a signal'}`,
            ...exitOf(outcome),
          }
        : outcome;
    switch (effective.type) {
      case 'completed': {
        await closeLog(unit, log, { result: 'completed', exitCode: 0, endedAt: iso(ended), durationMs });
        store.patchUnit(unit, { ...common, status: 'completed', exit_code: 0 });
        durations.set(unit, durationMs);
        scheduler.complete(unit);
        emit({ type: 'unit-completed', at: iso(ended), unit, duration_ms: durationMs, log: logPath });
        break;
      }
      case 'failed': {
        await closeLog(unit, log, {
          result: `failed (${effective.reason})`,
          ...exitOf(effective),
          endedAt: iso(ended),
          durationMs,
        });
        const detail = effective.reason === 'spawn-error' ? undefined : log?.errorLine();
        const error = detail ? `${effective.message}: ${detail}` : effective.message;
        store.patchUnit(unit, {
          ...common,
          status: 'failed',
          reason: effective.reason,
          error,
          exit_code: effective.exitCode,
        });
        const skipped = scheduler.fail(unit);
        emit({
          type: 'unit-failed',
          at: iso(ended),
          unit,
          reason: effective.reason,
          error,
          ...(effective.exitCode === undefined ? {} : { exit_code: effective.exitCode }),
          duration_ms: durationMs,
          log: logPath,
          last_lines: log?.lastLines(options.failureLines ?? 10) ?? [],
        });
        // Skips are recorded in the same turn as the failure, before the slot frees up.
        recordSkips(skipped, 'dependency-failed');
        if (options.failFast && failFastCause === undefined) {
          failFastCause = unit;
          recordSkips(scheduler.skipRemaining(unit), 'fail-fast');
        }
        break;
      }
      case 'interrupted': {
        await closeLog(unit, log, { result: 'interrupted', ...exitOf(effective), endedAt: iso(ended), durationMs });
        store.patchUnit(unit, { ...common, status: 'interrupted', exit_code: effective.exitCode });
        emit({ type: 'unit-interrupted', at: iso(ended), unit, duration_ms: durationMs, log: logPath });
        break;
      }
      default:
        unreachable(effective);
    }
    running.delete(unit);
    store.schedule();
    nudge();
  };

  for (;;) {
    if (!stopped()) {
      const batch: UnitId[] = [];
      while (running.size + batch.length < options.parallelism) {
        const unit = scheduler.next();
        if (unit === undefined) break;
        batch.push(unit);
      }
      if (batch.length > 0) {
        const previous = new Map<UnitId, { attempts: number }>();
        for (const unit of batch) {
          const state = store.unit(unit);
          const attempts = state?.attempts ?? 0;
          previous.set(unit, { attempts });
          const startedAt = iso();
          store.patchUnit(unit, {
            status: 'running',
            attempts: attempts + 1,
            started_at: startedAt,
            ended_at: undefined,
            duration_ms: undefined,
            exit_code: undefined,
            error: undefined,
            reason: undefined,
            skipped_because: undefined,
            skip_reason: undefined,
            pid: undefined,
          });
          emit({
            type: 'unit-started',
            at: startedAt,
            unit,
            wave: state?.wave ?? 0,
            attempt: attempts + 1,
            log: state?.log ?? '',
          });
        }
        // One write for the whole batch, awaited by each unit before it spawns.
        const flushed = store.flush();
        for (const unit of batch) running.set(unit, runOne(unit, flushed, previous.get(unit) ?? { attempts: 0 }));
      }
    }
    if (running.size === 0) break;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  }
  signal.removeEventListener('abort', onAbort);
  rememberDurations(store, options.command, durations);

  if (failFastCause !== undefined) recordSkips(scheduler.skipRemaining(failFastCause), 'fail-fast');
  if (!signal.aborted && !fatal && scheduler.stalled) {
    const left = graph.ids().filter((id) => scheduler.state(id) === 'waiting');
    problems.push(`units wait on each other (a cycle?) and can never start: ${left.join(', ')}`);
  }

  const counts = emptyCounts();
  for (const id of graph.ids()) {
    const status = store.unit(id)?.status;
    if (status) counts[status] += 1;
  }
  const status: RunOutcomeStatus = signal.aborted
    ? 'interrupted'
    : counts.completed === graph.size && problems.length === 0
      ? 'completed'
      : 'failed';
  return { status, counts, problems };
}

function exitOf(outcome: { exitCode?: number }): { exitCode?: number } {
  return outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode };
}

/**
 * Carries this walk's durations into `known_durations_ms` once at the end (per completion it would copy the map each
 * time: quadratic on large graphs). A crash loses them, but the units' own `duration_ms` stay in the state file.
 */
function rememberDurations(store: StateStore, command: RunCommand, durations: ReadonlyMap<UnitId, number>): void {
  if (durations.size === 0) return;
  const known = { ...store.state.known_durations_ms };
  known[command] = { ...(known[command] ?? {}), ...Object.fromEntries(durations) };
  store.patchRun({ known_durations_ms: known });
}
