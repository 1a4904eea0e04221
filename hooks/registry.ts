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
import { argocdAccountTokenHook } from './argocd-account-token.js';
import { crdTwoStage } from './crd-two-stage.js';
import { eniIpValidationHook } from './eni-ip-validation.js';
import { secretCleanupHook } from './secret-cleanup.js';
import type { HookFactory, HookName, HookRegistry, HookSettings, NamedHook } from '../engine/hooks.js';
import type { KubeWriter } from '../cloud/kube-writer.js';
import type { CloudResult } from '../cloud/result.js';
import { failure, ok } from '../cloud/result.js';
import type { UnitRecovery } from '../engine/recovery.js';
import type { HelmSecret, HelmSecretStore } from './helm-pending.js';
import { helmPendingRecovery } from './helm-pending.js';

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

export interface RecoveryOptions extends ProductionHookOptions {
  /** `recover:` in .platctl.yaml and `--recover`: the recoveries allowed to act (the others only advise). */
  readonly enabled: ReadonlySet<string>;
  /** The command that resumes the run, for the advice. */
  readonly resume: string;
}

/**
 * Bootstrap's recoveries (engine/recovery.ts). `helm-pending` is always there: switched off it only reads the
 * release's Secrets to print the exact command; switched on it deletes the pending revision's Secret.
 */
export function productionRecoveries(options: RecoveryOptions): UnitRecovery[] {
  const clients = createHookClients({
    environments: options.environments,
    env: options.env,
    ...(options.cloudFor ? { cloudFor: options.cloudFor } : {}),
  });
  return [
    helmPendingRecovery({
      enabled: options.enabled.has('helm-pending'),
      resume: options.resume,
      secrets: async (env, signal) => {
        const writer = await clients.kubeWriter(env, signal);
        if (!writer.ok) return writer;
        const context = options.environments[env]?.cluster?.kubeconfig_context;
        return ok(helmSecretStore(writer.value, context));
      },
    }),
  ];
}

const SECRETS = { group: '', version: 'v1', plural: 'secrets' } as const;

/** Helm's release Secrets through the cluster's API: metadata only is kept (the payload is the release itself). */
function helmSecretStore(writer: KubeWriter, context: string | undefined): HelmSecretStore {
  return {
    ...(context ? { context } : {}),
    list: async (release, namespace, signal) => {
      const listed = await untilAborted(
        writer.list(
          { ...SECRETS, ...(namespace ? { namespace } : {}) },
          { labelSelector: `owner=helm,name=${release}` },
        ),
        signal,
        `listing the Secrets of Helm release ${release}`,
      );
      if (!listed.ok) return listed;
      return ok(
        listed.value.map((item): HelmSecret => ({
          name: item.metadata?.name ?? '',
          namespace: item.metadata?.namespace ?? namespace ?? '',
          labels: item.metadata?.labels ?? {},
        })),
      );
    },
    delete: (namespace, name) => writer.delete({ ...SECRETS, namespace }, name),
  };
}

/** A read that stops waiting on the first Ctrl-C (the request itself ends within the writer's timeout). */
function untilAborted<T>(read: Promise<CloudResult<T>>, signal: AbortSignal, what: string): Promise<CloudResult<T>> {
  if (signal.aborted) return Promise.resolve(failure('timeout', `interrupted before ${what}`));
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(failure('timeout', `interrupted while ${what}`));
    signal.addEventListener('abort', onAbort, { once: true });
    void read.then((result) => {
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    });
  });
}
