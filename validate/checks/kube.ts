/**
 * Checks that read the cluster: the API answers, the EKS cluster is ACTIVE with every node Ready, the cilium agent
 * DaemonSet is fully rolled out, every ArgoCD Application is Synced and Healthy, the Gateway is Accepted and
 * Programmed. A green answer must mean something: existing is not enough, readiness is checked.
 */
import type { KubeCondition, KubeDaemonSet, KubeObject } from '../../cloud/kube.js';
import type { KubeReader } from '../../cloud/kube.js';
import { ARGOCD_NAMESPACE, CILIUM_DAEMONSET } from '../plan.js';
import type { CheckOutcome } from '../types.js';
import type { CheckContext } from './context.js';
import { countOf, fail, fromCloudFailure, listNames, pass } from './context.js';

type ReaderOrOutcome = { reader: KubeReader } | { outcome: CheckOutcome };

async function reader(env: string, ctx: CheckContext): Promise<ReaderOrOutcome> {
  const result = await ctx.cloud(env).kube(ctx.signal);
  if (!result.ok) return { outcome: fromCloudFailure(result, ['unreachable', 'timeout']) };
  return { reader: result.value };
}

/** The Kubernetes API of the environment's cluster answers (gates the checks that read it). */
export async function checkClusterApi(env: string, ctx: CheckContext): Promise<CheckOutcome> {
  const got = await reader(env, ctx);
  if ('outcome' in got) return got.outcome;
  const version = await got.reader.version(ctx.signal);
  if (!version.ok) return fromCloudFailure(version, ['unreachable', 'timeout']);
  return pass(`${got.reader.server} answers (${version.value.gitVersion})`);
}

export function readyCondition(object: {
  status?: { conditions?: readonly KubeCondition[] };
}): KubeCondition | undefined {
  return object.status?.conditions?.find((c) => c.type === 'Ready');
}

/** `eks_cluster`: DescribeCluster says ACTIVE, and every node is Ready. */
export async function checkEksCluster(env: string, ctx: CheckContext): Promise<CheckOutcome> {
  const described = await ctx.cloud(env).describeCluster(ctx.signal);
  if (!described.ok) return fromCloudFailure(described);
  const { name, status, version } = described.value;
  if (status !== 'ACTIVE') return fail(`EKS cluster ${name} is ${status}, not ACTIVE`);
  const got = await reader(env, ctx);
  if ('outcome' in got) return got.outcome;
  const nodes = await got.reader.listNodes(ctx.signal);
  if (!nodes.ok) return fromCloudFailure(nodes, ['unreachable', 'timeout']);
  if (nodes.value.length === 0) {
    return fail(`EKS cluster ${name} is ACTIVE but has no nodes (parked?)`, { hint: 'platctl up unparks a cluster' });
  }
  const notReady = nodes.value.filter((node) => readyCondition(node)?.status !== 'True');
  if (notReady.length > 0) {
    return fail(
      `${countOf(notReady.length, nodes.value.length)} nodes not Ready: ${listNames(notReady.map(nodeName))}`,
      {
        details: notReady.map((node) => {
          const ready = readyCondition(node);
          const why = [ready?.status ? `Ready=${ready.status}` : 'no Ready condition', ready?.reason, ready?.message]
            .filter((x) => x)
            .join(', ');
          return `${nodeName(node)}: ${why}`;
        }),
      },
    );
  }
  return pass(`${name} ACTIVE${version ? ` (${version})` : ''}, ${nodes.value.length} nodes Ready`);
}

function nodeName(node: KubeObject): string {
  return node.metadata?.name ?? '(unnamed)';
}

/**
 * The `kubectl rollout status` rule for a DaemonSet (gitops-engine health_daemonset): the controller has seen the
 * current generation, and every desired pod is updated and available. With the OnDelete strategy pods take a new
 * template only when deleted, so the update count is not required; availability still is (rollout status stops at
 * the generation there because it tracks a rollout, while this asks whether the agent runs on every node).
 */
export function daemonSetProblem(ds: KubeDaemonSet): string | undefined {
  const generation = ds.metadata?.generation ?? 0;
  const status = ds.status ?? {};
  const observed = status.observedGeneration ?? 0;
  if (generation > observed) return `the controller has not observed generation ${generation} yet (at ${observed})`;
  const desired = status.desiredNumberScheduled ?? 0;
  if (desired === 0) return 'no pods scheduled (no nodes, or parked)';
  const updated = status.updatedNumberScheduled ?? 0;
  const available = status.numberAvailable ?? 0;
  if (ds.spec?.updateStrategy?.type !== 'OnDelete' && updated < desired) {
    return `${countOf(updated, desired)} pods updated to the current spec`;
  }
  if (available < desired) return `${countOf(available, desired)} pods available`;
  return undefined;
}

/** `cilium_agent`: the agent DaemonSet is fully available at its current generation. */
export async function checkCiliumAgent(env: string, ctx: CheckContext): Promise<CheckOutcome> {
  const got = await reader(env, ctx);
  if ('outcome' in got) return got.outcome;
  const { namespace, name } = CILIUM_DAEMONSET;
  const ds = await got.reader.readDaemonSet(namespace, name, ctx.signal);
  if (!ds.ok) return fromCloudFailure(ds, ['unreachable', 'timeout']);
  const problem = daemonSetProblem(ds.value);
  const status = ds.value.status ?? {};
  if (problem) {
    return fail(`DaemonSet ${namespace}/${name}: ${problem}`, {
      details: [
        `desired ${status.desiredNumberScheduled ?? 0}, updated ${status.updatedNumberScheduled ?? 0}, ready ${status.numberReady ?? 0}, available ${status.numberAvailable ?? 0}, unavailable ${status.numberUnavailable ?? 0}`,
      ],
    });
  }
  return pass(
    `DaemonSet ${namespace}/${name}: ${status.numberAvailable ?? 0}/${status.desiredNumberScheduled ?? 0} available`,
  );
}

interface ApplicationStatus {
  readonly sync?: { readonly status?: string };
  readonly health?: { readonly status?: string; readonly message?: string };
  readonly operationState?: { readonly phase?: string; readonly message?: string };
  readonly conditions?: readonly { readonly type?: string; readonly message?: string }[];
}

/** Which Applications a check looks at: all of a namespace, or those a label selector or an Argo CD project picks. */
export interface ApplicationFilter {
  readonly namespace: string;
  readonly selector?: string;
  readonly project?: string;
}

/** Why an Application is not Synced/Healthy: its health message, its conditions, its sync operation's message. */
export function applicationProblem(name: string, status: ApplicationStatus): string {
  const sync = status.sync?.status ?? 'Unknown';
  const health = status.health?.status ?? 'Unknown';
  const why = [
    status.health?.message,
    ...(status.conditions ?? []).map((c) => `${c.type ?? 'condition'}: ${c.message ?? ''}`.trim()),
    status.operationState?.message && status.operationState.phase !== 'Succeeded'
      ? `sync ${status.operationState.phase ?? 'operation'}: ${status.operationState.message}`
      : undefined,
  ].filter((x): x is string => x !== undefined && x !== '');
  return `${name}: ${sync}/${health}${why.length > 0 ? ` (${why.join('; ')})` : ''}`;
}

/** `argocd_apps`: every Application Synced and Healthy; the others listed with their status. */
export async function checkArgocdApps(
  env: string,
  ctx: CheckContext,
  filter: ApplicationFilter = { namespace: ARGOCD_NAMESPACE },
): Promise<CheckOutcome> {
  const got = await reader(env, ctx);
  if ('outcome' in got) return got.outcome;
  const { namespace } = filter;
  const apps = await got.reader.listCustomObjects(
    {
      group: 'argoproj.io',
      version: 'v1alpha1',
      plural: 'applications',
      namespace,
      ...(filter.selector === undefined ? {} : { labelSelector: filter.selector }),
    },
    ctx.signal,
  );
  if (!apps.ok) {
    if (apps.reason === 'not-found') {
      return fail(`the Application resource is not served: is ArgoCD installed? (${apps.message})`);
    }
    return fromCloudFailure(apps, ['unreachable', 'timeout']);
  }
  const picked = apps.value.filter(
    (app) =>
      filter.project === undefined || (app.spec as { project?: unknown } | undefined)?.project === filter.project,
  );
  if (picked.length === 0) {
    const which = [filter.selector && `selector ${filter.selector}`, filter.project && `project ${filter.project}`]
      .filter((x) => x)
      .join(', ');
    // Like a cluster without nodes: an empty list proves nothing, and usually means the root Application is gone.
    return fail(`no Applications in namespace ${namespace}${which ? ` (${which})` : ''}: ArgoCD deploys nothing`, {
      hint: 'apply the root Application (app of apps), or check that ArgoCD watches this namespace',
    });
  }
  const bad = picked
    .map((app) => {
      const status: ApplicationStatus = app.status ?? {};
      return { name: app.metadata?.name ?? '(unnamed)', status };
    })
    .filter(({ status }) => status.sync?.status !== 'Synced' || status.health?.status !== 'Healthy');
  if (bad.length === 0) return pass(`${picked.length} Applications Synced and Healthy`);
  return fail(
    `${countOf(bad.length, picked.length)} Applications not Synced/Healthy: ${listNames(bad.map((b) => b.name))}`,
    { details: bad.map(({ name, status }) => applicationProblem(name, status)) },
  );
}

/** Named CustomResourceDefinitions exist and are Established (the API server serves their kinds). */
export async function checkCrdsEstablished(
  env: string,
  names: readonly string[],
  ctx: CheckContext,
): Promise<CheckOutcome> {
  const got = await reader(env, ctx);
  if ('outcome' in got) return got.outcome;
  const problems: string[] = [];
  for (const name of names) {
    const crd = await got.reader.getCustomObject(
      { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions', name },
      ctx.signal,
    );
    if (!crd.ok) {
      if (crd.reason === 'not-found') problems.push(`${name}: not found`);
      else return fromCloudFailure(crd, ['unreachable', 'timeout']);
      continue;
    }
    const established = crd.value.status?.conditions?.find((c) => c.type === 'Established');
    if (established?.status !== 'True') {
      const why = [established?.reason, established?.message].filter((x) => x).join(': ');
      problems.push(`${name}: Established=${established?.status ?? 'no condition yet'}${why ? ` (${why})` : ''}`);
    }
  }
  if (problems.length > 0) {
    return fail(`${countOf(problems.length, names.length)} CRDs not Established`, { details: problems });
  }
  return pass(`${names.length} CRD${names.length === 1 ? '' : 's'} Established`);
}

/** A Deployment or StatefulSet to find Available. */
export interface WorkloadRef {
  readonly namespace: string;
  readonly kind: 'deployment' | 'statefulset';
  readonly name: string;
}

interface WorkloadStatus {
  readonly replicas?: number;
  readonly readyReplicas?: number;
  readonly updatedReplicas?: number;
  readonly observedGeneration?: number;
  readonly conditions?: readonly KubeCondition[];
}

/**
 * Why a Deployment/StatefulSet is not Available, or undefined when it is: the controller saw the current generation
 * and every desired replica is ready (a Deployment's Available condition, when present, must be True too).
 */
export function workloadProblem(kind: WorkloadRef['kind'], object: KubeObject): string | undefined {
  const generation = object.metadata?.generation ?? 0;
  const status = (object.status ?? {}) as WorkloadStatus;
  const observed = status.observedGeneration ?? 0;
  if (generation > observed) return `the controller has not observed generation ${generation} yet (at ${observed})`;
  const desired = typeof object.spec?.replicas === 'number' ? object.spec.replicas : 1;
  const ready = status.readyReplicas ?? 0;
  if (ready < desired) return `${countOf(ready, desired)} replicas ready`;
  const available = kind === 'deployment' ? status.conditions?.find((c) => c.type === 'Available') : undefined;
  if (available && available.status !== 'True') {
    return `Available=${available.status ?? 'Unknown'}${available.message ? ` (${available.message})` : ''}`;
  }
  return undefined;
}

/** Named Deployments/StatefulSets are Available: ready replicas = desired, at their current generation. */
export async function checkWorkloadsAvailable(
  env: string,
  workloads: readonly WorkloadRef[],
  ctx: CheckContext,
): Promise<CheckOutcome> {
  const got = await reader(env, ctx);
  if ('outcome' in got) return got.outcome;
  const problems: string[] = [];
  for (const workload of workloads) {
    const { namespace, kind, name } = workload;
    const what = `${kind === 'deployment' ? 'Deployment' : 'StatefulSet'} ${namespace}/${name}`;
    const plural = kind === 'deployment' ? 'deployments' : 'statefulsets';
    const object = await got.reader.getCustomObject(
      { group: 'apps', version: 'v1', plural, namespace, name },
      ctx.signal,
    );
    if (!object.ok) {
      if (object.reason === 'not-found') problems.push(`${what}: not found`);
      else return fromCloudFailure(object, ['unreachable', 'timeout']);
      continue;
    }
    const problem = workloadProblem(kind, object.value);
    if (problem) problems.push(`${what}: ${problem}`);
  }
  if (problems.length > 0) {
    return fail(`${countOf(problems.length, workloads.length)} workloads not Available`, { details: problems });
  }
  return pass(`${workloads.length} workload${workloads.length === 1 ? '' : 's'} Available`);
}

/** The Gateway API Gateway is Accepted and Programmed (for its current generation). */
export async function checkGateway(
  env: string,
  namespace: string,
  name: string,
  ctx: CheckContext,
): Promise<CheckOutcome> {
  const got = await reader(env, ctx);
  if ('outcome' in got) return got.outcome;
  const gateway = await got.reader.getCustomObject(
    { group: 'gateway.networking.k8s.io', version: 'v1', plural: 'gateways', namespace, name },
    ctx.signal,
  );
  if (!gateway.ok) return fromCloudFailure(gateway, ['unreachable', 'timeout']);
  const generation = gateway.value.metadata?.generation;
  const conditions = (gateway.value.status?.conditions ?? []) as readonly (KubeCondition & {
    observedGeneration?: number;
  })[];
  const problems: string[] = [];
  for (const type of ['Accepted', 'Programmed']) {
    const condition = conditions.find((c) => c.type === type);
    if (!condition) problems.push(`${type}: no condition yet`);
    else if (condition.status !== 'True') {
      problems.push(
        `${type}=${condition.status ?? 'Unknown'}${condition.reason ? ` (${condition.reason}${condition.message ? `: ${condition.message}` : ''})` : ''}`,
      );
    } else if (
      generation !== undefined &&
      condition.observedGeneration !== undefined &&
      condition.observedGeneration < generation
    ) {
      problems.push(`${type} is about generation ${condition.observedGeneration}, not the current ${generation}`);
    }
  }
  if (problems.length > 0) return fail(`Gateway ${namespace}/${name}: ${problems.join('; ')}`);
  return pass(`Gateway ${namespace}/${name} Accepted and Programmed`);
}
