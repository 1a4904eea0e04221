import { describe, expect, it } from 'vitest';
import {
  Graph,
  criticalPath,
  findCycles,
  fingerprint,
  reverse,
  select,
  topologicalOrder,
  transitiveDependents,
  waves,
} from '../../engine/graph.js';

function build(edges: [string, string][], extra: string[] = []): Graph {
  const g = new Graph();
  for (const id of [...edges.flat(), ...extra]) g.addNode(id, id.split('/')[0] ?? '', `live/${id}`);
  for (const [from, to] of edges)
    g.addEdge(from, to, { kind: 'dependency', location: { file: `${from}.hcl`, line: 1 } });
  return g;
}

describe('Graph', () => {
  const diamond = build([
    ['p/b', 'p/a'],
    ['p/c', 'p/a'],
    ['p/d', 'p/b'],
    ['p/d', 'p/c'],
  ]);

  it('orders dependencies first with ties by id', () => {
    expect(topologicalOrder(diamond)).toEqual(['p/a', 'p/b', 'p/c', 'p/d']);
    expect(waves(diamond)).toEqual([['p/a'], ['p/b', 'p/c'], ['p/d']]);
  });

  it('reverses for teardown', () => {
    expect(waves(reverse(diamond))).toEqual([['p/d'], ['p/b', 'p/c'], ['p/a']]);
  });

  it('selects with transitive dependents', () => {
    expect([...transitiveDependents(diamond, ['p/b'])]).toEqual(['p/d']);
    expect([...select(diamond, { units: ['p/b'], expand: 'dependencies' })].sort()).toEqual(['p/a', 'p/b']);
  });

  it('finds every cycle with an ordered path and edge origins', () => {
    const g = build([
      ['p/a', 'p/b'],
      ['p/b', 'p/c'],
      ['p/c', 'p/a'],
      ['q/x', 'q/x'],
      ['q/y', 'p/a'],
    ]);
    const cycles = findCycles(g);
    expect(cycles.map((c) => c.path)).toEqual([
      ['p/a', 'p/b', 'p/c', 'p/a'],
      ['q/x', 'q/x'],
    ]);
    expect(cycles[0]?.edges[0]?.origins[0]?.location).toEqual({ file: 'p/a.hcl', line: 1 });
  });

  it('gives the critical path by weight', () => {
    const g = build([
      ['p/b', 'p/a'],
      ['p/c', 'p/b'],
      ['p/z', 'p/a'],
    ]);
    const weights: Record<string, number> = { 'p/a': 1, 'p/b': 1, 'p/c': 1, 'p/z': 10 };
    expect(criticalPath(g, (id) => weights[id] ?? 1)).toEqual({ path: ['p/a', 'p/z'], weight: 11 });
  });

  it('fingerprints units and edges, not insertion order', () => {
    const a = build([['p/b', 'p/a']], ['p/c']);
    const b = build([['p/b', 'p/a']], ['p/c']);
    expect(fingerprint(a)).toBe(fingerprint(b));
    expect(fingerprint(a)).not.toBe(fingerprint(build([['p/c', 'p/a']], ['p/b'])));
  });
});
