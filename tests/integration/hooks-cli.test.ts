/**
 * The named hooks through the built CLI: `platctl bootstrap` with the fake terragrunt, the hooks' AWS calls against
 * moto over HTTP (EC2 subnets, Secrets Manager pending deletion and force delete), the Argo CD admin password from
 * a real Kubernetes API server and the token calls against the loopback Argo CD stub. Each hook runs around its unit;
 * a failing one fails its unit with reason `hook-failed` naming the hook; the Argo CD token never reaches a log,
 * the state or the output.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { STATE_FILE } from '../../engine/state.js';
import type { ArgoApiServer } from '../helpers/argocd-api.js';
import { startArgoApi } from '../helpers/argocd-api.js';
import { seedSubnets } from '../helpers/aws-seed.js';
import { namespace, secret } from '../helpers/kube-objects.js';
import { kubeServerUnavailable, useKubeServer } from '../helpers/kube-server.js';
import { useMoto } from '../helpers/moto.js';
import { sandbox } from './engine-helpers.js';
import type { Call, Sandbox } from './engine-helpers.js';

const unavailable = kubeServerUnavailable();
const PASSWORD = 'Adm1n-Pa55-w0rd-hooks';
const TOKEN_SECRET = 'platform/backstage/argocd-token';
const PENDING = 'platform/es/webhook';

const summary = (calls: readonly Call[]): string[] => calls.map((c) => `${c.command} ${c.unit}`);

/** Every file under `dir`, as text. */
async function allText(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    entries.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), 'utf8')),
  );
  return texts.join('\n');
}

// Each test runs platctl (and its AWS SDK) one to three times: minutes on a busy two-core machine.
describe.skipIf(unavailable !== undefined)(
  `named hooks in bootstrap (built CLI, moto, a real Kubernetes API server, loopback Argo CD)${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  { timeout: 180_000 },
  () => {
    const moto = useMoto();
    const kube = useKubeServer();
    let argo: ArgoApiServer;
    let dir: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'platctl-hooks-cli-'));
      await kube.create(namespace('argocd'));
      await kube.create(secret('argocd', 'argocd-initial-admin-secret', { password: PASSWORD }));
    });
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(async () => {
      argo = await startArgoApi({
        password: PASSWORD,
        accounts: {
          backstage: { capabilities: ['apiKey'], tokens: [{ id: 'platctl-20261101T000000000Z', issuedAt: 1 }] },
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

    /** The basic repository with the environment on moto and the loopback cluster, and the three hooks. */
    async function platform(options: { minFreeIps?: number; account?: string } = {}): Promise<{
      box: Sandbox;
      env: Record<string, string>;
    }> {
      const box = await sandbox();
      const path = join(box.root, '.platctl.yaml');
      const config = (await readFile(path, 'utf8')).replace(
        '    dir: live/platform\n',
        `    dir: live/platform\n    aws: { region: ${moto.region} }\n    cluster: { name: platform, kubeconfig_context: fixture }\n`,
      );
      await writeFile(
        path,
        `${config}
hooks:
  - type: eni_ip_validation
    units: [platform/eks]
    min_free_ips: ${options.minFreeIps ?? 10}
    subnets:
      tags: { Name: platform-private-* }
  - type: secret_cleanup
    units: [platform/argocd]
    prefixes: [platform/es/]
    timeout: 20s
  - type: argocd_account_token
    units: [platform/argocd]
    account: ${options.account ?? 'backstage'}
    secret_id: ${TOKEN_SECRET}
    server: ${argo.url}
`,
      );
      await seedSubnets(moto, [
        { cidr: '10.0.1.0/24', name: 'platform-private-a' },
        { cidr: '10.0.2.0/28', name: 'platform-private-b' },
        { cidr: '10.0.3.0/28', name: 'elsewhere' },
      ]);
      await sm().send(new CreateSecretCommand({ Name: TOKEN_SECRET, SecretString: 'previous' }));
      await sm().send(new CreateSecretCommand({ Name: PENDING, SecretString: 'old' }));
      await sm().send(new DeleteSecretCommand({ SecretId: PENDING, RecoveryWindowInDays: 7 }));
      const env = { ...moto.env, KUBECONFIG: kube.writeKubeconfig(dir, { context: 'fixture' }) };
      return { box, env };
    }

    /** Nothing the Argo CD side handed out (password, session, token) is in the output, the logs or the state. */
    async function expectNoSecrets(box: Sandbox, output: string): Promise<void> {
      const everything = [
        output,
        await allText(join(box.root, '.platctl-logs')),
        await readFile(join(box.root, STATE_FILE), 'utf8'),
      ].join('\n');
      expect(argo.issued.length).toBeGreaterThan(0);
      for (const secret of [PASSWORD, ...argo.issued]) expect(everything).not.toContain(secret);
    }

    it('runs each hook around its unit: subnets checked, pending secrets freed, a new Argo CD token stored', async () => {
      const { box, env } = await platform();
      const result = await box.run(['bootstrap'], env);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);

      const state = await box.state();
      expect(state.units['platform/eks']?.hooks).toMatchObject({
        'before-unit:eni_ip_validation': { status: 'completed', detail: expect.stringContaining('2 subnets') },
      });
      expect(state.units['platform/argocd']?.hooks).toMatchObject({
        'before-unit:secret_cleanup': { status: 'completed', detail: expect.stringContaining(PENDING) },
        'after-unit:argocd_account_token': { status: 'completed' },
      });
      // The hooks' lines are in the units' logs, around the apply.
      const eksLog = await readFile(join(box.root, state.units['platform/eks']!.log!), 'utf8');
      expect(eksLog).toMatch(/# hook eni_ip_validation \(before-unit\)\neni_ip_validation: subnet-/);
      expect(eksLog).toMatch(/platform-private-a.*: 251 free IPs/);
      expect(eksLog).toMatch(/platform-private-b.*: 11 free IPs/);
      expect(eksLog).not.toMatch(/elsewhere/);
      const argoLog = await readFile(join(box.root, state.units['platform/argocd']!.log!), 'utf8');
      expect(argoLog).toMatch(
        /# hook secret_cleanup \(before-unit\)\n[\s\S]*# ---- apply platform\/argocd\n[\s\S]*# hook argocd_account_token \(after-unit\)\n/,
      );
      expect(result.stdout).toMatch(
        /hook ok platform\/argocd: argocd_account_token \(after-unit\) .*: new token platctl-/,
      );

      // The pending secret is gone (its name is free); the token secret holds the token Argo CD minted.
      await expect(sm().send(new DescribeSecretCommand({ SecretId: PENDING }))).rejects.toThrow(/can't find|not find/i);
      const stored = await sm().send(new GetSecretValueCommand({ SecretId: TOKEN_SECRET }));
      const minted = argo.issued.filter((t) => t.startsWith('argo-token-'));
      expect(minted).toHaveLength(1);
      expect(stored.SecretString).toBe(minted[0]);
      expect(argo.accounts.backstage?.tokens?.map((t) => t.id)).toEqual([expect.stringMatching(/^platctl-2/)]);
      await expectNoSecrets(box, result.stdout + result.stderr);
    });

    it('fails the unit with hook-failed naming eni_ip_validation and the short subnet; the unit is never applied', async () => {
      const { box, env } = await platform({ minFreeIps: 64 });
      const result = await box.run(['bootstrap'], env);
      expect(result.exitCode).toBe(1);
      const state = await box.state();
      expect(state.units['platform/eks']).toMatchObject({ status: 'failed', reason: 'hook-failed' });
      expect(state.units['platform/eks']?.error).toMatch(
        /^hook eni_ip_validation: eni_ip_validation hook of platform\/eks: 1 of 2 subnets have fewer than 64 free IPs: subnet-\w+ \(platform-private-b, [\w-]+\) has 11/,
      );
      expect(state.units['platform/cilium']).toMatchObject({ status: 'skipped', skip_reason: 'dependency-failed' });
      expect(summary(await box.calls())).not.toContain('apply platform/eks');
      expect(result.stdout).toMatch(
        /HOOK FAILED platform\/eks: eni_ip_validation \(before-unit\): .*platform-private-b.* has 11/,
      );
    });

    it('fails the unit when argocd_account_token fails after it; --resume does not clean secrets again', async () => {
      const { box, env } = await platform({ account: 'nobody' });
      const failed = await box.run(['bootstrap'], env);
      expect(failed.exitCode).toBe(1);
      const unit = (await box.state()).units['platform/argocd'];
      expect(unit).toMatchObject({ status: 'failed', reason: 'hook-failed' });
      expect(unit?.error).toMatch(/^hook argocd_account_token: .*reading Argo CD account nobody/);
      expect(unit?.hooks?.['before-unit:secret_cleanup']?.status).toBe('completed');
      expect(summary(await box.calls())).toContain('apply platform/argocd');

      // Fixed in the config: the resume applies the unit again and runs the after-unit hook, not the finished one.
      const path = join(box.root, '.platctl.yaml');
      await writeFile(path, (await readFile(path, 'utf8')).replace('account: nobody', 'account: backstage'));
      const resumed = await box.run(['bootstrap', '--resume'], env);
      expect(resumed.exitCode).toBe(0);
      const state = await box.state();
      expect(state.units['platform/argocd']?.status).toBe('completed');
      const log = await readFile(join(box.root, state.units['platform/argocd']!.log!), 'utf8');
      expect(log).toMatch(
        /# hook secret_cleanup \(before-unit\): finished in an earlier attempt of this run, not run again/,
      );
      expect((await sm().send(new GetSecretValueCommand({ SecretId: TOKEN_SECRET }))).SecretString).toMatch(
        /^argo-token-/,
      );
      await expectNoSecrets(box, failed.stdout + failed.stderr + resumed.stdout + resumed.stderr);
    });
  },
);
