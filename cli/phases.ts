/**
 * Which lifecycle points a `bootstrap` or `teardown` runs (engine/phases.ts): bootstrap checks the manual steps
 * before the run, runs the named hooks around units, waits (bounded) for the platform to converge and locks down
 * after a complete walk; teardown unlocks before the walk (engine/phases.ts `LOCKDOWN_PHASE`, which the dry-run plan
 * reads too). A partial selection skips lockdown and unlock unless `--lockdown` (engine/lockdown.ts `lockdownPhase`).
 */
import type { PlatctlConfig } from '../config/schema.js';
import { lockdownPhase } from '../engine/lockdown.js';
import type { PhaseContext, RunPhases } from '../engine/phases.js';
import { LOCKDOWN_PHASE } from '../engine/phases.js';
import type { RunCommand } from '../engine/unit-status.js';
import type { HookRegistry } from '../engine/hooks.js';
import type { UnitRecovery } from '../engine/recovery.js';
import type { ConvergeDeps } from '../converge/run.js';
import { runConvergence } from '../converge/run.js';
import { unitHooks } from '../hooks/registry.js';

export interface PhaseOptions {
  /** `--lockdown`: lock down (unlock) even after a partial selection. */
  readonly lockdown: boolean;
  readonly hooks: HookRegistry;
  /** The manual-steps preflight (bootstrap). */
  readonly beforeRun?: RunPhases['beforeRun'];
  /** Tried after a unit's apply failed (bootstrap; hooks/registry.ts `productionRecoveries`). */
  readonly recoveries?: readonly UnitRecovery[];
  /** Waits between lockdown tries (tests pass a fake). */
  readonly wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** How the convergence waits look at the cluster (bootstrap with `converge:`; converge/checks.ts). */
  readonly converge?: ConvergeDeps;
}

export function walkPhases(command: RunCommand, config: PlatctlConfig, options: PhaseOptions): RunPhases {
  const lockdown = config.lockdown && config.lockdown.steps.length > 0 ? config.lockdown : undefined;
  const converge = config.converge && config.converge.waits.length > 0 ? config.converge : undefined;
  const convergeDeps = options.converge;
  const { direction, phase } = LOCKDOWN_PHASE[command];
  const force = { force: options.lockdown, ...(options.wait ? { wait: options.wait } : {}) };
  const lockdownAt = lockdown ? { [phase]: (ctx: PhaseContext) => lockdownPhase(ctx, lockdown, direction, force) } : {};
  if (command === 'teardown') return lockdownAt;
  return {
    ...(options.beforeRun ? { beforeRun: options.beforeRun } : {}),
    ...(config.hooks.length > 0 ? { unitHooks: unitHooks(config, options.hooks) } : {}),
    ...(options.recoveries && options.recoveries.length > 0 ? { recoveries: options.recoveries } : {}),
    ...(converge && convergeDeps
      ? {
          converge: (ctx: PhaseContext) =>
            runConvergence(ctx, converge, Object.keys(config.environments), convergeDeps),
        }
      : {}),
    ...lockdownAt,
  };
}
