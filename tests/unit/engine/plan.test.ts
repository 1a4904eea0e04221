import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { describeDiff, diffScope, planRun, planWaves } from '../../../engine/plan.js';
import type { Graph } from '../../../engine/graph.js';
import { graphOf } from './helpers.js';

const config = configSchema.parse({
  version: 1,
  environments: { platform: { dir: 'live/platform' }, preprod: { dir: 'live/preprod' } },
  units: { 'platform/iam': { teardown_skip: true } },
});

// iam <- vpc <- eks <- cilium; vpc <- dns; preprod/eks <- platform/vpc (cross-env); ecr alone.
const graph = graphOf(
  [
    ['platform/vpc', 'platform/iam'],
    ['platform/eks', 'platform/vpc'],
    ['platform/cilium', 'platform/eks'],
    ['platform/dns', 'platform/vpc'],
    ['preprod/eks', 'platform/vpc'],
  ],
  ['platform/ecr'],
);
const none = { env: [], unit: [], withDeps: false };

describe('planRun', () => {
  it('walks the whole graph forward for bootstrap', () => {
    const planned = planRun({ command: 'bootstrap', graph, config, selection: none });
    expect(planned.type).toBe('ok');
    if (planned.type !== 'ok') return;
    expect(planWaves(planned.plan)).toEqual([
      ['platform/ecr', 'platform/iam'],
      ['platform/vpc'],
      ['platform/dns', 'platform/eks', 'preprod/eks'],
      ['platform/cilium'],
    ]);
    expect(planned.plan.kept).toEqual([]);
  });

  it('reverses for teardown and keeps the floor and everything it depends on', () => {
    const withFloorDeps = graphOf([
      ['platform/iam', 'platform/kms'],
      ['platform/vpc', 'platform/iam'],
    ]);
    const planned = planRun({ command: 'teardown', graph: withFloorDeps, config, selection: none });
    expect(planned.type === 'ok' && planned.plan.kept).toEqual(['platform/iam', 'platform/kms']);
    const full = planRun({ command: 'teardown', graph, config, selection: none });
    expect(full.type === 'ok' && planWaves(full.plan)).toEqual([
      ['platform/cilium', 'platform/dns', 'platform/ecr', 'preprod/eks'],
      ['platform/eks'],
      ['platform/vpc'],
    ]);
  });

  it('keeps what the floor depends on even when the floor unit itself is outside the selection', () => {
    // platform/iam (teardown_skip) needs platform/kms and preprod/kms: neither may ever be destroyed, whether the
    // selection names them alone, picks their environment, or reaches them through --with-deps.
    const floorDeps = graphOf([
      ['platform/iam', 'platform/kms'],
      ['platform/iam', 'preprod/kms'],
      ['platform/vpc', 'platform/iam'],
      ['preprod/app', 'preprod/kms'],
    ]);
    const plan = (selection: { env: string[]; unit: string[]; withDeps: boolean }) => {
      const planned = planRun({ command: 'teardown', graph: floorDeps, config, selection });
      if (planned.type !== 'ok') throw new Error(planned.message);
      return { destroyed: planned.plan.walkGraph.ids(), kept: planned.plan.kept };
    };
    expect(plan({ env: [], unit: ['platform/kms'], withDeps: false })).toEqual({
      destroyed: [],
      kept: ['platform/kms'],
    });
    expect(plan({ env: ['preprod'], unit: [], withDeps: false })).toEqual({
      destroyed: ['preprod/app'],
      kept: ['preprod/kms'],
    });
    expect(plan({ env: [], unit: ['preprod/kms'], withDeps: true })).toEqual({
      destroyed: ['platform/vpc', 'preprod/app'],
      kept: ['platform/iam', 'preprod/kms'],
    });
  });

  it('keeps prevent_destroy units and what they depend on on teardown, and ignores them on bootstrap', () => {
    const preventDestroy = new Set(['platform/eks']);
    const teardown = planRun({ command: 'teardown', graph, config, selection: none, preventDestroy });
    if (teardown.type !== 'ok') throw new Error(teardown.message);
    // eks stays, and so do vpc and iam, which eks stands on; cilium, dns, preprod/eks and ecr are destroyed.
    expect(teardown.plan.kept).toEqual(['platform/eks', 'platform/iam', 'platform/vpc']);
    expect(planWaves(teardown.plan).flat().sort()).toEqual([
      'platform/cilium',
      'platform/dns',
      'platform/ecr',
      'preprod/eks',
    ]);
    const bootstrap = planRun({ command: 'bootstrap', graph, config, selection: none, preventDestroy });
    if (bootstrap.type !== 'ok') throw new Error(bootstrap.message);
    expect(bootstrap.plan.kept).toEqual([]);
    expect(planWaves(bootstrap.plan).flat()).toHaveLength(7);
  });

  it('leaves out excluded units among the selected ones, like the floor, and lists them with who excluded them', () => {
    // As discovery's excludedUnits over the scope: cilium's block excludes it and (exclude_dependencies) eks.
    const byCilium = (scope: Graph) =>
      new Map(
        ['platform/cilium', 'platform/eks']
          .filter((id) => scope.has('platform/cilium') && scope.has(id))
          .map((id) => [id, { by: 'platform/cilium' }]),
      );
    const bootstrap = planRun({ command: 'bootstrap', graph, config, selection: none, excluded: byCilium });
    if (bootstrap.type !== 'ok') throw new Error(bootstrap.message);
    expect([...bootstrap.plan.excluded]).toEqual([
      ['platform/cilium', 'platform/cilium'],
      ['platform/eks', 'platform/cilium'],
    ]);
    expect(planWaves(bootstrap.plan)).toEqual([
      ['platform/ecr', 'platform/iam'],
      ['platform/vpc'],
      ['platform/dns', 'preprod/eks'],
    ]);
    // Outside the selection, cilium's block does not reach eks (Terragrunt applies exclusions after its filters).
    const eksOnly = planRun({
      command: 'bootstrap',
      graph,
      config,
      selection: { env: [], unit: ['platform/eks'], withDeps: true },
      excluded: byCilium,
    });
    if (eksOnly.type !== 'ok') throw new Error(eksOnly.message);
    expect(eksOnly.plan.excluded.size).toBe(0);
    expect(eksOnly.plan.walkGraph.ids()).toEqual(['platform/eks', 'platform/iam', 'platform/vpc']);
    // On teardown a kept unit stays kept (the floor is the stronger promise), the rest is left out.
    const everything = () => new Map(graph.ids().map((id) => [id, { by: id }]));
    const teardown = planRun({ command: 'teardown', graph, config, selection: none, excluded: everything });
    if (teardown.type !== 'ok') throw new Error(teardown.message);
    expect(teardown.plan.kept).toEqual(['platform/iam']);
    expect(teardown.plan.excluded.has('platform/iam')).toBe(false);
    expect(teardown.plan.excluded.size).toBe(6);
    expect(teardown.plan.walkGraph.size).toBe(0);
  });

  it('selects with --unit, adding dependencies for bootstrap and dependents for teardown with --with-deps', () => {
    const ids = (command: 'bootstrap' | 'teardown', unit: string[], withDeps: boolean): string[] => {
      const planned = planRun({ command, graph, config, selection: { env: [], unit, withDeps } });
      return planned.type === 'ok' ? planned.plan.scope.ids() : [];
    };
    expect(ids('bootstrap', ['platform/eks'], false)).toEqual(['platform/eks']);
    expect(ids('bootstrap', ['platform/eks'], true)).toEqual(['platform/eks', 'platform/iam', 'platform/vpc']);
    expect(ids('teardown', ['platform/vpc'], true)).toEqual([
      'platform/cilium',
      'platform/dns',
      'platform/eks',
      'platform/vpc',
      'preprod/eks',
    ]);
  });

  it('counts units outside the selection as satisfied: a selected unit whose dependency is outside is ready at once', () => {
    const planned = planRun({
      command: 'bootstrap',
      graph,
      config,
      selection: { env: ['preprod'], unit: [], withDeps: false },
    });
    expect(planned.type === 'ok' && planWaves(planned.plan)).toEqual([['preprod/eks']]);
  });

  it('rejects unknown units with a suggestion, unknown environments, and cycles', () => {
    expect(
      planRun({ command: 'bootstrap', graph, config, selection: { ...none, unit: ['platform/ekz'] } }),
    ).toMatchObject({
      type: 'invalid',
      reason: 'unknown-unit',
      hint: expect.stringContaining('did you mean platform/eks') as unknown,
    });
    expect(planRun({ command: 'bootstrap', graph, config, selection: { ...none, env: ['prod'] } })).toMatchObject({
      reason: 'unknown-env',
    });
    const cyclic = graphOf([
      ['platform/a', 'platform/b'],
      ['platform/b', 'platform/a'],
    ]);
    expect(planRun({ command: 'bootstrap', graph: cyclic, config, selection: none })).toMatchObject({
      reason: 'cycle',
      message: 'dependency cycle: platform/a -> platform/b -> platform/a',
    });
  });
});

describe('diffScope', () => {
  it('names added, removed and re-wired units', () => {
    const saved = {
      'platform/a': { status: 'completed' as const, attempts: 1, wave: 0, dependencies: [] },
      'platform/b': { status: 'failed' as const, attempts: 1, wave: 1, dependencies: ['platform/a'] },
      'platform/gone': { status: 'pending' as const, attempts: 0, wave: 0, dependencies: [] },
    };
    const now = graphOf([
      ['platform/b', 'platform/new'],
      ['platform/new', 'platform/a'],
    ]);
    const diff = diffScope(saved, now);
    expect(diff).toEqual({
      added: ['platform/new'],
      removed: ['platform/gone'],
      rewired: [{ unit: 'platform/b', gained: ['platform/new'], lost: ['platform/a'] }],
    });
    expect(describeDiff(diff)).toEqual([
      'added:    platform/new',
      'removed:  platform/gone',
      're-wired: platform/b now depends on platform/new; no longer depends on platform/a',
    ]);
  });
});
