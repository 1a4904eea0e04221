import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { createEnvCloud, sameRole } from '../../../cloud/environment.js';
import type { EnvironmentConfig } from '../../../config/schema.js';
import { MOTO_ACCOUNT_ID, createEksClusters, useMoto } from '../../helpers/moto.js';

const settings = (aws: Partial<NonNullable<EnvironmentConfig['aws']>> = {}): EnvironmentConfig => ({
  dir: 'live/platform',
  aws: { region: 'eu-west-1', account_id: MOTO_ACCOUNT_ID, ...aws },
  cluster: { name: 'platform' },
});

describe('EnvCloud against moto', () => {
  const moto = useMoto();
  const cloud = (s: EnvironmentConfig = settings()) =>
    createEnvCloud({ envName: 'platform', settings: s, env: moto.env });

  async function seedBucket(bucket: string, objects: Record<string, string> = {}): Promise<void> {
    const s3 = new S3Client({
      region: 'eu-west-1',
      endpoint: moto.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    await s3.send(
      new CreateBucketCommand({ Bucket: bucket, CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' } }),
    );
    for (const [key, body] of Object.entries(objects))
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  }

  it('passes the preflight for the right account and refuses another', async () => {
    const good = await cloud().preflight(5 * 60_000);
    expect(good).toMatchObject({ ok: true, identity: { account: MOTO_ACCOUNT_ID } });
    const wrong = await cloud(settings({ account_id: '111111111111' })).preflight(5 * 60_000);
    expect(wrong).toMatchObject({ ok: false, reason: 'wrong-account' });
    expect(!wrong.ok && wrong.message).toContain(`account ${MOTO_ACCOUNT_ID}`);
  });

  it('fails the preflight of an environment without aws settings', async () => {
    const result = await cloud({ dir: 'x' }).preflight(60_000);
    expect(result).toMatchObject({ ok: false, reason: 'credentials-unavailable' });
    expect(!result.ok && result.hint).toContain('environments.platform.aws');
  });

  it('fails the preflight when no endpoint answers', async () => {
    const offline = createEnvCloud({
      envName: 'platform',
      settings: settings(),
      env: { ...moto.env, AWS_ENDPOINT_URL: 'http://127.0.0.1:9' },
      maxAttempts: 1,
    });
    const result = await offline.preflight(60_000);
    expect(result.ok).toBe(false);
  });

  it('assumes the deployer role', async () => {
    const result = await cloud().assumeRole(`arn:aws:iam::${MOTO_ACCOUNT_ID}:role/Deployer`);
    expect(result).toMatchObject({
      ok: true,
      value: { arn: `arn:aws:sts::${MOTO_ACCOUNT_ID}:assumed-role/Deployer/platctl-validate` },
    });
  });

  it('checks the state bucket', async () => {
    await seedBucket('tf-state-platform');
    expect(await cloud().checkBucket('tf-state-platform')).toMatchObject({ ok: true, value: { region: 'eu-west-1' } });
    const missing = await cloud().checkBucket('tf-state-missing');
    expect(missing).toEqual({ ok: false, reason: 'not-found', message: 'bucket tf-state-missing does not exist' });
  });

  it('reads Terraform state objects', async () => {
    await seedBucket('tf-state-platform', {
      'vpc/terraform.tfstate': JSON.stringify({
        version: 4,
        serial: 7,
        resources: [{ type: 'aws_vpc' }, { type: 'aws_subnet' }],
      }),
      'empty/terraform.tfstate': JSON.stringify({ version: 4, serial: 2, resources: [] }),
      'junk/terraform.tfstate': 'not json',
      'null/terraform.tfstate': 'null',
      'odd/terraform.tfstate': JSON.stringify({ version: 4, serial: 3, resources: 'all of them' }),
      'future/terraform.tfstate': JSON.stringify({ version: 5, serial: 1, resources: [] }),
    });
    expect(await cloud().readState('tf-state-platform', 'vpc/terraform.tfstate')).toMatchObject({
      ok: true,
      value: { resources: 2, serial: 7 },
    });
    expect(await cloud().readState('tf-state-platform', 'empty/terraform.tfstate')).toMatchObject({
      ok: true,
      value: { resources: 0 },
    });
    expect(await cloud().readState('tf-state-platform', 'junk/terraform.tfstate')).toMatchObject({
      ok: false,
      reason: 'error',
    });
    // Never read as an empty state: a state platctl does not understand says nothing about what stands.
    for (const key of ['null/terraform.tfstate', 'odd/terraform.tfstate']) {
      expect(await cloud().readState('tf-state-platform', key), key).toEqual({
        ok: false,
        reason: 'error',
        message: `s3://tf-state-platform/${key} is not a Terraform state file (no format version and resources list)`,
      });
    }
    expect(await cloud().readState('tf-state-platform', 'future/terraform.tfstate')).toEqual({
      ok: false,
      reason: 'error',
      message:
        's3://tf-state-platform/future/terraform.tfstate is a Terraform state of format version 5, which platctl does not read (4)',
    });
    expect(await cloud().readState('tf-state-platform', 'none/terraform.tfstate', 'eu-west-1')).toEqual({
      ok: false,
      reason: 'not-found',
      message: 'no state at s3://tf-state-platform/none/terraform.tfstate',
    });
  });

  it('describes the EKS cluster', async () => {
    await createEksClusters(moto, ['platform']);
    const described = await cloud().describeCluster();
    expect(described).toMatchObject({ ok: true, value: { name: 'platform', status: 'ACTIVE' } });
    const missing = await cloud({ ...settings(), cluster: { name: 'nope' } }).describeCluster();
    expect(missing).toMatchObject({ ok: false, reason: 'not-found' });
    expect(!missing.ok && missing.message).toBe('EKS cluster nope does not exist in eu-west-1');
    const unnamed = await cloud({ dir: 'x', aws: { region: 'eu-west-1' } }).describeCluster();
    expect(unnamed).toMatchObject({ ok: false, reason: 'not-configured' });
  });
});

describe('sameRole', () => {
  it('matches an assumed-role session to its role, paths included', () => {
    expect(
      sameRole('arn:aws:sts::111111111111:assumed-role/Deployer/me', 'arn:aws:iam::111111111111:role/Deployer'),
    ).toBe(true);
    expect(
      sameRole('arn:aws:sts::111111111111:assumed-role/Deployer/me', 'arn:aws:iam::111111111111:role/ops/Deployer'),
    ).toBe(true);
    expect(sameRole('arn:aws:sts::111111111111:assumed-role/Other/me', 'arn:aws:iam::111111111111:role/Deployer')).toBe(
      false,
    );
    expect(sameRole('arn:aws:iam::111111111111:user/me', 'arn:aws:iam::111111111111:role/Deployer')).toBe(false);
  });
});
