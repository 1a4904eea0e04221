/**
 * The kube reader against a real kube-apiserver: as the documented validate role, every page of a long list, a hung
 * server (a proxy that never answers), kubeconfig merging, and EKS tokens checked by a TokenReview webhook. The one
 * imitation left is a certificate authority that did not sign the server: any other CA (the system's first root).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeReaderForEks, kubeReaderFromContext, kubeconfigFiles } from '../../../cloud/kube.js';
import type { KubeReader } from '../../../cloud/kube.js';
import { startEksAuthenticator } from '../../helpers/eks-authenticator.js';
import type { EksAuthenticator } from '../../helpers/eks-authenticator.js';
import { installCrds } from '../../helpers/kube-crds.js';
import { application, clusterRoleFor, daemonSet, gateway, namespace, node } from '../../helpers/kube-objects.js';
import { startKubeProxy } from '../../helpers/kube-proxy.js';
import { bindClusterRole, documentedClusterRole } from '../../helpers/kube-rbac.js';
import type { KubeObject, KubeServer } from '../../helpers/kube-server.js';
import {
  KUBERNETES_VERSION,
  kubeServerUnavailable,
  startKubeServer,
  useKubeServer,
} from '../../helpers/kube-server.js';
import { MOTO_ACCOUNT_ID, useMoto } from '../../helpers/moto.js';

const dir = mkdtempSync(join(tmpdir(), 'platctl-kube-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Creates `objects` as the admin, 25 at a time. */
async function createAll(kube: KubeServer, objects: readonly KubeObject[]): Promise<void> {
  for (let i = 0; i < objects.length; i += 25) {
    await Promise.all(objects.slice(i, i + 25).map((object) => kube.create(object)));
  }
}

/** List requests of `resource` the server answered with a continue token in the URL. */
function continuedLists(kube: KubeServer, resource: string): number {
  return kube
    .audit()
    .filter((e) => e.verb === 'list' && e.objectRef?.resource === resource && e.requestURI.includes('continue='))
    .length;
}

const unavailable = kubeServerUnavailable();

describe.skipIf(unavailable !== undefined)(
  `kube reader on a real API server, as the validate role${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    const kube = useKubeServer({ audit: true });
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

    it('reads every page of a list longer than one (500): nodes and custom objects follow continue tokens', async () => {
      const names = Array.from({ length: 501 }, (_, i) => `n-${String(i).padStart(3, '0')}`);
      await createAll(
        kube,
        names.map((name) => node(name)),
      );
      await createAll(
        kube,
        names.map((name) => application(name, 'Synced', 'Healthy', kube.namespace)),
      );
      const nodes = await reader.listNodes();
      expect(nodes.ok && nodes.value.length).toBe(503);
      expect(nodes.ok && new Set(nodes.value.map((n) => n.metadata?.name)).size).toBe(503);
      expect(continuedLists(kube, 'nodes')).toBe(1);
      const apps = await reader.listCustomObjects({
        group: 'argoproj.io',
        version: 'v1alpha1',
        plural: 'applications',
        namespace: kube.namespace,
      });
      expect(apps.ok && apps.value.map((a) => a.metadata?.name)).toEqual(names);
      expect(continuedLists(kube, 'applications')).toBe(1);
    }, 120_000);

    it('gives up on a hung API server when the signal aborts', async () => {
      const proxy = await startKubeProxy(kube.url);
      try {
        const file = kube.writeKubeconfig(dir, { context: 'hung', user: 'limited', server: proxy.url });
        const result = await kubeReaderFromContext('hung', { KUBECONFIG: file, HOME: dir });
        if (!result.ok) throw new Error(result.message);
        expect((await result.value.listNodes()).ok).toBe(true);
        proxy.mode = 'hang';
        const started = Date.now();
        const hung = await result.value.listNodes(AbortSignal.timeout(200));
        expect(hung).toMatchObject({ ok: false, reason: 'timeout' });
        expect(Date.now() - started).toBeLessThan(5_000);
      } finally {
        await proxy.close();
      }
    });

    it('reports an unknown context and a missing kubeconfig as not-configured', async () => {
      const file = kube.writeKubeconfig(dir, { context: 'other' });
      const unknown = await kubeReaderFromContext('nope', { KUBECONFIG: file });
      expect(unknown).toMatchObject({ ok: false, reason: 'not-configured' });
      expect(!unknown.ok && unknown.message).toContain('"nope"');
      const none = await kubeReaderFromContext('nope', { KUBECONFIG: join(dir, 'missing') });
      expect(none).toMatchObject({ ok: false, reason: 'not-configured' });
    });

    it('merges KUBECONFIG files with the first one winning', async () => {
      const first = kube.writeKubeconfig(dir, { context: 'first', user: 'limited' });
      const second = join(dir, 'second');
      writeFileSync(
        second,
        `apiVersion: v1\nkind: Config\nclusters:\n- name: first\n  cluster:\n    server: http://127.0.0.1:9\ncontexts:\n- name: second\n  context:\n    cluster: first\n    user: first\nusers: []\ncurrent-context: second\n`,
      );
      const result = await kubeReaderFromContext('second', { KUBECONFIG: [first, second].join(delimiter) });
      if (!result.ok) throw new Error(result.message);
      expect(result.value.server).toBe(kube.url);
      // The merged context reaches the real server with the first file's cluster and user.
      expect((await result.value.listNodes()).ok).toBe(true);
      expect(kubeconfigFiles({ HOME: '/home/x' })).toEqual(['/home/x/.kube/config']);
    });
  },
);

describe.skipIf(unavailable !== undefined)(
  `kube reader for EKS: a real API server whose TokenReview webhook checks the token against STS (moto)${
    unavailable ? ` (skipped: ${unavailable})` : ''
  }`,
  () => {
    const moto = useMoto();
    const caller = `arn:aws:sts::${MOTO_ACCOUNT_ID}:user/moto`;
    let authn: EksAuthenticator;
    let kube: KubeServer;
    beforeAll(async () => {
      authn = await startEksAuthenticator({
        cluster: 'platform',
        region: 'eu-west-1',
        stsEndpoint: () => moto.endpoint,
      });
      kube = await startKubeServer({ authWebhookUrl: authn.url });
      const [role] = clusterRoleFor('eks-read-nodes', caller, [
        { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'get'] },
      ]);
      await bindClusterRole(kube, role, caller);
      await kube.apply(node('a'));
    }, 150_000);
    afterAll(async () => {
      await kube.stop();
      await authn.close();
    });

    const eksReader = (caData: string, now?: () => number): Promise<KubeReader> =>
      kubeReaderForEks({
        name: 'platform',
        endpoint: kube.url,
        caData,
        region: 'eu-west-1',
        credentials: () =>
          Promise.resolve({ accessKeyId: moto.env.AWS_ACCESS_KEY_ID ?? 'testing', secretAccessKey: 'testing' }),
        ...(now ? { now } : {}),
      });

    it('authenticates with an EKS token and signs a new one when it nears expiry', async () => {
      // The first token is signed 14 minutes ago (EKS takes it for 15); then the clock reaches now.
      let clock = Date.now() - 14 * 60_000;
      const reader = await eksReader(kube.caData, () => clock);
      const before = authn.reviews.length;
      const first = await reader.listNodes();
      expect(first.ok && first.value.map((n) => n.metadata?.name)).toEqual(['a']);
      clock = Date.now();
      expect((await reader.listNodes()).ok).toBe(true);
      const reviews = authn.reviews.slice(before);
      expect(reviews.every((r) => r.authenticated && r.username === caller)).toBe(true);
      // Two tokens reached the webhook: the old one, and the one signed when it neared expiry.
      expect(new Set(reviews.map((r) => r.signedAt)).size).toBe(2);
    });

    it('refuses a server whose certificate another authority signed', async () => {
      const bundle = readFileSync('/etc/ssl/certs/ca-certificates.crt', 'utf8');
      const foreign = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/.exec(bundle)?.[0] ?? '';
      expect(foreign).not.toBe('');
      const reader = await eksReader(Buffer.from(foreign).toString('base64'));
      const result = await reader.version();
      expect(result).toMatchObject({ ok: false });
      expect(!result.ok && result.message).toContain(
        "presented a certificate that the cluster's certificate authority does not verify (UNABLE_TO_VERIFY_LEAF_SIGNATURE)",
      );
      expect(!result.ok && result.hint).toContain('platctl kubeconfig');
    });
  },
);
