/**
 * The production registry of named hooks: config hook name -> factory. The hooks that reach AWS, Kubernetes or Argo
 * CD get their clients here, from cloud/ (`createHookClients`: per environment, built on first use, so a run whose
 * hooks never call AWS never loads the SDK). Add a hook by writing it in hooks/ and listing its factory here: the
 * registry's type requires a factory for every hook type the configuration accepts.
 */
import type { PlatctlConfig } from '../config/schema.js';
import type { EnvVars } from '../cloud/env.js';
import { createHookClients } from '../cloud/hook-clients.js';
import type { HookClientsOptions } from '../cloud/hook-clients.js';
import type { UnitId } from '../engine/graph.js';
import type { UnitHook } from '../engine/walk.js';
import { argocdAccountTokenHook } from '../hooks/argocd-account-token.js';
import { crdTwoStage } from '../hooks/crd-two-stage.js';
import { eniIpValidationHook } from '../hooks/eni-ip-validation.js';
import { secretCleanupHook } from '../hooks/secret-cleanup.js';
import type { HookFactory, HookName, HookRegistry, HookSettings, NamedHook } from '../engine/hooks.js';

/** A registry with a factory for every hook type: what production runs with. */
export type CompleteHookRegistry = { readonly [N in HookName]: HookFactory<N> };

export interface ProductionHookOptions {
  readonly environments: PlatctlConfig['environments'];
  /** platctl's environment variables (credentials, profile, endpoint overrides, KUBECONFIG). */
  readonly env: EnvVars;
  /** Instead of the real per-environment clouds; tests inject here. */
  readonly cloudFor?: HookClientsOptions['cloudFor'];
}

export function productionHooks(options: ProductionHookOptions): CompleteHookRegistry {
  const clients = createHookClients({
    environments: options.environments,
    env: options.env,
    ...(options.cloudFor ? { cloudFor: options.cloudFor } : {}),
  });
  return {
    crd_two_stage: crdTwoStage,
    eni_ip_validation: eniIpValidationHook(clients),
    secret_cleanup: secretCleanupHook(clients),
    argocd_account_token: argocdAccountTokenHook(clients),
  };
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
