/**
 * Which lifecycle points (engine/phases.ts) a `bootstrap` or `teardown` runs: bootstrap checks the manual steps
 * before the run, runs the named hooks around units, waits (bounded) for the platform to converge and locks down
 * after a complete walk; teardown unlocks before the walk. Where lockdown sits is `LOCKDOWN_PHASE`, which the dry-run
 * plan reads too. What the layers above implement (the manual steps, the hooks, the convergence waits) is passed in.
 */
import type { PlatctlConfig } from '../config/schema.js';
import type { UnitId } from './graph.js';
import { lockdownPhase } from './lockdown.js';
import type { PhaseContext, PhaseResult, RunPhases } from './phases.js';
import { LOCKDOWN_PHASE } from './phases.js';
import type { UnitRecovery } from './recovery.js';
import type { RunCommand } from './unit-status.js';
import type { UnitHook } from './walk.js';

export interface WalkPhaseOptions {
  /** `--lockdown`: lock down (unlock) even after a partial selection. */
  readonly lockdown: boolean;
  /** The named hooks of a unit (bootstrap; hooks/registry.ts `unitHooks`). */
  readonly unitHooks?: (unit: UnitId) => readonly UnitHook[];
  /** The manual-steps preflight (bootstrap). */
  readonly beforeRun?: RunPhases['beforeRun'];
  /** Tried after a unit's apply failed (bootstrap; hooks/registry.ts `productionRecoveries`). */
  readonly recoveries?: readonly UnitRecovery[];
  /** Waits between lockdown tries (tests pass a fake). */
  readonly wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The convergence waits (bootstrap with `converge:`; converge/run.ts `runConvergence`). */
  readonly converge?: (ctx: PhaseContext) => Promise<PhaseResult>;
}

export function walkPhases(
  command: RunCommand,
  config: Pick<PlatctlConfig, 'lockdown' | 'converge' | 'hooks'>,
  options: WalkPhaseOptions,
): RunPhases {
  const lockdown = config.lockdown && config.lockdown.steps.length > 0 ? config.lockdown : undefined;
  const { direction, phase } = LOCKDOWN_PHASE[command];
  const force = { force: options.lockdown, ...(options.wait ? { wait: options.wait } : {}) };
  const lockdownAt = lockdown ? { [phase]: (ctx: PhaseContext) => lockdownPhase(ctx, lockdown, direction, force) } : {};
  if (command === 'teardown') return lockdownAt;
  const converge = (config.converge?.waits.length ?? 0) > 0 ? options.converge : undefined;
  return {
    ...(options.beforeRun ? { beforeRun: options.beforeRun } : {}),
    ...(config.hooks.length > 0 && options.unitHooks ? { unitHooks: options.unitHooks } : {}),
    ...(options.recoveries && options.recoveries.length > 0 ? { recoveries: options.recoveries } : {}),
    ...(converge ? { converge } : {}),
    ...lockdownAt,
  };
}
