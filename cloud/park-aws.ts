/**
 * The AWS writes of `platctl down`/`up`, beside the read-only `EnvCloud`: EKS node-group scaling (and waiting for the
 * update), EC2 instances found by tags (stop, start, terminate), and the park record's old place in S3 (`stateBucketRecords`).
 * Clients use the environment's credentials and honour the same endpoint overrides as every other client.
 */
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { EKSClient } from '@aws-sdk/client-eks';
import type { S3Client } from '@aws-sdk/client-s3';
import type { EnvVars } from './env.js';
import { endpointFor, sdkTimeouts, serviceAt } from './env.js';
import type { EnvCloud } from './environment.js';
import type { CloudFailure, CloudResult } from './result.js';
import { failure, ok } from './result.js';
import type { S3Store } from './s3-store.js';
import { Unavailable, awsFailure, createS3Store } from './s3-store.js';
import { awsAccessOf } from './sdk-access.js';
import type { AgentInfo, SsmReader } from './ssm.js';
import { createSsmReader } from './ssm.js';

/** The key prefix of park records in an environment's `aws.state_bucket`. */
export const STATE_BUCKET_PREFIX = 'platctl';

export interface NodeGroupSize {
  readonly min: number;
  readonly max: number;
  readonly desired: number;
}

export interface NodeGroupInfo extends NodeGroupSize {
  readonly name: string;
  readonly status: string;
  /** The Auto Scaling groups behind it (their instances carry `aws:autoscaling:groupName`). */
  readonly asgs: readonly string[];
}

export interface InstanceInfo {
  readonly id: string;
  readonly state: string;
  readonly tags: Readonly<Record<string, string>>;
}

export interface InstanceFilter {
  /** Every tag must match. */
  readonly tags?: Readonly<Record<string, string>>;
  /** Instances of these Auto Scaling groups. */
  readonly asgs?: readonly string[];
  /** Only these instances. */
  readonly ids?: readonly string[];
  /** Default: every state but terminated. */
  readonly states?: readonly string[];
}

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly pollMs: number;
  /** Structurally the `Clock` of `engine/waits.ts`: its sleep ends early when the signal aborts. */
  readonly clock: { now(): number; sleep(ms: number, signal: AbortSignal): Promise<void> };
  /** The run's signal: once aborted, no more polling (the update itself goes on in AWS). */
  readonly signal: AbortSignal;
}

/** States an instance costs money in (or is about to). */
export const LIVE_STATES = ['pending', 'running', 'stopping', 'shutting-down'] as const;

export interface ParkAws {
  listNodeGroups(): Promise<CloudResult<string[]>>;
  describeNodeGroup(name: string): Promise<CloudResult<NodeGroupInfo>>;
  /** UpdateNodegroupConfig, then waits until the update is no longer in progress; returns its final status. */
  scaleNodeGroup(name: string, scaling: Partial<NodeGroupSize>, wait: WaitOptions): Promise<CloudResult<string>>;
  instances(filter: InstanceFilter): Promise<CloudResult<InstanceInfo[]>>;
  stopInstances(ids: readonly string[]): Promise<CloudResult<void>>;
  startInstances(ids: readonly string[]): Promise<CloudResult<void>>;
  terminateInstances(ids: readonly string[]): Promise<CloudResult<void>>;
  /** The SSM agents of `ids` (DescribeInstanceInformation): the bastion is ready when its agent is `Online`. */
  ssmAgents(ids: readonly string[], signal?: AbortSignal): Promise<CloudResult<AgentInfo[]>>;
  /**
   * `s3://<bucket>/platctl/` (the environment's `aws.state_bucket`) with the environment's credentials: where the
   * park record is shared with the local state backend, and its old place, read once to migrate, with the s3 one.
   */
  stateBucketRecords(bucket: string): S3Store;
}

/**
 * The park writes of `cloud`'s environment. `signal` (the run's: the first Ctrl-C) aborts every EKS and EC2 call in
 * flight; the park record's S3 calls are only bounded in time, so a record or journal write is never cut in half.
 */
export function createParkAws(cloud: EnvCloud, env: EnvVars, clusterName: string, signal?: AbortSignal): ParkAws {
  return new SdkParkAws(cloud, env, clusterName, signal);
}

class SdkParkAws implements ParkAws {
  readonly #cloud: EnvCloud;
  readonly #env: EnvVars;
  readonly #cluster: string;
  #eks: Promise<EKSClient> | undefined;
  #ec2: Promise<EC2Client> | undefined;
  #s3: Promise<S3Client> | undefined;
  #ssm: Promise<CloudResult<SsmReader>> | undefined;

  readonly #send: { abortSignal?: AbortSignal };

  constructor(cloud: EnvCloud, env: EnvVars, cluster: string, signal: AbortSignal | undefined) {
    this.#send = signal ? { abortSignal: signal } : {};
    this.#cloud = cloud;
    this.#env = env;
    this.#cluster = cluster;
  }

  async listNodeGroups(): Promise<CloudResult<string[]>> {
    return this.#call(`listing the node groups of cluster ${this.#cluster}`, async () => {
      const [{ ListNodegroupsCommand }, eks] = await Promise.all([import('@aws-sdk/client-eks'), this.#eksClient()]);
      const names: string[] = [];
      let nextToken: string | undefined;
      do {
        const page = await eks.send(
          new ListNodegroupsCommand({ clusterName: this.#cluster, ...(nextToken ? { nextToken } : {}) }),
          this.#send,
        );
        names.push(...(page.nodegroups ?? []));
        nextToken = page.nextToken;
      } while (nextToken);
      return names.sort();
    });
  }

  async describeNodeGroup(name: string): Promise<CloudResult<NodeGroupInfo>> {
    return this.#call(`node group ${name} of cluster ${this.#cluster}`, async () => {
      const [{ DescribeNodegroupCommand }, eks] = await Promise.all([import('@aws-sdk/client-eks'), this.#eksClient()]);
      const answer = await eks.send(
        new DescribeNodegroupCommand({ clusterName: this.#cluster, nodegroupName: name }),
        this.#send,
      );
      const group = answer.nodegroup;
      const scaling = group?.scalingConfig;
      return {
        name,
        status: group?.status ?? 'UNKNOWN',
        min: scaling?.minSize ?? 0,
        max: scaling?.maxSize ?? 0,
        desired: scaling?.desiredSize ?? 0,
        asgs: (group?.resources?.autoScalingGroups ?? []).map((a) => a.name ?? '').filter((n) => n !== ''),
      };
    });
  }

  async scaleNodeGroup(name: string, scaling: Partial<NodeGroupSize>, wait: WaitOptions): Promise<CloudResult<string>> {
    const what = `scaling node group ${name} of cluster ${this.#cluster}`;
    const started = await this.#call(what, async () => {
      const [{ UpdateNodegroupConfigCommand }, eks] = await Promise.all([
        import('@aws-sdk/client-eks'),
        this.#eksClient(),
      ]);
      const answer = await eks.send(
        new UpdateNodegroupConfigCommand({
          clusterName: this.#cluster,
          nodegroupName: name,
          scalingConfig: {
            ...(scaling.min === undefined ? {} : { minSize: scaling.min }),
            ...(scaling.max === undefined ? {} : { maxSize: scaling.max }),
            ...(scaling.desired === undefined ? {} : { desiredSize: scaling.desired }),
          },
        }),
        this.#send,
      );
      return { id: answer.update?.id ?? '', status: answer.update?.status ?? 'Successful' };
    });
    if (!started.ok) return started;
    let { status } = started.value;
    const deadline = wait.clock.now() + wait.timeoutMs;
    // An update already terminal needs no polling (emulators answer Successful at once and have no DescribeUpdate).
    while (status === 'InProgress') {
      if (wait.signal.aborted) {
        return failure('timeout', `${what}: interrupted while update ${started.value.id} was in progress`);
      }
      if (wait.clock.now() >= deadline) {
        return failure('timeout', `${what}: update ${started.value.id} still in progress after the time allowed`);
      }
      await wait.clock.sleep(Math.min(wait.pollMs, Math.max(0, deadline - wait.clock.now())), wait.signal);
      if (wait.signal.aborted) continue;
      const polled = await this.#call(`${what} (update ${started.value.id})`, async () => {
        const [{ DescribeUpdateCommand }, eks] = await Promise.all([import('@aws-sdk/client-eks'), this.#eksClient()]);
        const answer = await eks.send(
          new DescribeUpdateCommand({ name: this.#cluster, nodegroupName: name, updateId: started.value.id }),
          this.#send,
        );
        const errors = (answer.update?.errors ?? []).map((e) => `${e.errorCode ?? ''}: ${e.errorMessage ?? ''}`);
        return { status: answer.update?.status ?? 'InProgress', errors };
      });
      if (!polled.ok) return polled;
      status = polled.value.status;
      if (status === 'Failed' || status === 'Cancelled') {
        return failure('error', `${what}: the update ${status.toLowerCase()} (${polled.value.errors.join('; ')})`);
      }
    }
    return ok(status);
  }

  async instances(filter: InstanceFilter): Promise<CloudResult<InstanceInfo[]>> {
    const states = filter.states ?? ['pending', 'running', 'stopping', 'stopped', 'shutting-down'];
    const filters = [
      { Name: 'instance-state-name', Values: [...states] },
      ...Object.entries(filter.tags ?? {}).map(([key, value]) => ({ Name: `tag:${key}`, Values: [value] })),
      ...(filter.asgs ? [{ Name: 'tag:aws:autoscaling:groupName', Values: [...filter.asgs] }] : []),
    ];
    if ((filter.asgs && filter.asgs.length === 0) || (filter.ids && filter.ids.length === 0)) return ok([]);
    return this.#call(
      'listing EC2 instances',
      async () => {
        const [{ DescribeInstancesCommand }, ec2] = await Promise.all([
          import('@aws-sdk/client-ec2'),
          this.#ec2Client(),
        ]);
        const out: InstanceInfo[] = [];
        let NextToken: string | undefined;
        do {
          const page = await ec2.send(
            new DescribeInstancesCommand({
              Filters: filters,
              ...(filter.ids ? { InstanceIds: [...filter.ids] } : {}),
              ...(NextToken ? { NextToken } : {}),
            }),
            this.#send,
          );
          for (const reservation of page.Reservations ?? []) {
            for (const instance of reservation.Instances ?? []) {
              const tags: Record<string, string> = {};
              for (const tag of instance.Tags ?? []) if (tag.Key) tags[tag.Key] = tag.Value ?? '';
              out.push({ id: instance.InstanceId ?? '', state: instance.State?.Name ?? 'unknown', tags });
            }
          }
          NextToken = page.NextToken;
        } while (NextToken);
        return out.sort((a, b) => a.id.localeCompare(b.id));
      },
      'EC2',
    );
  }

  async stopInstances(ids: readonly string[]): Promise<CloudResult<void>> {
    return this.#call(
      `stopping ${ids.join(', ')}`,
      async () => {
        const [{ StopInstancesCommand }, ec2] = await Promise.all([import('@aws-sdk/client-ec2'), this.#ec2Client()]);
        await ec2.send(new StopInstancesCommand({ InstanceIds: [...ids] }), this.#send);
      },
      'EC2',
    );
  }

  async startInstances(ids: readonly string[]): Promise<CloudResult<void>> {
    return this.#call(
      `starting ${ids.join(', ')}`,
      async () => {
        const [{ StartInstancesCommand }, ec2] = await Promise.all([import('@aws-sdk/client-ec2'), this.#ec2Client()]);
        await ec2.send(new StartInstancesCommand({ InstanceIds: [...ids] }), this.#send);
      },
      'EC2',
    );
  }

  async terminateInstances(ids: readonly string[]): Promise<CloudResult<void>> {
    return this.#call(
      `terminating ${ids.join(', ')}`,
      async () => {
        const [{ TerminateInstancesCommand }, ec2] = await Promise.all([
          import('@aws-sdk/client-ec2'),
          this.#ec2Client(),
        ]);
        await ec2.send(new TerminateInstancesCommand({ InstanceIds: [...ids] }), this.#send);
      },
      'EC2',
    );
  }

  async ssmAgents(ids: readonly string[], signal?: AbortSignal): Promise<CloudResult<AgentInfo[]>> {
    this.#ssm ??= awsAccessOf(this.#cloud, this.#env).then((access) =>
      access.ok ? ok(createSsmReader(access.value)) : access,
    );
    const ssm = await this.#ssm;
    if (!ssm.ok) {
      this.#ssm = undefined;
      return ssm;
    }
    return ssm.value.agents(ids, signal);
  }

  stateBucketRecords(bucket: string): S3Store {
    return createS3Store({
      bucket,
      keyPrefix: STATE_BUCKET_PREFIX,
      profile: this.#cloud.profile,
      client: () => this.#s3Client(),
      hints: { noBucket: `create it, or fix aws.state_bucket of environment ${this.#cloud.envName} in .platctl.yaml` },
    });
  }

  async #call<T>(what: string, run: () => Promise<T>, serviceId: 'EKS' | 'EC2' = 'EKS'): Promise<CloudResult<T>> {
    try {
      return ok(await run());
    } catch (error) {
      return this.#failure(error, what, serviceId);
    }
  }

  #failure(error: unknown, what: string, serviceId: string): CloudFailure {
    return awsFailure(error, what, { service: serviceAt(serviceId, this.#env), profile: this.#cloud.profile });
  }

  async #config(serviceId: string) {
    const provider = await this.#cloud.credentials();
    if (!provider.ok) throw new Unavailable(provider);
    const region = this.#cloud.region;
    if (region === undefined) throw new Unavailable(failure('not-configured', 'no AWS region'));
    const endpoint = endpointFor(serviceId, this.#env);
    return { region, credentials: provider.value, ...sdkTimeouts(this.#env, 3), ...(endpoint ? { endpoint } : {}) };
  }

  #eksClient(): Promise<EKSClient> {
    this.#eks ??= (async () => new (await import('@aws-sdk/client-eks')).EKSClient(await this.#config('EKS')))();
    this.#eks.catch(() => (this.#eks = undefined));
    return this.#eks;
  }

  #ec2Client(): Promise<EC2Client> {
    this.#ec2 ??= (async () => new (await import('@aws-sdk/client-ec2')).EC2Client(await this.#config('EC2')))();
    this.#ec2.catch(() => (this.#ec2 = undefined));
    return this.#ec2;
  }

  #s3Client(): Promise<S3Client> {
    this.#s3 ??= (async () => {
      const config = await this.#config('S3');
      const { S3Client } = await import('@aws-sdk/client-s3');
      return new S3Client({ ...config, forcePathStyle: config.endpoint !== undefined, followRegionRedirects: true });
    })();
    this.#s3.catch(() => (this.#s3 = undefined));
    return this.#s3;
  }
}
