/**
 * Run states for `platctl report` tests: a layered graph of `count` units in a few environments, run with a given
 * parallelism by a small simulation of the walk (ready when the dependencies end, started when a slot is free), so
 * the times are consistent the way a real walk records them. One unit fails (its dependents are skipped), one was
 * recovered, one is optional, one got slower than its history.
 */
import type { RunState, UnitState } from '../../engine/state.js';

export interface FixtureOptions {
  readonly count: number;
  readonly parallelism: number;
  /** The run is still going at this many ms after the start (units after it are pending or running). */
  readonly cutAtMs?: number;
  /** A unit id that fails (exit-non-zero); its dependents are skipped. */
  readonly fail?: string;
}

const START = Date.UTC(2026, 11, 4, 20, 0, 0);
const iso = (ms: number): string => new Date(START + ms).toISOString();
const ENVS = ['platform', 'preprod', 'prod-eu-west-1-with-a-rather-long-environment-name'];

/** Unit i depends on up to two earlier units: a graph of layers, deterministic. */
export function fixtureGraph(count: number): { id: string; deps: string[]; ms: number }[] {
  const units: { id: string; deps: string[]; ms: number }[] = [];
  for (let i = 0; i < count; i += 1) {
    const env = ENVS[i % ENVS.length]!;
    const id = `${env}/${i % 7 === 3 ? 'modules/networking/a-deeply-nested/' : ''}unit-${String(i).padStart(3, '0')}`;
    const deps = i === 0 ? [] : [units[Math.floor((i * 7) % i)]!.id, units[Math.floor(i / 2)]!.id];
    units.push({ id, deps: [...new Set(deps)].filter((d) => d !== id).sort(), ms: 20_000 + ((i * 7919) % 90) * 1000 });
  }
  return units;
}

export function fixtureState(options: FixtureOptions): RunState {
  const graph = fixtureGraph(options.count);
  const byId = new Map(graph.map((unit) => [unit.id, unit]));
  const cut = options.cutAtMs ?? Infinity;
  const units: Record<string, UnitState> = {};
  const end = new Map<string, number>();
  const failed = new Set<string>();
  const skipped = new Set<string>();
  const waves = new Map<string, number>();
  for (const unit of graph) waves.set(unit.id, Math.max(-1, ...unit.deps.map((d) => waves.get(d) ?? 0)) + 1);
  // Event-driven walk: free slots take the ready unit that became ready first (ties by id).
  const slots: number[] = Array.from({ length: options.parallelism }, () => 0);
  const readyAt = new Map<string, number>();
  const pending = new Set(graph.map((unit) => unit.id));
  while (pending.size > 0) {
    for (const id of [...pending]) {
      const unit = byId.get(id)!;
      if (unit.deps.some((d) => failed.has(d) || skipped.has(d))) {
        skipped.add(id);
        pending.delete(id);
        const because =
          unit.deps.find((d) => failed.has(d)) ?? units[unit.deps.find((d) => skipped.has(d))!]!.skipped_because!;
        units[id] = {
          status: 'skipped',
          attempts: 0,
          wave: waves.get(id)!,
          dependencies: unit.deps,
          skipped_because: because,
          skip_reason: 'dependency-failed',
        };
      } else if (!readyAt.has(id) && unit.deps.every((d) => end.has(d))) {
        readyAt.set(id, Math.max(0, ...unit.deps.map((d) => end.get(d)!)));
      }
    }
    const ready = [...pending]
      .filter((id) => readyAt.has(id))
      .sort((a, b) => readyAt.get(a)! - readyAt.get(b)! || (a < b ? -1 : 1));
    if (ready.length === 0) break;
    const id = ready[0]!;
    const slot = slots.indexOf(Math.min(...slots));
    const start = Math.max(slots[slot]!, readyAt.get(id)!);
    const unit = byId.get(id)!;
    const stop = start + unit.ms;
    slots[slot] = stop;
    pending.delete(id);
    const base = {
      attempts: 1,
      wave: waves.get(id)!,
      dependencies: unit.deps,
      log: `.platctl-logs/run-1/${waves.get(id)!}_${id.replaceAll('/', '__')}.log`,
    };
    if (start >= cut) {
      units[id] = {
        status: 'pending',
        ...base,
        attempts: 0,
        ...(readyAt.get(id)! < cut ? { ready_at: iso(readyAt.get(id)!) } : {}),
      };
      end.set(id, Infinity);
      continue;
    }
    if (stop > cut) {
      units[id] = { status: 'running', ...base, ready_at: iso(readyAt.get(id)!), started_at: iso(start), pid: 4242 };
      end.set(id, Infinity);
      continue;
    }
    const fails = id === options.fail;
    if (fails) failed.add(id);
    end.set(id, stop);
    units[id] = {
      status: fails ? 'failed' : 'completed',
      ...base,
      ready_at: iso(readyAt.get(id)!),
      started_at: iso(start),
      ended_at: iso(stop),
      duration_ms: unit.ms,
      exit_code: fails ? 1 : 0,
      ...(fails
        ? {
            reason: 'exit-non-zero',
            error: 'exit code 1: Error: creating EKS Node Group: <ResourceInUseException> & "quotes"',
          }
        : {}),
    };
  }
  const ids = graph.map((unit) => unit.id);
  const recovered = ids[5];
  if (recovered && units[recovered]?.status === 'completed') {
    units[recovered].hooks = {
      'on-failure:helm-pending-recovery': {
        status: 'completed',
        ended_at: units[recovered].ended_at!,
        detail: 'rolled back release argocd stuck in pending-upgrade',
      },
    };
  }
  const optional = ids[4];
  if (optional) (units[optional] as UnitState & { optional?: boolean }).optional = true;
  const history: Record<string, number> = {};
  for (const unit of graph) history[unit.id] = unit.ms;
  // The third unit used to take a third of its time now: flagged slower.
  if (ids[2]) history[ids[2]] = Math.round(byId.get(ids[2])!.ms / 3);
  const running = options.cutAtMs !== undefined;
  const last = Math.max(0, ...[...end.values()].filter((t) => Number.isFinite(t)));
  return {
    version: 1,
    run_id: '20261204T200000Z-abc123',
    command: 'bootstrap',
    args: { env: [], unit: [], with_deps: false, parallelism: options.parallelism, fail_fast: false },
    started_at: iso(0),
    updated_at: iso(running ? cut : last),
    ...(running ? {} : { ended_at: iso(last) }),
    status: running ? 'running' : failed.size > 0 ? 'failed' : 'completed',
    graph_fingerprint: 'f',
    platctl_version: '0.0.0-test',
    resumes: 0,
    known_durations_ms: {},
    history_ms: history,
    units,
  };
}

/** Epoch ms of the fixture's start. */
export const FIXTURE_START = START;
