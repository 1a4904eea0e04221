import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kubeReaderForEks, kubeReaderFromContext, kubeconfigFiles } from '../../../cloud/kube.js';
import type { KubeReader } from '../../../cloud/kube.js';
import type { KubeApiServer } from '../../helpers/kube-api.js';
import { installCrds } from '../../helpers/kube-crds.js';
import { application, daemonSet, gateway, namespace, node } from '../../helpers/kube-objects.js';
import { bindClusterRole, documentedClusterRole } from '../../helpers/kube-rbac.js';
import { KUBERNETES_VERSION, kubeServerUnavailable, useKubeServer } from '../../helpers/kube-server.js';
import {
  fixtureApplication,
  fixtureDaemonSet,
  fixtureGateway,
  fixtureNode,
  startKubeApi,
} from '../../helpers/kube-api.js';

const dir = mkdtempSync(join(tmpdir(), 'platctl-kube-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function contextReader(kube: KubeApiServer, context = 'fixture'): Promise<KubeReader> {
  const result = await kubeReaderFromContext(context, { KUBECONFIG: kube.writeKubeconfig(dir, context), HOME: dir });
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

const unavailable = kubeServerUnavailable();

describe.skipIf(unavailable !== undefined)(
  `kube reader on a real API server, as the validate role${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    const kube = useKubeServer();
    let reader: KubeReader;

    beforeAll(async () => {
      await installCrds(kube, ['applications', 'gateways']);
      for (const ns of ['argocd', 'gateway']) await kube.create(namespace(ns));
      for (const object of [
        node('a'),
        node('b', false),
        daemonSet('kube-system', 'cilium', { desired: 3 }),
        application('one'),
        application('two'),
        gateway('gateway', 'public'),
      ]) {
        await kube.apply(object);
      }
      await bindClusterRole(kube, documentedClusterRole('validate.md', 'platctl-validate'));
      const result = await kubeReaderFromContext('real', {
        KUBECONFIG: kube.writeKubeconfig(dir, { context: 'real', user: 'limited' }),
        HOME: dir,
      });
      if (!result.ok) throw new Error(result.message);
      reader = result.value;
    }, 120_000);

    it('reads the version, nodes, a DaemonSet, a custom list and a custom object', async () => {
      expect(await reader.version()).toEqual({ ok: true, value: { gitVersion: KUBERNETES_VERSION } });
      const nodes = await reader.listNodes();
      expect(nodes.ok && nodes.value.map((n) => n.metadata?.name)).toEqual(['a', 'b']);
      const ds = await reader.readDaemonSet('kube-system', 'cilium');
      expect(ds.ok && ds.value.status?.desiredNumberScheduled).toBe(3);
      const apps = await reader.listCustomObjects({
        group: 'argoproj.io',
        version: 'v1alpha1',
        plural: 'applications',
        namespace: 'argocd',
      });
      expect(apps.ok && apps.value.map((a) => a.metadata?.name)).toEqual(['one', 'two']);
      const gw = await reader.getCustomObject({
        group: 'gateway.networking.k8s.io',
        version: 'v1',
        plural: 'gateways',
        namespace: 'gateway',
        name: 'public',
      });
      expect(gw.ok && gw.value.status?.conditions?.map((c) => c.type)).toEqual(['Accepted', 'Programmed']);
    });

    it("turns the server's 404 and 403 into values with its message", async () => {
      const missing = await reader.readDaemonSet('kube-system', 'nope');
      expect(missing).toMatchObject({ ok: false, reason: 'not-found' });
      expect(!missing.ok && missing.message).toContain('daemonsets.apps "nope" not found');
      // The validate role reads Secrets nowhere.
      const forbidden = await reader.readSecretKey('kube-system', 'any', 'key');
      expect(forbidden).toMatchObject({ ok: false, reason: 'forbidden' });
      expect(!forbidden.ok && forbidden.message).toContain('User "limited" cannot get resource "secrets"');
    });
  },
);

describe('kube reader from a kubeconfig context (plain HTTP fixture server paging at 2)', () => {
  let kube: KubeApiServer;
  beforeAll(async () => {
    kube = await startKubeApi(
      {
        nodes: [fixtureNode('a'), fixtureNode('b', false), fixtureNode('c')],
        daemonSets: [fixtureDaemonSet('kube-system', 'cilium', { desired: 3 })],
        applications: ['one', 'two', 'three', 'four', 'five'].map((n) => fixtureApplication(n)),
        gateways: [fixtureGateway('gateway', 'public')],
      },
      { pageSize: 2 },
    );
  });
  afterAll(() => kube.close());
  afterEach(() => {
    kube.hang = undefined;
    kube.fail = undefined;
  });

  it('reads version, every node page (continue tokens), a DaemonSet, a custom list and a custom object', async () => {
    const reader = await contextReader(kube);
    expect(reader.server).toBe(kube.url);
    const version = await reader.version();
    expect(version).toEqual({ ok: true, value: { gitVersion: 'v1.31.0-fixture' } });

    const before = kube.requests.length;
    const nodes = await reader.listNodes();
    expect(nodes.ok && nodes.value.map((n) => n.metadata?.name)).toEqual(['a', 'b', 'c']);
    // pageSize 2: two requests, the second with the continue token
    const nodeRequests = kube.requests.slice(before).filter((r) => r.url.startsWith('/api/v1/nodes'));
    expect(nodeRequests).toHaveLength(2);
    expect(nodeRequests[1]?.url).toContain('continue=2');

    const ds = await reader.readDaemonSet('kube-system', 'cilium');
    expect(ds.ok && ds.value.status?.desiredNumberScheduled).toBe(3);

    const apps = await reader.listCustomObjects({
      group: 'argoproj.io',
      version: 'v1alpha1',
      plural: 'applications',
      namespace: 'argocd',
    });
    expect(apps.ok && apps.value.map((a) => a.metadata?.name)).toEqual(['one', 'two', 'three', 'four', 'five']);
    expect(
      kube.requests.some((r) => r.url.startsWith('/apis/argoproj.io/v1alpha1/namespaces/argocd/applications')),
    ).toBe(true);

    const gateway = await reader.getCustomObject({
      group: 'gateway.networking.k8s.io',
      version: 'v1',
      plural: 'gateways',
      namespace: 'gateway',
      name: 'public',
    });
    expect(gateway.ok && gateway.value.status?.conditions?.map((c) => c.type)).toEqual(['Accepted', 'Programmed']);
  });

  it('gives up on a hung API server when the signal aborts', async () => {
    const reader = await contextReader(kube);
    kube.hang = (r) => r.url.startsWith('/api/v1/nodes');
    const started = Date.now();
    const result = await reader.listNodes(AbortSignal.timeout(200));
    expect(result).toMatchObject({ ok: false, reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports an unknown context and a missing kubeconfig as not-configured', async () => {
    const file = kube.writeKubeconfig(dir, 'other');
    const unknown = await kubeReaderFromContext('nope', { KUBECONFIG: file });
    expect(unknown).toMatchObject({ ok: false, reason: 'not-configured' });
    expect(!unknown.ok && unknown.message).toContain('"nope"');
    const none = await kubeReaderFromContext('nope', { KUBECONFIG: join(dir, 'missing') });
    expect(none).toMatchObject({ ok: false, reason: 'not-configured' });
  });

  it('merges KUBECONFIG files with the first one winning', async () => {
    const first = kube.writeKubeconfig(dir, 'first');
    const second = join(dir, 'second');
    writeFileSync(
      second,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: first\n  cluster:\n    server: http://127.0.0.1:9\ncontexts:\n- name: second\n  context:\n    cluster: first\n    user: first\nusers: []\ncurrent-context: second\n`,
    );
    const result = await kubeReaderFromContext('second', { KUBECONFIG: [first, second].join(delimiter) });
    expect(result.ok && result.value.server).toBe(kube.url);
    expect(kubeconfigFiles({ HOME: '/home/x' })).toEqual(['/home/x/.kube/config']);
  });
});

describe('kube reader for EKS (HTTPS fixture server, CA from DescribeCluster, signed token per request)', () => {
  let kube: KubeApiServer;
  beforeAll(async () => {
    kube = await startKubeApi({ nodes: [fixtureNode('a')] }, { https: true, requireBearerPrefix: 'k8s-aws-v1.' });
  });
  afterAll(() => kube.close());

  it('authenticates with an EKS token and re-signs it when it nears expiry', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const reader = await kubeReaderForEks({
      name: 'platform',
      endpoint: kube.url,
      caData: kube.caData ?? '',
      region: 'eu-west-1',
      credentials: () =>
        Promise.resolve({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' }),
      now: () => clock,
    });
    expect(await reader.version()).toMatchObject({ ok: true });
    expect((await reader.listNodes()).ok).toBe(true);
    clock += 14 * 60_000;
    expect((await reader.listNodes()).ok).toBe(true);
    const tokens = kube.requests.map((r) => r.authorization ?? '');
    expect(tokens).toHaveLength(3);
    expect(tokens[0]).toBe(tokens[1]);
    expect(tokens[2]).not.toBe(tokens[0]);
    const url = Buffer.from((tokens[0] ?? '').replace('Bearer k8s-aws-v1.', ''), 'base64url').toString();
    expect(url).toContain('https://sts.eu-west-1.amazonaws.com/?Action=GetCallerIdentity');
    expect(url).toContain('X-Amz-SignedHeaders=host%3Bx-k8s-aws-id');
  });

  it('refuses a server whose certificate does not match the CA', async () => {
    const other = await startKubeApi({}, { https: true });
    try {
      const reader = await kubeReaderForEks({
        name: 'platform',
        endpoint: kube.url,
        caData: other.caData ?? '',
        region: 'eu-west-1',
        credentials: () => Promise.resolve({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
      });
      const result = await reader.version();
      expect(result.ok).toBe(false);
    } finally {
      await other.close();
    }
  });
});
