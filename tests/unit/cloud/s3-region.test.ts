/**
 * A state bucket in another region than the environment's: S3 answers 301 PermanentRedirect with the bucket's
 * region in `x-amz-bucket-region` until the request is signed for that region. A loopback server plays S3 that way
 * (moto serves every region from one place and never redirects).
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnvCloud } from '../../../cloud/environment.js';

const BUCKET_REGION = 'us-east-1';
const STATE = JSON.stringify({ version: 4, serial: 7, resources: [{ type: 'aws_vpc', name: 'main' }] });

let server: Server;
let endpoint: string;
const signedFor: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const region = /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(request.headers.authorization ?? '')?.[1] ?? '';
    signedFor.push(region);
    request.resume();
    const head = request.method === 'HEAD';
    if (region !== BUCKET_REGION) {
      response.writeHead(301, { 'x-amz-bucket-region': BUCKET_REGION, 'content-type': 'application/xml' });
      response.end(
        head
          ? undefined
          : '<?xml version="1.0" encoding="UTF-8"?><Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint.</Message></Error>',
      );
      return;
    }
    const url = new URL(request.url ?? '/', 'http://s3');
    response.setHeader('x-amz-bucket-region', BUCKET_REGION);
    if (url.pathname === '/tf-state/' || url.pathname === '/tf-state') {
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(
        head
          ? undefined
          : '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>tf-state</Name><KeyCount>1</KeyCount><MaxKeys>1</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>',
      );
      return;
    }
    if (url.pathname === '/tf-state/live/platform/vpc/terraform.tfstate') {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(STATE) });
      response.end(head ? undefined : STATE);
      return;
    }
    response.writeHead(404, { 'content-type': 'application/xml' });
    response.end(head ? undefined : '<Error><Code>NoSuchKey</Code><Message>missing</Message></Error>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a state bucket in another region than the environment', () => {
  const cloud = () =>
    createEnvCloud({
      envName: 'platform',
      settings: { dir: 'live/platform', aws: { region: 'eu-west-1', state_bucket: 'tf-state' } },
      env: { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret', AWS_ENDPOINT_URL_S3: endpoint },
    });

  it('is readable: the check follows S3 to the bucket region instead of failing on 301', async () => {
    signedFor.length = 0;
    expect(await cloud().checkBucket('tf-state')).toEqual({ ok: true, value: { region: BUCKET_REGION } });
    expect(signedFor).toContain(BUCKET_REGION);
  });

  it('and its state objects are read without a region in remote_state', async () => {
    expect(await cloud().readState('tf-state', 'live/platform/vpc/terraform.tfstate')).toEqual({
      ok: true,
      value: { resources: 1, serial: 7, bytes: Buffer.byteLength(STATE) },
    });
  });
});
