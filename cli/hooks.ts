/**
 * The production registry of named hooks: config hook name -> factory. Factories that need AWS, Kubernetes or Argo
 * CD clients get them here, built by cloud/ for the environment the hook runs in. Add a hook by writing it in hooks/
 * and listing its factory here.
 */
import type { PlatctlConfig } from '../config/schema.js';
import type { UnitId } from '../engine/graph.js';
import type { UnitHook } from '../engine/walk.js';
import { crdTwoStage } from '../hooks/crd-two-stage.js';
import type { HookName, HookRegistry, HookSettings, NamedHook } from '../hooks/types.js';

export function productionHooks(): HookRegistry {
  return { crd_two_stage: crdTwoStage };
}

/** Configured hook types this platctl has no factory for (a refusal before anything runs). */
export function missingHooks(config: Pick<PlatctlConfig, 'hooks'>, registry: HookRegistry): HookName[] {
  return [...new Set(config.hooks.map((h) => h.type))].filter((name) => registry[name] === undefined);
}

/** Builds every configured hook once and answers, per unit, its hooks in configuration order. */
export function unitHooks(config: Pick<PlatctlConfig, 'hooks'>, registry: HookRegistry): (unit: UnitId) => UnitHook[] {
  const built = config.hooks.flatMap((settings) => {
    const hook = build(settings, registry);
    return hook ? [{ hook, settings, units: new Set(settings.units) }] : [];
  });
  return (unit) => built.filter((h) => h.units.has(unit)).map(({ hook, settings }) => ({ hook, settings }));
}

function build<N extends HookName>(settings: HookSettings<N>, registry: HookRegistry): NamedHook | undefined {
  const factory = registry[settings.type] as ((s: HookSettings<N>) => NamedHook<N>) | undefined;
  return factory?.(settings) as NamedHook | undefined;
}
