/**
 * The EKS bearer token without the aws CLI: a presigned STS `GetCallerIdentity` URL whose signed headers include
 * `x-k8s-aws-id: <cluster>`, in the aws-iam-authenticator v1 format (docs/kubeconfig.md).
 */
import type { AwsCredentialIdentity, CredentialProvider } from './credentials.js';

/** The API server accepts a token for 15 minutes after its X-Amz-Date; we claim 14 to keep a margin. */
export const EKS_TOKEN_LIFETIME_MS = 14 * 60_000;

export interface EksToken {
  /** `k8s-aws-v1.<base64url of the presigned URL, no padding>`. A secret: never log it. */
  readonly token: string;
  readonly expiresAt: Date;
}

/**
 * Signs a token for `cluster`. Always signs for the regional STS host of `region`, even when tests point the SDK at
 * an emulator: the token is verified by the cluster against real STS, not by us.
 */
export async function eksToken(
  cluster: string,
  region: string,
  credentials: AwsCredentialIdentity | CredentialProvider,
  now: () => number = Date.now,
): Promise<EksToken> {
  const [{ SignatureV4 }, { HttpRequest }, { Sha256 }] = await Promise.all([
    import('@smithy/signature-v4'),
    import('@smithy/protocol-http'),
    import('@aws-crypto/sha256-js'),
  ]);
  const host = `sts.${region}.amazonaws.com`;
  const signer = new SignatureV4({ credentials, region, service: 'sts', sha256: Sha256 });
  const signingDate = new Date(now());
  const signed = await signer.presign(
    new HttpRequest({
      method: 'GET',
      protocol: 'https:',
      hostname: host,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host, 'x-k8s-aws-id': cluster },
    }),
    { expiresIn: 60, signingDate },
  );
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(signed.query ?? {})) {
    if (typeof value === 'string') query.append(key, value);
    else if (Array.isArray(value)) for (const item of value) query.append(key, String(item));
  }
  const url = `https://${host}/?${query.toString()}`;
  return {
    token: `k8s-aws-v1.${Buffer.from(url).toString('base64url')}`,
    expiresAt: new Date(signingDate.getTime() + EKS_TOKEN_LIFETIME_MS),
  };
}

/** The `ExecCredential` a kubectl exec plugin prints (client.authentication.k8s.io/v1beta1). */
export function execCredential(token: EksToken): Record<string, unknown> {
  return {
    kind: 'ExecCredential',
    apiVersion: 'client.authentication.k8s.io/v1beta1',
    spec: {},
    status: { expirationTimestamp: token.expiresAt.toISOString(), token: token.token },
  };
}
