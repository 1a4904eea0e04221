/**
 * Everything one environment of `.platctl.yaml` needs from AWS and its cluster, behind one object: lazily built
 * SDK clients (imported on first use, so commands that never call AWS never load the SDK), the credentials
 * preflight, and the reads validate and park perform. Every method returns a value; expected failures carry a
 * reason and a hint, an expired login always becomes reason `auth` with the login command.
 */
import type { EKSClient } from '@aws-sdk/client-eks';
import type { S3Client } from '@aws-sdk/client-s3';
import type { STSClient } from '@aws-sdk/client-sts';
import type { EnvironmentConfig } from '../config/schema.js';
import { describeAwsError, isAuthError, loginHint } from './auth-errors.js';
import type { CallerIdentity, CredentialProvider, PreflightResult, ProviderCallLimits } from './credentials.js';
import {
  PROVIDER_REQUEST_TIMEOUT_MS,
  createCredentialProvider,
  effectiveProfile,
  preflightCredentials,
} from './credentials.js';
import type { EnvVars } from './env.js';
import { NO_ANSWER_HINT, endpointFor, requestTimeoutMs, sdkTimeouts, serviceAt } from './env.js';
import type { KubeReader } from './kube.js';
import { kubeReaderForEks, kubeReaderFromContext } from './kube.js';
import type { CloudFailure, CloudResult } from './result.js';
import { failure, isAbortError, networkErrorCode, ok } from './result.js';
import type * as Zod from '../config/zod.js';
import { ROUTE53_REGION, Route53Reader } from './route53.js';

/** The format version Terraform and OpenTofu write their state in (`"version": 4`). */
const STATE_FORMAT = 4;

/**
 * The parts of a Terraform state `validate` reads: its format, serial and how many resources it holds. Built on first
 * use: loading the schema library costs every other user of this module (a cached `kubeconfig token`) start-up.
 */
function terraformState(z: typeof Zod) {
  return z.looseObject({
    version: z.literal(STATE_FORMAT),
    serial: z.number().optional(),
    resources: z.array(z.unknown()),
  });
}

/** What `DescribeCluster` says about a cluster. */
export interface ClusterDescription {
  readonly name: string;
  readonly status: string;
  readonly endpoint?: string;
  readonly caData?: string;
  readonly version?: string;
}

/** A Terraform state object as stored in S3. */
export interface StateObject {
  readonly resources: number;
  readonly serial?: number;
  readonly bytes: number;
}

/** One environment's cloud access. Construction is free: nothing is imported or called until a method runs. */
export interface EnvCloud {
  readonly envName: string;
  /** The profile credentials resolve through, for messages and login hints. */
  readonly profile: string | undefined;
  readonly region: string | undefined;
  /** Credentials of this environment (memoized); fails like the preflight when there are none. */
  credentials(): Promise<CloudResult<CredentialProvider>>;
  /**
   * Resolve credentials, check SSO/credential expiry against `budgetMs`, GetCallerIdentity, compare account_id.
   * `signal` aborts the STS call: a request left running after a timeout keeps the process alive.
   */
  preflight(budgetMs: number, signal?: AbortSignal): Promise<PreflightResult>;
  /** STS AssumeRole (900 s) of `roleArn`; passes without a call when the caller already is that role. */
  assumeRole(roleArn: string, signal?: AbortSignal): Promise<CloudResult<{ arn: string; note?: string }>>;
  /** HeadBucket + ListObjectsV2 (one key): the bucket exists and its keys can be listed. */
  checkBucket(bucket: string, signal?: AbortSignal): Promise<CloudResult<{ region?: string }>>;
  /** GetObject of a Terraform state file, parsed; counts its resources. */
  readState(bucket: string, key: string, region?: string, signal?: AbortSignal): Promise<CloudResult<StateObject>>;
  /** EKS DescribeCluster of `environments.<env>.cluster.name`. */
  describeCluster(signal?: AbortSignal): Promise<CloudResult<ClusterDescription>>;
  /** A Kubernetes reader for this environment's cluster (memoized; see {@link kubeReaderForEks}). */
  kube(signal?: AbortSignal): Promise<CloudResult<KubeReader>>;
  /** A Route 53 reader with this environment's credentials. */
  route53(): Promise<CloudResult<Route53Reader>>;
}

export interface EnvCloudOptions {
  readonly envName: string;
  readonly settings: EnvironmentConfig;
  readonly env: EnvVars;
  readonly now?: () => number;
  /** Attempts per AWS call (default 2: a health probe should fail fast rather than back off for long). */
  readonly maxAttempts?: number;
  /**
   * Per-request timeout of the calls made while resolving credentials, which no check's signal can abort (default 10 s,
   * `PROVIDER_REQUEST_TIMEOUT_MS`); validate passes its check timeout.
   */
  readonly providerRequestTimeoutMs?: number;
}

/** Builds the cloud access of one environment. */
export function createEnvCloud(options: EnvCloudOptions): EnvCloud {
  return new AwsEnvCloud(options);
}

class AwsEnvCloud implements EnvCloud {
  readonly envName: string;
  readonly profile: string | undefined;
  readonly region: string | undefined;
  readonly #options: EnvCloudOptions;
  readonly #now: () => number;
  #provider: Promise<CloudResult<CredentialProvider>> | undefined;
  #identity: CallerIdentity | undefined;
  #sts: Promise<STSClient> | undefined;
  #eks: Promise<EKSClient> | undefined;
  readonly #s3 = new Map<string, Promise<S3Client>>();
  #kube: Promise<CloudResult<KubeReader>> | undefined;

  constructor(options: EnvCloudOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.envName = options.envName;
    const aws = options.settings.aws;
    this.region = aws?.region ?? (options.env.AWS_REGION || options.env.AWS_DEFAULT_REGION || undefined);
    this.profile = aws ? effectiveProfile({ profile: aws.profile, region: aws.region }, options.env) : undefined;
  }

  credentials(): Promise<CloudResult<CredentialProvider>> {
    this.#provider ??= (async () => {
      const region = this.region;
      if (region === undefined) {
        return failure(
          'not-configured',
          `environment ${this.envName} has no AWS region`,
          `set environments.${this.envName}.aws.region in .platctl.yaml`,
        );
      }
      try {
        return ok(
          await createCredentialProvider(
            { profile: this.#options.settings.aws?.profile, region },
            this.#options.env,
            this.#providerLimits(),
          ),
        );
      } catch (error) {
        return this.#awsFailure(error, 'resolving credentials');
      }
    })();
    return this.#provider;
  }

  async preflight(budgetMs: number, signal?: AbortSignal): Promise<PreflightResult> {
    const aws = this.#options.settings.aws;
    if (!aws) {
      return {
        ok: false,
        reason: 'credentials-unavailable',
        message: `environment ${this.envName} has no aws settings`,
        hint: `add environments.${this.envName}.aws (region, profile, account_id) to .platctl.yaml`,
      };
    }
    const provider = await this.credentials();
    if (!provider.ok)
      return { ok: false, reason: 'credentials-unavailable', message: provider.message, ...hintOf(provider) };
    const result = await preflightCredentials({
      target: { profile: aws.profile, region: aws.region },
      accountId: aws.account_id,
      budgetMs,
      env: this.#options.env,
      now: this.#now,
      provider: provider.value,
      providerLimits: this.#providerLimits(),
      callerIdentity: async () => {
        const [{ GetCallerIdentityCommand }, sts] = await Promise.all([
          import('@aws-sdk/client-sts'),
          this.#stsClient(),
        ]);
        const answer = await sts.send(new GetCallerIdentityCommand({}), signal ? { abortSignal: signal } : {});
        return { account: answer.Account ?? '', arn: answer.Arn ?? '', userId: answer.UserId ?? '' };
      },
    });
    if (result.ok) this.#identity = result.identity;
    return result;
  }

  async assumeRole(roleArn: string, signal?: AbortSignal): Promise<CloudResult<{ arn: string; note?: string }>> {
    const already = this.#identity && sameRole(this.#identity.arn, roleArn);
    if (already && this.#identity) {
      return ok({ arn: this.#identity.arn, note: 'the credentials already are this role' });
    }
    try {
      const [{ AssumeRoleCommand }, sts] = await Promise.all([import('@aws-sdk/client-sts'), this.#stsClient()]);
      const answer = await sts.send(
        new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: 'platctl-validate', DurationSeconds: 900 }),
        signal ? { abortSignal: signal } : {},
      );
      return ok({ arn: answer.AssumedRoleUser?.Arn ?? roleArn });
    } catch (error) {
      return this.#awsFailure(error, `assuming ${roleArn}`, 'STS');
    }
  }

  async checkBucket(bucket: string, signal?: AbortSignal): Promise<CloudResult<{ region?: string }>> {
    try {
      const [{ HeadBucketCommand, ListObjectsV2Command }, s3] = await Promise.all([
        import('@aws-sdk/client-s3'),
        this.#s3Client(undefined),
      ]);
      const options = signal ? { abortSignal: signal } : {};
      const head = await s3.send(new HeadBucketCommand({ Bucket: bucket }), options);
      await s3.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1 }), options);
      return ok(head.BucketRegion ? { region: head.BucketRegion } : {});
    } catch (error) {
      const result = this.#awsFailure(error, `bucket ${bucket}`, 'S3');
      if (result.reason === 'not-found') return failure('not-found', `bucket ${bucket} does not exist`);
      if (result.reason === 'forbidden') {
        return failure(
          'forbidden',
          `no permission to read bucket ${bucket} (${result.message})`,
          'the principal needs s3:ListBucket on it',
        );
      }
      return result;
    }
  }

  async readState(
    bucket: string,
    key: string,
    region?: string,
    signal?: AbortSignal,
  ): Promise<CloudResult<StateObject>> {
    let body: string;
    try {
      const [{ GetObjectCommand }, s3] = await Promise.all([import('@aws-sdk/client-s3'), this.#s3Client(region)]);
      const answer = await s3.send(
        new GetObjectCommand({ Bucket: bucket, Key: key }),
        signal ? { abortSignal: signal } : {},
      );
      body = (await answer.Body?.transformToString('utf8')) ?? '';
    } catch (error) {
      const result = this.#awsFailure(error, `s3://${bucket}/${key}`, 'S3');
      if (result.reason === 'not-found') return failure('not-found', `no state at s3://${bucket}/${key}`);
      if (result.reason === 'forbidden') {
        // Without s3:ListBucket S3 answers 403 for a missing key too.
        return failure('forbidden', `s3://${bucket}/${key}: access denied (no permission, or the object is missing)`);
      }
      return result;
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return failure('error', `s3://${bucket}/${key} is not a Terraform state file (not JSON)`);
    }
    const state = terraformState(await import('../config/zod.js')).safeParse(json);
    if (!state.success) {
      // Never counted as empty: a state platctl does not understand says nothing about what stands.
      const version = (json as { version?: unknown } | null)?.version;
      return failure(
        'error',
        typeof version === 'number' && version !== STATE_FORMAT
          ? `s3://${bucket}/${key} is a Terraform state of format version ${version}, which platctl does not read (${STATE_FORMAT})`
          : `s3://${bucket}/${key} is not a Terraform state file (no format version and resources list)`,
      );
    }
    return ok({
      resources: state.data.resources.length,
      bytes: Buffer.byteLength(body),
      ...(state.data.serial === undefined ? {} : { serial: state.data.serial }),
    });
  }

  async describeCluster(signal?: AbortSignal): Promise<CloudResult<ClusterDescription>> {
    const name = this.#options.settings.cluster?.name;
    if (name === undefined) {
      return failure(
        'not-configured',
        `environment ${this.envName} names no cluster`,
        `set environments.${this.envName}.cluster.name in .platctl.yaml`,
      );
    }
    try {
      const [{ DescribeClusterCommand }, eks] = await Promise.all([import('@aws-sdk/client-eks'), this.#eksClient()]);
      const answer = await eks.send(new DescribeClusterCommand({ name }), signal ? { abortSignal: signal } : {});
      const cluster = answer.cluster;
      return ok({
        name,
        status: cluster?.status ?? 'UNKNOWN',
        ...(cluster?.endpoint ? { endpoint: cluster.endpoint } : {}),
        ...(cluster?.certificateAuthority?.data ? { caData: cluster.certificateAuthority.data } : {}),
        ...(cluster?.version ? { version: cluster.version } : {}),
      });
    } catch (error) {
      const result = this.#awsFailure(error, `describing cluster ${name}`, 'EKS');
      if (result.reason === 'not-found')
        return failure('not-found', `EKS cluster ${name} does not exist in ${this.region ?? 'the region'}`);
      return result;
    }
  }

  kube(signal?: AbortSignal): Promise<CloudResult<KubeReader>> {
    this.#kube ??= this.#buildKube(signal).then((result) => {
      // A timeout is not remembered: the next caller may have a fresh budget.
      if (!result.ok && result.reason === 'timeout') this.#kube = undefined;
      return result;
    });
    return this.#kube;
  }

  async route53(): Promise<CloudResult<Route53Reader>> {
    try {
      const [{ Route53Client }, config] = await Promise.all([
        import('@aws-sdk/client-route-53'),
        this.#clientConfig('Route 53', ROUTE53_REGION),
      ]);
      return ok(new Route53Reader(new Route53Client(config)));
    } catch (error) {
      return this.#awsFailure(error, 'building the Route 53 client');
    }
  }

  async #buildKube(signal: AbortSignal | undefined): Promise<CloudResult<KubeReader>> {
    const cluster = this.#options.settings.cluster;
    if (cluster?.kubeconfig_context) return kubeReaderFromContext(cluster.kubeconfig_context, this.#options.env);
    const described = await this.describeCluster(signal);
    if (!described.ok) return described;
    const { endpoint, caData, status } = described.value;
    if (!endpoint || !caData) {
      return failure('error', `EKS cluster ${described.value.name} has no API endpoint yet (status ${status})`);
    }
    const provider = await this.credentials();
    if (!provider.ok || this.region === undefined)
      return provider.ok ? failure('not-configured', 'no region') : provider;
    return ok(
      await kubeReaderForEks({
        name: described.value.name,
        endpoint,
        caData,
        region: this.region,
        credentials: provider.value,
        now: this.#now,
        requestTimeoutMs: requestTimeoutMs(this.#options.env),
      }),
    );
  }

  #providerLimits(): ProviderCallLimits {
    return {
      requestTimeoutMs:
        this.#options.providerRequestTimeoutMs ??
        Math.min(PROVIDER_REQUEST_TIMEOUT_MS, requestTimeoutMs(this.#options.env)),
      maxAttempts: this.#options.maxAttempts,
    };
  }

  async #clientConfig(serviceId: string, region: string | undefined) {
    const provider = await this.credentials();
    if (!provider.ok) throw new CredentialsUnavailable(provider);
    const endpoint = endpointFor(serviceId, this.#options.env);
    const resolvedRegion = region ?? this.region;
    if (resolvedRegion === undefined)
      throw new CredentialsUnavailable(failure('not-configured', `environment ${this.envName} has no AWS region`));
    return {
      region: resolvedRegion,
      credentials: provider.value,
      ...sdkTimeouts(this.#options.env, this.#options.maxAttempts ?? 2),
      ...(endpoint ? { endpoint } : {}),
    };
  }

  #stsClient(): Promise<STSClient> {
    this.#sts ??= (async () => {
      const [{ STSClient }, config] = await Promise.all([
        import('@aws-sdk/client-sts'),
        this.#clientConfig('STS', undefined),
      ]);
      return new STSClient(config);
    })();
    this.#sts.catch(() => (this.#sts = undefined));
    return this.#sts;
  }

  #eksClient(): Promise<EKSClient> {
    this.#eks ??= (async () => {
      const [{ EKSClient }, config] = await Promise.all([
        import('@aws-sdk/client-eks'),
        this.#clientConfig('EKS', undefined),
      ]);
      return new EKSClient(config);
    })();
    this.#eks.catch(() => (this.#eks = undefined));
    return this.#eks;
  }

  #s3Client(region: string | undefined): Promise<S3Client> {
    const key = region ?? '';
    let client = this.#s3.get(key);
    if (!client) {
      client = (async () => {
        const [{ S3Client }, config] = await Promise.all([
          import('@aws-sdk/client-s3'),
          this.#clientConfig('S3', region),
        ]);
        // Emulators answer on one host; virtual-hosted bucket names would need DNS for <bucket>.localhost.
        // A bucket outside the environment's region answers 301 until asked in its own region: follow it, or a
        // state bucket elsewhere fails phase 1 ("Unknown (HTTP 301)") and skips the whole environment.
        return new S3Client({
          ...config,
          forcePathStyle: config.endpoint !== undefined,
          followRegionRedirects: true,
        });
      })();
      client.catch(() => this.#s3.delete(key));
      this.#s3.set(key, client);
    }
    return client;
  }

  #awsFailure(error: unknown, what: string, serviceId?: string): CloudFailure {
    if (error instanceof CredentialsUnavailable) return error.result;
    if (isAuthError(error)) {
      return failure(
        'auth',
        `AWS rejected the credentials ${what}: ${describeAwsError(error)}`,
        loginHint(this.profile),
      );
    }
    if (isAbortError(error)) {
      return failure(
        'timeout',
        `no answer from ${serviceId ? serviceAt(serviceId, this.#options.env) : 'AWS'} ${what}`,
        NO_ANSWER_HINT,
      );
    }
    const name = error instanceof Error ? error.name : '';
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (['NotFound', 'NoSuchBucket', 'NoSuchKey', 'ResourceNotFoundException'].includes(name) || status === 404) {
      return failure('not-found', `${what}: ${describeAwsError(error)}`);
    }
    if (
      ['AccessDenied', 'AccessDeniedException', 'Forbidden', 'UnauthorizedOperation'].includes(name) ||
      status === 403
    ) {
      return failure('forbidden', `${what}: ${describeAwsError(error)}`);
    }
    const code = networkErrorCode(error);
    if (code) return failure('unreachable', `cannot reach AWS ${what} (${code})`);
    return failure('error', `${what}: ${describeAwsError(error)}`);
  }
}

/** Thrown inside client construction only, to carry the credentials failure out through the SDK call site. */
class CredentialsUnavailable extends Error {
  readonly result: CloudFailure;
  constructor(result: CloudFailure) {
    super(result.message);
    this.result = result;
  }
}

function hintOf(result: CloudFailure): { hint?: string } {
  return result.hint === undefined ? {} : { hint: result.hint };
}

/** True when `callerArn` (an assumed-role session ARN) is a session of `roleArn`. */
export function sameRole(callerArn: string, roleArn: string): boolean {
  const role = /^arn:(aws[a-z-]*):iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(roleArn);
  const caller = /^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role\/([^/]+)\//.exec(callerArn);
  return Boolean(role && caller && role[1] === caller[1] && role[2] === caller[2] && role[3] === caller[3]);
}
