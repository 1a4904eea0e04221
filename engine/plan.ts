/**
 * What a walk will do, decided before anything runs (pure): which units are selected, the graph to walk (reversed
 * for teardown), the teardown floor that is kept, the units Terragrunt `exclude` blocks leave out, each unit's wave, and, for `--resume`, whether the saved run still
 * matches the graph. `--dry-run` prints this plan and stops.
 */
import { didYouMean } from '../config/errors.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { Graph, UnitId } from './graph.js';
import {
  compareIds,
  findCycles,
  fingerprint,
  reverse,
  select,
  subgraph,
  transitiveDependencies,
  waveIndex,
  waves,
} from './graph.js';
import type { RunCommand } from './unit-status.js';
import type { RunState } from './state.js';

/** What the user picked on the command line. */
export interface SelectionArgs {
  /** `--env` (empty: every environment). */
  readonly env: readonly string[];
  /** `--unit` (empty: every unit). */
  readonly unit: readonly string[];
  /** `--with-deps`: add what selected units need (bootstrap) or what needs them (teardown). */
  readonly withDeps: boolean;
}

export interface Plan {
  readonly command: RunCommand;
  /** The selected units with the edges among them, forward direction (what the fingerprint covers). */
  readonly scope: Graph;
  /** The graph the walk runs: `scope` for bootstrap; for teardown reversed, without the kept floor. */
  readonly walkGraph: Graph;
  /**
   * Teardown floor inside the selection: `teardown_skip` and `prevent_destroy` units and everything they depend on.
   */
  readonly kept: readonly UnitId[];
  /**
   * Units inside the selection that an `exclude` block leaves out of this verb, each with the unit whose block does
   * it (itself, or a dependent with `exclude_dependencies`); sorted by id. Never walked, treated as applied (edges
   * to them are satisfied), as Terragrunt's `run --all` does. A kept unit is listed as kept, not here.
   */
  readonly excluded: ReadonlyMap<UnitId, UnitId>;
  /** Each walked unit's wave in `walkGraph` (kept and excluded units: none). */
  readonly waves: ReadonlyMap<UnitId, number>;
  readonly fingerprint: string;
}

/** The units `exclude` blocks leave out of a verb among the selected ones, each with the unit whose block does it. */
export type ExclusionsOf = (scope: Graph) => ReadonlyMap<UnitId, { readonly by: UnitId }>;

export type PlanResult =
  | { readonly type: 'ok'; readonly plan: Plan }
  | {
      readonly type: 'invalid';
      readonly reason: 'unknown-unit' | 'unknown-env' | 'empty-selection' | 'cycle';
      readonly message: string;
      readonly hint?: string;
    };

interface PlanInput {
  readonly command: RunCommand;
  readonly graph: Graph;
  readonly config: Pick<PlatctlConfig, 'units' | 'environments'>;
  readonly selection: SelectionArgs;
  /** Units whose HCL says `prevent_destroy = true`: part of the teardown floor, like `teardown_skip`. */
  readonly preventDestroy?: ReadonlySet<UnitId>;
  /**
   * The units `exclude` blocks leave out of the verb's Terraform command among the selected ones (discovery's
   * `excludedUnits` over the scope), each with the unit whose block does it.
   */
  readonly excluded?: ExclusionsOf;
}

type Invalid = Extract<PlanResult, { type: 'invalid' }>;

/** Selects, orients and levels the graph for a verb. */
export function planRun(input: PlanInput): PlanResult {
  const { graph, selection, command } = input;
  const unknown = unknownNames(input);
  if (unknown) return unknown;
  const picked = select(graph, {
    envs: selection.env,
    units: selection.unit,
    expand: selection.withDeps ? (command === 'bootstrap' ? 'dependencies' : 'dependents') : 'none',
  });
  if (picked.size === 0) {
    return { type: 'invalid', reason: 'empty-selection', message: 'the selection holds no unit' };
  }
  const scope = subgraph(graph, picked);
  const cycles = findCycles(scope);
  if (cycles.length > 0) {
    return {
      type: 'invalid',
      reason: 'cycle',
      message: `dependency cycle: ${cycles.map((c) => c.path.join(' -> ')).join('; ')}`,
      hint: 'platctl graph shows where each edge is declared',
    };
  }
  const kept = command === 'teardown' ? teardownFloor(input, scope) : [];
  const keptSet = new Set(kept);
  // Exclusions are decided among the selected units, as Terragrunt applies them after its filters: a dependent
  // outside the selection does not leave out its dependencies. They are dropped like the floor, and edges to them
  // count as satisfied.
  const excluded = new Map<UnitId, UnitId>();
  for (const [id, { by }] of input.excluded?.(scope) ?? []) if (scope.has(id) && !keptSet.has(id)) excluded.set(id, by);
  const walked = subgraph(
    scope,
    scope.ids().filter((id) => !keptSet.has(id) && !excluded.has(id)),
  );
  const walkGraph = command === 'teardown' ? reverse(walked) : walked;
  return {
    type: 'ok',
    plan: {
      command,
      scope,
      walkGraph,
      kept,
      excluded: new Map([...excluded].sort(([a], [b]) => compareIds(a, b))),
      waves: waveIndex(walkGraph),
      fingerprint: fingerprint(scope),
    },
  };
}

/** The environments and units the selection names that do not exist, with what does; undefined when all do. */
function unknownNames({ graph, selection, config }: PlanInput): Invalid | undefined {
  const unknownEnvs = selection.env.filter((env) => !(env in config.environments));
  if (unknownEnvs.length > 0) {
    return {
      type: 'invalid',
      reason: 'unknown-env',
      message: `unknown environment ${unknownEnvs.join(', ')}`,
      hint: `environments in .platctl.yaml: ${Object.keys(config.environments).sort(compareIds).join(', ')}`,
    };
  }
  const unknownUnits = selection.unit.filter((id) => !graph.has(id));
  if (unknownUnits.length > 0) {
    const suggestions = unknownUnits.map((id) => didYouMean(id, graph.ids())).filter((s) => s !== undefined);
    return {
      type: 'invalid',
      reason: 'unknown-unit',
      message: `unknown unit ${unknownUnits.join(', ')}`,
      hint:
        suggestions.length > 0
          ? `did you mean ${suggestions.join(', ')}? (platctl graph lists every unit)`
          : 'platctl graph lists every unit id',
    };
  }
  return undefined;
}

/**
 * Teardown's floor within the scope: the units kept (`teardown_skip`, `prevent_destroy`) and what they stand on.
 * It is computed on the whole graph: a unit the floor needs stays even when the floor unit itself is outside the
 * selection (`--unit`, `--env`), or the selection would destroy what the floor stands on.
 */
function teardownFloor({ graph, config, preventDestroy }: PlanInput, scope: Graph): UnitId[] {
  const floor = graph
    .ids()
    .filter((id) => config.units[id]?.teardown_skip === true || preventDestroy?.has(id) === true);
  return [...new Set([...floor, ...transitiveDependencies(graph, floor)])]
    .filter((id) => scope.has(id))
    .sort(compareIds);
}

/** The waves a dry run prints (teardown: reverse order; the floor and excluded units left out). */
export function planWaves(plan: Plan): UnitId[][] {
  return waves(plan.walkGraph);
}

/** How the selected graph differs from the one a saved run walked. */
export interface GraphDiff {
  readonly added: UnitId[];
  readonly removed: UnitId[];
  /** Units whose dependencies changed, with what changed. */
  readonly rewired: { unit: UnitId; gained: UnitId[]; lost: UnitId[] }[];
}

/** Compares the saved per-unit dependencies with the current scope. */
export function diffScope(saved: RunState['units'], scope: Graph): GraphDiff {
  const savedIds = new Set(Object.keys(saved));
  const added = scope.ids().filter((id) => !savedIds.has(id));
  const removed = [...savedIds].filter((id) => !scope.has(id)).sort(compareIds);
  const rewired: GraphDiff['rewired'] = [];
  for (const id of scope.ids()) {
    const before = saved[id];
    if (!before) continue;
    const now = new Set(scope.get(id)?.dependencies ?? []);
    const was = new Set(before.dependencies);
    const gained = [...now].filter((d) => !was.has(d)).sort(compareIds);
    const lost = [...was].filter((d) => !now.has(d)).sort(compareIds);
    if (gained.length > 0 || lost.length > 0) rewired.push({ unit: id, gained, lost });
  }
  return { added, removed, rewired };
}

/** The diff in lines a person reads. */
export function describeDiff(diff: GraphDiff): string[] {
  const lines: string[] = [];
  if (diff.added.length > 0) lines.push(`added:    ${diff.added.join(', ')}`);
  if (diff.removed.length > 0) lines.push(`removed:  ${diff.removed.join(', ')}`);
  for (const r of diff.rewired) {
    const parts = [
      ...(r.gained.length > 0 ? [`now depends on ${r.gained.join(', ')}`] : []),
      ...(r.lost.length > 0 ? [`no longer depends on ${r.lost.join(', ')}`] : []),
    ];
    lines.push(`re-wired: ${r.unit} ${parts.join('; ')}`);
  }
  return lines;
}
