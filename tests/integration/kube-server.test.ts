/**
 * The real API server the Kubernetes tests run against (tests/helpers/kube-server.ts): the pinned version, RBAC on,
 * status as a subresource, CRDs established, and nothing left behind when it stops.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrds } from '../helpers/kube-crds.js';
import { clusterRoleFor, node } from '../helpers/kube-objects.js';
import {
  KUBERNETES_VERSION,
  kubeBinaries,
  kubeServerUnavailable,
  startKubeServer,
  useKubeServer,
} from '../helpers/kube-server.js';

const unavailable = kubeServerUnavailable();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(unavailable !== undefined)(
  `the real Kubernetes API server${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  { timeout: 120_000 },
  () => {
    const kube = useKubeServer();
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'platctl-kube-server-'));
    });
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    it('reports the pinned version and started within the bound', async () => {
      const version = await kube.request('GET', '/version');
      expect(version.status).toBe(200);
      expect((version.body as { gitVersion: string }).gitVersion).toBe(KUBERNETES_VERSION);
      expect(kube.startupMs).toBeGreaterThan(0);
      console.info(`kube-apiserver + etcd ready in ${kube.startupMs} ms`);
    });

    it('gives each test its own namespace', async () => {
      expect(kube.namespace).toMatch(/^t\d+$/);
      const ns = await kube.get({ apiVersion: 'v1', kind: 'Namespace', name: kube.namespace });
      expect(ns?.metadata.name).toBe(kube.namespace);
    });

    it('drops status on create: the kubelet writes it through the status subresource', async () => {
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: kube.namespace },
        spec: { containers: [{ name: 'main', image: 'registry.example/app:1' }] },
        status: { phase: 'Running' },
      };
      const created = await kube.create(pod);
      expect((created.status as { phase?: string }).phase).toBe('Pending');
      const ref = { apiVersion: 'v1', kind: 'Pod', name: 'p', namespace: kube.namespace };
      // A merge patch of the object itself leaves status alone.
      await kube.patch(ref, { status: { phase: 'Running' } });
      expect(((await kube.get(ref))?.status as { phase?: string }).phase).toBe('Pending');
      await kube.patch(ref, { status: { phase: 'Running' } }, { status: true });
      expect(((await kube.get(ref))?.status as { phase?: string }).phase).toBe('Running');
    });

    it('rejects unknown fields of built-in kinds with strict field validation', async () => {
      const res = await kube.request('POST', `/api/v1/namespaces/${kube.namespace}/configmaps?fieldValidation=Strict`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c' },
        datta: { a: 'b' },
      });
      expect(res.status).toBe(400);
      expect((res.body as { message: string }).message).toContain('strict decoding error: unknown field "datta"');
    });

    it('establishes CRDs and serves their objects', async () => {
      await installCrds(kube, ['nodepools']);
      const list = await kube.list({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool' });
      expect(list).toEqual([]);
    });

    it('the limited user may do nothing until RBAC grants it', async () => {
      const denied = await kube.request('GET', '/api/v1/nodes', undefined, { user: 'limited' });
      expect(denied.status).toBe(403);
      await kube.apply(node('n1'));
      for (const object of clusterRoleFor('smoke-read-nodes', 'limited', [
        { apiGroups: [''], resources: ['nodes'], verbs: ['list'] },
      ])) {
        await kube.create(object);
      }
      // RBAC is read from the server's cache: poll until the binding is seen.
      let res = await kube.request('GET', '/api/v1/nodes', undefined, { user: 'limited' });
      for (let i = 0; i < 50 && res.status === 403; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        res = await kube.request('GET', '/api/v1/nodes', undefined, { user: 'limited' });
      }
      expect(res.status).toBe(200);
      expect(((res.body as { items: unknown[] }).items ?? []).length).toBe(1);
      const write = await kube.request('DELETE', '/api/v1/nodes/n1', undefined, { user: 'limited' });
      expect(write.status).toBe(403);
    });

    it('a second server stops with nothing left: processes gone, folder removed', async () => {
      const other = await startKubeServer();
      expect(other.pids.every(alive)).toBe(true);
      expect(existsSync(other.dir)).toBe(true);
      await other.stop();
      expect(other.pids.some(alive)).toBe(false);
      expect(existsSync(other.dir)).toBe(false);
    });

    it('kubectl reaches it through the kubeconfig, verifying the CA, as the admin and as the limited user', () => {
      const admin = kube.writeKubeconfig(dir, { context: 'smoke' });
      const names = execFileSync(kubeBinaries().kubectl, ['--kubeconfig', admin, 'get', 'namespaces', '-o', 'name'], {
        encoding: 'utf8',
      });
      expect(names.split('\n')).toContain(`namespace/${kube.namespace}`);
      const limited = kube.writeKubeconfig(dir, { context: 'smoke-limited', user: 'limited' });
      const refused = spawnSync(kubeBinaries().kubectl, ['--kubeconfig', limited, 'get', 'namespaces'], {
        encoding: 'utf8',
      });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('User "limited" cannot list resource "namespaces"');
    });
  },
);
