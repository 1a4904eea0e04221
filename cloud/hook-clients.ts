/**
 * The clients the named hooks need, per environment, built lazily and once: EC2 subnets, Secrets Manager, the
 * environment's Kubernetes cluster, and Argo CD API clients. `cli/` builds one of these for a run and hands it to
 * the hook factories (hooks/), which never build a client themselves.
 */
import type { EnvironmentConfig } from '../config/schema.js';
import type { ArgoCdClient } from './argocd.js';
import { createArgoCdClient } from './argocd.js';
import type { EnvVars } from './env.js';
import type { EnvCloud } from './environment.js';
import { createEnvCloud } from './environment.js';
import type { KubeReader } from './kube.js';
import type { KubeWriter } from './kube-writer.js';
import { kubeWriterForEnv } from './kube-writer.js';
import type { CloudResult } from './result.js';
import { failure, ok } from './result.js';
import { awsAccessOf } from './sdk-access.js';
import type { SecretsManager } from './secrets-manager.js';
import { createSecretsManager } from './secrets-manager.js';
import type { SubnetReader } from './subnets.js';
import { createSubnetReader } from './subnets.js';

export interface HookClients {
  subnets(env: string): Promise<CloudResult<SubnetReader>>;
  secrets(env: string): Promise<CloudResult<SecretsManager>>;
  kube(env: string, signal?: AbortSignal): Promise<CloudResult<KubeReader>>;
  /** Writes to the environment's cluster (helm-pending deletes a Secret), built like `platctl down`'s. */
  kubeWriter(env: string, signal?: AbortSignal): Promise<CloudResult<KubeWriter>>;
  argocd(server: string): ArgoCdClient;
}

export interface HookClientsOptions {
  readonly environments: Readonly<Record<string, EnvironmentConfig>>;
  /** Environment variables (endpoint overrides, AWS_PROFILE, ...), as the CLI passes them down. */
  readonly env: EnvVars;
  /** Instead of {@link createEnvCloud}; tests inject here. */
  readonly cloudFor?: (envName: string, settings: EnvironmentConfig) => EnvCloud;
}

export function createHookClients(options: HookClientsOptions): HookClients {
  const clouds = new Map<string, EnvCloud>();
  const cloud = (envName: string): CloudResult<EnvCloud> => {
    const settings = options.environments[envName];
    if (!settings) return failure('not-configured', `environment ${envName} is not declared in .platctl.yaml`);
    let found = clouds.get(envName);
    if (!found) {
      found = options.cloudFor?.(envName, settings) ?? createEnvCloud({ envName, settings, env: options.env });
      clouds.set(envName, found);
    }
    return ok(found);
  };
  const memo = <T>(build: (c: EnvCloud) => Promise<CloudResult<T>>) => {
    const built = new Map<string, Promise<CloudResult<T>>>();
    return (envName: string): Promise<CloudResult<T>> => {
      let result = built.get(envName);
      if (!result) {
        const c = cloud(envName);
        result = c.ok ? build(c.value) : Promise.resolve(c);
        // A failure (an expired login) is not remembered: the next unit may find it fixed.
        void result.then((r) => (r.ok ? undefined : built.delete(envName)));
        built.set(envName, result);
      }
      return result;
    };
  };
  const subnets = memo(async (c) => {
    const access = await awsAccessOf(c, options.env);
    return access.ok ? ok(createSubnetReader(access.value)) : access;
  });
  const secrets = memo(async (c) => {
    const access = await awsAccessOf(c, options.env);
    return access.ok ? ok(createSecretsManager(access.value)) : access;
  });
  const argo = new Map<string, ArgoCdClient>();
  return {
    subnets,
    secrets,
    kube: (envName, signal) => {
      const c = cloud(envName);
      return c.ok ? c.value.kube(signal) : Promise.resolve(c);
    },
    kubeWriter: (envName, signal) => {
      const c = cloud(envName);
      const settings = options.environments[envName];
      return c.ok && settings
        ? kubeWriterForEnv(c.value, settings, options.env, signal)
        : Promise.resolve(
            c.ok ? failure('not-configured', `environment ${envName} is not declared in .platctl.yaml`) : c,
          );
    },
    argocd: (server) => {
      let client = argo.get(server);
      if (!client) {
        client = createArgoCdClient({ server });
        argo.set(server, client);
      }
      return client;
    },
  };
}
