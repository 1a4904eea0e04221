/**
 * Test doubles for validate's unit tests: an EnvCloud whose answers the test sets, a config builder that runs the
 * real schema (so defaults are the real ones), and UnitInfo maps without discovery.
 */
import type { ClusterDescription, EnvCloud, StateObject } from '../../../cloud/environment.js';
import type { PreflightResult } from '../../../cloud/credentials.js';
import type { KubeReader } from '../../../cloud/kube.js';
import type { CloudResult } from '../../../cloud/result.js';
import { failure, ok } from '../../../cloud/result.js';
import type { Route53Reader } from '../../../cloud/route53.js';
import type { PlatctlConfig } from '../../../config/schema.js';
import { configSchema } from '../../../config/schema.js';
import type { RemoteState, UnitInfo } from '../../../discover/types.js';
import type { ValidateDeps } from '../../../validate/deps.js';

export function makeConfig(overrides: Record<string, unknown> = {}): PlatctlConfig {
  return configSchema.parse({
    version: 1,
    environments: {
      platform: {
        dir: 'live/platform',
        aws: {
          region: 'eu-west-1',
          account_id: '111111111111',
          profile: 'platform',
          deployer_role_arn: 'arn:aws:iam::111111111111:role/Deployer',
          state_bucket: 'tf-state-platform',
        },
        cluster: { name: 'platform' },
      },
    },
    ...overrides,
  });
}

export function unit(id: string, remoteState?: RemoteState): UnitInfo {
  const env = id.slice(0, id.indexOf('/'));
  const path = id.slice(id.indexOf('/') + 1);
  return {
    id,
    env,
    dir: `live/${env}/${path}`,
    absDir: `/repo/live/${env}/${path}`,
    configFile: `/repo/live/${env}/${path}/terragrunt.hcl`,
    includes: [],
    ...(remoteState ? { remoteState } : {}),
  };
}

export function s3State(id: string, bucket = 'tf-state-platform'): RemoteState {
  return {
    backend: 's3',
    config: { bucket, key: `${id.slice(id.indexOf('/') + 1)}/terraform.tfstate`, region: 'eu-west-1' },
  };
}

export function unitMap(...units: UnitInfo[]): Map<string, UnitInfo> {
  return new Map(units.map((u) => [u.id, u]));
}

export interface FakeCloudAnswers {
  preflight?: () => Promise<PreflightResult>;
  assumeRole?: () => Promise<CloudResult<{ arn: string; note?: string }>>;
  checkBucket?: () => Promise<CloudResult<{ region?: string }>>;
  readState?: (bucket: string, key: string) => Promise<CloudResult<StateObject>>;
  describeCluster?: () => Promise<CloudResult<ClusterDescription>>;
  kube?: () => Promise<CloudResult<KubeReader>>;
}

/** An EnvCloud answering from `answers`; healthy defaults; records every call. */
export function fakeCloud(envName: string, answers: FakeCloudAnswers = {}, calls: string[] = []): EnvCloud {
  const record = (name: string) => calls.push(`${envName}:${name}`);
  return {
    envName,
    profile: envName,
    region: 'eu-west-1',
    credentials: () => Promise.resolve(ok(() => Promise.resolve({ accessKeyId: 'A', secretAccessKey: 's' }))),
    preflight: () => {
      record('preflight');
      return (
        answers.preflight?.() ??
        Promise.resolve({
          ok: true as const,
          identity: { account: '111111111111', arn: 'arn:aws:sts::111111111111:assumed-role/Admin/me', userId: 'u' },
        })
      );
    },
    assumeRole: () => {
      record('assumeRole');
      return (
        answers.assumeRole?.() ??
        Promise.resolve(ok({ arn: 'arn:aws:sts::111111111111:assumed-role/Deployer/platctl-validate' }))
      );
    },
    checkBucket: () => {
      record('checkBucket');
      return answers.checkBucket?.() ?? Promise.resolve(ok({ region: 'eu-west-1' }));
    },
    readState: (bucket, key) => {
      record(`readState ${key}`);
      return answers.readState?.(bucket, key) ?? Promise.resolve(ok({ resources: 3, serial: 1, bytes: 100 }));
    },
    describeCluster: () => {
      record('describeCluster');
      return answers.describeCluster?.() ?? Promise.resolve(ok({ name: envName, status: 'ACTIVE', version: '1.31' }));
    },
    kube: () => {
      record('kube');
      return answers.kube?.() ?? Promise.resolve(failure('not-configured', 'no fake kube reader'));
    },
    route53: () => Promise.resolve(failure('not-configured', 'no fake route53') as CloudResult<Route53Reader>),
  };
}

export function fakeDeps(clouds: Record<string, EnvCloud>, overrides: Partial<ValidateDeps> = {}): ValidateDeps {
  return {
    cloud: (env) => {
      const cloud = clouds[env];
      if (!cloud) throw new Error(`no fake cloud for ${env}`);
      return cloud;
    },
    fetch: () => Promise.reject(new Error('no fetch in this test')),
    resolveNs: () => Promise.reject(new Error('no DNS in this test')),
    runCommand: () => Promise.resolve({ type: 'spawn-error', code: 'ENOENT', message: 'no commands in this test' }),
    now: () => performance.now(),
    ...overrides,
  };
}
