import { describe, expect, it } from 'vitest';
import { EKS_TOKEN_LIFETIME_MS, eksToken, execCredential } from '../../../cloud/eks-token.js';

const AUTHENTICATOR_QUERY_KEYS = new Set([
  'Action',
  'Version',
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-Security-Token',
  'X-Amz-Signature',
  'X-Amz-SignedHeaders',
]);

describe('eksToken', () => {
  it('produces an aws-iam-authenticator v1 token: presigned GetCallerIdentity bound to the cluster', async () => {
    const now = Date.parse('2026-03-04T05:06:07Z');
    const token = await eksToken(
      'platform',
      'eu-west-1',
      { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session-token' },
      () => now,
    );
    expect(token.token.startsWith('k8s-aws-v1.')).toBe(true);
    expect(token.token).not.toContain('=');
    expect(token.expiresAt.getTime()).toBe(now + EKS_TOKEN_LIFETIME_MS);
    const url = new URL(Buffer.from(token.token.slice('k8s-aws-v1.'.length), 'base64url').toString());
    expect(url.protocol).toBe('https:');
    expect(url.host).toBe('sts.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    for (const key of url.searchParams.keys()) expect(AUTHENTICATOR_QUERY_KEYS.has(key), key).toBe(true);
    expect(url.searchParams.get('Action')).toBe('GetCallerIdentity');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20260304T050607Z');
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('session-token');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20260304/eu-west-1/sts/aws4_request');
  });

  it('signs differently for another cluster', async () => {
    const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
    const a = await eksToken('a', 'eu-west-1', creds, () => 0);
    const b = await eksToken('b', 'eu-west-1', creds, () => 0);
    expect(a.token).not.toBe(b.token);
  });

  it('wraps the token as an ExecCredential', () => {
    const credential = execCredential({ token: 'k8s-aws-v1.abc', expiresAt: new Date('2026-01-01T00:14:00Z') });
    expect(credential).toEqual({
      kind: 'ExecCredential',
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      spec: {},
      status: { expirationTimestamp: '2026-01-01T00:14:00.000Z', token: 'k8s-aws-v1.abc' },
    });
  });
});
