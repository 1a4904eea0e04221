import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../../engine/scheduler.js';
import { diamond, graphOf } from './helpers.js';

/** Drains a scheduler with unlimited slots, completing units in the order handed out. */
function drain(s: Scheduler): string[] {
  const order: string[] = [];
  for (let unit = s.next(); unit !== undefined; unit = s.next()) {
    order.push(unit);
    s.complete(unit);
  }
  return order;
}

describe('Scheduler', () => {
  it('hands out units only after their dependencies completed', () => {
    const s = new Scheduler(
      graphOf([
        ['p/b', 'p/a'],
        ['p/c', 'p/a'],
        ['p/d', 'p/b'],
        ['p/d', 'p/c'],
      ]),
    );
    expect(s.next()).toBe('p/a');
    expect(s.next()).toBeUndefined();
    expect(s.complete('p/a')).toEqual(['p/b', 'p/c']);
    expect(s.next()).toBe('p/b');
    s.complete('p/b');
    expect(s.next()).toBe('p/c');
    expect(s.next()).toBeUndefined();
    expect(s.complete('p/c')).toEqual(['p/d']);
    expect(s.next()).toBe('p/d');
    s.complete('p/d');
    expect(s.finished).toBe(true);
  });

  it('starts the head of the longest remaining chain first, even when it sorts last', () => {
    // p/z1 -> p/z2 -> p/z3 -> p/z4 is the critical path; p/a..p/c are alone. Alphabetical order would start a, b, c.
    const g = graphOf(
      [
        ['p/z2', 'p/z1'],
        ['p/z3', 'p/z2'],
        ['p/z4', 'p/z3'],
      ],
      ['p/a', 'p/b', 'p/c'],
    );
    const s = new Scheduler(g);
    expect(s.next()).toBe('p/z1');
    expect(s.priority('p/z1')).toBe(4);
    expect(s.next()).toBe('p/a');
  });

  it('weighs units by their last duration and breaks ties by id', () => {
    // Two chains of two: p/x -> p/y weighs 2 + 2, p/m -> p/n weighs 1 + 10.
    const g = graphOf([
      ['p/y', 'p/x'],
      ['p/n', 'p/m'],
    ]);
    const weights: Record<string, number> = { 'p/x': 2, 'p/y': 2, 'p/m': 1, 'p/n': 10 };
    const s = new Scheduler(g, { weight: (id) => weights[id] ?? 1 });
    expect([s.next(), s.next()]).toEqual(['p/m', 'p/x']);
    const tie = new Scheduler(graphOf([], ['p/b', 'p/a', 'p/c']));
    expect(drain(tie)).toEqual(['p/a', 'p/b', 'p/c']);
  });

  it('with a rank, starts ready units lowest rank first instead of by critical path', () => {
    // p/z1 heads the longest chain, but the caller lists p/c, p/a, p/z1, p/b: that order wins among ready units.
    const g = graphOf(
      [
        ['p/z2', 'p/z1'],
        ['p/z3', 'p/z2'],
      ],
      ['p/a', 'p/b', 'p/c'],
    );
    const listed = ['p/c', 'p/a', 'p/z1', 'p/b', 'p/z2', 'p/z3'];
    const s = new Scheduler(g, { rank: (id) => listed.indexOf(id) });
    expect(drain(s)).toEqual(['p/c', 'p/a', 'p/z1', 'p/b', 'p/z2', 'p/z3']);
  });

  it('treats unknown or nonsensical weights as 1', () => {
    const g = graphOf([['p/b', 'p/a']], ['p/c']);
    const s = new Scheduler(g, { weight: (id) => (id === 'p/c' ? Number.NaN : -5) });
    expect(s.priority('p/a')).toBe(2);
    expect(s.priority('p/c')).toBe(1);
  });

  it('skips every transitive dependent of a failure through a diamond, and lets independent branches go on', () => {
    const g = diamond();
    const s = new Scheduler(g);
    expect([s.next(), s.next()]).toEqual(['p/a', 'p/x']);
    s.complete('p/a');
    expect([s.next(), s.next()]).toEqual(['p/b', 'p/c']);
    expect(s.fail('p/b')).toEqual([
      { unit: 'p/d', because: 'p/b' },
      { unit: 'p/e', because: 'p/b' },
    ]);
    // c keeps running and completing it releases nothing: d is skipped.
    expect(s.complete('p/c')).toEqual([]);
    s.complete('p/x');
    expect(s.next()).toBeUndefined();
    expect(s.finished).toBe(true);
    expect(s.state('p/d')).toBe('skipped');
  });

  it('removes a skipped unit that was already ready from the queue', () => {
    // p/b and p/c are ready (in the heap) when --fail-fast skips them: next() must never hand them out.
    const s = new Scheduler(graphOf([], ['p/a', 'p/b', 'p/c']));
    expect(s.next()).toBe('p/a');
    expect(s.readyCount).toBe(2);
    expect(s.skipRemaining('p/a')).toEqual([
      { unit: 'p/b', because: 'p/a' },
      { unit: 'p/c', because: 'p/a' },
    ]);
    expect(s.readyCount).toBe(0);
    expect(s.next()).toBeUndefined();
    s.fail('p/a');
    expect(s.finished).toBe(true);
  });

  it('counts done units as satisfied and never hands them out', () => {
    const g = graphOf([
      ['p/b', 'p/a'],
      ['p/c', 'p/b'],
    ]);
    const s = new Scheduler(g, { done: ['p/a', 'p/b'] });
    expect(drain(s)).toEqual(['p/c']);
  });

  it('puts a released unit back in the queue', () => {
    const s = new Scheduler(graphOf([], ['p/a']));
    expect(s.next()).toBe('p/a');
    s.release('p/a');
    expect(s.startedCount).toBe(0);
    expect(s.next()).toBe('p/a');
  });

  it('reports a stall on a cycle instead of waiting forever', () => {
    const g = graphOf([
      ['p/a', 'p/b'],
      ['p/b', 'p/a'],
    ]);
    const s = new Scheduler(g);
    expect(s.next()).toBeUndefined();
    expect(s.stalled).toBe(true);
  });

  it('refuses transitions from the wrong state (a walk bug, not a user error)', () => {
    const s = new Scheduler(graphOf([], ['p/a']));
    expect(() => s.complete('p/a')).toThrow(/expected started/);
  });

  // Its speed is measured by bench/walk (engine overhead per unit, 10,000 instant units), not by a timed test.
  it('drains 10,000 units in topological order', () => {
    const edges: [string, string][] = [];
    for (let i = 1; i < 10_000; i += 1) edges.push([`p/u${i}`, `p/u${Math.floor((i - 1) / 3)}`]);
    const g = graphOf(edges);
    const order = drain(new Scheduler(g));
    const position = new Map(order.map((id, i) => [id, i]));
    expect(order).toHaveLength(10_000);
    for (const [from, to] of edges) expect(position.get(from)!).toBeGreaterThan(position.get(to)!);
  });
});
