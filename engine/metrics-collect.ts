/**
 * What a run of `validate`, `down`, `up`, `bootstrap` or `teardown` learns for `--metrics-file`, collected as it
 * learns it, and the {@link RunFacts} it adds up to at the end (rendered and written by `metrics.ts`). The verbs
 * report in their own words through the CLI's sink; this module knows only environments, checks, units, and the
 * shape of a down/up's outcome (structurally: engine/ does not import park/).
 */
import type { RunFacts, RunResultLabel, MetricsVerb } from './metrics.js';
import { resultForExitCode, writeMetricsFile } from './metrics.js';
import type { MetricsSink } from './metrics-sink.js';
import type { RunState } from './state.js';

type Facts = Omit<RunFacts, 'verb' | 'exitCode' | 'endedAtMs' | 'envs'>;

/** How a down/up ended in one environment (park/run.ts's `EnvStatus`). */
export type ParkOutcomeStatus =
  'completed' | 'planned' | 'nothing-to-do' | 'refused' | 'failed' | 'interrupted' | 'fenced';

/** What the metrics read of a down/up's outcome in one environment (park/run.ts's `EnvOutcome`). */
export interface ParkOutcomeFacts {
  readonly env: string;
  readonly op: 'down' | 'up';
  readonly status: ParkOutcomeStatus;
  /** Steps done, this run or the one it resumed. */
  readonly done_steps: readonly string[];
}

/** What an environment's park record says now (park/record-types.ts's `ParkRecord`). */
export interface ParkRecordFacts {
  readonly status: string;
  readonly node_groups: Readonly<Record<string, { readonly desired: number }>>;
}

/** The environment of a unit id (`<env>/<path>`). */
export const envOfUnit = (unit: string): string => unit.split('/')[0] ?? unit;

/** The `result` label of a down/up's outcome in one environment. */
export function parkResult(status: ParkOutcomeStatus): RunResultLabel {
  switch (status) {
    case 'completed':
    case 'nothing-to-do':
    case 'planned':
      return 'success';
    case 'failed':
      return 'failure';
    case 'refused':
    case 'fenced':
      return 'refused';
    case 'interrupted':
      return 'interrupted';
  }
}

/** The facts of one run, as its verb learns them. */
export class MetricsCollector {
  /** The run's environments, once its configuration is understood; undefined before (nothing is written then). */
  envList: readonly string[] | undefined;
  private facts: Facts = {};
  private readonly perEnv = new Map<string, { result?: RunResultLabel; startedMs?: number; endedMs?: number }>();

  envs(envs: readonly string[]): void {
    this.envList = [...new Set(envs)].sort();
  }

  validate(report: {
    readonly durationMs: number;
    readonly checks: readonly { readonly id: string; readonly env?: string; readonly status: string }[];
  }): void {
    this.facts = {
      ...this.facts,
      validateDurationMs: report.durationMs,
      checks: report.checks.map((c) => ({ env: c.env ?? '', check: c.id, ok: c.status === 'pass' })),
    };
  }

  /** A down/up started in `env` (its duration starts here rather than at the run's start). */
  envStarted(env: string, atMs: number): void {
    this.perEnv.set(env, { startedMs: atMs });
  }

  envFinished(env: string, atMs: number): void {
    this.perEnv.set(env, { ...this.perEnv.get(env), endedMs: atMs });
  }

  /** How each environment's down/up ended, and what its park record (read by `record`) says now. */
  async park(
    outcomes: readonly ParkOutcomeFacts[],
    record: (env: string) => Promise<ParkRecordFacts | undefined>,
  ): Promise<void> {
    const parked: { env: string; parked: boolean }[] = [];
    const nodeGroups: { env: string; group: string; desired: number }[] = [];
    for (const outcome of outcomes) {
      const { env, op, status } = outcome;
      this.perEnv.set(env, { ...this.perEnv.get(env), result: parkResult(status) });
      const now = await record(env);
      if (status === 'completed') parked.push({ env, parked: op === 'down' });
      else if (now) parked.push({ env, parked: now.status === 'parked' });
      // The sizes are known once the node-groups step is done (this run or the one it resumed): 0 after down, the
      // recorded ones after up. Mid-step (or before it) the run cannot say, so it writes nothing for them.
      if (now && (status === 'completed' || outcome.done_steps.includes('node-groups'))) {
        for (const [group, size] of Object.entries(now.node_groups))
          nodeGroups.push({ env, group, desired: op === 'down' ? 0 : size.desired });
      }
    }
    this.facts = { ...this.facts, parked, nodeGroups };
  }

  /** bootstrap/teardown's finished run: each unit's duration, and the environments its units cover. */
  walk(state: Pick<RunState, 'units'>): void {
    const units = Object.entries(state.units).flatMap(([unit, unitState]) =>
      unitState.duration_ms === undefined ? [] : [{ env: envOfUnit(unit), unit, durationMs: unitState.duration_ms }],
    );
    this.facts = { ...this.facts, units };
    // The run's own units say which environments it covered (a resumed run's selection is in its state).
    const envs = units.length > 0 ? units.map((u) => u.env) : Object.keys(state.units).map(envOfUnit);
    if (envs.length > 0) this.envs(envs);
  }

  /**
   * What the run knew by its end, or undefined when it ended before its configuration was understood. An
   * environment whose own start, end or result is unknown takes the run's.
   */
  runFacts(
    verb: MetricsVerb,
    run: { readonly exitCode: number; readonly startedMs: number; readonly endedAtMs: number },
  ): RunFacts | undefined {
    if (this.envList === undefined) return undefined;
    const runResult = resultForExitCode(run.exitCode);
    const envs = this.envList.map((env) => {
      const seen = this.perEnv.get(env);
      const start = seen?.startedMs ?? run.startedMs;
      return { env, result: seen?.result ?? runResult, durationMs: (seen?.endedMs ?? run.endedAtMs) - start };
    });
    return { ...this.facts, verb, exitCode: run.exitCode, endedAtMs: run.endedAtMs, envs };
  }
}

/**
 * The sink of a run with `--metrics-file`: the verbs' own words (park events and outcomes, the walk's result) told to
 * the collector, which knows only environments, checks and units. `readRecord`: what an environment's park file under
 * a root says now (read by the CLI's park store: engine/ does not import park/).
 */
export function collectorSink(
  collector: MetricsCollector,
  readRecord: (root: string, env: string) => Promise<ParkRecordFacts | undefined>,
): MetricsSink {
  return {
    envs: (envs) => collector.envs(envs),
    validate: (report) => collector.validate(report),
    parkEvents: (next) => (event) => {
      if (event.type === 'env-started') collector.envStarted(event.env, Date.parse(event.at));
      if (event.type === 'env-finished') collector.envFinished(event.env, Date.parse(event.at));
      next(event);
    },
    park: (root, outcomes) => collector.park(outcomes, (env) => readRecord(root, env)),
    walk: (result) => {
      if (result.type === 'finished') collector.walk(result.state);
    },
  };
}

/**
 * Writes what the run knew to `path`, however it ended; nothing when it ended before its configuration was understood
 * (no environment known). A message when the write failed (a warning: the run's exit code stays its own).
 */
export async function writeCollected(
  collector: MetricsCollector,
  verb: MetricsVerb,
  path: string,
  run: { readonly exitCode: number; readonly startedMs: number },
): Promise<string | undefined> {
  if (collector.envList === undefined) return undefined;
  const facts = collector.runFacts(verb, { exitCode: run.exitCode, startedMs: run.startedMs, endedAtMs: Date.now() });
  if (facts === undefined) return undefined;
  const written = await writeMetricsFile(path, facts);
  return written.ok ? undefined : written.message;
}
