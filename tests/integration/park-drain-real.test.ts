/**
 * park's drain against a real API server: cordon through a merge patch, the Eviction API with a real
 * PodDisruptionBudget (the server answers 429 while the budget allows no disruption and 201 once it allows one,
 * then counts the disruption in the budget's status), DaemonSet pods left alone, and the forced delete after the
 * grace. The test plays the kubelet (pod status) and the disruption controller (the budget's status). platctl runs
 * as a user bound to exactly the ClusterRole docs/park.md publishes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeWriter } from '../../cloud/kube-writer.js';
import type { KubeWriter } from '../../cloud/kube-writer.js';
import type { ParkContext } from '../../park/context.js';
import { drainNodes } from '../../park/kube-helpers.js';
import { node } from '../helpers/kube-objects.js';
import { bindClusterRole, documentedClusterRole } from '../helpers/kube-rbac.js';
import type { KubeObject } from '../helpers/kube-server.js';
import { kubeServerUnavailable, useKubeServer } from '../helpers/kube-server.js';

const unavailable = kubeServerUnavailable();

function pod(
  namespace: string,
  name: string,
  nodeName: string,
  labels: Record<string, string>,
  owner?: string,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels,
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner, name: 'agent', uid: 'uid-agent' }] } : {}),
    },
    spec: { nodeName, containers: [{ name: 'main', image: 'registry.example/app:1' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }],
    },
  };
}

/** A budget that keeps one `app=db` pod, with the status the disruption controller would write. */
function pdb(namespace: string, disruptionsAllowed: number): KubeObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'db', namespace },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
    status: { observedGeneration: 1, disruptionsAllowed, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 },
  };
}

describe.skipIf(unavailable !== undefined)(
  `park's drain on a real API server${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  { timeout: 120_000 },
  () => {
    const kube = useKubeServer();
    let dir: string;
    let writer: KubeWriter;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'platctl-drain-'));
      await bindClusterRole(kube, documentedClusterRole('park.md', 'platctl-park'));
      const kc = new KubeConfig();
      kc.loadFromFile(kube.writeKubeconfig(dir, { context: 'park', user: 'limited' }));
      writer = makeKubeWriter(kc, kube.url);
    });
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    /** Node `name` with a db pod (under the budget), a web pod and a DaemonSet pod. */
    async function seed(name: string, disruptionsAllowed: number): Promise<void> {
      const ns = kube.namespace;
      await kube.apply(node(name, true, { 'eks.amazonaws.com/nodegroup': 'system' }));
      await kube.apply(pod(ns, 'db-0', name, { app: 'db' }));
      await kube.apply(pod(ns, 'web-0', name, { app: 'web' }));
      await kube.apply(pod(ns, 'agent-x', name, { app: 'agent' }, 'DaemonSet'));
      await kube.apply(pdb(ns, disruptionsAllowed));
    }

    const ctx = (sleep: (ms: number) => Promise<void>): ParkContext =>
      ({
        now: Date.now,
        clock: { now: Date.now, sleep: (ms: number) => sleep(ms) },
        signal: new AbortController().signal,
      }) as Pick<ParkContext, 'now' | 'clock' | 'signal'> as ParkContext;

    it('evicts: 429 while the budget allows none, 201 once it allows one; the server counts the disruption', async () => {
      const ns = kube.namespace;
      await seed('sys-1', 0);
      let rounds = 0;
      // Between rounds the budget still refused db-0: the disruption controller now allows one disruption.
      const sleep = async () => {
        rounds += 1;
        if (rounds === 1) {
          await kube.patch(
            { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', namespace: ns, name: 'db' },
            { status: { disruptionsAllowed: 1 } },
            { status: true },
          );
        }
      };
      const outcome = await drainNodes(ctx(sleep), writer, ['sys-1'], 60_000);
      expect(outcome).toEqual({ ok: true, value: { evicted: [`${ns}/web-0`, `${ns}/db-0`], forced: [] } });
      expect(rounds).toBe(1);

      const cordoned = await kube.get({ apiVersion: 'v1', kind: 'Node', name: 'sys-1' });
      expect((cordoned?.spec as { unschedulable?: boolean }).unschedulable).toBe(true);
      // No kubelet finishes an eviction: the pods are only marked for deletion, with the pod's grace period.
      for (const name of ['db-0', 'web-0']) {
        const evicted = await kube.get({ apiVersion: 'v1', kind: 'Pod', namespace: ns, name });
        expect(evicted?.metadata.deletionTimestamp, name).toBeDefined();
      }
      // The DaemonSet pod was left alone.
      const agent = await kube.get({ apiVersion: 'v1', kind: 'Pod', namespace: ns, name: 'agent-x' });
      expect(agent?.metadata.deletionTimestamp).toBeUndefined();
      // The server took the disruption from the budget itself.
      const budget = await kube.get({
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        namespace: ns,
        name: 'db',
      });
      const status = budget?.status as { disruptionsAllowed: number; disruptedPods?: Record<string, string> };
      expect(status.disruptionsAllowed).toBe(0);
      expect(Object.keys(status.disruptedPods ?? {})).toEqual(['db-0']);
    });

    it('a budget that never allows: the pod is deleted with grace 0 once the drain grace is over', async () => {
      const ns = kube.namespace;
      await seed('sys-2', 0);
      const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
      const outcome = await drainNodes(ctx(sleep), writer, ['sys-2'], 1_000);
      expect(outcome).toEqual({ ok: true, value: { evicted: [`${ns}/web-0`], forced: [`${ns}/db-0`] } });
      expect(await kube.get({ apiVersion: 'v1', kind: 'Pod', namespace: ns, name: 'db-0' })).toBeUndefined();
    });
  },
);
