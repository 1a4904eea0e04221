/**
 * The kubeconfig exec plugin end to end with real parts: kubectl (built from the same Kubernetes source) runs the
 * built `platctl kubeconfig token`, sends the EKS token to a real kube-apiserver, whose token webhook (a loopback
 * authenticator) checks the presigned STS GetCallerIdentity against moto and maps the caller's ARN to the user; RBAC
 * then decides what that user may do.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { EksAuthenticator } from '../helpers/eks-authenticator.js';
import { startEksAuthenticator } from '../helpers/eks-authenticator.js';
import { clusterRoleFor, node } from '../helpers/kube-objects.js';
import { bindClusterRole } from '../helpers/kube-rbac.js';
import type { KubeServer } from '../helpers/kube-server.js';
import { kubeBinaries, kubeServerUnavailable, startKubeServer } from '../helpers/kube-server.js';
import { MOTO_ACCOUNT_ID, createEksClusters, useMoto } from '../helpers/moto.js';
import { runCli } from '../helpers/run-cli.js';

const unavailable = kubeServerUnavailable();
const PLATCTL_BIN = join(import.meta.dirname, '../../bin/platctl.js');
/** moto's identity for any access key it does not know. */
const CALLER_ARN = `arn:aws:sts::${MOTO_ACCOUNT_ID}:user/moto`;

interface Kubeconfig {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
}

describe.skipIf(unavailable !== undefined)(
  `kubectl -> platctl kubeconfig token -> a real API server${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  { timeout: 180_000 },
  () => {
    const moto = useMoto();
    let authn: EksAuthenticator;
    let kube: KubeServer;
    let dir: string;

    beforeAll(async () => {
      authn = await startEksAuthenticator({
        cluster: 'platform',
        region: 'eu-west-1',
        stsEndpoint: () => moto.endpoint,
      });
      kube = await startKubeServer({ authWebhookUrl: authn.url });
      dir = mkdtempSync(join(tmpdir(), 'platctl-kubectl-'));
      mkdirSync(join(dir, 'live/platform'), { recursive: true });
      mkdirSync(join(dir, 'home'));
      writeFileSync(
        join(dir, '.platctl.yaml'),
        'version: 1\nenvironments:\n  platform:\n    dir: live/platform\n    aws: { region: eu-west-1 }\n    cluster: { name: platform }\n',
      );
    }, 180_000);
    afterAll(async () => {
      await kube?.stop();
      await authn?.close();
      rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(async () => {
      await createEksClusters(moto, ['platform']);
    });

    /**
     * kubectl with the AWS environment of moto; the exec plugin inherits it. Asynchronous: the authenticator the API
     * server calls runs in this process.
     */
    const kubectl = (kubeconfig: string, args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(
          kubeBinaries().kubectl,
          ['--kubeconfig', kubeconfig, ...args],
          { env: { ...moto.childEnv(process.env), HOME: join(dir, 'home') }, timeout: 60_000 },
          (error, stdout, stderr) => {
            const code = (error as { code?: unknown } | null)?.code;
            resolve({ status: error ? (typeof code === 'number' ? code : null) : 0, stdout, stderr });
          },
        );
      });

    /** `platctl kubeconfig` for the platform cluster, pointed at the real server (moto's endpoint is made up). */
    async function writeKubeconfig(): Promise<string> {
      const file = join(dir, 'kubeconfig');
      const run = await runCli(['kubeconfig', '--output', file, '--env', 'platform', '--exec-command', PLATCTL_BIN], {
        cwd: dir,
        env: { ...moto.env, HOME: join(dir, 'home') },
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const doc = parse(readFileSync(file, 'utf8')) as Kubeconfig;
      expect(doc.clusters.map((c) => c.name)).toEqual(['platctl-platform']);
      doc.clusters[0]!.cluster = { server: kube.url, 'certificate-authority-data': kube.caData };
      writeFileSync(file, stringify(doc), { mode: 0o600 });
      return file;
    }

    it('kubectl authenticates with the token platctl signs; RBAC then decides what the user may do', async () => {
      const file = await writeKubeconfig();
      const before = authn.reviews.length;

      const who = await kubectl(file, ['auth', 'whoami', '-o', 'json']);
      expect(who.stderr).toBe('');
      expect(who.status).toBe(0);
      expect((JSON.parse(who.stdout) as { status: { userInfo: { username: string } } }).status.userInfo.username).toBe(
        CALLER_ARN,
      );

      // Authenticated but not yet authorized: the server's own 403 names the mapped user.
      const denied = await kubectl(file, ['get', 'nodes']);
      expect(denied.status).toBe(1);
      expect(denied.stderr).toContain(`User "${CALLER_ARN}" cannot list resource "nodes"`);

      const [role] = clusterRoleFor('eks-user-read-nodes', CALLER_ARN, [
        { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'get'] },
      ]);
      await bindClusterRole(kube, role, CALLER_ARN);
      await kube.apply(node('ip-10-0-1-1'));
      const nodes = await kubectl(file, ['get', 'nodes', '-o', 'name']);
      expect(nodes.stderr).toBe('');
      expect(nodes.stdout.trim()).toBe('node/ip-10-0-1-1');

      // Every token the server asked about was platctl's, accepted and mapped to the ARN.
      const reviews = authn.reviews.slice(before);
      expect(reviews.length).toBeGreaterThan(0);
      expect(reviews.every((r) => r.authenticated && r.username === CALLER_ARN)).toBe(true);
    });

    it('a token that is not a presigned STS URL is refused by the server with 401', async () => {
      const file = kube.writeKubeconfig(dir, {
        context: 'forged',
        token: `k8s-aws-v1.${Buffer.from('https://evil.example/?Action=GetCallerIdentity').toString('base64url')}`,
      });
      const refused = await kubectl(file, ['get', 'nodes']);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/Unauthorized|must be logged in/);
      expect(authn.reviews.at(-1)).toEqual({
        authenticated: false,
        error: 'unexpected STS URL https://evil.example/',
      });
    });
  },
);
