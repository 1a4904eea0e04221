/**
 * The unit graph: plain data plus pure functions. No I/O, no clock, no process: everything here is tested without
 * spawning anything. An edge `a -> b` means "a depends on b": b is applied before a and destroyed after it.
 */

export type UnitId = string;

import { crypto } from '../config/crypto.js';
import type { SourceLocation } from '../config/location.js';

export type { SourceLocation };

/** Why an edge exists, for cycle reports and `graph --format json` consumers. */
export interface EdgeOrigin {
  readonly kind: 'dependency' | 'dependencies' | 'implicit' | 'stack';
  /** The dependency block's name, for `kind: 'dependency'`. */
  readonly name?: string;
  readonly location?: SourceLocation;
}

export interface GraphNode {
  readonly id: UnitId;
  readonly env: string;
  /** The unit directory, relative to the repository root, posix separators. */
  readonly dir: string;
  /** Units this one needs (applied first). */
  readonly dependencies: Set<UnitId>;
  /** Units that need this one. */
  readonly dependents: Set<UnitId>;
}

export class Graph {
  readonly nodes = new Map<UnitId, GraphNode>();
  /** Keyed by `edgeKey(from, to)`. */
  readonly origins = new Map<string, EdgeOrigin[]>();
  /** The ids, sorted, until a node is added: most graph functions start from them, several times per command. */
  #sortedIds: UnitId[] | undefined;

  addNode(id: UnitId, env: string, dir: string): GraphNode {
    const existing = this.nodes.get(id);
    if (existing) return existing;
    const node: GraphNode = { id, env, dir, dependencies: new Set(), dependents: new Set() };
    this.nodes.set(id, node);
    this.#sortedIds = undefined;
    return node;
  }

  /** Records that `from` depends on `to`; both nodes must exist. Changes both sides together. */
  addEdge(from: UnitId, to: UnitId, origin?: EdgeOrigin): void {
    const a = this.nodes.get(from);
    const b = this.nodes.get(to);
    if (!a || !b) throw new Error(`addEdge: unknown unit ${a ? to : from}`);
    a.dependencies.add(to);
    b.dependents.add(from);
    if (origin) {
      const key = edgeKey(from, to);
      const list = this.origins.get(key);
      if (list) list.push(origin);
      else this.origins.set(key, [origin]);
    }
  }

  get(id: UnitId): GraphNode | undefined {
    return this.nodes.get(id);
  }

  has(id: UnitId): boolean {
    return this.nodes.has(id);
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Unit ids, sorted. */
  ids(): UnitId[] {
    this.#sortedIds ??= [...this.nodes.keys()].sort(compareIds);
    return [...this.#sortedIds];
  }

  edgeOrigins(from: UnitId, to: UnitId): readonly EdgeOrigin[] {
    return this.origins.get(edgeKey(from, to)) ?? [];
  }
}

export function edgeKey(from: UnitId, to: UnitId): string {
  return `${from}\u0000${to}`;
}

/** Plain code-point order, so results do not depend on the machine's locale. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sorted(values: Iterable<UnitId>): UnitId[] {
  return [...values].sort(compareIds);
}

/** A copy of the graph restricted to `keep`; edges to dropped units disappear. */
export function subgraph(graph: Graph, keep: Iterable<UnitId>): Graph {
  const keepSet = new Set(keep);
  const out = new Graph();
  for (const id of graph.ids()) {
    const node = graph.nodes.get(id);
    if (node && keepSet.has(id)) out.addNode(id, node.env, node.dir);
  }
  for (const id of out.ids()) {
    for (const dep of sorted(graph.nodes.get(id)?.dependencies ?? [])) {
      if (!keepSet.has(dep)) continue;
      const origins = graph.edgeOrigins(id, dep);
      if (origins.length === 0) out.addEdge(id, dep);
      for (const origin of origins) out.addEdge(id, dep, origin);
    }
  }
  return out;
}

/** The same units with every edge turned around: the order to destroy in. */
export function reverse(graph: Graph): Graph {
  const out = new Graph();
  for (const id of graph.ids()) {
    const node = graph.nodes.get(id);
    if (node) out.addNode(id, node.env, node.dir);
  }
  for (const id of graph.ids()) {
    for (const dep of sorted(graph.nodes.get(id)?.dependencies ?? [])) {
      const origins = graph.edgeOrigins(id, dep);
      if (origins.length === 0) out.addEdge(dep, id);
      for (const origin of origins) out.addEdge(dep, id, origin);
    }
  }
  return out;
}

function walkFrom(graph: Graph, start: Iterable<UnitId>, next: (node: GraphNode) => Iterable<UnitId>): Set<UnitId> {
  const seen = new Set<UnitId>();
  const stack = [...start];
  while (stack.length > 0) {
    const id = stack.pop();
    if (id === undefined || seen.has(id)) continue;
    const node = graph.nodes.get(id);
    if (!node) continue;
    seen.add(id);
    for (const n of next(node)) if (!seen.has(n)) stack.push(n);
  }
  return seen;
}

/** Every unit the given units need, directly or not (the given units excluded unless reachable from another). */
export function transitiveDependencies(graph: Graph, ids: Iterable<UnitId>): Set<UnitId> {
  const roots = [...ids];
  const firstHop = roots.flatMap((id) => [...(graph.nodes.get(id)?.dependencies ?? [])]);
  return walkFrom(graph, firstHop, (node) => node.dependencies);
}

/** Every unit that needs one of the given units, directly or not. */
export function transitiveDependents(graph: Graph, ids: Iterable<UnitId>): Set<UnitId> {
  const roots = [...ids];
  const firstHop = roots.flatMap((id) => [...(graph.nodes.get(id)?.dependents ?? [])]);
  return walkFrom(graph, firstHop, (node) => node.dependents);
}

export interface Selection {
  /** Keep only units of these environments (empty: all). */
  readonly envs?: readonly string[];
  /** Keep only these units (empty: all). */
  readonly units?: readonly UnitId[];
  /** Add what the selected units need (`dependencies`) or what needs them (`dependents`). */
  readonly expand?: 'none' | 'dependencies' | 'dependents';
}

/**
 * The ids a selection picks: environment and unit filters intersect, then the expansion adds transitive
 * dependencies or dependents (which may lie outside the selected environments, as edges cross environments).
 */
export function select(graph: Graph, selection: Selection): Set<UnitId> {
  const envs = selection.envs ?? [];
  const units = selection.units ?? [];
  let picked = graph.ids().filter((id) => envs.length === 0 || envs.includes(graph.nodes.get(id)?.env ?? ''));
  if (units.length > 0) picked = picked.filter((id) => units.includes(id));
  const out = new Set(picked);
  if (selection.expand === 'dependencies') for (const id of transitiveDependencies(graph, picked)) out.add(id);
  if (selection.expand === 'dependents') for (const id of transitiveDependents(graph, picked)) out.add(id);
  return out;
}

/** A strongly connected component that forms a cycle, with one ordered cycle through all its members. */
export interface Cycle {
  /** Members, sorted. */
  readonly members: UnitId[];
  /** A closed walk a -> b -> ... -> a through every member (the first id repeats at the end). */
  readonly path: UnitId[];
  /** The edges of `path`, each with where it is declared. */
  readonly edges: { from: UnitId; to: UnitId; origins: readonly EdgeOrigin[] }[];
}

/** Every cycle (Tarjan's strongly connected components of size > 1, plus self-loops), sorted by first member. */
export function findCycles(graph: Graph): Cycle[] {
  const index = new Map<UnitId, number>();
  const low = new Map<UnitId, number>();
  const onStack = new Set<UnitId>();
  const stack: UnitId[] = [];
  const components: UnitId[][] = [];
  let counter = 0;

  // Iterative Tarjan: a recursive one overflows the call stack on long chains (10,000 units).
  for (const root of graph.ids()) {
    if (index.has(root)) continue;
    const work: { id: UnitId; deps: UnitId[]; next: number }[] = [];
    const enter = (id: UnitId): void => {
      index.set(id, counter);
      low.set(id, counter);
      counter += 1;
      stack.push(id);
      onStack.add(id);
      work.push({ id, deps: sorted(graph.nodes.get(id)?.dependencies ?? []), next: 0 });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (!frame) break;
      if (frame.next < frame.deps.length) {
        const dep = frame.deps[frame.next] ?? '';
        frame.next += 1;
        if (!index.has(dep)) enter(dep);
        else if (onStack.has(dep)) low.set(frame.id, Math.min(low.get(frame.id) ?? 0, index.get(dep) ?? 0));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id) ?? 0, low.get(frame.id) ?? 0));
      if (low.get(frame.id) === index.get(frame.id)) {
        const component: UnitId[] = [];
        for (;;) {
          const member = stack.pop();
          if (member === undefined) break;
          onStack.delete(member);
          component.push(member);
          if (member === frame.id) break;
        }
        const only = component[0];
        const selfLoop = component.length === 1 && only !== undefined && graph.nodes.get(only)?.dependencies.has(only);
        if (component.length > 1 || selfLoop) components.push(component.sort(compareIds));
      }
    }
  }

  return components
    .sort((a, b) => compareIds(a[0] ?? '', b[0] ?? ''))
    .map((members) => {
      const path = cyclePath(graph, members);
      const edges = path.slice(0, -1).map((from, i) => {
        const to = path[i + 1] ?? from;
        return { from, to, origins: graph.edgeOrigins(from, to) };
      });
      return { members, path, edges };
    });
}

/**
 * A closed walk through every member of a strongly connected component: from the first member, repeatedly take the
 * shortest path (inside the component) to the nearest member not yet visited, then back to the start.
 */
function cyclePath(graph: Graph, members: UnitId[]): UnitId[] {
  const inside = new Set(members);
  const start = members[0] ?? '';
  const shortest = (from: UnitId, isGoal: (id: UnitId) => boolean): UnitId[] => {
    const prev = new Map<UnitId, UnitId>();
    const queue = [from];
    const seen = new Set([from]);
    while (queue.length > 0) {
      const id = queue.shift() ?? '';
      for (const dep of sorted(graph.nodes.get(id)?.dependencies ?? [])) {
        if (!inside.has(dep)) continue;
        if (isGoal(dep)) {
          const path = [dep];
          let cur = id;
          while (cur !== from) {
            path.unshift(cur);
            cur = prev.get(cur) ?? from;
          }
          return path;
        }
        if (!seen.has(dep)) {
          seen.add(dep);
          prev.set(dep, id);
          queue.push(dep);
        }
      }
    }
    return [];
  };
  const visited = new Set([start]);
  const path = [start];
  let at = start;
  while (visited.size < members.length) {
    const hop = shortest(at, (id) => !visited.has(id));
    if (hop.length === 0) break;
    for (const id of hop) visited.add(id);
    path.push(...hop);
    at = hop[hop.length - 1] ?? at;
  }
  path.push(...shortest(at, (id) => id === start));
  return path;
}

/**
 * Dependency-first order, ties broken by id (Kahn with a sorted ready set). Units on a cycle never become ready and
 * are left out: check `findCycles` first.
 */
export function topologicalOrder(graph: Graph): UnitId[] {
  return waves(graph).flat();
}

/**
 * Levels: wave 0 holds units with no dependencies, wave n units whose dependencies all sit in earlier waves. Each
 * wave is sorted by id. Units on (or behind) a cycle are left out.
 */
export function waves(graph: Graph): UnitId[][] {
  const remaining = new Map<UnitId, number>();
  for (const node of graph.nodes.values()) remaining.set(node.id, node.dependencies.size);
  let current = graph.ids().filter((id) => remaining.get(id) === 0);
  const out: UnitId[][] = [];
  while (current.length > 0) {
    out.push(current);
    const next: UnitId[] = [];
    for (const id of current) {
      for (const dependent of graph.nodes.get(id)?.dependents ?? []) {
        const left = (remaining.get(dependent) ?? 0) - 1;
        remaining.set(dependent, left);
        if (left === 0) next.push(dependent);
      }
    }
    current = next.sort(compareIds);
  }
  return out;
}

/** For each unit, its wave index (as `waves` computes it). */
export function waveIndex(graph: Graph): Map<UnitId, number> {
  const out = new Map<UnitId, number>();
  waves(graph).forEach((wave, i) => {
    for (const id of wave) out.set(id, i);
  });
  return out;
}

/**
 * For each unit, the weight of the heaviest path from it to the end of the graph (itself included), following
 * dependents: the work that cannot start until it finishes. `weight` defaults to 1 per unit; `order` is
 * `topologicalOrder(graph)`, for a caller that has it already.
 */
export function remainingPathWeights(
  graph: Graph,
  weight: (id: UnitId) => number = () => 1,
  order: readonly UnitId[] = topologicalOrder(graph),
): Map<UnitId, number> {
  const out = new Map<UnitId, number>();
  for (let i = order.length - 1; i >= 0; i -= 1) {
    const id = order[i] ?? '';
    let best = 0;
    for (const dependent of graph.nodes.get(id)?.dependents ?? []) best = Math.max(best, out.get(dependent) ?? 0);
    out.set(id, best + weight(id));
  }
  return out;
}

/** The heaviest dependency chain, first unit first, and its total weight (`order`: see remainingPathWeights). */
export function criticalPath(
  graph: Graph,
  weight: (id: UnitId) => number = () => 1,
  order?: readonly UnitId[],
): { path: UnitId[]; weight: number } {
  const remaining = remainingPathWeights(graph, weight, order);
  let start: UnitId | undefined;
  for (const id of graph.ids()) {
    if ((graph.nodes.get(id)?.dependencies.size ?? 0) !== 0) continue;
    if (start === undefined || (remaining.get(id) ?? 0) > (remaining.get(start) ?? 0)) start = id;
  }
  if (start === undefined) return { path: [], weight: 0 };
  const path = [start];
  let at = start;
  for (;;) {
    let next: UnitId | undefined;
    for (const dependent of sorted(graph.nodes.get(at)?.dependents ?? [])) {
      if (next === undefined || (remaining.get(dependent) ?? 0) > (remaining.get(next) ?? 0)) next = dependent;
    }
    if (next === undefined) break;
    path.push(next);
    at = next;
  }
  return { path, weight: remaining.get(start) ?? 0 };
}

/**
 * A stable hash of the units and edges: two runs with the same fingerprint walk the same graph. Used to refuse a
 * resume across a re-wired graph.
 */
export function fingerprint(graph: Graph): string {
  const hash = crypto().createHash('sha256');
  for (const id of graph.ids()) {
    hash.update(`${id}\n`);
    for (const dep of sorted(graph.nodes.get(id)?.dependencies ?? [])) hash.update(`  ${dep}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}
