/**
 * The AWS writes of `platctl down`/`up`, beside the read-only `EnvCloud`: EKS node-group scaling (and waiting for the
 * update), EC2 instances found by tags (stop, start, terminate), and the park record in S3 with conditional puts.
 * Clients use the environment's credentials and honour the same endpoint overrides as every other client.
 */
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { EKSClient } from '@aws-sdk/client-eks';
import type { S3Client } from '@aws-sdk/client-s3';
import { describeAwsError, isAuthError, loginHint } from './auth-errors.js';
import type { EnvVars } from './env.js';
import { endpointFor } from './env.js';
import type { EnvCloud } from './environment.js';
import type { CloudFailure, CloudResult } from './result.js';
import { failure, isAbortError, networkErrorCode, ok } from './result.js';

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
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
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
  /** The object and its ETag; undefined when there is none. */
  getObject(bucket: string, key: string): Promise<CloudResult<{ body: string; etag: string } | undefined>>;
  /**
   * PutObject only if the object is absent (`ifNoneMatch`) or still has `ifMatch` as its ETag; `conflict` when
   * someone else wrote first.
   */
  putObject(
    bucket: string,
    key: string,
    body: string,
    condition: { ifNoneMatch: true } | { ifMatch: string } | { always: true },
  ): Promise<CloudResult<'written' | 'conflict'>>;
  /** DeleteObject; deleting an object that is not there is a success, as in S3. */
  deleteObject(bucket: string, key: string): Promise<CloudResult<void>>;
}

export function createParkAws(cloud: EnvCloud, env: EnvVars, clusterName: string): ParkAws {
  return new SdkParkAws(cloud, env, clusterName);
}

class SdkParkAws implements ParkAws {
  readonly #cloud: EnvCloud;
  readonly #env: EnvVars;
  readonly #cluster: string;
  #eks: Promise<EKSClient> | undefined;
  #ec2: Promise<EC2Client> | undefined;
  #s3: Promise<S3Client> | undefined;

  constructor(cloud: EnvCloud, env: EnvVars, cluster: string) {
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
      const answer = await eks.send(new DescribeNodegroupCommand({ clusterName: this.#cluster, nodegroupName: name }));
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
      );
      return { id: answer.update?.id ?? '', status: answer.update?.status ?? 'Successful' };
    });
    if (!started.ok) return started;
    let { status } = started.value;
    const deadline = wait.now() + wait.timeoutMs;
    // An update already terminal needs no polling (emulators answer Successful at once and have no DescribeUpdate).
    while (status === 'InProgress') {
      if (wait.now() >= deadline) {
        return failure('timeout', `${what}: update ${started.value.id} still in progress after the time allowed`);
      }
      await wait.sleep(wait.pollMs);
      const polled = await this.#call(`${what} (update ${started.value.id})`, async () => {
        const [{ DescribeUpdateCommand }, eks] = await Promise.all([import('@aws-sdk/client-eks'), this.#eksClient()]);
        const answer = await eks.send(
          new DescribeUpdateCommand({ name: this.#cluster, nodegroupName: name, updateId: started.value.id }),
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
    return this.#call('listing EC2 instances', async () => {
      const [{ DescribeInstancesCommand }, ec2] = await Promise.all([import('@aws-sdk/client-ec2'), this.#ec2Client()]);
      const out: InstanceInfo[] = [];
      let NextToken: string | undefined;
      do {
        const page = await ec2.send(
          new DescribeInstancesCommand({
            Filters: filters,
            ...(filter.ids ? { InstanceIds: [...filter.ids] } : {}),
            ...(NextToken ? { NextToken } : {}),
          }),
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
    });
  }

  async stopInstances(ids: readonly string[]): Promise<CloudResult<void>> {
    return this.#call(`stopping ${ids.join(', ')}`, async () => {
      const [{ StopInstancesCommand }, ec2] = await Promise.all([import('@aws-sdk/client-ec2'), this.#ec2Client()]);
      await ec2.send(new StopInstancesCommand({ InstanceIds: [...ids] }));
    });
  }

  async startInstances(ids: readonly string[]): Promise<CloudResult<void>> {
    return this.#call(`starting ${ids.join(', ')}`, async () => {
      const [{ StartInstancesCommand }, ec2] = await Promise.all([import('@aws-sdk/client-ec2'), this.#ec2Client()]);
      await ec2.send(new StartInstancesCommand({ InstanceIds: [...ids] }));
    });
  }

  async terminateInstances(ids: readonly string[]): Promise<CloudResult<void>> {
    return this.#call(`terminating ${ids.join(', ')}`, async () => {
      const [{ TerminateInstancesCommand }, ec2] = await Promise.all([
        import('@aws-sdk/client-ec2'),
        this.#ec2Client(),
      ]);
      await ec2.send(new TerminateInstancesCommand({ InstanceIds: [...ids] }));
    });
  }

  async getObject(bucket: string, key: string): Promise<CloudResult<{ body: string; etag: string } | undefined>> {
    const result = await this.#call(`reading s3://${bucket}/${key}`, async () => {
      const [{ GetObjectCommand }, s3] = await Promise.all([import('@aws-sdk/client-s3'), this.#s3Client()]);
      const answer = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return { body: (await answer.Body?.transformToString('utf8')) ?? '', etag: answer.ETag ?? '' };
    });
    if (!result.ok && result.reason === 'not-found' && !/NoSuchBucket/.test(result.message)) return ok(undefined);
    return result;
  }

  async putObject(
    bucket: string,
    key: string,
    body: string,
    condition: { ifNoneMatch: true } | { ifMatch: string } | { always: true },
  ): Promise<CloudResult<'written' | 'conflict'>> {
    try {
      const [{ PutObjectCommand }, s3] = await Promise.all([import('@aws-sdk/client-s3'), this.#s3Client()]);
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentType: 'application/json',
          ...('ifNoneMatch' in condition ? { IfNoneMatch: '*' } : {}),
          ...('ifMatch' in condition ? { IfMatch: condition.ifMatch } : {}),
        }),
      );
      return ok('written');
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      // 412: the condition failed; 409 ConditionalRequestConflict: a concurrent conditional write is in flight.
      if (name === 'PreconditionFailed' || name === 'ConditionalRequestConflict') return ok('conflict');
      return this.#failure(error, `writing s3://${bucket}/${key}`);
    }
  }

  async deleteObject(bucket: string, key: string): Promise<CloudResult<void>> {
    return this.#call(`deleting s3://${bucket}/${key}`, async () => {
      const [{ DeleteObjectCommand }, s3] = await Promise.all([import('@aws-sdk/client-s3'), this.#s3Client()]);
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    });
  }

  async #call<T>(what: string, run: () => Promise<T>): Promise<CloudResult<T>> {
    try {
      return ok(await run());
    } catch (error) {
      return this.#failure(error, what);
    }
  }

  #failure(error: unknown, what: string): CloudFailure {
    if (error instanceof Unavailable) return error.result;
    if (isAuthError(error)) {
      return failure(
        'auth',
        `AWS rejected the credentials ${what}: ${describeAwsError(error)}`,
        loginHint(this.#cloud.profile),
      );
    }
    if (isAbortError(error)) return failure('timeout', `no answer from AWS ${what}`);
    const name = error instanceof Error ? error.name : '';
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (['NotFound', 'NoSuchKey', 'NoSuchBucket', 'ResourceNotFoundException'].includes(name) || status === 404) {
      return failure('not-found', `${what}: ${describeAwsError(error)}`);
    }
    if (['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation'].includes(name) || status === 403) {
      return failure('forbidden', `${what}: ${describeAwsError(error)}`);
    }
    const code = networkErrorCode(error);
    if (code) return failure('unreachable', `cannot reach AWS ${what} (${code})`);
    return failure('error', `${what}: ${describeAwsError(error)}`);
  }

  async #config(serviceId: string) {
    const provider = await this.#cloud.credentials();
    if (!provider.ok) throw new Unavailable(provider);
    const region = this.#cloud.region;
    if (region === undefined) throw new Unavailable(failure('not-configured', 'no AWS region'));
    const endpoint = endpointFor(serviceId, this.#env);
    return { region, credentials: provider.value, maxAttempts: 3, ...(endpoint ? { endpoint } : {}) };
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

/** Carries a credentials failure out of client construction. */
class Unavailable extends Error {
  readonly result: CloudFailure;
  constructor(result: CloudFailure) {
    super(result.message);
    this.result = result;
  }
}
