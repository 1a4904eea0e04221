/**
 * Kubernetes helpers shared by the `down` and `up` steps: selecting by config, stripping objects for the record,
 * readiness, and the PDB-respecting drain.
 */
import type { KubeJson, KubeWriter } from '../cloud/kube-writer.js';
import { KINDS } from '../cloud/kube-writer.js';
import type { CloudFailure, CloudResult } from '../cloud/result.js';
import { ok } from '../cloud/result.js';
import type { PollAnswer } from '../engine/waits.js';
import { poll } from '../engine/waits.js';
import type { ParkContext } from './context.js';
import { pollInterval } from './context.js';

export const DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';
export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';
export const NODEGROUP_LABEL = 'eks.amazonaws.com/nodegroup';

export function nameOf(object: KubeJson): string {
  return object.metadata?.name ?? '';
}

export function qualified(object: KubeJson): string {
  const ns = object.metadata?.namespace;
  return ns ? `${ns}/${nameOf(object)}` : nameOf(object);
}

/** Objects whose name is selected by `all` or a list. */
export function selected(objects: readonly KubeJson[], which: 'all' | readonly string[]): KubeJson[] {
  return which === 'all' ? [...objects] : objects.filter((o) => which.includes(nameOf(o)));
}

const VOLATILE_METADATA = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'finalizers',
  'ownerReferences',
  'selfLink',
];

/** An object as it can be created again: no server-set metadata, no status, no Karpenter hash annotations. */
export function stripForRecord(object: KubeJson): KubeJson {
  const metadata: Record<string, unknown> = { ...(object.metadata ?? {}) };
  for (const key of VOLATILE_METADATA) delete metadata[key];
  const annotations = Object.fromEntries(
    Object.entries((metadata.annotations as Record<string, string> | undefined) ?? {}).filter(
      ([key]) => !/^karpenter\.(sh|k8s\.aws)\/(nodepool|ec2nodeclass)-hash/.test(key),
    ),
  );
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  const { status: _status, ...rest } = object;
  return { ...rest, metadata };
}

export function condition(
  object: KubeJson,
  type: string,
): { status?: string; lastTransitionTime?: string } | undefined {
  const conditions = (object.status?.conditions ?? []) as {
    type?: string;
    status?: string;
    lastTransitionTime?: string;
  }[];
  return conditions.find((c) => c.type === type);
}

export function isReady(object: KubeJson): boolean {
  return condition(object, 'Ready')?.status === 'True';
}

export function podPhase(pod: KubeJson): string {
  const phase = pod.status?.phase;
  return typeof phase === 'string' ? phase : '';
}

/** Pods a drain leaves alone: DaemonSet pods (they would come straight back), mirror pods, finished pods. */
export function drainSkips(pod: KubeJson): boolean {
  if ((pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet')) return true;
  if (pod.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined) return true;
  return ['Succeeded', 'Failed'].includes(podPhase(pod));
}

export interface DrainOutcome {
  readonly evicted: string[];
  /** Deleted after the grace: a PodDisruptionBudget kept refusing their eviction. */
  readonly forced: string[];
  /**
   * Set when the run's signal stopped the drain: no eviction was asked after it and nothing was forced; these pods
   * were still on the nodes (cordoned).
   */
  readonly interruptedWith?: string[];
}

/**
 * Cordons `nodes`, evicts their pods through the Eviction API (a 429 from a PodDisruptionBudget is retried), and
 * deletes whatever is still there after `graceMs`. An interrupt stops it where it is: no new eviction, no force.
 */
export async function drainNodes(
  ctx: ParkContext,
  kube: KubeWriter,
  nodes: readonly string[],
  graceMs: number,
): Promise<CloudResult<DrainOutcome>> {
  const pending = new Map<string, { namespace: string; name: string }>();
  for (const node of nodes) {
    if (ctx.signal.aborted) return ok({ evicted: [], forced: [], interruptedWith: [] });
    const cordon = await kube.mergePatch(KINDS.nodes, node, { spec: { unschedulable: true } });
    if (!cordon.ok && cordon.reason !== 'not-found') return cordon;
    const pods = await kube.list(KINDS.pods, { fieldSelector: `spec.nodeName=${node}` });
    if (!pods.ok) return pods;
    for (const pod of pods.value) {
      if (drainSkips(pod)) continue;
      pending.set(qualified(pod), { namespace: pod.metadata?.namespace ?? 'default', name: nameOf(pod) });
    }
  }
  const evicted: string[] = [];
  const evictPending = async (): Promise<PollAnswer<number, CloudFailure>> => {
    for (const [key, pod] of [...pending]) {
      if (ctx.signal.aborted) break;
      const answer = await kube.evict(pod.namespace, pod.name);
      if (!answer.ok) return { failure: answer };
      if (answer.value !== 'blocked') {
        pending.delete(key);
        if (answer.value === 'evicted') evicted.push(key);
      }
    }
    return { done: pending.size === 0, value: pending.size };
  };
  const waited = await poll({
    clock: ctx.clock,
    signal: ctx.signal,
    timeoutMs: graceMs,
    intervalMs: Math.min(5_000, pollInterval(graceMs)),
    check: evictPending,
  });
  if (waited.type === 'failed') return waited.failure;
  if (waited.type === 'aborted') return ok({ evicted, forced: [], interruptedWith: [...pending.keys()] });
  const forced: string[] = [];
  for (const [key, pod] of pending) {
    // Forcing is the destructive end of a drain: never after an interrupt.
    if (ctx.signal.aborted)
      return ok({ evicted, forced, interruptedWith: [...pending.keys()].filter((k) => !forced.includes(k)) });
    const deleted = await kube.delete({ ...KINDS.pods, namespace: pod.namespace }, pod.name, { gracePeriodSeconds: 0 });
    if (!deleted.ok) return deleted;
    forced.push(key);
  }
  return ok({ evicted, forced });
}

/** Names of nodes of a managed node group. */
export async function nodeGroupNodes(kube: KubeWriter, group: string): Promise<CloudResult<string[]>> {
  const nodes = await kube.list(KINDS.nodes, { labelSelector: `${NODEGROUP_LABEL}=${group}` });
  return nodes.ok ? ok(nodes.value.map(nameOf)) : nodes;
}
