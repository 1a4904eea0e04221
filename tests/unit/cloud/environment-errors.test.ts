// aws-sdk-client-mock patches the client classes for the whole file, so these live apart from the moto tests.
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { createEnvCloud } from '../../../cloud/environment.js';
import type { EnvironmentConfig } from '../../../config/schema.js';

const settings = (aws: Partial<NonNullable<EnvironmentConfig['aws']>> = {}): EnvironmentConfig => ({
  dir: 'live/platform',
  aws: { region: 'eu-west-1', account_id: '123456789012', ...aws },
  cluster: { name: 'platform' },
});

describe('EnvCloud error names moto cannot produce (aws-sdk-client-mock)', () => {
  const sts = mockClient(STSClient);
  const eks = mockClient(EKSClient);
  const s3 = mockClient(S3Client);
  afterEach(() => {
    sts.reset();
    eks.reset();
    s3.reset();
  });
  const env = { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 's', AWS_ENDPOINT_URL: 'http://127.0.0.1:9' };
  const cloud = () => createEnvCloud({ envName: 'platform', settings: settings({ profile: undefined }), env });
  const named = (name: string, message: string, status: number) =>
    Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });

  it('an expired session token at GetCallerIdentity fails the preflight as rejected credentials', async () => {
    sts
      .on(GetCallerIdentityCommand)
      .rejects(named('ExpiredToken', 'The security token included in the request is expired', 403));
    const result = await cloud().preflight(60_000);
    expect(result).toMatchObject({ ok: false, reason: 'credentials-rejected' });
  });

  it('ExpiredTokenException from EKS is an auth failure with the login hint', async () => {
    eks
      .on(DescribeClusterCommand)
      .rejects(named('ExpiredTokenException', 'The security token included in the request is expired', 403));
    const result = await createEnvCloud({
      envName: 'platform',
      settings: settings({ profile: 'dev' }),
      env,
    }).describeCluster();
    expect(result).toMatchObject({ ok: false, reason: 'auth', hint: 'run `aws sso login --profile dev`' });
  });

  it('AccessDenied on a state object reads as "no permission or missing"', async () => {
    s3.on(GetObjectCommand).rejects(named('AccessDenied', 'Access Denied', 403));
    const result = await cloud().readState('bucket', 'unit/terraform.tfstate');
    expect(result).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(!result.ok && result.message).toContain('no permission, or the object is missing');
  });
});
