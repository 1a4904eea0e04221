/**
 * The run loop: asks the scheduler for ready units while a slot is free, runs them (their named hooks around the
 * executor), and records every transition in the state store. The walk owns all state; executors and hooks only
 * report outcomes, and the loop is the only place that changes a unit's status.
 *
 * Ordering rules that matter:
 * - A unit is recorded `running` and the state flushed before it is spawned, so a crash never looks like success
 *   (and a later run can find the process a killed platctl left).
 * - A failure is recorded (and its dependents skipped) before its slot is released, so the next unit picked already
 *   sees it.
 * - Nothing a unit does can escape the loop: every unit's promise ends in a handler that records a bug as the unit's
 *   failure (reason `internal-error`), and a throwing reporter is contained, so an exception never becomes an
 *   unhandled rejection that would kill platctl with its units still running and its last transitions unsaved.
 */
import type { HookPoint, WalkEvent, RunOutcomeStatus, StatusCounts } from './events.js';
import { emptyCounts, guardEmit, reporterFailed } from './events.js';
import type { Executor, UnitJob, UnitOutcome, UnitOutput } from './executor.js';
import type { Graph, UnitId } from './graph.js';
import type { LogFooter } from './logs.js';
import type { Skipped } from './scheduler.js';
import { Scheduler } from './scheduler.js';
import type { StateStore } from './state.js';
import type { RunCommand, SkipReason } from './unit-status.js';
import { tfCommandFor, unreachable } from './unit-status.js';
import type { HookContext, HookResult, HookSettings, NamedHook } from './hooks.js';
import { stripAnsi } from './redact.js';
import type { RecoveryVerdict, UnitRecovery } from './recovery.js';
import { failure, ok } from '../config/result.js';

/** One attempt's log, as the walk uses it (`UnitLog` in production, memory in tests). */
export interface AttemptLog extends UnitOutput {
  lastLines(count: number): string[];
  errorLine(): string | undefined;
  /** Starts a new part of the attempt (a hook's apply, then the unit's own) with its own header. */
  section(title: string, commandLine: readonly string[]): void;
  close(footer: LogFooter): Promise<void>;
}

/** A configured named hook and its configuration entry. */
export interface UnitHook {
  readonly hook: NamedHook;
  readonly settings: HookSettings;
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
  /** Start nothing new after the first failure (of a unit that is not optional). */
  readonly failFast: boolean;
  /** Optional units (`optional:` in .platctl.yaml): a failure skips only their dependents, even with `failFast`. */
  readonly optional?: (unit: UnitId) => boolean;
  /** Aborted on the first SIGINT/SIGTERM; its `reason` is the signal name. */
  readonly signal: AbortSignal;
  /** Aborted when the run must start nothing more but let running units finish (its shared lock was lost). */
  readonly halt?: AbortSignal;
  /** Awaited before each spawn: the shared lock confirms it is still this run's (and aborts `halt` if not). */
  readonly beforeSpawn?: () => Promise<unknown>;
  readonly now: () => number;
  readonly emit: (event: WalkEvent) => void;
  /** Per-unit facts for its job: directory, Terraform arguments, timeout. */
  readonly job: (unit: UnitId) => Omit<UnitJob, 'attempt' | 'command' | 'unit'>;
  /** Opens the unit's log for an attempt and writes its header. */
  readonly openLog: (
    unit: UnitId,
    header: { attempt: number; commandLine: readonly string[]; startedAt: string },
  ) => Promise<AttemptLog>;
  /** The named hooks around a unit, in configuration order (none when absent). */
  readonly hooks?: (unit: UnitId) => readonly UnitHook[];
  /** Expected duration per unit (milliseconds) for the critical-path priority. */
  readonly weight?: (unit: UnitId) => number;
  /** Trailing log lines carried by `unit-failed` events. */
  readonly failureLines?: number;
  /**
   * Tried in order after a unit's own apply exits non-zero (engine/recovery.ts): the first that recognises the
   * failure decides; when it repaired the cause the unit is applied once more, and a second failure is final.
   */
  readonly recoveries?: readonly UnitRecovery[];
}

/** Output lines of one apply kept for the recoveries to read. */
const RECOVERY_LINES = 4000;

export interface WalkResult {
  readonly status: RunOutcomeStatus;
  readonly counts: StatusCounts;
  /** Problems outside any unit (the state file could not be written, the graph stalled, a bug). */
  readonly problems: readonly string[];
}

/** Walks the graph to the end (or to the interruption) and returns how it went. */
export function walk(options: WalkOptions): Promise<WalkResult> {
  return new Walk(options).run();
}

/** The key of a hook's record in the unit's state. */
export function hookKey(point: HookPoint, name: string): string {
  return `${point}:${name}`;
}

class Walk {
  readonly #o: WalkOptions;
  readonly #store: StateStore;
  readonly #scheduler: Scheduler;
  readonly #emit: (event: WalkEvent) => void;
  readonly #running = new Map<UnitId, Promise<void>>();
  readonly #problems: string[] = [];
  readonly #durations = new Map<UnitId, number>();
  #failFastCause: UnitId | undefined;
  #fatal = false;
  #wake: (() => void) | undefined;

  constructor(options: WalkOptions) {
    this.#o = options;
    this.#store = options.store;
    const done = options.graph.ids().filter((id) => options.store.unit(id)?.status === 'completed');
    this.#scheduler = new Scheduler(options.graph, { done, ...(options.weight ? { weight: options.weight } : {}) });
    this.#emit = guardEmit(options.emit, (error) => this.#problems.push(reporterFailed(error, 'the run')));
  }

  async run(): Promise<WalkResult> {
    const { signal } = this.#o;
    const onAbort = (): void => {
      this.#emit({
        type: 'interrupting',
        at: this.#iso(),
        signal: String(signal.reason ?? 'SIGINT'),
        running: [...this.#running.keys()],
      });
      this.#nudge();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    this.#recordInitiallyReady();
    const onHalt = (): void => this.#nudge();
    this.#o.halt?.addEventListener('abort', onHalt, { once: true });
    try {
      await this.#loop();
    } catch (error) {
      // A bug in the loop itself: start nothing more, but let what runs finish and be recorded.
      this.#bug('the run loop', error);
      while (this.#running.size > 0) await Promise.all([...this.#running.values()]);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#o.halt?.removeEventListener('abort', onHalt);
    }
    rememberDurations(this.#store, this.#o.command, this.#durations);
    return this.#summarise();
  }

  /**
   * Each unit not done yet: ready now (its dependencies are done) or not, so `ready_at` says when this attempt could
   * first start it (a resumed run's earlier attempt said something else).
   */
  #recordInitiallyReady(): void {
    const now = this.#iso();
    for (const id of this.#o.graph.ids()) {
      const state = this.#scheduler.state(id);
      if (state === 'ready') this.#store.patchUnit(id, { ready_at: now });
      else if (state === 'waiting' && this.#store.unit(id)?.ready_at !== undefined) {
        this.#store.patchUnit(id, { ready_at: undefined });
      }
    }
  }

  #iso(ms: number = this.#o.now()): string {
    return new Date(ms).toISOString();
  }

  #nudge(): void {
    const resolve = this.#wake;
    this.#wake = undefined;
    resolve?.();
  }

  #stopped(): boolean {
    return this.#o.signal.aborted || this.#o.halt?.aborted === true || this.#failFastCause !== undefined || this.#fatal;
  }

  #bug(where: string, error: unknown): void {
    this.#problems.push(`internal error in ${where} (a bug in platctl): ${message(error)}; stopping`);
    this.#fatal = true;
  }

  async #loop(): Promise<void> {
    for (;;) {
      if (!this.#stopped()) this.#startBatch();
      if (this.#running.size === 0) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  /** Marks every unit a free slot can take `running`, writes that once, and starts them. */
  #startBatch(): void {
    const batch: { unit: UnitId; attempts: number }[] = [];
    while (this.#running.size + batch.length < this.#o.parallelism) {
      const unit = this.#scheduler.next();
      if (unit === undefined) break;
      const state = this.#store.unit(unit);
      const attempts = state?.attempts ?? 0;
      batch.push({ unit, attempts });
      const startedAt = this.#iso();
      this.#store.patchUnit(unit, {
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
      this.#emit({
        type: 'unit-started',
        at: startedAt,
        unit,
        wave: state?.wave ?? 0,
        attempt: attempts + 1,
        log: state?.log ?? '',
      });
    }
    if (batch.length === 0) return;
    // One write for the whole batch, awaited by each unit before it spawns.
    const flushed = this.#store.flush();
    for (const { unit, attempts } of batch) {
      const done = this.#runUnit(unit, flushed, attempts).catch((error: unknown) => this.#unitBug(unit, error));
      this.#running.set(unit, done);
    }
  }

  /** The last resort for a unit whose handling threw: record it failed (if it is still running) and free its slot. */
  #unitBug(unit: UnitId, error: unknown): void {
    this.#bug(`unit ${unit}`, error);
    try {
      if (this.#store.unit(unit)?.status === 'running') {
        this.#store.patchUnit(unit, {
          status: 'failed',
          reason: 'internal-error',
          error: `internal error (a bug in platctl): ${message(error)}`,
          ended_at: this.#iso(),
          pid: undefined,
        });
        this.#recordSkips(this.#scheduler.fail(unit), 'dependency-failed');
      }
    } catch (again) {
      this.#problems.push(`cannot record the failure of ${unit}: ${message(again)}`);
    }
    this.#running.delete(unit);
    this.#store.schedule();
    this.#nudge();
  }

  async #runUnit(unit: UnitId, flushed: Promise<void>, previousAttempts: number): Promise<void> {
    try {
      await flushed;
      await this.#o.beforeSpawn?.();
    } catch (error) {
      if (!this.#fatal) this.#problems.push(`cannot write the state file: ${message(error)}; stopping`);
      this.#fatal = true;
    }
    if (this.#stopped()) {
      // Marked running but never spawned: put it back as it was.
      this.#scheduler.release(unit);
      this.#store.patchUnit(unit, { status: 'pending', attempts: previousAttempts, started_at: undefined });
      this.#running.delete(unit);
      this.#nudge();
      return;
    }
    const started = this.#o.now();
    let outcome: UnitOutcome;
    let log: AttemptLog | undefined;
    try {
      const attempt = this.#store.unit(unit)?.attempts ?? 1;
      const job: UnitJob = { ...this.#o.job(unit), unit, command: tfCommandFor(this.#o.command), attempt };
      log = await this.#o.openLog(unit, {
        attempt,
        commandLine: this.#o.executor.commandLine(job),
        startedAt: this.#iso(started),
      });
      outcome = await this.#hooksAround(unit, job, log);
    } catch (error) {
      // Executors return expected failures as values; an exception here is a bug or an unwritable log directory.
      outcome = { type: 'failed', reason: 'spawn-error', message: message(error) };
    }
    const ended = this.#o.now();
    await this.#finish(unit, outcome, log, ended, Math.max(0, ended - started));
  }

  /** The unit's before-unit hooks, its own command, then its after-unit hooks; the first failure ends it. */
  async #hooksAround(unit: UnitId, job: UnitJob, log: AttemptLog): Promise<UnitOutcome> {
    const hooks = this.#o.hooks?.(unit) ?? [];
    for (const hook of hooks) {
      const failed = await this.#hook(unit, hook, 'before-unit', job, log);
      if (failed) return failed;
    }
    if (hooks.length > 0) log.section(`${job.command} ${unit}`, this.#o.executor.commandLine(job));
    const lines: string[] = [];
    let outcome = await this.#execute(job, log, this.#o.recoveries?.length ? lines : undefined);
    if (outcome.type === 'failed' && outcome.reason === 'exit-non-zero' && lines.length > 0) {
      outcome = await this.#recover(unit, job, log, outcome, lines);
    }
    if (outcome.type !== 'completed') return outcome;
    for (const hook of hooks) {
      const failed = await this.#hook(unit, hook, 'after-unit', job, log);
      if (failed) return failed;
    }
    return outcome;
  }

  /** Runs the unit's command once; with `capture`, also keeps its last output lines there. */
  #execute(job: UnitJob, log: AttemptLog, capture?: string[]): Promise<UnitOutcome> {
    const output: AttemptLog | UnitOutput = capture
      ? {
          line: (text, stream) => {
            log.line(text, stream);
            capture.push(stripAnsi(text));
            if (capture.length > RECOVERY_LINES) capture.shift();
          },
        }
      : log;
    return this.#o.executor.run(job, {
      output,
      signal: this.#o.signal,
      onSpawn: (pid) => {
        this.#store.patchUnit(job.unit, { pid });
        this.#store.schedule();
      },
    });
  }

  /**
   * Runs one hook at one point (if it has one there and it did not already finish in an earlier attempt of this run),
   * records it, and returns the unit's outcome when it failed.
   */
  async #hook(
    unit: UnitId,
    { hook, settings }: UnitHook,
    point: HookPoint,
    job: UnitJob,
    log: AttemptLog,
  ): Promise<UnitOutcome | undefined> {
    if (!(point === 'before-unit' ? hook.beforeUnit !== undefined : hook.afterUnit !== undefined)) return undefined;
    const key = hookKey(point, hook.name);
    if (this.#store.unit(unit)?.hooks?.[key]?.status === 'completed') {
      log.line(`# hook ${hook.name} (${point}): finished in an earlier attempt of this run, not run again`);
      return undefined;
    }
    const started = this.#o.now();
    this.#emit({ type: 'hook-started', at: this.#iso(started), unit, hook: hook.name, point });
    log.line(`# hook ${hook.name} (${point})`);
    const ctx: HookContext = {
      unit,
      env: this.#o.graph.get(unit)?.env ?? unit.split('/')[0] ?? '',
      command: this.#o.command,
      settings,
      signal: this.#o.signal,
      log: (line) => log.line(line),
      apply: (extraArgs, title) => this.#hookApply({ ...job, tfArgs: [...job.tfArgs, ...extraArgs] }, title, log),
    };
    let result: HookResult;
    try {
      const returned = point === 'before-unit' ? hook.beforeUnit?.(ctx) : hook.afterUnit?.(ctx);
      result = (await returned) ?? ok(undefined);
    } catch (error) {
      result = failure('bug', `the hook threw (a bug in platctl): ${message(error)}`);
    }
    const ended = this.#o.now();
    const detail = result.ok ? result.value : result.message;
    log.line(`# hook ${hook.name} (${point}): ${result.ok ? 'ok' : 'FAILED'}${detail ? `: ${detail}` : ''}`);
    this.#recordHookEnd(unit, hook.name, point, result.ok, detail ? detail : undefined, started, ended);
    if (result.ok) return undefined;
    if (this.#o.signal.aborted) return { type: 'interrupted' };
    return { type: 'failed', reason: 'hook-failed', hook: hook.name, message: `hook ${hook.name}: ${result.message}` };
  }

  /**
   * After a failed apply: the first recovery that recognises the failure either repairs it (the unit is applied once
   * more, and that apply's outcome is final), or says why not, which joins the unit's error as advice.
   */
  async #recover(
    unit: UnitId,
    job: UnitJob,
    log: AttemptLog,
    failed: Extract<UnitOutcome, { type: 'failed' }>,
    lines: readonly string[],
  ): Promise<UnitOutcome> {
    for (const recovery of this.#o.recoveries ?? []) {
      const started = this.#o.now();
      let verdict: RecoveryVerdict | undefined;
      try {
        verdict = await recovery.handle({
          unit,
          env: this.#o.graph.get(unit)?.env ?? unit.split('/')[0] ?? '',
          lines,
          signal: this.#o.signal,
          log: (line) => log.line(line),
        });
      } catch (error) {
        verdict = { type: 'failed', message: `${recovery.name}: threw (a bug in platctl): ${message(error)}` };
      }
      if (verdict === undefined) continue;
      if (verdict.type === 'advice') {
        log.line(`# ${recovery.name}: ${verdict.advice}`);
        return { ...failed, advice: verdict.advice };
      }
      this.#recordRecovery(unit, recovery.name, verdict, started);
      if (verdict.type === 'failed') return { ...failed, advice: verdict.message };
      if (this.#o.signal.aborted) return { type: 'interrupted' };
      log.section(
        `${job.command} ${unit} again, after ${recovery.name}: ${verdict.detail}`,
        this.#o.executor.commandLine(job),
      );
      const again = await this.#execute(job, log);
      return again.type === 'failed'
        ? { ...again, message: `${again.message} (applied a second time after ${recovery.name} ${verdict.detail})` }
        : again;
    }
    return failed;
  }

  /** A recovery that acted (or tried): in the log, the unit's `hooks` record (`on-failure:<name>`), and the events. */
  #recordRecovery(
    unit: UnitId,
    name: string,
    verdict: Exclude<RecoveryVerdict, { type: 'advice' }>,
    started: number,
  ): void {
    const ok = verdict.type === 'recovered';
    const detail = ok ? verdict.detail : verdict.message;
    const ended = this.#o.now();
    this.#emit({ type: 'hook-started', at: this.#iso(started), unit, hook: name, point: 'on-failure' });
    this.#recordHookEnd(unit, name, 'on-failure', ok, detail, started, ended);
  }

  /** How a hook (or a recovery) ended: in the unit's `hooks` record (under its `hookKey`) and a `hook-finished` event. */
  #recordHookEnd(
    unit: UnitId,
    name: string,
    point: HookPoint,
    ok: boolean,
    detail: string | undefined,
    started: number,
    ended: number,
  ): void {
    const withDetail = detail === undefined ? {} : { detail };
    const hooks = { ...(this.#store.unit(unit)?.hooks ?? {}) };
    hooks[hookKey(point, name)] = { status: ok ? 'completed' : 'failed', ended_at: this.#iso(ended), ...withDetail };
    this.#store.patchUnit(unit, { hooks });
    this.#store.schedule();
    this.#emit({
      type: 'hook-finished',
      at: this.#iso(ended),
      unit,
      hook: name,
      point,
      ok,
      ...withDetail,
      duration_ms: Math.max(0, ended - started),
    });
  }

  /** A hook's own run of the unit's command (crd_two_stage's first stage), under its own header in the log. */
  async #hookApply(job: UnitJob, title: string, log: AttemptLog): Promise<HookResult> {
    log.section(title, this.#o.executor.commandLine(job));
    const outcome = await this.#execute(job, log);
    switch (outcome.type) {
      case 'completed':
        return ok(undefined);
      case 'failed': {
        const line = outcome.reason === 'spawn-error' ? undefined : log.errorLine();
        return failure(outcome.reason, `${title}: ${outcome.message}${line ? `: ${line}` : ''}`);
      }
      case 'interrupted':
        return failure('interrupted', `${title}: interrupted`);
      default:
        return unreachable(outcome);
    }
  }

  /** A log that cannot be finished (disk full) must not lose the unit's outcome: warn and go on. */
  async #closeLog(unit: UnitId, log: AttemptLog | undefined, footer: LogFooter): Promise<void> {
    try {
      await log?.close(footer);
    } catch (error) {
      const path = this.#store.unit(unit)?.log ?? 'its log';
      this.#emit({
        type: 'warning',
        at: this.#iso(),
        message: `cannot finish the log of ${unit} (${path}): ${message(error)}`,
      });
    }
  }

  async #finish(
    unit: UnitId,
    outcome: UnitOutcome,
    log: AttemptLog | undefined,
    ended: number,
    durationMs: number,
  ): Promise<void> {
    const { signal } = this.#o;
    const logPath = this.#store.unit(unit)?.log ?? '';
    const common = { ended_at: this.#iso(ended), duration_ms: durationMs, pid: undefined };
    const endedAt = this.#iso(ended);
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
        await this.#closeLog(unit, log, { result: 'completed', exitCode: 0, endedAt, durationMs });
        this.#store.patchUnit(unit, { ...common, status: 'completed', exit_code: 0 });
        this.#durations.set(unit, durationMs);
        // From now on they only wait for a free slot.
        for (const ready of this.#scheduler.complete(unit)) this.#store.patchUnit(ready, { ready_at: endedAt });
        this.#emit({ type: 'unit-completed', at: endedAt, unit, duration_ms: durationMs, log: logPath });
        break;
      }
      case 'failed':
        await this.#failed(unit, effective, log, { common, endedAt, durationMs, logPath });
        break;
      case 'interrupted': {
        await this.#closeLog(unit, log, { result: 'interrupted', ...exitOf(effective), endedAt, durationMs });
        this.#store.patchUnit(unit, { ...common, status: 'interrupted', exit_code: effective.exitCode });
        this.#emit({ type: 'unit-interrupted', at: endedAt, unit, duration_ms: durationMs, log: logPath });
        break;
      }
      default:
        unreachable(effective);
    }
    this.#running.delete(unit);
    this.#store.schedule();
    this.#nudge();
  }

  /** A failed unit: its error line, the units it leaves skipped, and with --fail-fast everything not started. */
  async #failed(
    unit: UnitId,
    effective: Extract<UnitOutcome, { type: 'failed' }>,
    log: AttemptLog | undefined,
    ended: {
      common: { ended_at: string; duration_ms: number; pid: undefined };
      endedAt: string;
      durationMs: number;
      logPath: string;
    },
  ): Promise<void> {
    const { common, endedAt, durationMs, logPath } = ended;
    await this.#closeLog(unit, log, {
      result: `failed (${effective.reason})`,
      ...exitOf(effective),
      endedAt,
      durationMs,
    });
    const detail =
      effective.reason === 'spawn-error' || effective.reason === 'hook-failed' ? undefined : log?.errorLine();
    const base = detail ? `${effective.message}: ${detail}` : effective.message;
    const error = effective.advice ? `${base}; ${effective.advice}` : base;
    this.#store.patchUnit(unit, {
      ...common,
      status: 'failed',
      reason: effective.reason,
      error,
      exit_code: effective.exitCode,
    });
    const skipped = this.#scheduler.fail(unit);
    const optional = this.#o.optional?.(unit) === true;
    this.#emit({
      type: 'unit-failed',
      at: endedAt,
      unit,
      ...(optional ? { optional } : {}),
      reason: effective.reason,
      error,
      ...(effective.hook === undefined ? {} : { hook: effective.hook }),
      ...(effective.exitCode === undefined ? {} : { exit_code: effective.exitCode }),
      duration_ms: durationMs,
      log: logPath,
      last_lines: log?.lastLines(this.#o.failureLines ?? 10) ?? [],
    });
    // Skips are recorded in the same turn as the failure, before the slot frees up.
    this.#recordSkips(skipped, 'dependency-failed');
    if (this.#o.failFast && !optional && this.#failFastCause === undefined) {
      this.#failFastCause = unit;
      this.#recordSkips(this.#scheduler.skipRemaining(unit), 'fail-fast');
    }
  }

  #recordSkips(skipped: readonly Skipped[], reason: SkipReason): void {
    for (const { unit, because } of skipped) {
      this.#store.patchUnit(unit, { status: 'skipped', skipped_because: because, skip_reason: reason });
      this.#emit({ type: 'unit-skipped', at: this.#iso(), unit, because, reason });
    }
  }

  #summarise(): WalkResult {
    const { graph, signal } = this.#o;
    if (this.#failFastCause !== undefined) {
      this.#recordSkips(this.#scheduler.skipRemaining(this.#failFastCause), 'fail-fast');
    }
    if (!signal.aborted && !this.#fatal && this.#scheduler.stalled) {
      const left = graph.ids().filter((id) => this.#scheduler.state(id) === 'waiting');
      this.#problems.push(`units wait on each other (a cycle?) and can never start: ${left.join(', ')}`);
    }
    const counts = emptyCounts();
    for (const id of graph.ids()) {
      const status = this.#store.unit(id)?.status;
      if (status) counts[status] += 1;
    }
    const status: RunOutcomeStatus = signal.aborted
      ? 'interrupted'
      : counts.completed === graph.size && this.#problems.length === 0
        ? 'completed'
        : 'failed';
    return { status, counts, problems: this.#problems };
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
