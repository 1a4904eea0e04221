/**
 * Kubernetes objects the real API server accepts (every required field, nothing it would reject or prune), with the
 * status a kubelet or controller would write. Create them with `kube.apply(object)`, which writes the status through
 * the status subresource as that component would.
 */
import type { KubeObject } from './kube-server.js';

const now = () => new Date().toISOString();

/** A node with a Ready condition of the given status, as its kubelet reports it. */
export function node(
  name: string,
  ready: boolean | 'Unknown' = true,
  labels: Record<string, string> = {},
  annotations: Record<string, string> = {},
): KubeObject {
  const status = ready === 'Unknown' ? 'Unknown' : ready ? 'True' : 'False';
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels }, annotations },
    spec: {},
    status: {
      conditions: [
        { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', lastHeartbeatTime: now() },
        {
          type: 'Ready',
          status,
          reason: status === 'True' ? 'KubeletReady' : 'KubeletNotReady',
          message: status === 'True' ? 'kubelet is posting ready status' : 'container runtime network not ready',
          lastHeartbeatTime: now(),
          lastTransitionTime: now(),
        },
      ],
    },
  };
}

const CONTAINERS = [{ name: 'main', image: 'registry.example/app:1' }];

/** A DaemonSet whose controller reports `desired` pods, `available` of them available, `updated` at the spec. */
export function daemonSet(
  namespace: string,
  name: string,
  counts: { desired: number; available?: number; updated?: number; observedGeneration?: number },
): KubeObject {
  const available = counts.available ?? counts.desired;
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: CONTAINERS } },
      updateStrategy: { type: 'RollingUpdate' },
    },
    status: {
      desiredNumberScheduled: counts.desired,
      currentNumberScheduled: counts.desired,
      updatedNumberScheduled: counts.updated ?? counts.desired,
      numberAvailable: available,
      numberReady: available,
      numberMisscheduled: 0,
      numberUnavailable: counts.desired - available,
      // A fresh object has generation 1.
      observedGeneration: counts.observedGeneration ?? 1,
    },
  };
}

/** An Argo CD Application with the given sync and health status. */
export function application(
  name: string,
  sync = 'Synced',
  health = 'Healthy',
  namespace = 'argocd',
  healthMessage?: string,
): KubeObject {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace },
    spec: {
      project: 'default',
      source: { repoURL: 'https://git.example/platform.git', path: name, targetRevision: 'main' },
      destination: { server: 'https://kubernetes.default.svc', namespace: name },
    },
    status: {
      sync: { status: sync, revision: 'abc123' },
      health: { status: health, ...(healthMessage ? { message: healthMessage } : {}) },
    },
  };
}

/** A Gateway API Gateway with Accepted/Programmed conditions for its first generation. */
export function gateway(namespace: string, name: string, accepted = true, programmed = true): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace },
    spec: { gatewayClassName: 'cilium', listeners: [{ name: 'https', port: 443, protocol: 'HTTPS' }] },
    status: {
      conditions: [
        {
          type: 'Accepted',
          status: accepted ? 'True' : 'False',
          reason: accepted ? 'Accepted' : 'Invalid',
          message: '',
          observedGeneration: 1,
          lastTransitionTime: now(),
        },
        {
          type: 'Programmed',
          status: programmed ? 'True' : 'False',
          reason: programmed ? 'Programmed' : 'AddressNotAssigned',
          message: programmed ? '' : 'no load balancer address assigned yet',
          observedGeneration: 1,
          lastTransitionTime: now(),
        },
      ],
    },
  };
}

/** A namespace. */
export function namespace(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/** An Opaque Secret holding `data` (plain text here, base64 on the wire). */
export function secret(namespace: string, name: string, data: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

/** A ClusterRole with `rules`, and a binding of it to `user`. */
export function clusterRoleFor(
  name: string,
  user: string,
  rules: readonly Record<string, unknown>[],
): [KubeObject, KubeObject] {
  return [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  ];
}
