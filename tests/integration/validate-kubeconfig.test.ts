/**
 * `platctl kubeconfig` and `platctl kubeconfig token` in-process, against moto's EKS DescribeCluster; the
 * ExecCredential is fed to @kubernetes/client-node as an exec plugin to show a real client accepts it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { kubeReaderFromContext } from '../../cloud/kube.js';
import { mergeKubeconfig } from '../../cloud/kubeconfig-merge.js';
import { runCli } from '../helpers/run-cli.js';
import { startEksAuthenticator } from '../helpers/eks-authenticator.js';
import { clusterRoleFor, node } from '../helpers/kube-objects.js';
import { bindClusterRole } from '../helpers/kube-rbac.js';
import { kubeServerUnavailable, startKubeServer } from '../helpers/kube-server.js';
import { MOTO_ACCOUNT_ID, createEksClusters, useMoto } from '../helpers/moto.js';

interface Kubeconfig {
  'current-context'?: string;
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: { exec: { command: string } } & Record<string, unknown> }[];
  contexts: { name: string }[];
}

/** Writes an executable `name` into `dir` and returns its path. */
function executable(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return path;
}

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'platctl-kubeconfig-'));
  for (const env of ['platform', 'preprod', 'tools']) mkdirSync(join(root, 'live', env), { recursive: true });
  writeFileSync(
    join(root, '.platctl.yaml'),
    `version: 1
environments:
  platform:
    dir: live/platform
    aws: { region: eu-west-1 }
    cluster: { name: platform }
  preprod:
    dir: live/preprod
    aws: { region: eu-west-1 }
    cluster: { name: preprod }
  tools:
    dir: live/tools
    aws: { region: eu-west-1 }
`,
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('platctl kubeconfig', () => {
  const moto = useMoto();
  const env = () => ({ ...moto.env, HOME: join(root, 'home') });

  beforeEach(async () => {
    await createEksClusters(moto, ['platform', 'preprod']);
  });

  it('merges a context per cluster into the kubeconfig, keeping the other entries', async () => {
    const file = join(root, 'merged-kubeconfig');
    writeFileSync(
      file,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'other', cluster: { server: 'https://other.example.com' } }],
        users: [{ name: 'other', user: { token: 'keep-me' } }],
        contexts: [{ name: 'other', context: { cluster: 'other', user: 'other' } }],
        'current-context': 'other',
      }),
    );
    const bin = executable(join(root, 'opt', 'platctl', 'bin'), 'platctl');
    const run = await runCli(['kubeconfig', '--output', file, '--exec-command', bin], {
      cwd: root,
      env: env(),
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^context platctl-platform -> https:\/\/.+\ncontext platctl-preprod -> https:\/\/.+\n$/);
    const doc = parse(readFileSync(file, 'utf8')) as Kubeconfig;
    expect(doc['current-context']).toBe('other');
    expect(doc.contexts.map((c) => c.name)).toEqual(['other', 'platctl-platform', 'platctl-preprod']);
    expect(doc.users[0]).toEqual({ name: 'other', user: { token: 'keep-me' } });
    expect(doc.users[1]).toEqual({
      name: 'platctl-platform',
      user: {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1beta1',
          command: bin,
          args: ['kubeconfig', 'token', '--env', 'platform', '--config', join(root, '.platctl.yaml')],
          interactiveMode: 'Never',
          provideClusterInfo: false,
        },
      },
    });
    expect(doc.clusters[1]?.cluster.server).toMatch(/^https:\/\//);
    expect(typeof doc.clusters[1]?.cluster['certificate-authority-data']).toBe('string');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // Again: replaced in place, not duplicated.
    const again = await runCli(['kubeconfig', '--output', file, '--env', 'platform'], { cwd: root, env: env() });
    expect(again.code).toBe(0);
    const doc2 = parse(readFileSync(file, 'utf8')) as Kubeconfig;
    expect(doc2.contexts.map((c) => c.name)).toEqual(['other', 'platctl-platform', 'platctl-preprod']);
    expect(doc2.users[1]?.user.exec.command).toBe('platctl');
  });

  it('warns when kubectl could not find the program it runs for tokens, with the --exec-command that fixes it', async () => {
    const file = join(root, 'path-kubeconfig');
    const emptyPath = join(root, 'empty-bin');
    mkdirSync(emptyPath, { recursive: true });
    // platctl not on PATH (run through npx): the file is written, the warning names the fix with this platctl.
    const npx = await runCli(['kubeconfig', '--output', file, '--env', 'platform'], {
      cwd: root,
      env: { ...env(), PATH: `${emptyPath}:relative-dir:` },
    });
    expect(npx.code).toBe(0);
    expect((parse(readFileSync(file, 'utf8')) as Kubeconfig).users[0]?.user.exec.command).toBe('platctl');
    expect(npx.stderr).toContain(
      `platctl: warning: ${file} tells kubectl to run platctl for tokens, but no platctl is on PATH`,
    );
    expect(npx.stderr).toContain('kubectl would fail with "executable platctl not found"');
    expect(npx.stderr).toMatch(/hint: .*: platctl kubeconfig --exec-command \/\S+\/bin\/platctl\.js\n$/);

    // On PATH (an executable file named platctl): nothing to say. A directory or a file without x is not it.
    const onPath = join(root, 'on-path');
    mkdirSync(join(onPath, 'platctl'), { recursive: true });
    const notExecutable = join(root, 'no-x');
    mkdirSync(notExecutable, { recursive: true });
    writeFileSync(join(notExecutable, 'platctl'), '#!/bin/sh\n', { mode: 0o644 });
    const shadowed = await runCli(['kubeconfig', '--output', file, '--env', 'platform'], {
      cwd: root,
      env: { ...env(), PATH: `${onPath}:${notExecutable}` },
    });
    expect(shadowed.stderr).toContain('no platctl is on PATH');
    const found = await runCli(['kubeconfig', '--output', file, '--env', 'platform'], {
      cwd: root,
      env: { ...env(), PATH: `${emptyPath}:${join(root, 'real-bin')}` },
    });
    executable(join(root, 'real-bin'), 'platctl');
    const again = await runCli(['kubeconfig', '--output', file, '--env', 'platform'], {
      cwd: root,
      env: { ...env(), PATH: `${emptyPath}:${join(root, 'real-bin')}` },
    });
    expect(found.stderr).toContain('no platctl is on PATH');
    expect(again.stderr).toBe('');

    // An --exec-command that is not there.
    const wrong = await runCli(
      ['kubeconfig', '--output', file, '--env', 'platform', '--exec-command', join(root, 'nope', 'platctl')],
      { cwd: root, env: env() },
    );
    expect(wrong.code).toBe(0);
    expect(wrong.stderr).toContain(`but ${join(root, 'nope', 'platctl')} is not an executable file;`);
  });

  it('writes to the first KUBECONFIG entry by default and sets current-context when there was none', async () => {
    const file = join(root, 'kube', 'fresh');
    const run = await runCli(['kubeconfig', '--env', 'preprod'], { cwd: root, env: { ...env(), KUBECONFIG: file } });
    expect(run.code).toBe(0);
    expect((parse(readFileSync(file, 'utf8')) as Kubeconfig)['current-context']).toBe('platctl-preprod');
  });

  it('fails clearly for a cluster that does not exist or an environment without one', async () => {
    const file = join(root, 'unused');
    const noCluster = await runCli(['kubeconfig', '--output', file, '--env', 'tools'], { cwd: root, env: env() });
    expect(noCluster.code).toBe(1);
    expect(noCluster.stderr).toContain('environment tools has no cluster');
    await moto.reset();
    const missing = await runCli(['kubeconfig', '--output', file, '--env', 'platform'], { cwd: root, env: env() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('EKS cluster platform does not exist in eu-west-1');
  });

  it.skipIf(kubeServerUnavailable() !== undefined)(
    'prints an ExecCredential that @kubernetes/client-node accepts as an exec plugin, and a real API server takes',
    { timeout: 180_000 },
    async () => {
      const run = await runCli(['kubeconfig', 'token', '--env', 'platform'], { cwd: root, env: env() });
      expect(run.code).toBe(0);
      const credential = JSON.parse(run.stdout) as { status: { token: string; expirationTimestamp: string } };
      expect(credential).toMatchObject({ kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1beta1' });
      expect(credential.status.token).toMatch(/^k8s-aws-v1\.[A-Za-z0-9_-]+$/);
      const expires = Date.parse(credential.status.expirationTimestamp) - Date.now();
      expect(expires).toBeGreaterThan(13 * 60_000);
      expect(expires).toBeLessThanOrEqual(14 * 60_000);

      // A real API server that authenticates the token as EKS does (a TokenReview webhook checking the presigned
      // GetCallerIdentity against moto), and lets the caller list nodes.
      const authn = await startEksAuthenticator({
        cluster: 'platform',
        region: 'eu-west-1',
        stsEndpoint: () => moto.endpoint,
      });
      const kube = await startKubeServer({ authWebhookUrl: authn.url });
      try {
        const caller = `arn:aws:sts::${MOTO_ACCOUNT_ID}:user/moto`;
        const [role] = clusterRoleFor('eks-user-read-nodes', caller, [
          { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'get'] },
        ]);
        await bindClusterRole(kube, role, caller);
        await kube.apply(node('a'));
        const credentialFile = join(root, 'credential.json');
        writeFileSync(credentialFile, run.stdout);
        const doc = mergeKubeconfig({}, [{ env: 'platform', endpoint: kube.url, caData: kube.caData }], {
          command: 'cat',
          configPath: credentialFile,
        });
        // `cat <file>` stands in for the plugin command.
        const user = doc.users?.[0]?.user as { exec: { args: string[] } };
        user.exec.args = [credentialFile];
        const kubeconfig = join(root, 'exec-kubeconfig');
        writeFileSync(kubeconfig, stringify(doc));
        const reader = await kubeReaderFromContext('platctl-platform', {
          KUBECONFIG: kubeconfig,
          PATH: process.env.PATH,
        });
        if (!reader.ok) throw new Error(reader.message);
        const nodes = await reader.value.listNodes();
        expect(nodes.ok && nodes.value.map((n) => n.metadata?.name)).toEqual(['a']);
        expect(authn.reviews.at(-1)).toMatchObject({ authenticated: true, username: caller });
      } finally {
        await kube.stop();
        await authn.close();
      }
    },
  );

  it('token needs exactly one --env', async () => {
    const run = await runCli(['kubeconfig', 'token'], { cwd: root, env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('exactly one --env');
  });
});
