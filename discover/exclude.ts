/**
 * Terragrunt's `exclude` block, as `run --all` applies it (docs/discovery.md, checked against v1.1.3):
 * a unit whose block's `if` is true is left out of the queue for the listed commands and treated as already applied
 * (edges to it count as satisfied). `all` matches every command, `all_except_output` every one but `output`;
 * matching ignores case. `exclude_dependencies = true` leaves out the unit's direct dependencies too, and only
 * those. Pure: the engine asks this for the Terraform command a verb runs.
 */
import type { Graph, UnitId } from '../engine/graph.js';
import type { ExcludeSpec, UnitInfo } from './types.js';

/** True when the block leaves the unit out of `command` (a Terraform command: apply, destroy, plan...). */
export function excludes(spec: Pick<ExcludeSpec, 'actions'>, command: string): boolean {
  const wanted = command.toLowerCase();
  return spec.actions.some(
    (action) => action === 'all' || action === wanted || (action === 'all_except_output' && wanted !== 'output'),
  );
}

/** Why a unit is left out: its own block, or the block of a unit that excludes its dependencies. */
export interface Exclusion {
  /** The unit whose exclude block leaves this one out (itself, or a dependent with exclude_dependencies). */
  readonly by: UnitId;
}

/** Every unit `command` leaves out, with the unit whose block does it, sorted by id. */
export function excludedUnits(
  graph: Graph,
  units: ReadonlyMap<UnitId, Pick<UnitInfo, 'exclude'>>,
  command: string,
): Map<UnitId, Exclusion> {
  const out = new Map<UnitId, Exclusion>();
  const ids = graph.ids();
  for (const id of ids) {
    const spec = units.get(id)?.exclude;
    if (spec && excludes(spec, command)) out.set(id, { by: id });
  }
  for (const id of ids) {
    const spec = units.get(id)?.exclude;
    if (!spec?.excludeDependencies || out.get(id)?.by !== id) continue;
    for (const dep of graph.get(id)?.dependencies ?? []) if (!out.has(dep)) out.set(dep, { by: id });
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
