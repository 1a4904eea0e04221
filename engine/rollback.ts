/**
 * Narrow rollback (`bootstrap --rollback-on-failure`, `rollback: on_failure`): after a unit's apply failed, destroy in
 * reverse order exactly the units this run applied for the first time, the failed one included, and nothing else.
 *
 * This file is the decision, pure (no I/O): which rule keeps the platform standing, or which units go and in what
 * order. What each unit held before the run comes from the probe (`StateProbe`, run before the first apply); a probe
 * that could not answer counts as standing (fail closed). engine/run.ts runs the probe and the destroy walk.
 */
import type { Graph, UnitId } from './graph.js';
import { reverse, subgraph, topologicalOrder, transitiveDependents } from './graph.js';

/** What a unit's Terraform state held before the run. */
export type StateProbe =
  | { readonly type: 'absent' }
  | { readonly type: 'standing'; readonly resources: number }
  /** The probe failed (a credential, a lock, an unreadable state, a timeout): counts as standing. */
  | { readonly type: 'unknown'; readonly message: string };

/** Why a rollback did not happen (each is said to the operator). */
export type HoldRule =
  /** `--no-rollback` on the command line. */
  | 'no-rollback'
  /** The run failed elsewhere than in a unit's apply (the phases after the walk, convergence, a lost lock). */
  | 'not-a-unit-failure'
  /** Every failed unit is optional. */
  | 'optional-unit'
  /** Every unit the run applied stood before it (or platctl could not tell): nothing was created. */
  | 'already-standing'
  /** The run was interrupted: an interrupt never makes a run more destructive. */
  | 'interrupted';

/** Why one unit the run applied is not destroyed. */
export type KeepReason =
  | { readonly type: 'stood-before'; readonly resources: number }
  | { readonly type: 'could-not-tell'; readonly message: string }
  | { readonly type: 'needed-by'; readonly unit: UnitId }
  /** `teardown_skip` or `prevent_destroy`: never destroyed by platctl, a rollback included. */
  | { readonly type: 'floor' };

export type RollbackDecision =
  | { readonly type: 'hold'; readonly rule: HoldRule; readonly kept: ReadonlyMap<UnitId, KeepReason> }
  | {
      readonly type: 'destroy';
      /** Dependents first: the order a teardown of these units takes. */
      readonly order: readonly UnitId[];
      readonly kept: ReadonlyMap<UnitId, KeepReason>;
    };

export interface RollbackInput {
  /** The whole discovered graph (dependents outside the selection matter too). */
  readonly graph: Graph;
  /** The run stopped for this (only `unit-failed` can roll back). */
  readonly ended: 'unit-failed' | 'other-failure' | 'interrupted';
  /** `--no-rollback` given. */
  readonly refused: boolean;
  /** Units whose apply failed in this run. */
  readonly failed: readonly UnitId[];
  readonly optional: (unit: UnitId) => boolean;
  /** Units this run started an apply of (completed or failed). */
  readonly applied: readonly UnitId[];
  /** The probe's answer per unit; a unit without one is not known to be absent. */
  readonly before: ReadonlyMap<UnitId, StateProbe>;
  /** Units teardown never destroys (`teardown_skip`, `prevent_destroy`): a rollback does not either. */
  readonly floor?: (unit: UnitId) => boolean;
}

/** Decides the rollback after a failed run: the rule that holds it, or the units to destroy in order. */
export function decideRollback(input: RollbackInput): RollbackDecision {
  const none = new Map<UnitId, KeepReason>();
  if (input.refused) return { type: 'hold', rule: 'no-rollback', kept: none };
  if (input.ended === 'interrupted') return { type: 'hold', rule: 'interrupted', kept: none };
  if (input.ended !== 'unit-failed' || input.failed.length === 0) {
    return { type: 'hold', rule: 'not-a-unit-failure', kept: none };
  }
  if (input.failed.every(input.optional)) return { type: 'hold', rule: 'optional-unit', kept: none };

  const kept = new Map<UnitId, KeepReason>();
  const created = new Set<UnitId>();
  for (const unit of input.applied) {
    const probe = input.before.get(unit) ?? { type: 'unknown', message: 'it was not probed before the run' };
    if (input.floor?.(unit) === true) kept.set(unit, { type: 'floor' });
    else if (probe.type === 'absent') created.add(unit);
    else if (probe.type === 'standing') kept.set(unit, { type: 'stood-before', resources: probe.resources });
    else kept.set(unit, { type: 'could-not-tell', message: probe.message });
  }
  // A unit goes only if nothing that stays needs it: every dependent either goes too or held no state before the run
  // and was not applied by it. Removing one can strand another, so repeat until nothing changes.
  const absentAndUntouched = (unit: UnitId): boolean =>
    input.before.get(unit)?.type === 'absent' && !input.applied.includes(unit);
  for (let changed = true; changed;) {
    changed = false;
    for (const unit of [...created]) {
      const stays = [...(input.graph.get(unit)?.dependents ?? [])]
        .sort()
        .find((dependent) => !created.has(dependent) && !absentAndUntouched(dependent));
      if (stays !== undefined) {
        created.delete(unit);
        kept.set(unit, { type: 'needed-by', unit: stays });
        changed = true;
      }
    }
  }
  if (created.size === 0) return { type: 'hold', rule: 'already-standing', kept };
  const order = topologicalOrder(reverse(subgraph(input.graph, created)));
  return { type: 'destroy', order, kept };
}

/** One line per rule, for the summary and the state. */
export function holdMessage(rule: HoldRule): string {
  switch (rule) {
    case 'no-rollback':
      return 'no rollback: --no-rollback was given; the platform stays as the run left it';
    case 'not-a-unit-failure':
      return 'no rollback: no unit apply failed (a rollback follows only a failed unit apply, never a failure after the walk); the platform stays for diagnosis';
    case 'optional-unit':
      return 'no rollback: only optional units failed; the platform stays';
    case 'already-standing':
      return 'no rollback: every unit this run applied stood before it began, or platctl could not tell; nothing is destroyed';
    case 'interrupted':
      return 'no rollback: the run was interrupted (an interrupt never destroys anything)';
  }
}

/** One line for a unit a rollback leaves standing. */
export function keepMessage(unit: UnitId, why: KeepReason): string {
  switch (why.type) {
    case 'stood-before':
      return `${unit} stays: its state held ${why.resources} resource${why.resources === 1 ? '' : 's'} before the run`;
    case 'could-not-tell':
      return `${unit} stays: platctl could not tell whether it stood before the run (${why.message})`;
    case 'needed-by':
      return `${unit} stays: ${why.unit}, which stays, depends on it`;
    case 'floor':
      return `${unit} stays: teardown never destroys it (teardown_skip or prevent_destroy)`;
  }
}

/**
 * `--dry-run` with rollback on: for each unit of the walk (in walk order), what a rollback would destroy if that unit's
 * apply failed, assuming no walked unit stood before the run (the real run probes; a unit that stood is spared) and
 * that everything not depending on it was applied by then (the most parallelism could have applied).
 */
export function rollbackPreview(input: {
  readonly graph: Graph;
  readonly walkOrder: readonly UnitId[];
  readonly optional: (unit: UnitId) => boolean;
  readonly floor: (unit: UnitId) => boolean;
}): { unit: UnitId; destroys: readonly UnitId[]; rule?: HoldRule }[] {
  const walked = new Set(input.walkOrder);
  const before = new Map<UnitId, StateProbe>(input.walkOrder.map((id) => [id, { type: 'absent' }]));
  return input.walkOrder.map((unit) => {
    const skipped = transitiveDependents(input.graph, [unit]);
    const decision = decideRollback({
      graph: input.graph,
      ended: 'unit-failed',
      refused: false,
      failed: [unit],
      optional: input.optional,
      applied: [...walked].filter((id) => !skipped.has(id)),
      before,
      floor: input.floor,
    });
    return decision.type === 'destroy'
      ? { unit, destroys: decision.order }
      : { unit, destroys: [], rule: decision.rule };
  });
}
