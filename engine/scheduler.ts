/**
 * The scheduler: a ready-queue over in-degrees (Kahn) with a critical-path priority. Pure: no I/O, no clock, no
 * concurrency. The walk asks it for the next unit while it has a free slot and feeds it completions and failures.
 *
 * Priority: among ready units, the one with the heaviest remaining path to the end of the graph goes first (each unit
 * weighted by its duration in the last run, 1 when unknown), ties by id. Terragrunt's runner pool picks ready units
 * alphabetically, so a long chain whose first unit sorts last waits behind short units; waves (Terragrunt before
 * v0.89) make every level wait for its slowest unit (RFC #3629). Critical-path-first beats both.
 *
 * A caller with an order of its own passes `rank` instead (validate starts its ready checks in plan order).
 */
import type { Graph, UnitId } from './graph.js';
import { compareIds, remainingPathWeights } from './graph.js';

/** Where a unit is in the scheduler's eyes. */
export type SchedulerState = 'waiting' | 'ready' | 'started' | 'done' | 'failed' | 'skipped';

export interface SchedulerOptions {
  /** Units already done before this walk starts (completed in the run being resumed, the kept teardown floor). */
  readonly done?: Iterable<UnitId>;
  /** Expected duration of a unit (any unit of measure), for the priority; 1 when unknown. */
  readonly weight?: (id: UnitId) => number;
  /**
   * Replaces the critical-path priority: among ready units, the lowest rank goes first (ties by id). Validate passes
   * each check's place in its plan, so checks start in the order they are listed; `weight` is then unused.
   */
  readonly rank?: (id: UnitId) => number;
}

/** A unit the scheduler gave up on because something it needs failed (or `--fail-fast` stopped the walk). */
export interface Skipped {
  readonly unit: UnitId;
  /** The failed unit that caused it. */
  readonly because: UnitId;
}

export class Scheduler {
  readonly #graph: Graph;
  readonly #state = new Map<UnitId, SchedulerState>();
  /** Dependencies not yet done, per unit. */
  readonly #missing = new Map<UnitId, number>();
  readonly #priority: ReadonlyMap<UnitId, number>;
  readonly #ready: ReadyHeap;
  #started = 0;
  #unsettled = 0;

  constructor(graph: Graph, options: SchedulerOptions = {}) {
    this.#graph = graph;
    this.#priority = priorities(graph, options);
    this.#ready = new ReadyHeap(this.#priority);
    const done = new Set(options.done ?? []);
    for (const node of graph.nodes.values()) {
      let missing = 0;
      for (const dep of node.dependencies) if (!done.has(dep)) missing += 1;
      this.#missing.set(node.id, missing);
      if (done.has(node.id)) {
        this.#state.set(node.id, 'done');
        continue;
      }
      this.#unsettled += 1;
      if (missing === 0) {
        this.#state.set(node.id, 'ready');
        this.#ready.push(node.id);
      } else {
        this.#state.set(node.id, 'waiting');
      }
    }
  }

  /** The unit's state; undefined for ids outside the graph. */
  state(id: UnitId): SchedulerState | undefined {
    return this.#state.get(id);
  }

  /** The remaining-path weight the priority uses (minus the rank, when the caller ranks the units). */
  priority(id: UnitId): number {
    return this.#priority.get(id) ?? 0;
  }

  /** Number of units that may start now. */
  get readyCount(): number {
    return this.#ready.size;
  }

  /** Number of units started and not yet reported back. */
  get startedCount(): number {
    return this.#started;
  }

  /** True when every unit is done, failed or skipped. */
  get finished(): boolean {
    return this.#unsettled === 0;
  }

  /**
   * True when nothing is ready or started but some units still wait: only possible on a cycle, which discovery
   * reports before a walk; the walk treats it as a bug rather than hanging like Terragrunt did (#2239).
   */
  get stalled(): boolean {
    return !this.finished && this.#ready.size === 0 && this.#started === 0;
  }

  /** Takes the highest-priority ready unit and marks it started; undefined when none is ready. */
  next(): UnitId | undefined {
    const id = this.#ready.pop();
    if (id === undefined) return undefined;
    this.#state.set(id, 'started');
    this.#started += 1;
    return id;
  }

  /** Puts a started unit back (it was never actually run, e.g. the walk was interrupted before its spawn). */
  release(id: UnitId): void {
    this.#expect(id, 'started');
    this.#started -= 1;
    this.#state.set(id, 'ready');
    this.#ready.push(id);
  }

  /** Records a success; returns the units that became ready, in priority order. */
  complete(id: UnitId): UnitId[] {
    this.#expect(id, 'started');
    this.#started -= 1;
    this.#unsettled -= 1;
    this.#state.set(id, 'done');
    const newlyReady: UnitId[] = [];
    for (const dependent of this.#graph.nodes.get(id)?.dependents ?? []) {
      const missing = (this.#missing.get(dependent) ?? 0) - 1;
      this.#missing.set(dependent, missing);
      if (missing === 0 && this.#state.get(dependent) === 'waiting') {
        this.#state.set(dependent, 'ready');
        this.#ready.push(dependent);
        newlyReady.push(dependent);
      }
    }
    return newlyReady.sort((a, b) => this.#ready.compare(a, b));
  }

  /**
   * Records a failure: every transitive dependent not yet started is skipped with this unit as the cause (as
   * Terragrunt's early exit does); units already running are not touched and independent branches go on.
   */
  fail(id: UnitId): Skipped[] {
    this.#expect(id, 'started');
    this.#started -= 1;
    this.#unsettled -= 1;
    this.#state.set(id, 'failed');
    const skipped: Skipped[] = [];
    const stack = [...(this.#graph.nodes.get(id)?.dependents ?? [])];
    const seen = new Set<UnitId>();
    while (stack.length > 0) {
      const unit = stack.pop();
      if (unit === undefined || seen.has(unit)) continue;
      seen.add(unit);
      const state = this.#state.get(unit);
      if (state === 'waiting' || state === 'ready') {
        this.#settleSkipped(unit);
        skipped.push({ unit, because: id });
      }
      for (const next of this.#graph.nodes.get(unit)?.dependents ?? []) if (!seen.has(next)) stack.push(next);
    }
    return skipped.sort((a, b) => compareIds(a.unit, b.unit));
  }

  /** Skips every unit not yet started (`--fail-fast`); `because` names the failure that stopped the walk. */
  skipRemaining(because: UnitId): Skipped[] {
    const skipped: Skipped[] = [];
    for (const [unit, state] of this.#state) {
      if (state === 'waiting' || state === 'ready') {
        this.#settleSkipped(unit);
        skipped.push({ unit, because });
      }
    }
    return skipped.sort((a, b) => compareIds(a.unit, b.unit));
  }

  #settleSkipped(unit: UnitId): void {
    // A ready unit stays in the heap; pop() drops entries whose state is no longer 'ready' (lazy deletion).
    if (this.#state.get(unit) === 'ready') this.#ready.remove(unit);
    this.#state.set(unit, 'skipped');
    this.#unsettled -= 1;
  }

  #expect(id: UnitId, state: SchedulerState): void {
    const actual = this.#state.get(id);
    if (actual !== state) throw new Error(`scheduler: ${id} is ${actual ?? 'unknown'}, expected ${state}`);
  }
}

/** Per unit, its priority: higher goes first. */
function priorities(graph: Graph, options: SchedulerOptions): ReadonlyMap<UnitId, number> {
  const { rank } = options;
  if (rank) return new Map([...graph.nodes.keys()].map((id) => [id, -rank(id)]));
  const weight = options.weight ?? (() => 1);
  return remainingPathWeights(graph, (id) => {
    const w = weight(id);
    return Number.isFinite(w) && w > 0 ? w : 1;
  });
}

/** A binary max-heap of ready units: heaviest remaining path first, then id. Removal is lazy. */
class ReadyHeap {
  readonly #items: UnitId[] = [];
  readonly #priority: ReadonlyMap<UnitId, number>;
  readonly #removed = new Set<UnitId>();

  constructor(priority: ReadonlyMap<UnitId, number>) {
    this.#priority = priority;
  }

  get size(): number {
    return this.#items.length - this.#removed.size;
  }

  /** Negative when `a` goes before `b`. */
  compare(a: UnitId, b: UnitId): number {
    const diff = (this.#priority.get(b) ?? 0) - (this.#priority.get(a) ?? 0);
    return diff !== 0 ? diff : compareIds(a, b);
  }

  push(id: UnitId): void {
    if (this.#removed.delete(id)) {
      // Still physically present from before its removal: it is live again.
      return;
    }
    const items = this.#items;
    items.push(id);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(items[i] ?? '', items[parent] ?? '') >= 0) break;
      [items[i], items[parent]] = [items[parent] ?? '', items[i] ?? ''];
      i = parent;
    }
  }

  remove(id: UnitId): void {
    this.#removed.add(id);
  }

  pop(): UnitId | undefined {
    for (;;) {
      const top = this.#popRaw();
      if (top === undefined) return undefined;
      if (!this.#removed.delete(top)) return top;
    }
  }

  #popRaw(): UnitId | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined) return undefined;
    if (items.length === 0) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let best = i;
      if (left < items.length && this.compare(items[left] ?? '', items[best] ?? '') < 0) best = left;
      if (right < items.length && this.compare(items[right] ?? '', items[best] ?? '') < 0) best = right;
      if (best === i) break;
      [items[i], items[best]] = [items[best] ?? '', items[i] ?? ''];
      i = best;
    }
    return top;
  }
}
