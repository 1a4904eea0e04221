/**
 * A parkable environment for the park tests and `npm run demo:park`: in moto, an EKS cluster `platform` with two
 * managed node groups (each with one instance in its Auto Scaling group), a bastion instance tagged `Role=bastion`
 * and the state bucket; in a real Kubernetes API server (scripts/lib/kube-server.ts), nodes of both groups and of a
 * Karpenter NodePool, a pod with `karpenter.sh/do-not-disrupt`, a DaemonSet pod, a NodePool, an EC2NodeClass, a
 * NodeClaim owned by the NodePool and an Argo CD application with auto-sync; the test controllers
 * (kube-controllers.ts) play Karpenter, the garbage collector and the kubelet. platctl runs as the token file's
 * `limited` user, bound to exactly the ClusterRole `platctl-park` that docs/park.md publishes.
 */
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateClusterCommand, CreateNodegroupCommand, DescribeNodegroupCommand, EKSClient } from '@aws-sdk/client-eks';
import { DescribeInstancesCommand, EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import type { ParkRecord } from '../../park/record.js';
import type { ParkControllers } from './kube-controllers.js';
import { PARK_REFS, startParkControllers } from './kube-controllers.js';
import { installCrds } from './kube-crds.js';
import { node } from './kube-objects.js';
import { bindClusterRole, documentedClusterRole } from './kube-rbac.js';
import type { AuditEvent, KubeObject, KubeServer, ObjectRef } from './kube-server.js';
import { startKubeServer } from './kube-server.js';

export const PARK_ACCOUNT_ID = '123456789012';
export const PARK_CLUSTER = 'platform';
export const PARK_BUCKET = 'park-state-platform';
export const PARK_SIZES = {
  system: { minSize: 2, maxSize: 4, desiredSize: 3 },
  workers: { minSize: 1, maxSize: 6, desiredSize: 2 },
};

export type Sizes = Record<string, { minSize?: number; maxSize?: number; desiredSize?: number }>;

/**
 * `.platctl.yaml` of the environment; `extra` goes at the end of `park.platform` (indent it by 4), `karpenter` is
 * the value of `park.platform.karpenter`.
 */
export function parkConfig(extra = '', karpenter = '{ nodeclaim_timeout: 10s }'): string {
  return `version: 1
environments:
  platform:
    dir: live/platform
    aws: { region: eu-west-1, account_id: '${PARK_ACCOUNT_ID}', state_bucket: ${PARK_BUCKET} }
    cluster: { name: ${PARK_CLUSTER}, kubeconfig_context: fixture }
park:
  platform:
    node_groups: all
    bastion: { tags: { Role: bastion } }
    karpenter: ${karpenter}
    drain_grace: 1s
    argocd: { apps: [karpenter] }
${extra}`;
}

/** A park record of the environment, parked (or parked and unparked again) by `by` (`cron`: host `cron-host`). */
export function sampleParkRecord(status: 'parked' | 'unparked', by = 'cron'): ParkRecord {
  return {
    version: 1,
    env: 'platform',
    cluster: 'platform',
    status,
    parked_at: '2026-11-30T22:00:00.000Z',
    parked_by: { host: `${by}-host`, user: by },
    node_groups: { system: { min: 2, max: 4, desired: 3 } },
    karpenter: { nodepools: [], ec2nodeclasses: [] },
    bastions: [],
    argocd: { namespace: 'argocd', apps: [] },
    ...(status === 'unparked'
      ? { unparked_at: '2026-12-01T06:00:00.000Z', unparked_by: { host: `${by}-host`, user: by } }
      : {}),
  };
}

export function awsClientConfig(endpoint: string) {
  return { region: 'eu-west-1', endpoint, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } };
}

/** One of moto's built-in AMIs (DescribeImages would take seconds). */
const IMAGE = 'ami-03cf127a';

/** Seeds moto (see the module comment); returns the bastion's instance id. */
export async function seedParkAws(endpoint: string): Promise<{ bastionId: string }> {
  const eks = new EKSClient(awsClientConfig(endpoint));
  await eks.send(
    new CreateClusterCommand({
      name: PARK_CLUSTER,
      roleArn: `arn:aws:iam::${PARK_ACCOUNT_ID}:role/eks`,
      resourcesVpcConfig: { subnetIds: [] },
    }),
  );
  for (const [name, scalingConfig] of Object.entries(PARK_SIZES)) {
    await eks.send(
      new CreateNodegroupCommand({
        clusterName: PARK_CLUSTER,
        nodegroupName: name,
        nodeRole: `arn:aws:iam::${PARK_ACCOUNT_ID}:role/node`,
        subnets: ['subnet-1'],
        scalingConfig,
      }),
    );
    const asg = (await eks.send(new DescribeNodegroupCommand({ clusterName: PARK_CLUSTER, nodegroupName: name })))
      .nodegroup?.resources?.autoScalingGroups?.[0]?.name;
    await runInstance(endpoint, { 'aws:autoscaling:groupName': asg ?? name, 'eks:eks-cluster-name': PARK_CLUSTER });
  }
  const bastionId = await runInstance(endpoint, { Role: 'bastion', Name: 'platform-bastion' });
  await new S3Client({ ...awsClientConfig(endpoint), forcePathStyle: true }).send(
    new CreateBucketCommand({ Bucket: PARK_BUCKET, CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' } }),
  );
  return { bastionId };
}

/** Starts an instance with `tags`; returns its id. */
export async function runInstance(endpoint: string, tags: Record<string, string>): Promise<string> {
  const answer = await new EC2Client(awsClientConfig(endpoint)).send(
    new RunInstancesCommand({
      ImageId: IMAGE,
      MinCount: 1,
      MaxCount: 1,
      InstanceType: 't3.micro',
      TagSpecifications: [
        { ResourceType: 'instance', Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) },
      ],
    }),
  );
  return answer.Instances?.[0]?.InstanceId ?? '';
}

/** Namespaces of the environment's objects (kube-system is the server's own). */
const PARK_NAMESPACES = ['apps', 'argocd'];

/** Kinds platctl's park touches: each test starts with none of them (see {@link resetParkKube}). */
export const PARK_KINDS = {
  ...PARK_REFS,
  pdbs: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
  deployments: { apiVersion: 'apps/v1', kind: 'Deployment' },
  statefulsets: { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  applications: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application' },
  cnpg: { apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster' },
  validatingWebhooks: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' },
  mutatingWebhooks: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration' },
} as const;

const READY = () => [
  { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: new Date().toISOString() },
];

/** A node of a managed node group (`eks.amazonaws.com/nodegroup`) or of a Karpenter NodePool. */
export function parkNode(
  name: string,
  group: { nodegroup?: string; nodepool?: string },
  annotations: Record<string, string> = {},
  ready: boolean = true,
): KubeObject {
  return node(
    name,
    ready,
    {
      ...(group.nodegroup ? { 'eks.amazonaws.com/nodegroup': group.nodegroup } : {}),
      ...(group.nodepool ? { 'karpenter.sh/nodepool': group.nodepool } : {}),
    },
    annotations,
  );
}

export interface PodOptions {
  readonly node?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly ready?: boolean;
  /** A DaemonSet or ReplicaSet that owns the pod (it need not exist: no garbage collector runs). */
  readonly owner?: { kind: string; name: string };
  readonly startTime?: string;
}

/** A running pod with the status its kubelet would report. */
export function parkPod(namespace: string, name: string, options: PodOptions = {}): KubeObject {
  const owner = options.owner;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: options.labels ?? { app: name },
      annotations: options.annotations ?? {},
      ...(owner
        ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.name, uid: `uid-${owner.name}` }] }
        : {}),
    },
    spec: { ...(options.node ? { nodeName: options.node } : {}), containers: [{ name: 'main', image: 'app:1' }] },
    status: {
      phase: 'Running',
      startTime: options.startTime ?? new Date().toISOString(),
      conditions: [
        {
          type: 'Ready',
          status: (options.ready ?? true) ? 'True' : 'False',
          lastTransitionTime: new Date().toISOString(),
        },
      ],
    },
  };
}

/** A budget over the pods `matchLabels` selects, with the status the disruption controller would write. */
export function parkPdb(
  namespace: string,
  name: string,
  matchLabels: Record<string, string>,
  disruptionsAllowed = 0,
): KubeObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace },
    spec: { minAvailable: 1, selector: { matchLabels } },
    status: { observedGeneration: 1, disruptionsAllowed, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 },
  };
}

export function parkNodePool(name: string, nodeClass = 'default'): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name, annotations: { 'karpenter.sh/nodepool-hash': '123', team: 'platform' } },
    spec: {
      template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClass } } },
      limits: { cpu: '100' },
      disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized' },
    },
    status: { conditions: READY(), resources: { nodes: '1' } },
  };
}

export function parkEC2NodeClass(name: string): KubeObject {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: {
      name,
      finalizers: ['karpenter.k8s.aws/termination'],
      annotations: { 'karpenter.k8s.aws/ec2nodeclass-hash': '9' },
    },
    spec: { role: 'KarpenterNodeRole', amiSelectorTerms: [{ alias: 'al2023@latest' }] },
    status: { conditions: READY() },
  };
}

/** A NodeClaim of `pool` (owned by it, as Karpenter creates them) that launched `nodeName`. */
export function parkNodeClaim(name: string, pool: KubeObject, nodeName: string): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      labels: { 'karpenter.sh/nodepool': pool.metadata.name },
      finalizers: ['karpenter.sh/termination'],
      ownerReferences: [
        {
          apiVersion: 'karpenter.sh/v1',
          kind: 'NodePool',
          name: pool.metadata.name,
          uid: pool.metadata.uid,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } },
    status: { nodeName, conditions: READY() },
  };
}

/** The Argo CD application `name`, with auto-sync on (`spec.syncPolicy.automated`). */
export function parkApplication(name: string): KubeObject {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace: 'argocd' },
    spec: { project: 'default', syncPolicy: { automated: { prune: true, selfHeal: true } } },
    status: { sync: { status: 'Synced', revision: 'abc123' }, health: { status: 'Healthy' } },
  };
}

/** Once per server: the CRDs, the namespaces and the documented ClusterRole bound to the `limited` user. */
export async function prepareParkKube(kube: KubeServer): Promise<void> {
  await installCrds(kube, ['applications', 'nodepools', 'nodeclaims', 'ec2nodeclasses', 'cnpgClusters']);
  for (const name of PARK_NAMESPACES) await kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await bindClusterRole(kube, documentedClusterRole('park.md', 'platctl-park'));
}

/** Removes every object of {@link PARK_KINDS} (finalizers cleared, no grace): the next test starts from none. */
export async function resetParkKube(kube: KubeServer): Promise<void> {
  for (const ref of Object.values(PARK_KINDS)) {
    for (const object of await kube.list(ref)) {
      const at = { ...ref, name: object.metadata.name, namespace: object.metadata.namespace } as ObjectRef;
      await kube.delete(at, { force: true });
    }
  }
}

/** The environment's objects as a test changes them: the admin's server, the controllers, what platctl did. */
export interface ParkKube {
  /** The server, as its admin (seeding and reading back). */
  readonly server: KubeServer;
  readonly controllers: ParkControllers;
  /** A kubeconfig in `dir` for platctl: context `fixture`, user `limited` (the documented ClusterRole). */
  kubeconfig(dir: string): string;
  /** platctl's requests since the seeding (needs the server's audit log). */
  requests(): AuditEvent[];
  /** platctl's writes since the seeding, as `METHOD path?query`. */
  writes(): string[];
  /** The names of the objects of a kind (all namespaces), sorted. */
  names(kind: keyof typeof PARK_KINDS): Promise<string[]>;
  /** One object of a kind, or undefined. */
  get(kind: keyof typeof PARK_KINDS, name: string, namespace?: string): Promise<KubeObject | undefined>;
  /** Stops the controllers (rejects if one of their requests failed). */
  stop(): Promise<void>;
}

const METHODS: Record<string, string> = { create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE' };

/** Seeds the environment (see the module comment) and starts the controllers. */
export async function seedParkKube(
  kube: KubeServer,
  options: { stuck?: readonly string[]; holdClasses?: boolean } = {},
): Promise<ParkKube> {
  for (const object of [
    parkNode('sys-1', { nodegroup: 'system' }),
    parkNode('wk-1', { nodegroup: 'workers' }),
    parkNode('kp-1', { nodepool: 'default' }, { 'karpenter.sh/do-not-disrupt': 'true' }),
    parkPod('apps', 'api-1', {
      node: 'wk-1',
      labels: { app: 'api' },
      annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
    }),
    parkPod('kube-system', 'coredns-1', { node: 'sys-1' }),
    parkPod('kube-system', 'cilium-x', { node: 'sys-1', owner: { kind: 'DaemonSet', name: 'cilium' } }),
    parkEC2NodeClass('default'),
    parkApplication('karpenter'),
  ]) {
    await kube.apply(object);
  }
  const pool = await kube.apply(parkNodePool('default'));
  await kube.apply(parkNodeClaim('default-abc', pool, 'kp-1'));
  const since = kube.audit().length;
  const controllers = startParkControllers(kube, options);
  const requests = (): AuditEvent[] =>
    kube
      .audit()
      .slice(since)
      .filter((e) => e.user.username === 'limited');
  return {
    server: kube,
    controllers,
    kubeconfig: (dir) => kube.writeKubeconfig(dir, { context: 'fixture', user: 'limited' }),
    requests,
    writes: () =>
      requests()
        .filter((e) => METHODS[e.verb] !== undefined)
        .map((e) => `${METHODS[e.verb] ?? e.verb} ${e.requestURI}`),
    names: async (kind) => (await kube.list(PARK_KINDS[kind])).map((o) => o.metadata.name).sort(),
    get: (kind, name, namespace) => kube.get({ ...PARK_KINDS[kind], name, ...(namespace ? { namespace } : {}) }),
    stop: () => controllers.stop(),
  };
}

/**
 * `npm run demo:park`: a server of its own, prepared and seeded, with the controllers running; `stop()` stops both.
 */
export async function startParkKube(): Promise<ParkKube & { readonly url: string }> {
  const kube = await startKubeServer();
  try {
    await prepareParkKube(kube);
    const park = await seedParkKube(kube);
    return {
      ...park,
      url: kube.url,
      async stop() {
        try {
          await park.stop();
        } finally {
          await kube.stop();
        }
      },
    };
  } catch (error) {
    await kube.stop();
    throw error;
  }
}

/** The node groups' live scaling config. */
export async function nodeGroupSizes(endpoint: string): Promise<Sizes> {
  const eks = new EKSClient(awsClientConfig(endpoint));
  const out: Sizes = {};
  for (const name of Object.keys(PARK_SIZES)) {
    const g = await eks.send(new DescribeNodegroupCommand({ clusterName: PARK_CLUSTER, nodegroupName: name }));
    const { minSize, maxSize, desiredSize } = g.nodegroup?.scalingConfig ?? {};
    out[name] = {
      ...(minSize === undefined ? {} : { minSize }),
      ...(maxSize === undefined ? {} : { maxSize }),
      ...(desiredSize === undefined ? {} : { desiredSize }),
    };
  }
  return out;
}

export async function instanceState(endpoint: string, id: string): Promise<string | undefined> {
  const answer = await new EC2Client(awsClientConfig(endpoint)).send(
    new DescribeInstancesCommand({ InstanceIds: [id] }),
  );
  return answer.Reservations?.[0]?.Instances?.[0]?.State?.Name;
}

/** The park record in the state bucket, or undefined. */
export async function s3ParkRecord(endpoint: string): Promise<Record<string, unknown> | undefined> {
  const s3 = new S3Client({ ...awsClientConfig(endpoint), forcePathStyle: true });
  try {
    const got = await s3.send(new GetObjectCommand({ Bucket: PARK_BUCKET, Key: 'platctl/park/platform.json' }));
    return JSON.parse((await got.Body?.transformToString()) ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
