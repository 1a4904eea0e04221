/**
 * A parkable environment for the park tests and `npm run demo:park`: in moto, an EKS cluster `platform` with two
 * managed node groups (each with one instance in its Auto Scaling group), a bastion instance tagged `Role=bastion`
 * and the state bucket; in the loopback Kubernetes API, nodes of both groups and of a Karpenter NodePool, a pod with
 * `karpenter.sh/do-not-disrupt`, a DaemonSet pod, a NodePool, an EC2NodeClass, a NodeClaim and an Argo CD
 * application with auto-sync, with Karpenter's controller behaviour.
 */
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateClusterCommand, CreateNodegroupCommand, DescribeNodegroupCommand, EKSClient } from '@aws-sdk/client-eks';
import { DescribeInstancesCommand, EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import type { ParkRecord } from '../../park/record.js';
import type { KubeApiServer } from './kube-api.js';
import {
  KEYS,
  fixtureApplication,
  fixtureEC2NodeClass,
  fixtureGroupNode,
  fixtureNodeClaim,
  fixtureNodePool,
  fixturePod,
  karpenterController,
  startKubeApi,
} from './kube-api.js';

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
export function parkConfig(extra = '', karpenter = '{ nodeclaim_timeout: 2s }'): string {
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

/** The loopback Kubernetes API of the environment (see the module comment). */
export async function startParkKube(): Promise<KubeApiServer> {
  const kube = await startKubeApi({
    nodes: [
      fixtureGroupNode('sys-1', { nodegroup: 'system' }),
      fixtureGroupNode('wk-1', { nodegroup: 'workers' }),
      fixtureGroupNode('kp-1', { nodepool: 'default' }, { 'karpenter.sh/do-not-disrupt': 'true' }),
    ],
    applications: [
      {
        ...fixtureApplication('karpenter'),
        spec: { project: 'default', syncPolicy: { automated: { prune: true, selfHeal: true } } },
      },
    ],
    custom: {
      [KEYS.pods]: [
        fixturePod('apps', 'api-1', {
          node: 'wk-1',
          labels: { app: 'api' },
          annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
        }),
        fixturePod('kube-system', 'coredns-1', { node: 'sys-1' }),
        fixturePod('kube-system', 'cilium-x', { node: 'sys-1', owner: { kind: 'DaemonSet', name: 'cilium' } }),
      ],
      [KEYS.nodepools]: [fixtureNodePool('default')],
      [KEYS.ec2nodeclasses]: [fixtureEC2NodeClass('default')],
      [KEYS.nodeclaims]: [fixtureNodeClaim('default-abc', 'default', 'kp-1')],
    },
  });
  kube.controllers.push(karpenterController());
  return kube;
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
