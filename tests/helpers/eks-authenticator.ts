/**
 * A loopback stand-in for the EKS side of token authentication: a TokenReview webhook for kube-apiserver
 * (`--authentication-token-webhook-config-file`) that accepts the aws-iam-authenticator token format
 * (`k8s-aws-v1.` + base64url of a presigned STS GetCallerIdentity URL), checks the URL the way EKS does (the STS
 * host of the region, only the known query parameters, `host;x-k8s-aws-id` signed, signed within the last 15
 * minutes, at most 60 s of validity), then sends the presigned request to STS (moto) and maps the caller's ARN to
 * the Kubernetes user name, as an EKS access entry would.
 *
 * moto routes a request to a service by its Authorization header, which a presigned request does not have: the
 * authenticator adds one carrying the same credential scope and signature as the query string. moto does not check
 * signatures, so what this proves is the format and the exec-plugin contract, not the signature itself.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import { closeServer, listenOnLoopback } from './loopback.js';

const ALLOWED_PARAMS = new Set([
  'action',
  'version',
  'x-amz-algorithm',
  'x-amz-credential',
  'x-amz-date',
  'x-amz-expires',
  'x-amz-security-token',
  'x-amz-signature',
  'x-amz-signedheaders',
  'x-amz-user-agent',
]);

/** The cluster accepts a token for 15 minutes after it was signed. */
const TOKEN_VALIDITY_MS = 15 * 60_000;

export interface Review {
  readonly authenticated: boolean;
  readonly username?: string;
  readonly error?: string;
  /** The token's X-Amz-Date (`20260101T000000Z`), when it had one: tells tokens apart without keeping them. */
  readonly signedAt?: string;
}

export interface EksAuthenticator {
  /** `http://127.0.0.1:<port>/authenticate`: the webhook URL for kube-apiserver. */
  readonly url: string;
  /** Every TokenReview answered, in order. */
  readonly reviews: Review[];
  close(): Promise<void>;
}

export interface EksAuthenticatorOptions {
  /** The cluster name the token must be bound to (sent to STS as `x-k8s-aws-id`). */
  readonly cluster: string;
  readonly region: string;
  /** Where STS is (moto), read when a review arrives. */
  readonly stsEndpoint: () => string;
}

/** Checks a token's presigned URL; returns it, or why it is refused. */
export function presignedUrl(token: string, region: string, now = Date.now()): URL | string {
  const prefix = 'k8s-aws-v1.';
  if (!token.startsWith(prefix)) return 'not an EKS token (no k8s-aws-v1. prefix)';
  let url: URL;
  try {
    url = new URL(Buffer.from(token.slice(prefix.length), 'base64url').toString('utf8'));
  } catch {
    return 'the token is not a base64url URL';
  }
  if (url.protocol !== 'https:' || url.host !== `sts.${region}.amazonaws.com` || url.pathname !== '/') {
    return `unexpected STS URL ${url.protocol}//${url.host}${url.pathname}`;
  }
  const params = url.searchParams;
  for (const key of params.keys()) {
    if (!ALLOWED_PARAMS.has(key.toLowerCase())) return `unexpected query parameter ${key}`;
  }
  if (params.get('Action') !== 'GetCallerIdentity') return `Action is ${params.get('Action') ?? 'missing'}`;
  if (params.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return 'not a SigV4 presigned URL';
  const signed = (params.get('X-Amz-SignedHeaders') ?? '').split(';');
  if (!signed.includes('host') || !signed.includes('x-k8s-aws-id')) {
    return `X-Amz-SignedHeaders ${signed.join(';')} lacks host or x-k8s-aws-id`;
  }
  const expires = Number(params.get('X-Amz-Expires'));
  if (!Number.isInteger(expires) || expires <= 0 || expires > 60) return `X-Amz-Expires ${expires} not in 1..60`;
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(params.get('X-Amz-Date') ?? '');
  if (!date) return 'X-Amz-Date missing or malformed';
  const [y = 0, mo = 1, d = 1, h = 0, mi = 0, s = 0] = date.slice(1).map(Number);
  const signedAt = Date.UTC(y, mo - 1, d, h, mi, s);
  if (now - signedAt > TOKEN_VALIDITY_MS || signedAt - now > 60_000) return 'the token is expired or from the future';
  return url;
}

function callSts(endpoint: string, url: URL, cluster: string): Promise<{ status: number; body: string }> {
  const params = url.searchParams;
  const authorization =
    `AWS4-HMAC-SHA256 Credential=${params.get('X-Amz-Credential') ?? ''}, ` +
    `SignedHeaders=${params.get('X-Amz-SignedHeaders') ?? ''}, Signature=${params.get('X-Amz-Signature') ?? ''}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${endpoint}/?${params.toString()}`,
      { headers: { authorization, 'x-k8s-aws-id': cluster }, signal: AbortSignal.timeout(10_000) },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function review(token: string, options: EksAuthenticatorOptions): Promise<Review> {
  const url = presignedUrl(token, options.region);
  if (typeof url === 'string') return { authenticated: false, error: url };
  const signedAt = url.searchParams.get('X-Amz-Date') ?? '';
  const sts = await callSts(options.stsEndpoint(), url, options.cluster);
  const arn = /<Arn>([^<]+)<\/Arn>/.exec(sts.body)?.[1];
  if (sts.status !== 200 || arn === undefined) {
    return { authenticated: false, error: `STS answered ${sts.status}: ${sts.body.slice(0, 200)}`, signedAt };
  }
  return { authenticated: true, username: arn, signedAt };
}

export async function startEksAuthenticator(options: EksAuthenticatorOptions): Promise<EksAuthenticator> {
  const reviews: Review[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      void (async () => {
        let result: Review;
        try {
          const body = JSON.parse(text) as { apiVersion?: string; spec?: { token?: string } };
          result = await review(body.spec?.token ?? '', options);
        } catch (error) {
          result = { authenticated: false, error: error instanceof Error ? error.message : String(error) };
        }
        reviews.push(result);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenReview',
            status: result.authenticated
              ? { authenticated: true, user: { username: result.username, groups: [] } }
              : { authenticated: false, error: result.error },
          }),
        );
      })();
    });
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}/authenticate`,
    reviews,
    close: () => closeServer(server),
  };
}
