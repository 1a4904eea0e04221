/**
 * The machinery around the rollback decision (engine/rollback.ts): the probe before the first apply, and the destroy
 * walk after a failed apply. engine/run.ts calls both; each records what it did in the run's state (`rollback`).
 *
 * The probe reads each unit's Terraform state with the executor's `probeState` (`state pull`), a few at a time, each
 * bounded and stopped by the first Ctrl-C; any doubt is `unknown`, which counts as standing. The rollback destroys
 * through the same walk a teardown uses (reversed graph, `destroy`, the units' `teardown_args`), into its own state
 * file under the run's log directory, so the run's own record of what it applied stays as it was; the main state says
 * which units were rolled back and how that went.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlatctlConfig } from '../config/schema.js';
import { unitMatcher } from '../config/unit-refs.js';
import type { WalkEvent } from './events.js';
import type { Executor } from './executor.js';
import type { Graph, UnitId } from './graph.js';
import { reverse, subgraph, waveIndex } from './graph.js';
import { LOGS_DIR, UnitLog, formatCommandLine } from './logs.js';
import type { Redactor } from './redact.js';
import type { RollbackDecision, StateProbe } from './rollback.js';
import { holdMessage, keepMessage } from './rollback.js';
import type { RollbackRecord, RunState, StateStore, UnitState } from './state.js';
import { STATE_VERSION, StateStore as Store } from './state.js';
import { walk } from './walk.js';

/** The longest one unit's probe may take (its unit timeout, if shorter). */
export const PROBE_TIMEOUT_MS = 5 * 60_000;

/** A test for `optional:` (ids and globs). */
export function optionalUnits(config: Pick<PlatctlConfig, 'optional'>): (unit: UnitId) => boolean {
  const matchers = config.optional.map(unitMatcher);
  return (unit) => matchers.some((match) => match(unit));
}

export interface ProbeInput {
  readonly units: readonly UnitId[];
  readonly executor: Executor;
  readonly absDir: (unit: UnitId) => string;
  readonly timeoutMs: (unit: UnitId) => number;
  readonly parallelism: number;
  readonly signal: AbortSignal;
  readonly emit: (event: WalkEvent) => void;
  readonly now: () => number;
}

/**
 * Reads what each unit's state held before the run. A unit whose probe failed, timed out or was cut short by Ctrl-C
 * is `unknown` (standing); an executor that cannot probe makes every unit `unknown`.
 */
export async function probeUnits(input: ProbeInput): Promise<Map<UnitId, StateProbe>> {
  const out = new Map<UnitId, StateProbe>();
  const queue = [...input.units];
  const probe = input.executor.probeState?.bind(input.executor);
  const one = async (unit: UnitId): Promise<StateProbe> => {
    if (!probe) return { type: 'unknown', message: 'this executor cannot read Terraform state' };
    if (input.signal.aborted) return { type: 'unknown', message: 'interrupted before the probe' };
    try {
      const result = await probe(
        { unit, absDir: input.absDir(unit), timeoutMs: Math.min(PROBE_TIMEOUT_MS, input.timeoutMs(unit)) },
        { output: { line: () => undefined }, signal: input.signal },
      );
      return input.signal.aborted && result.type === 'absent'
        ? { type: 'unknown', message: 'interrupted during the probe' }
        : result;
    } catch (error) {
      return { type: 'unknown', message: `the probe failed (a bug in platctl): ${(error as Error).message}` };
    }
  };
  const worker = async (): Promise<void> => {
    for (let unit = queue.shift(); unit !== undefined; unit = queue.shift()) {
      const result = await one(unit);
      out.set(unit, result);
      input.emit({
        type: 'rollback-probe',
        at: new Date(input.now()).toISOString(),
        unit,
        result: result.type,
        ...(result.type === 'standing'
          ? { detail: `${result.resources} resource${result.resources === 1 ? '' : 's'}` }
          : result.type === 'unknown'
            ? { detail: result.message }
            : {}),
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(input.parallelism, queue.length)) }, worker));
  return out;
}

/** The probe's answers as the state records them. */
export function probeRecord(probes: ReadonlyMap<UnitId, StateProbe>): RollbackRecord['probe'] {
  const out: RollbackRecord['probe'] = {};
  for (const [unit, probe] of probes) {
    out[unit] =
      probe.type === 'absent'
        ? { result: 'absent' }
        : probe.type === 'standing'
          ? { result: 'standing', detail: `${probe.resources} resources` }
          : { result: 'unknown', detail: probe.message };
  }
  return out;
}

/** The decision as an event, and as the state's record. */
export function announceDecision(
  decision: RollbackDecision,
  at: string,
): { event: WalkEvent; patch: Partial<RollbackRecord> } {
  const kept = [...decision.kept].map(([unit, why]) => keepMessage(unit, why));
  if (decision.type === 'hold') {
    const message = holdMessage(decision.rule);
    return {
      event: { type: 'rollback-decided', at, action: 'hold', rule: decision.rule, message, destroy: [], kept },
      patch: { status: 'held', rule: decision.rule, message, kept },
    };
  }
  const message = `rolling back: destroying the ${decision.order.length} unit${decision.order.length === 1 ? '' : 's'} this run created, in reverse order`;
  const units: NonNullable<RollbackRecord['units']> = {};
  for (const unit of decision.order) units[unit] = { status: 'pending' };
  return {
    event: { type: 'rollback-decided', at, action: 'destroy', message, destroy: decision.order, kept },
    patch: { status: 'running', message, kept, units },
  };
}

export interface RollbackWalkInput {
  readonly root: string;
  readonly runId: string;
  readonly graph: Graph;
  readonly order: readonly UnitId[];
  readonly config: PlatctlConfig;
  readonly absDir: (unit: UnitId) => string;
  readonly executor: Executor;
  readonly redactor: Redactor;
  readonly parallelism: number;
  readonly signal: AbortSignal;
  readonly now: () => number;
  readonly emit: (event: WalkEvent) => void;
  /** The run's own state: the `rollback` record and each destroyed unit's `rolled_back`. */
  readonly store: StateStore;
  readonly platctlVersion: string;
}

/** Destroys `order` through the teardown walk; the first Ctrl-C stops it (what is left stays standing). */
export async function runRollback(input: RollbackWalkInput): Promise<'completed' | 'failed' | 'interrupted'> {
  const { runId } = input;
  const graph = reverse(subgraph(input.graph, input.order));
  const dir = join(input.root, LOGS_DIR, runId, 'rollback');
  await mkdir(dir, { recursive: true });
  const logOf = (unit: UnitId): string => `${LOGS_DIR}/${runId}/rollback/${unit.replaceAll('/', '__')}.log`;
  const iso = (): string => new Date(input.now()).toISOString();
  const rollbackStore = new Store(dir, rollbackState(input, graph, logOf, iso), { now: input.now });
  const result = await walk({
    graph,
    store: rollbackStore,
    executor: input.executor,
    command: 'teardown',
    parallelism: input.parallelism,
    failFast: false,
    signal: input.signal,
    now: input.now,
    emit: rollbackEvents(input, logOf),
    job: (unit) => ({
      absDir: input.absDir(unit),
      tfArgs: input.config.units[unit]?.teardown_args ?? [],
      timeoutMs: input.config.units[unit]?.timeout ?? input.config.unit_timeout,
    }),
    openLog: (unit, header) =>
      UnitLog.open(
        input.root,
        logOf(unit),
        {
          title: 'rollback (destroy)',
          unit,
          attempt: header.attempt,
          startedAt: header.startedAt,
          commandLine: formatCommandLine(header.commandLine),
          cwd: input.absDir(unit),
        },
        input.redactor.fork(),
      ),
  });
  rollbackStore.patchRun({ status: result.status, ended_at: iso() });
  await rollbackStore.close();
  for (const problem of result.problems) input.emit({ type: 'warning', at: iso(), message: `rollback: ${problem}` });
  return finishRollback(input, result.status, iso);
}

/** The rollback walk's own state (its log directory's), every unit of the reversed graph pending. */
function rollbackState(
  input: RollbackWalkInput,
  graph: Graph,
  logOf: (unit: UnitId) => string,
  iso: () => string,
): RunState {
  const waves = waveIndex(graph);
  const units: Record<UnitId, UnitState> = {};
  for (const unit of graph.ids()) {
    units[unit] = { status: 'pending', attempts: 0, wave: waves.get(unit) ?? 0, dependencies: [], log: logOf(unit) };
  }
  return {
    version: STATE_VERSION,
    run_id: `${input.runId}-rollback`,
    command: 'teardown',
    args: { env: [], unit: [...input.order], with_deps: false, parallelism: input.parallelism, fail_fast: false },
    started_at: iso(),
    updated_at: iso(),
    status: 'running',
    graph_fingerprint: '',
    platctl_version: input.platctlVersion,
    resumes: 0,
    known_durations_ms: {},
    units,
  };
}

/**
 * The rollback walk's events, translated: each unit's end goes into the run's `rollback` record (a destroyed unit is
 * pending again in the run's own state) and out as a `rollback-unit` event; warnings pass through.
 */
function rollbackEvents(input: RollbackWalkInput, logOf: (unit: UnitId) => string): (event: WalkEvent) => void {
  const { store } = input;
  const record = (unit: UnitId, patch: NonNullable<RollbackRecord['units']>[string]): void => {
    const current = store.state.rollback;
    if (!current) return;
    store.patchRun({ rollback: { ...current, units: { ...(current.units ?? {}), [unit]: patch } } });
    store.schedule();
  };
  return (event: WalkEvent): void => {
    const at = event.at;
    switch (event.type) {
      case 'unit-started':
        record(event.unit, { status: 'running', log: logOf(event.unit) });
        input.emit({ type: 'rollback-unit', at, unit: event.unit, result: 'started', log: logOf(event.unit) });
        return;
      case 'unit-completed':
        record(event.unit, { status: 'destroyed', log: logOf(event.unit) });
        // Destroyed: applied anew by `bootstrap --resume`, so it is pending again in the run's own record.
        store.patchUnit(event.unit, {
          status:
            store.unit(event.unit)?.status === 'completed' ? 'pending' : (store.unit(event.unit)?.status ?? 'pending'),
          rolled_back: true,
        });
        input.emit({ type: 'rollback-unit', at, unit: event.unit, result: 'destroyed', log: logOf(event.unit) });
        return;
      case 'unit-failed':
        record(event.unit, { status: 'failed', error: event.error, log: logOf(event.unit) });
        input.emit({
          type: 'rollback-unit',
          at,
          unit: event.unit,
          result: 'failed',
          error: event.error,
          log: event.log,
        });
        return;
      case 'unit-skipped': {
        const error = `not destroyed: ${event.because}, which needs it, could not be destroyed`;
        record(event.unit, { status: 'skipped', error });
        input.emit({ type: 'rollback-unit', at, unit: event.unit, result: 'skipped', error });
        return;
      }
      case 'unit-interrupted':
        record(event.unit, { status: 'interrupted', log: logOf(event.unit) });
        input.emit({ type: 'rollback-unit', at, unit: event.unit, result: 'interrupted', log: logOf(event.unit) });
        return;
      case 'warning':
      case 'interrupting':
        input.emit(event);
        return;
      case 'run-started':
      case 'run-finished':
      case 'hook-started':
      case 'hook-finished':
      case 'lockdown-step-started':
      case 'lockdown-step-finished':
      case 'rollback-probe':
      case 'rollback-decided':
      case 'rollback-unit':
      case 'rollback-finished':
      case 'converge-wait-started':
      case 'converge-wait-progress':
      case 'converge-wait-finished':
        return;
    }
  };
}

/** The rollback's end in the run's `rollback` record and the `rollback-finished` event: what it destroyed, what is left. */
async function finishRollback(
  input: RollbackWalkInput,
  status: 'completed' | 'failed' | 'interrupted',
  iso: () => string,
): Promise<'completed' | 'failed' | 'interrupted'> {
  const { store } = input;
  // Units never started (interrupted before their turn) stay pending in the record: still standing.
  const destroyed = input.order.filter((unit) => store.state.rollback?.units?.[unit]?.status === 'destroyed');
  const left = input.order.filter((unit) => !destroyed.includes(unit));
  const current = store.state.rollback;
  if (current) {
    store.patchRun({
      rollback: {
        ...current,
        status,
        message:
          status === 'completed'
            ? `rolled back: destroyed ${destroyed.join(', ')}`
            : `rollback ${status}: destroyed ${destroyed.join(', ') || 'nothing'}; still standing: ${left.join(', ')}`,
      },
    });
  }
  await store.flush();
  input.emit({ type: 'rollback-finished', at: iso(), status, destroyed, left });
  return status;
}
