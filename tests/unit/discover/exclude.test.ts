import { describe, expect, it } from 'vitest';
import { excludedUnits, excludes } from '../../../discover/exclude.js';
import type { ExcludeSpec } from '../../../discover/types.js';
import { Graph } from '../../../engine/graph.js';

describe('Terragrunt exclude blocks', () => {
  it('match the listed commands, all, and all_except_output, ignoring case', () => {
    expect(excludes({ actions: ['apply'] }, 'apply')).toBe(true);
    expect(excludes({ actions: ['apply'] }, 'destroy')).toBe(false);
    expect(excludes({ actions: ['all'] }, 'destroy')).toBe(true);
    expect(excludes({ actions: ['all_except_output'] }, 'plan')).toBe(true);
    expect(excludes({ actions: ['all_except_output'] }, 'output')).toBe(false);
    expect(excludes({ actions: ['plan'] }, 'PLAN')).toBe(true);
  });

  it('leave out the unit, and its direct dependencies only with exclude_dependencies', () => {
    const graph = new Graph();
    for (const id of ['dev/app', 'dev/db', 'dev/vpc', 'dev/other']) graph.addNode(id, 'dev', id);
    graph.addEdge('dev/app', 'dev/db', { kind: 'dependencies' });
    graph.addEdge('dev/db', 'dev/vpc', { kind: 'dependencies' });
    const spec = (over: Partial<ExcludeSpec>): { exclude: ExcludeSpec } => ({
      exclude: { actions: ['apply'], excludeDependencies: false, ...over },
    });
    expect([...excludedUnits(graph, new Map([['dev/app', spec({})]]), 'apply')]).toEqual([
      ['dev/app', { by: 'dev/app' }],
    ]);
    expect([...excludedUnits(graph, new Map([['dev/app', spec({ excludeDependencies: true })]]), 'apply')]).toEqual([
      ['dev/app', { by: 'dev/app' }],
      ['dev/db', { by: 'dev/app' }],
    ]);
    expect(excludedUnits(graph, new Map([['dev/app', spec({})]]), 'destroy').size).toBe(0);
  });
});
