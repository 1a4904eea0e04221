/**
 * The units `platctl up` re-applies (`park.<env>.node_group_units`, `karpenter.unit`, `reconnect_units`), and how
 * one is applied: `terragrunt apply` through the engine's executor (engine/apply-one.ts) with the unit's
 * `apply_args` and timeout, a log file under `.platctl-logs/<run id>/`, the same redaction. The CLI finds the units'
 * directories (discovery), checks the tools and builds the executor.
 */
import type { ParkConfig, PlatctlConfig } from '../config/schema.js';
import { applyOne } from '../engine/apply-one.js';
import type { Executor, UnitJob } from '../engine/executor.js';
import { LOGS_DIR, formatCommandLine } from '../engine/logs.js';
import type { Redactor } from '../engine/redact.js';
import type { UnitApplier, UnitApplyResult } from './context.js';

/** The units the park settings of `envs` name, in the order `up` applies them per environment. */
export function configuredParkUnits(park: Readonly<Record<string, ParkConfig>>, envs: readonly string[]): string[] {
  return envs.flatMap((env) => {
    const settings = park[env];
    if (!settings) return [];
    return [
      ...settings.node_group_units,
      ...(settings.karpenter?.unit ? [settings.karpenter.unit] : []),
      ...settings.reconnect_units,
    ];
  });
}

/** The directory of each of `wanted` (configured park units), from the units discovery found. */
export function parkUnitDirs(
  wanted: readonly string[],
  units: ReadonlyMap<string, { readonly absDir: string }>,
): Map<string, string> {
  const dirs = new Map<string, string>();
  for (const unit of wanted) {
    const info = units.get(unit);
    // Discovery reports every configured id it did not find; this is the guard that it did.
    if (info === undefined) throw new Error(`park unit ${unit} passed discovery without being found`);
    dirs.set(unit, info.absDir);
  }
  return dirs;
}

/** `park-up-20260101T100000Z-a1b2c3`: the run id (and log directory) of an `up`'s applies. */
export function parkApplyRunId(now: number, random: string): string {
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `park-up-${stamp}-${random}`;
}

export interface ParkApplierSettings {
  readonly root: string;
  readonly config: Pick<PlatctlConfig, 'units' | 'unit_timeout'>;
  readonly executor: Executor;
  readonly redactor: Redactor;
  /** The configured units' directories; every one was found by discovery before anything ran. */
  readonly dirs: ReadonlyMap<string, string>;
  /** See {@link parkApplyRunId}. */
  readonly runId: string;
  readonly now: () => number;
}

/** The applier `up` re-applies its configured units with. */
export function terragruntUnitApplier(settings: ParkApplierSettings): UnitApplier {
  const { root, config, executor, redactor, dirs, runId, now } = settings;
  const job = (unit: string, tfArgs: readonly string[]): UnitJob => {
    const absDir = dirs.get(unit);
    if (absDir === undefined) throw new Error(`up asked to apply ${unit}, which is not a configured park unit`);
    return {
      unit,
      command: 'apply',
      absDir,
      tfArgs: [...(config.units[unit]?.apply_args ?? []), ...tfArgs],
      attempt: 1,
      timeoutMs: config.units[unit]?.timeout ?? config.unit_timeout,
    };
  };
  const one = { root, executor, redactor, logDir: `${LOGS_DIR}/${runId}`, title: 'up', now };
  return {
    commandLine: (unit, tfArgs) => redactor.line(formatCommandLine(executor.commandLine(job(unit, tfArgs)))),
    apply: async (unit, tfArgs, signal): Promise<UnitApplyResult> => {
      const result = await applyOne(one, job(unit, tfArgs), signal);
      switch (result.type) {
        case 'completed':
          return { ok: true, log: result.log };
        case 'interrupted':
          return { ok: false, reason: 'interrupted', message: 'interrupted', log: result.log, lastLines: [] };
        case 'failed':
          return {
            ok: false,
            reason: 'apply-failed',
            message: result.message,
            log: result.log,
            lastLines: result.lastLines,
          };
      }
    },
  };
}
