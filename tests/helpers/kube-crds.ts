/**
 * CustomResourceDefinitions of the projects platctl talks to (Argo CD, Gateway API, Karpenter, CloudNativePG,
 * Kyverno), for the real API server in tests. Group, kind, plural, scope, served version and whether status is a
 * subresource are the upstream CRDs'; the schemas keep `spec` and `status` open (the upstream schemas run to
 * thousands of lines and platctl reads only a few fields), so the server still prunes every unknown top-level field.
 */
import type { KubeObject, KubeServer } from './kube-server.js';

interface CrdShape {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly version: string;
  readonly scope: 'Namespaced' | 'Cluster';
  /** Status is a subresource (written only through `/status`): true for every CRD here but Argo CD's Application. */
  readonly statusSubresource: boolean;
  /** Top-level fields besides spec and status (Argo CD's Application has `operation`). */
  readonly extraFields?: readonly string[];
}

const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

function crd(shape: CrdShape): KubeObject {
  const properties: Record<string, unknown> = { spec: open, status: open };
  for (const field of shape.extraFields ?? []) properties[field] = open;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${shape.plural}.${shape.group}`,
      // The server refuses CRDs in the *.k8s.io groups without this (the upstream Gateway API CRDs carry it).
      ...(/(^|\.)k8s\.io$|(^|\.)kubernetes\.io$/.test(shape.group)
        ? { annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes-sigs/gateway-api/pull/2466' } }
        : {}),
    },
    spec: {
      group: shape.group,
      scope: shape.scope,
      names: {
        kind: shape.kind,
        listKind: `${shape.kind}List`,
        plural: shape.plural,
        singular: shape.kind.toLowerCase(),
      },
      versions: [
        {
          name: shape.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties } },
          ...(shape.statusSubresource ? { subresources: { status: {} } } : {}),
        },
      ],
    },
  };
}

export const CRDS = {
  // Argo CD's Application CRD has no status subresource: the application controller writes status with the object.
  applications: crd({
    group: 'argoproj.io',
    kind: 'Application',
    plural: 'applications',
    version: 'v1alpha1',
    scope: 'Namespaced',
    statusSubresource: false,
    extraFields: ['operation'],
  }),
  gateways: crd({
    group: 'gateway.networking.k8s.io',
    kind: 'Gateway',
    plural: 'gateways',
    version: 'v1',
    scope: 'Namespaced',
    statusSubresource: true,
  }),
  nodepools: crd({
    group: 'karpenter.sh',
    kind: 'NodePool',
    plural: 'nodepools',
    version: 'v1',
    scope: 'Cluster',
    statusSubresource: true,
  }),
  nodeclaims: crd({
    group: 'karpenter.sh',
    kind: 'NodeClaim',
    plural: 'nodeclaims',
    version: 'v1',
    scope: 'Cluster',
    statusSubresource: true,
  }),
  ec2nodeclasses: crd({
    group: 'karpenter.k8s.aws',
    kind: 'EC2NodeClass',
    plural: 'ec2nodeclasses',
    version: 'v1',
    scope: 'Cluster',
    statusSubresource: true,
  }),
  cnpgClusters: crd({
    group: 'postgresql.cnpg.io',
    kind: 'Cluster',
    plural: 'clusters',
    version: 'v1',
    scope: 'Namespaced',
    statusSubresource: true,
  }),
  kyvernoClusterPolicies: crd({
    group: 'kyverno.io',
    kind: 'ClusterPolicy',
    plural: 'clusterpolicies',
    version: 'v1',
    scope: 'Cluster',
    statusSubresource: true,
  }),
} as const;

/** Installs the named CRDs and waits until each is Established and served. */
export async function installCrds(kube: KubeServer, names: readonly (keyof typeof CRDS)[]): Promise<void> {
  for (const name of names) await kube.createCrd(CRDS[name]);
}
