/**
 * Which lifecycle points a `bootstrap` or `teardown` runs (engine/phases.ts): bootstrap checks the manual steps
 * before the run, runs the named hooks around units, waits (bounded) for the platform to converge and locks down
 * after a complete walk; teardown unlocks before the walk. A partial selection (`--unit`, or `--env` leaving units out) skips lockdown and unlock unless
 * `--lockdown`: a few units do not make a finished platform.
 */
import type { PlatctlConfig } from '../config/schema.js';
import type { LockDirection } from '../engine/events.js';
import { runLockdown } from '../engine/lockdown.js';
import type { LockdownConfig } from '../engine/lockdown.js';
import type { PhaseContext, PhaseResult, RunPhases } from '../engine/phases.js';
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
  if (command === 'teardown') {
    return lockdown ? { beforeWalk: (ctx) => lockPhase(ctx, lockdown, 'unlock', options) } : {};
  }
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
    ...(lockdown ? { afterWalk: (ctx: PhaseContext) => lockPhase(ctx, lockdown, 'lock', options) } : {}),
  };
}

async function lockPhase(
  ctx: PhaseContext,
  lockdown: LockdownConfig,
  direction: LockDirection,
  options: PhaseOptions,
): Promise<PhaseResult> {
  if (ctx.partial && !options.lockdown) {
    const what = direction === 'lock' ? 'lockdown' : 'unlock';
    ctx.emit({
      type: 'warning',
      at: new Date(ctx.now()).toISOString(),
      message:
        `${what} skipped: this ${ctx.command} covers only part of the units; pass --lockdown to run it anyway, ` +
        `or run platctl lockdown${direction === 'unlock' ? ' --undo' : ''} on its own`,
    });
    await ctx.record({ lockdown: { direction, status: 'skipped', steps: {} } });
    return { ok: true };
  }
  return runLockdown(ctx, lockdown, direction, options.wait);
}
