import { describe, expect, it } from 'vitest';
import { Graph } from '../../../engine/graph.js';
import type { RollbackInput, StateProbe } from '../../../engine/rollback.js';
import { decideRollback, keepMessage } from '../../../engine/rollback.js';

/** vpc <- eks <- addons <- argocd, and vpc <- dns (edges: dependent -> dependency). */
function platform(): Graph {
  const g = new Graph();
  for (const id of ['p/vpc', 'p/eks', 'p/addons', 'p/argocd', 'p/dns']) g.addNode(id, 'p', `live/${id}`);
  g.addEdge('p/eks', 'p/vpc');
  g.addEdge('p/addons', 'p/eks');
  g.addEdge('p/argocd', 'p/addons');
  g.addEdge('p/dns', 'p/vpc');
  return g;
}

const absent: StateProbe = { type: 'absent' };

function input(overrides: Partial<RollbackInput>): RollbackInput {
  const before = new Map<string, StateProbe>(
    ['p/vpc', 'p/eks', 'p/addons', 'p/argocd', 'p/dns'].map((id) => [id, absent]),
  );
  return {
    graph: platform(),
    ended: 'unit-failed',
    refused: false,
    failed: ['p/addons'],
    optional: () => false,
    applied: ['p/vpc', 'p/eks', 'p/addons', 'p/dns'],
    before,
    ...overrides,
  };
}

describe('decideRollback', () => {
  it('destroys exactly the units the run created, the failed one included, dependents first', () => {
    const decision = decideRollback(input({}));
    expect(decision).toMatchObject({ type: 'destroy' });
    if (decision.type !== 'destroy') return;
    expect(new Set(decision.order)).toEqual(new Set(['p/vpc', 'p/eks', 'p/addons', 'p/dns']));
    // Never p/argocd: it was skipped, the run did not apply it.
    expect(decision.order).not.toContain('p/argocd');
    const at = (id: string): number => decision.order.indexOf(id);
    expect(at('p/addons')).toBeLessThan(at('p/eks'));
    expect(at('p/eks')).toBeLessThan(at('p/vpc'));
    expect(at('p/dns')).toBeLessThan(at('p/vpc'));
  });

  it('keeps a unit that stood before, and what a standing unit depends on', () => {
    const before = new Map(input({}).before);
    before.set('p/dns', { type: 'standing', resources: 3 });
    const decision = decideRollback(input({ before }));
    expect(decision.type).toBe('destroy');
    if (decision.type !== 'destroy') return;
    expect(decision.order).toEqual(['p/addons', 'p/eks']);
    expect(decision.kept.get('p/dns')).toEqual({ type: 'stood-before', resources: 3 });
    expect(decision.kept.get('p/vpc')).toEqual({ type: 'needed-by', unit: 'p/dns' });
    expect(keepMessage('p/vpc', decision.kept.get('p/vpc') ?? absentReason())).toContain('p/dns, which stays');
  });

  it('fails closed: a unit whose probe failed, or was never probed, counts as standing', () => {
    const before = new Map(input({}).before);
    before.set('p/eks', { type: 'unknown', message: 'ExpiredToken' });
    before.delete('p/addons');
    const decision = decideRollback(input({ before }));
    expect(decision.type).toBe('destroy');
    if (decision.type !== 'destroy') return;
    // eks and addons stay (unknown), so vpc (eks needs it) stays; dns was created and nothing needs it.
    expect(decision.order).toEqual(['p/dns']);
    expect(decision.kept.get('p/eks')).toEqual({ type: 'could-not-tell', message: 'ExpiredToken' });
    expect(decision.kept.get('p/addons')?.type).toBe('could-not-tell');
  });

  it('keeps a created unit that a dependent outside the run, never probed, needs', () => {
    // p/argocd was probed (absent) and skipped; p/dns is outside the run: never probed.
    const decision = decideRollback(
      input({
        applied: ['p/vpc', 'p/eks', 'p/addons'],
        before: new Map([
          ['p/vpc', absent],
          ['p/eks', absent],
          ['p/addons', absent],
          ['p/argocd', absent],
        ]),
      }),
    );
    expect(decision.type).toBe('destroy');
    if (decision.type !== 'destroy') return;
    expect(decision.order).toEqual(['p/addons', 'p/eks']);
    expect(decision.kept.get('p/vpc')).toEqual({ type: 'needed-by', unit: 'p/dns' });
  });

  it('holds when every applied unit stood before', () => {
    const before = new Map<string, StateProbe>(
      ['p/vpc', 'p/eks', 'p/addons', 'p/dns'].map((id) => [id, { type: 'standing', resources: 1 }]),
    );
    expect(decideRollback(input({ before }))).toMatchObject({ type: 'hold', rule: 'already-standing' });
  });

  it('holds for --no-rollback, an interruption, a failure after the walk, and optional-only failures', () => {
    expect(decideRollback(input({ refused: true }))).toMatchObject({ type: 'hold', rule: 'no-rollback' });
    expect(decideRollback(input({ ended: 'interrupted' }))).toMatchObject({ type: 'hold', rule: 'interrupted' });
    expect(decideRollback(input({ ended: 'other-failure', failed: [] }))).toMatchObject({
      type: 'hold',
      rule: 'not-a-unit-failure',
    });
    expect(decideRollback(input({ optional: (id) => id === 'p/addons' }))).toMatchObject({
      type: 'hold',
      rule: 'optional-unit',
    });
  });

  it('rolls back when a core unit failed beside an optional one', () => {
    const decision = decideRollback(input({ failed: ['p/addons', 'p/dns'], optional: (id) => id === 'p/dns' }));
    expect(decision.type).toBe('destroy');
  });
});

function absentReason(): never {
  throw new Error('expected a reason');
}
