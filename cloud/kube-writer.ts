/**
 * Kubernetes writes for `platctl down`/`up`: patch, evict, delete and create, on the same KubeConfig the readers use
 * (an EKS token signed per request, or a kubeconfig context). Every call returns a value; 404 on a delete and 409 on
 * a create are reported as such so callers can treat them as "already done".
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { EnvironmentConfig } from '../config/schema.js';
import type { EnvVars } from './env.js';
import { requestTimeoutMs } from './env.js';
import type { EnvCloud } from './environment.js';
import { kubeConfigForEks, kubeConfigFromContext } from './kube.js';
import type { CustomResourceRef, KubeLimits, KubeTransport } from './kube-transport.js';
import { collectionPath, listPages, makeKubeTransport, objectPath, ok2xx } from './kube-transport.js';
import type { CloudResult } from './result.js';
import { failure, ok } from './result.js';

/** Any Kubernetes object as JSON. */
export type KubeJson = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    ownerReferences?: { kind?: string; name?: string }[];
    [key: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export type EvictionResult = 'evicted' | 'gone' | 'blocked';

/** Writes and reads `down`/`up` make; the kind is given as a core/apps collection or a custom resource ref. */
export interface KubeWriter {
  readonly server: string;
  /** GET /readyz: true when the API server says it is ready. */
  readyz(signal?: AbortSignal): Promise<CloudResult<boolean>>;
  list(ref: CustomResourceRef, options?: ListOptions): Promise<CloudResult<KubeJson[]>>;
  get(ref: CustomResourceRef, name: string): Promise<CloudResult<KubeJson>>;
  create(ref: CustomResourceRef, body: KubeJson): Promise<CloudResult<'created' | 'exists'>>;
  /** Deletes; `gone` when it was not there. */
  delete(
    ref: CustomResourceRef,
    name: string,
    options?: { gracePeriodSeconds?: number; propagationPolicy?: string },
  ): Promise<CloudResult<'deleted' | 'gone'>>;
  /** A JSON merge patch (RFC 7386): `null` removes a key. */
  mergePatch(ref: CustomResourceRef, name: string, body: Record<string, unknown>): Promise<CloudResult<KubeJson>>;
  /** The Eviction API: `blocked` when a PodDisruptionBudget refuses (429). */
  evict(namespace: string, name: string): Promise<CloudResult<EvictionResult>>;
}

/** Collections platctl touches, as refs (the core group is the empty string). */
export const KINDS = {
  pods: { group: '', version: 'v1', plural: 'pods' },
  nodes: { group: '', version: 'v1', plural: 'nodes' },
  deployments: { group: 'apps', version: 'v1', plural: 'deployments' },
  statefulsets: { group: 'apps', version: 'v1', plural: 'statefulsets' },
  nodepools: { group: 'karpenter.sh', version: 'v1', plural: 'nodepools' },
  nodeclaims: { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' },
  ec2nodeclasses: { group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses' },
  applications: { group: 'argoproj.io', version: 'v1alpha1', plural: 'applications' },
  cnpgClusters: { group: 'postgresql.cnpg.io', version: 'v1', plural: 'clusters' },
  validatingWebhooks: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural: 'validatingwebhookconfigurations',
  },
  mutatingWebhooks: { group: 'admissionregistration.k8s.io', version: 'v1', plural: 'mutatingwebhookconfigurations' },
} as const satisfies Record<string, CustomResourceRef>;

/**
 * A writer over `kc`, sent through the one Kubernetes transport (`kube-transport.ts`, which says why it is not
 * client-node's API clients) with a path built from the ref, so one code path serves core, apps and custom resources
 * alike.
 */
export function makeKubeWriter(kc: KubeConfig, server: string, limits: KubeLimits = {}): KubeWriter {
  const transport = makeKubeTransport(kc, server, limits);
  const { call, send } = transport;
  const json = <T>(status: number, body: unknown): T | undefined => (ok2xx(status) ? (body as T) : undefined);
  return {
    server: transport.server,
    readyz: (signal) =>
      call(
        { doing: 'asking /readyz' },
        () => send('GET', '/readyz', { signal }),
        (status) => (ok2xx(status) ? true : status === 500 || status === 503 ? false : undefined),
      ),
    list: (ref, options = {}) => listObjects(transport, ref, options),
    get: (ref, name) =>
      call(
        { doing: `reading ${describe(ref, ref.namespace)} ${name}` },
        () => send('GET', objectPath(ref, name)),
        json<KubeJson>,
      ),
    create: (ref, body) =>
      call(
        { doing: `creating ${describe(ref, ref.namespace)} ${body.metadata?.name ?? ''}` },
        () => send('POST', collectionPath(ref, ref.namespace), { body }),
        (status) => (ok2xx(status) ? 'created' : status === 409 ? 'exists' : undefined),
      ),
    delete: (ref, name, options = {}) =>
      call(
        { doing: `deleting ${describe(ref, ref.namespace)} ${name}` },
        () => send('DELETE', `${objectPath(ref, name)}${deleteQuery(options)}`),
        (status) => (ok2xx(status) ? 'deleted' : status === 404 ? 'gone' : undefined),
      ),
    mergePatch: (ref, name, body) =>
      call(
        { doing: `patching ${describe(ref, ref.namespace)} ${name}` },
        () => send('PATCH', objectPath(ref, name), { body, contentType: 'application/merge-patch+json' }),
        json<KubeJson>,
      ),
    evict: (namespace, name) => evictPod(transport, namespace, name),
  };
}

/** Every page of a list; the namespace may come with the ref (as for get, patch, delete) or with the options. */
function listObjects(
  transport: KubeTransport,
  ref: CustomResourceRef,
  options: ListOptions,
): Promise<CloudResult<KubeJson[]>> {
  const namespace = options.namespace ?? ref.namespace;
  const path = collectionPath(ref, namespace);
  return transport.call(
    { doing: `listing ${describe(ref, namespace)}` },
    () => listPages((query) => transport.send('GET', `${path}?${query.toString()}`), options),
    (status, json) => (ok2xx(status) ? (json as KubeJson[]) : undefined),
  );
}

function deleteQuery(options: { gracePeriodSeconds?: number; propagationPolicy?: string }): string {
  const query = new URLSearchParams();
  if (options.gracePeriodSeconds !== undefined) query.set('gracePeriodSeconds', String(options.gracePeriodSeconds));
  if (options.propagationPolicy) query.set('propagationPolicy', options.propagationPolicy);
  return query.size > 0 ? `?${query.toString()}` : '';
}

/** The Eviction API: `blocked` when a PodDisruptionBudget refuses (429), `gone` when the pod is. */
function evictPod(transport: KubeTransport, namespace: string, name: string): Promise<CloudResult<EvictionResult>> {
  const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } };
  return transport.call(
    { doing: `evicting pod ${namespace}/${name}` },
    () => transport.send('POST', `${objectPath({ ...KINDS.pods, namespace }, name)}/eviction`, { body: eviction }),
    (status) => (ok2xx(status) ? 'evicted' : status === 404 ? 'gone' : status === 429 ? 'blocked' : undefined),
  );
}

function describe(ref: CustomResourceRef, namespace: string | undefined): string {
  const kind = ref.group === '' || ref.group === 'apps' ? ref.plural : `${ref.plural}.${ref.group}`;
  return namespace ? `${kind} in ${namespace}` : kind;
}

/**
 * The writer for an environment's cluster: through `cluster.kubeconfig_context` when set, else from EKS
 * DescribeCluster with an EKS token signed per request (as the readers do).
 */
export async function kubeWriterForEnv(
  cloud: EnvCloud,
  settings: EnvironmentConfig,
  env: EnvVars,
  signal?: AbortSignal,
): Promise<CloudResult<KubeWriter>> {
  const limits = { signal, requestTimeoutMs: requestTimeoutMs(env) };
  const context = settings.cluster?.kubeconfig_context;
  if (context) {
    const loaded = await kubeConfigFromContext(context, env);
    return loaded.ok ? ok(makeKubeWriter(loaded.value.kc, loaded.value.server, limits)) : loaded;
  }
  const described = await cloud.describeCluster(signal);
  if (!described.ok) return described;
  const { endpoint, caData, status, name } = described.value;
  if (!endpoint || !caData) return failure('error', `EKS cluster ${name} has no API endpoint (status ${status})`);
  const provider = await cloud.credentials();
  if (!provider.ok) return provider;
  if (cloud.region === undefined) return failure('not-configured', `environment ${cloud.envName} has no AWS region`);
  const kc = await kubeConfigForEks({ name, endpoint, caData, region: cloud.region, credentials: provider.value });
  return ok(makeKubeWriter(kc, endpoint, limits));
}
