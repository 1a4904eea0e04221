/**
 * `platctl access` when the EKS endpoint answers a web page instead of the API (a proxy's or web server's error
 * page): the real SDK client against a loopback server that answers HTML, moto for the credentials preflight. The
 * error says what answered (status, content type, the first bytes, the URL) and what to check, not the parser's
 * "SyntaxError: Unexpected token '<'".
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArgoCdClient } from '../../cloud/argocd.js';
import { describeNonJson } from '../../cloud/non-json.js';
import { MOTO_ACCOUNT_ID, useMoto } from '../helpers/moto.js';
import { runCli } from '../helpers/run-cli.js';

const PAGE = '<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>';

describe('platctl access against an endpoint that answers HTML', () => {
  const moto = useMoto();
  let dir: string;
  let url: string;
  // A captive portal under /portal (200 and a sign-in page), a 404 page everywhere else.
  const server = createServer((request, response) => {
    const portal = request.url?.startsWith('/portal') === true;
    response.writeHead(portal ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(portal ? '<html><head><title>Sign in to the network</title></head></html>' : PAGE);
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/eks`;
    dir = mkdtempSync(join(tmpdir(), 'platctl-access-html-'));
    mkdirSync(join(dir, 'live', 'platform'), { recursive: true });
    writeFileSync(
      join(dir, '.platctl.yaml'),
      `version: 1
environments:
  platform:
    dir: live/platform
    aws: { region: eu-west-1, account_id: '${MOTO_ACCOUNT_ID}' }
    cluster: { name: platform }
access:
  platform:
    principals:
      - { arn: 'arn:aws:iam::${MOTO_ACCOUNT_ID}:role/Admins', policy: AmazonEKSClusterAdminPolicy }
`,
    );
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await new Promise((resolve) => server.close(resolve));
  });

  it('says what answered and what to check', async () => {
    const run = await runCli(['access', '--dry-run'], {
      cwd: dir,
      env: { ...moto.env, AWS_ENDPOINT_URL_EKS: url, AWS_MAX_ATTEMPTS: '1' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('SyntaxError');
    expect(run.stderr).toContain(
      `listing access entries on cluster platform (environment platform): the EKS endpoint at ${url} answered ` +
        'HTTP 404 (text/html) with something that is not JSON; it starts: "<!DOCTYPE"',
    );
    expect(run.stderr).toContain('check the endpoint URL (AWS_ENDPOINT_URL');
    expect(run.stderr).toContain('any proxy in between (HTTPS_PROXY, NO_PROXY)');
  });

  it('Argo CD: a page where the API was expected is described the same way, with the page title', async () => {
    const base = url.replace(/\/eks$/, '');
    const portal = await createArgoCdClient({ server: `${base}/portal` }).login('admin', 'secret-password');
    expect(portal).toMatchObject({
      ok: false,
      reason: 'error',
      message:
        `logging in as admin: the Argo CD endpoint at ${base}/portal/api/v1/session answered HTTP 200 (text/html) ` +
        'with something that is not JSON; its title: "Sign in to the network"',
      hint: expect.stringContaining('any proxy in between') as unknown,
    });
    const missing = await createArgoCdClient({ server: base }).login('admin', 'secret-password');
    expect(missing).toMatchObject({ ok: false, reason: 'not-found' });
    expect(!missing.ok && missing.message).toContain('answered HTTP 404 (text/html) with something that is not JSON');
    expect(JSON.stringify(missing)).not.toContain('secret-password');
  });

  it('names the page by its title when the whole body is known', () => {
    expect(
      describeNonJson({ status: 502, contentType: 'text/html', body: PAGE, url: 'https://x' }, 'Argo CD').message,
    ).toBe(
      'the Argo CD endpoint at https://x answered HTTP 502 (text/html) with something that is not JSON; its title: "404 Not Found"',
    );
  });
});
