/**
 * The cluster components a park test needs besides the API server, played against the real server (it runs no
 * controllers and no kubelet): the garbage collector's foreground deletion for NodePools, Karpenter's termination of
 * NodeClaims and EC2NodeClasses, and the kubelet finishing the pods it was asked to stop.
 *
 * Why a test controller and not kube-controller-manager: the garbage collector only has to honour one relation here
 * (a NodeClaim's ownerReference to its NodePool, with blockOwnerDeletion), and Karpenter is not part of
 * kube-controller-manager anyway, so a test controller is needed in any case; building and starting the manager
 * would add 2.5 min of CI build and a process per test file for semantics these tests do not exercise (namespace
 * deletion, ReplicaSets, endpoints).
 *
 * Each pass lists the objects and acts on what it finds, as a controller's reconcile loop would:
 * - kubelet: a pod on a node with a deletionTimestamp (an eviction or a graceful delete) is deleted with grace 0;
 * - garbage collector: a NodePool being deleted in the foreground (`foregroundDeletion` finalizer) has its
 *   NodeClaims deleted, and loses the finalizer once no NodeClaim it owns is left; a NodeClaim whose owner is gone
 *   (a background delete) is deleted;
 * - Karpenter: a NodeClaim being deleted has its node deleted and its `karpenter.sh/termination` finalizer removed,
 *   except the `stuck` ones (an instance that never terminates); an EC2NodeClass being deleted loses its
 *   `karpenter.k8s.aws/termination` finalizer once no NodeClaim is left, unless `holdClasses`; a NodePool without
 *   status conditions (one `up` recreated) is reported Ready;
 * - with `rollouts` on, the Deployment controller and the kubelet of a rollout restart: once a Deployment's template
 *   carries a new `kubectl.kubernetes.io/restartedAt`, the pods it selects are reported started now and Ready (as if
 *   replaced by fresh ones).
 */
import type { KubeObject, KubeServer, ObjectRef } from './kube-server.js';

export const PARK_REFS = {
  pods: { apiVersion: 'v1', kind: 'Pod' },
  nodes: { apiVersion: 'v1', kind: 'Node' },
  nodepools: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool' },
  nodeclaims: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim' },
  ec2nodeclasses: { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass' },
} as const;

const FOREGROUND = 'foregroundDeletion';
const CLAIM_FINALIZER = 'karpenter.sh/termination';
const CLASS_FINALIZER = 'karpenter.k8s.aws/termination';

export interface ParkControllers {
  /** NodeClaims whose termination finalizer Karpenter never clears (their instance does not go). */
  readonly stuck: Set<string>;
  /** EC2NodeClasses keep their finalizer (Karpenter still holds them). */
  holdClasses: boolean;
  /** A rollout restart of a Deployment brings its pods back Ready (off: restarted pods stay as they are). */
  rollouts: boolean;
  /**
   * Turns `rollouts` on for restarts made from now: those made while it was off stay unanswered, so a test knows
   * which restart brings the pods back (the next one), whatever the load.
   */
  answerRestartsFromNow(): Promise<void>;
  /** Stops the loop; rejects with the first request that failed for another reason than a race (404, 409). */
  stop(): Promise<void>;
}

const refOf = (ref: Omit<ObjectRef, 'name'>, object: KubeObject): ObjectRef => ({
  ...ref,
  name: object.metadata.name,
  ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
});

const finalizersOf = (object: KubeObject): string[] => (object.metadata.finalizers as string[] | undefined) ?? [];
const deleting = (object: KubeObject): boolean => object.metadata.deletionTimestamp !== undefined;

async function removeFinalizer(kube: KubeServer, ref: ObjectRef, object: KubeObject, finalizer: string) {
  // resourceVersion makes it a compare-and-swap: a concurrent change answers 409 and the next pass retries.
  await kube.patch(ref, {
    metadata: {
      resourceVersion: object.metadata.resourceVersion,
      finalizers: finalizersOf(object).filter((f) => f !== finalizer),
    },
  });
}

const restartedAtOf = (deployment: KubeObject): string | undefined =>
  (deployment.spec as { template?: { metadata?: { annotations?: Record<string, string> } } } | undefined)?.template
    ?.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'];

export function startParkControllers(
  kube: KubeServer,
  options: { stuck?: readonly string[]; holdClasses?: boolean; intervalMs?: number } = {},
): ParkControllers {
  const failures: Error[] = [];
  let running = true;
  /** The restartedAt each Deployment had when the rollout controller last looked (restarts before it ran count). */
  const restarted = new Map<string, unknown>();

  const guarded = async (step: () => Promise<void>): Promise<void> => {
    try {
      await step();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!/HTTP (404|409)\b/.test(message)) failures.push(error instanceof Error ? error : new Error(message));
    }
  };

  const pass = async (): Promise<void> => {
    const state = {
      pods: await kube.list(PARK_REFS.pods),
      pools: await kube.list(PARK_REFS.nodepools),
      claims: await kube.list(PARK_REFS.nodeclaims),
      classes: await kube.list(PARK_REFS.ec2nodeclasses),
    };
    // kubelet: the pod's containers stopped, the pod object goes.
    for (const pod of state.pods.filter(deleting)) {
      if (!(pod.spec as { nodeName?: string } | undefined)?.nodeName) continue;
      await guarded(() => kube.delete(refOf(PARK_REFS.pods, pod), { force: true }));
    }
    // garbage collector
    const poolUids = new Map(state.pools.map((pool) => [pool.metadata.uid as string, pool]));
    const ownedBy = (claim: KubeObject): string[] =>
      ((claim.metadata.ownerReferences as { uid: string; kind: string }[] | undefined) ?? [])
        .filter((owner) => owner.kind === 'NodePool')
        .map((owner) => owner.uid);
    for (const claim of state.claims) {
      const owners = ownedBy(claim);
      const ownerGoing = owners.some((uid) => {
        const pool = poolUids.get(uid);
        return pool === undefined || (deleting(pool) && finalizersOf(pool).includes(FOREGROUND));
      });
      if (owners.length > 0 && ownerGoing && !deleting(claim)) {
        await guarded(() => kube.delete(refOf(PARK_REFS.nodeclaims, claim)));
      }
    }
    for (const pool of state.pools) {
      if (!deleting(pool) || !finalizersOf(pool).includes(FOREGROUND)) continue;
      if (state.claims.some((claim) => ownedBy(claim).includes(pool.metadata.uid as string))) continue;
      await guarded(() => removeFinalizer(kube, refOf(PARK_REFS.nodepools, pool), pool, FOREGROUND));
    }
    // Karpenter
    for (const claim of state.claims) {
      if (!deleting(claim) || controllers.stuck.has(claim.metadata.name)) continue;
      if (!finalizersOf(claim).includes(CLAIM_FINALIZER)) continue;
      const nodeName = (claim.status as { nodeName?: string } | undefined)?.nodeName;
      if (nodeName) await guarded(() => kube.delete({ ...PARK_REFS.nodes, name: nodeName }));
      await guarded(() => removeFinalizer(kube, refOf(PARK_REFS.nodeclaims, claim), claim, CLAIM_FINALIZER));
    }
    if (!controllers.holdClasses && state.claims.length === 0) {
      for (const nodeClass of state.classes) {
        if (!deleting(nodeClass) || !finalizersOf(nodeClass).includes(CLASS_FINALIZER)) continue;
        await guarded(() =>
          removeFinalizer(kube, refOf(PARK_REFS.ec2nodeclasses, nodeClass), nodeClass, CLASS_FINALIZER),
        );
      }
    }
    for (const pool of state.pools) {
      if (deleting(pool) || (pool.status as { conditions?: unknown[] } | undefined)?.conditions) continue;
      const ready = { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: new Date() };
      await guarded(async () => {
        await kube.patch(refOf(PARK_REFS.nodepools, pool), { status: { conditions: [ready] } }, { status: true });
      });
    }
  };

  const rollout = async (): Promise<void> => {
    for (const deployment of await kube.list({ apiVersion: 'apps/v1', kind: 'Deployment' })) {
      const key = `${deployment.metadata.namespace ?? ''}/${deployment.metadata.name}`;
      const spec = deployment.spec as {
        selector?: { matchLabels?: Record<string, string> };
        template?: { metadata?: { annotations?: Record<string, string> } };
      };
      const at = restartedAtOf(deployment);
      if (at === undefined || restarted.get(key) === at) continue;
      restarted.set(key, at);
      const selector = Object.entries(spec.selector?.matchLabels ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      const pods = await kube.list(
        { ...PARK_REFS.pods, namespace: deployment.metadata.namespace ?? 'default' },
        `labelSelector=${encodeURIComponent(selector)}`,
      );
      for (const pod of pods) {
        const now = new Date().toISOString();
        await guarded(async () => {
          await kube.patch(
            refOf(PARK_REFS.pods, pod),
            {
              status: {
                phase: 'Running',
                startTime: now,
                conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }],
              },
            },
            { status: true },
          );
        });
      }
    }
  };

  let loop: Promise<void> = Promise.resolve();
  const controllers: ParkControllers = {
    stuck: new Set(options.stuck ?? []),
    holdClasses: options.holdClasses ?? false,
    rollouts: false,
    async answerRestartsFromNow() {
      for (const deployment of await kube.list({ apiVersion: 'apps/v1', kind: 'Deployment' })) {
        restarted.set(`${deployment.metadata.namespace ?? ''}/${deployment.metadata.name}`, restartedAtOf(deployment));
      }
      controllers.rollouts = true;
    },
    async stop() {
      running = false;
      await loop;
      const [first] = failures;
      if (first) throw first;
    },
  };
  loop = (async () => {
    while (running) {
      await guarded(pass);
      if (controllers.rollouts) await guarded(rollout);
      if (running) await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
    }
  })();

  return controllers;
}
