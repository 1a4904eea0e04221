/**
 * argocd_account_token end to end over loopback HTTP: the admin password from a real Kubernetes API server, the
 * session and token calls against the Argo CD stub (tests/helpers/argocd-api.ts), the token into moto's Secrets
 * Manager. Every test also checks that no password, session or token reaches a log line or a result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHookClients } from '../../../cloud/hook-clients.js';
import type { HookResult } from '../../../engine/hooks.js';
import { argocdAccountTokenHook, tokenId } from '../../../hooks/argocd-account-token.js';
import type { ArgoApiServer } from '../../helpers/argocd-api.js';
import { startArgoApi } from '../../helpers/argocd-api.js';
import { namespace, secret } from '../../helpers/kube-objects.js';
import { kubeServerUnavailable, useKubeServer } from '../../helpers/kube-server.js';
import { useMoto } from '../../helpers/moto.js';
import { hookContext } from './context.js';

const PASSWORD = 'Adm1n-Pa55-w0rd-xyz';
const SECRET_ID = 'platform/backstage/argocd-token';
const NOW = Date.parse('2026-12-01T17:45:00.123Z');

const unavailable = kubeServerUnavailable();
const ADMIN_SECRET = { apiVersion: 'v1', kind: 'Secret', namespace: 'argocd', name: 'argocd-initial-admin-secret' };

describe.skipIf(unavailable !== undefined)(
  `argocd_account_token${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    const moto = useMoto();
    const kube = useKubeServer();
    let argo: ArgoApiServer;
    let dir: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'platctl-argo-hook-'));
      await kube.create(namespace('argocd'));
    });
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(async () => {
      await kube.delete(ADMIN_SECRET);
      await kube.create(secret('argocd', 'argocd-initial-admin-secret', { password: PASSWORD }));
      argo = await startArgoApi({
        password: PASSWORD,
        accounts: {
          backstage: {
            capabilities: ['apiKey'],
            tokens: [
              { id: 'platctl-20261101T000000000Z', issuedAt: 1 },
              { id: 'platctl-20261115T000000000Z', issuedAt: 2 },
              { id: 'made-by-hand', issuedAt: 3 },
            ],
          },
          viewer: { capabilities: ['login'] },
        },
      });
    });
    afterEach(async () => {
      await argo.close();
    });

    const sm = () =>
      new SecretsManagerClient({
        region: moto.region,
        endpoint: moto.endpoint,
        credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
      });

    async function run(settings: Record<string, unknown> = {}): Promise<{ result: HookResult; lines: string[] }> {
      const kubeconfig = kube.writeKubeconfig(dir, { context: 'fixture' });
      const clients = createHookClients({
        environments: {
          platform: {
            dir: 'live/platform',
            aws: { region: moto.region },
            cluster: { name: 'platform', kubeconfig_context: 'fixture' },
          },
        },
        env: { ...moto.env, KUBECONFIG: kubeconfig },
      });
      const ctx = hookContext(
        'argocd_account_token',
        { account: 'backstage', secret_id: SECRET_ID, server: argo.url, ...settings },
        'platform/argocd',
      );
      const hook = argocdAccountTokenHook({ ...clients, now: () => NOW })(ctx.settings);
      const result = (await hook.afterUnit?.(ctx)) ?? { ok: false, reason: 'bug', message: 'no afterUnit' };
      return { result, lines: ctx.lines };
    }

    /** No secret the run handled appears in what it reported. */
    function expectNoSecrets(output: { result: HookResult; lines: string[] }): void {
      const text = JSON.stringify(output);
      for (const secret of [PASSWORD, ...argo.issued]) expect(text).not.toContain(secret);
      expect(text).not.toMatch(/session-[0-9a-f]{8}|argo-token-/);
    }

    it('mints a token into the secret, then revokes only the older platctl tokens', async () => {
      await sm().send(new CreateSecretCommand({ Name: SECRET_ID, SecretString: 'previous' }));
      const output = await run();
      const id = tokenId(NOW);
      expect(id).toBe('platctl-20261201T174500123Z');
      expect(output.result).toEqual({
        ok: true,
        value: `new token ${id} for backstage in secret ${SECRET_ID}; revoked 2 older platctl tokens`,
      });
      const stored = await sm().send(new GetSecretValueCommand({ SecretId: SECRET_ID }));
      const minted = argo.issued.find((t) => t.startsWith('argo-token-'));
      expect(stored.SecretString).toBe(minted);
      expect(argo.accounts.backstage?.tokens?.map((t) => t.id)).toEqual(['made-by-hand', id]);
      // The secret was written before any old token was revoked.
      const order = argo.requests.map((r) => `${r.method} ${r.path}`);
      expect(order[0]).toBe('POST /api/v1/session');
      expect(order.slice(-2)).toEqual([
        'DELETE /api/v1/account/backstage/token/platctl-20261101T000000000Z',
        'DELETE /api/v1/account/backstage/token/platctl-20261115T000000000Z',
      ]);
      expect(output.lines).toContain(`argocd_account_token: stored the token in secret ${SECRET_ID}`);
      expectNoSecrets(output);
    });

    it('revokes the new token when the secret does not exist, and says to create it', async () => {
      const output = await run();
      expect(output.result.ok).toBe(false);
      expect(!output.result.ok && output.result.message).toBe(
        `argocd_account_token hook of platform/argocd: putting the token into secret ${SECRET_ID}: secret ${SECRET_ID} does not exist in eu-west-1 (environment platform); create it with Terraform (aws_secretsmanager_secret) before this hook runs, or fix secret_id`,
      );
      expect(argo.accounts.backstage?.tokens?.map((t) => t.id)).toEqual([
        'platctl-20261101T000000000Z',
        'platctl-20261115T000000000Z',
        'made-by-hand',
      ]);
      expectNoSecrets(output);
    });

    it('fails without the password in the message when Argo CD refuses it', async () => {
      argo.password = 'changed-since';
      const output = await run();
      expect(!output.result.ok && output.result.message).toMatch(
        /logging in to Argo CD at http:\/\/127\.0\.0\.1:\d+: Argo CD answered HTTP 401 logging in as admin: Invalid username or password; the password in Argo CD's admin secret no longer works/,
      );
      expectNoSecrets(output);
    });

    it('scrubs secrets a server echoes in an error', async () => {
      argo.fail = (request) =>
        request.path === '/api/v1/session' ? { status: 500, message: `bad request body ${request.body}` } : undefined;
      const output = await run();
      expect(!output.result.ok && output.result.message).toContain('"password":"***"');
      expectNoSecrets(output);
    });

    it('names a missing admin secret, account, and an account without apiKey', async () => {
      await kube.delete(ADMIN_SECRET);
      const noSecret = await run();
      expect(!noSecret.result.ok && noSecret.result.message).toContain(
        "reading Argo CD's admin password: Secret argocd/argocd-initial-admin-secret not found",
      );
      await kube.create(secret('argocd', 'argocd-initial-admin-secret', { password: PASSWORD }));

      const noAccount = await run({ account: 'nobody' });
      expect(!noAccount.result.ok && noAccount.result.message).toContain(
        "account 'nobody' does not exist; declare it in argocd-cm (accounts.nobody: apiKey)",
      );
      const noApiKey = await run({ account: 'viewer' });
      expect(!noApiKey.result.ok && noApiKey.result.message).toBe(
        'argocd_account_token hook of platform/argocd: Argo CD account viewer cannot have API tokens (capabilities: login); set accounts.viewer: apiKey in argocd-cm',
      );
      for (const output of [noSecret, noAccount, noApiKey]) expectNoSecrets(output);
    });

    it('fails as a value when Argo CD does not answer', async () => {
      const output = await run({ server: 'http://127.0.0.1:9' });
      expect(!output.result.ok && output.result.message).toContain('cannot reach Argo CD at http://127.0.0.1:9');
      expectNoSecrets(output);
    });
  },
);
