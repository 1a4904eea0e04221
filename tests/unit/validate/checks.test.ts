import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ok } from '../../../cloud/result.js';
import type { KubeReader } from '../../../cloud/kube.js';
import type { CheckContext } from '../../../validate/checks/context.js';
import {
  checkArgocdApps,
  checkCiliumAgent,
  checkEksCluster,
  checkGateway,
  daemonSetProblem,
} from '../../../validate/checks/kube.js';
import { checkHttpEndpoint, checkTailscale, checkTailscaleUrl } from '../../../validate/checks/net.js';
import { commandRunner } from '../../../validate/deps.js';
import { application, daemonSet, gateway, node } from '../../helpers/kube-objects.js';
import type { FakeCloudAnswers } from './fakes.js';
import { fakeCloud, fakeDeps } from './fakes.js';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

const FIXTURES = join(import.meta.dirname, '../../fixtures/validate');

function ctx(answers: FakeCloudAnswers = {}, overrides: Partial<CheckContext> = {}, deps = fakeDeps({})): CheckContext {
  const cloud = fakeCloud('platform', answers);
  return {
    cloud: () => cloud,
    deps,
    signal: new AbortController().signal,
    budgetMs: 60_000,
    timeoutMs: 1000,
    ...overrides,
  };
}

/** The objects as the server stores them: a fresh object has generation 1. */
const stored = <T extends { metadata: Record<string, unknown> }>(object: T, generation = 1): T => ({
  ...object,
  metadata: { ...object.metadata, generation },
});
const fixtureNode = node;
const fixtureApplication = application;
const fixtureGateway = (ns: string, name: string, accepted?: boolean, programmed?: boolean) =>
  stored(gateway(ns, name, accepted, programmed));
/** A DaemonSet whose controller reports `counts` (`generation`: the object's, default 1). */
const fixtureDaemonSet = (
  ns: string,
  name: string,
  counts: Parameters<typeof daemonSet>[2] & { generation?: number },
) => stored(daemonSet(ns, name, counts), counts.generation);

/** A KubeReader over in-memory fixtures (the loopback server is exercised in the cloud and integration tests). */
function reader(objects: { nodes?: unknown[]; daemonSet?: unknown; apps?: unknown[]; gateway?: unknown }): KubeReader {
  const notFound = { ok: false as const, reason: 'not-found' as const, message: 'not found' };
  return {
    server: 'https://fixture',
    version: () => Promise.resolve(ok({ gitVersion: 'v1.31.0' })),
    listNodes: () => Promise.resolve(ok((objects.nodes ?? []) as never[])),
    readDaemonSet: () => Promise.resolve(objects.daemonSet ? ok(objects.daemonSet as never) : notFound),
    listCustomObjects: () => Promise.resolve(objects.apps ? ok(objects.apps as never[]) : notFound),
    getCustomObject: () => Promise.resolve(objects.gateway ? ok(objects.gateway as never) : notFound),
    readSecretKey: () => Promise.resolve(notFound),
  };
}
const kube = (objects: Parameters<typeof reader>[0]): FakeCloudAnswers => ({
  kube: () => Promise.resolve(ok(reader(objects))),
});

describe('eks_cluster', () => {
  it('passes an ACTIVE cluster whose nodes are all Ready', async () => {
    const outcome = await checkEksCluster('platform', ctx(kube({ nodes: [fixtureNode('a'), fixtureNode('b')] })));
    expect(outcome).toEqual({ status: 'pass', message: 'platform ACTIVE (1.31), 2 nodes Ready' });
  });

  it('fails a NotReady node, naming it and why', async () => {
    const outcome = await checkEksCluster(
      'platform',
      ctx(kube({ nodes: [fixtureNode('a'), fixtureNode('b', false), fixtureNode('c', 'Unknown')] })),
    );
    expect(outcome.status).toBe('fail');
    expect(outcome.message).toBe('2 of 3 nodes not Ready: b, c');
    expect(outcome.details).toEqual([
      'b: Ready=False, KubeletNotReady, container runtime network not ready',
      'c: Ready=Unknown, KubeletNotReady, container runtime network not ready',
    ]);
  });

  it('fails a cluster that is not ACTIVE without reading nodes, and one without nodes', async () => {
    const updating = await checkEksCluster(
      'platform',
      ctx({ describeCluster: () => Promise.resolve(ok({ name: 'platform', status: 'UPDATING' })) }),
    );
    expect(updating).toEqual({ status: 'fail', message: 'EKS cluster platform is UPDATING, not ACTIVE' });
    const empty = await checkEksCluster('platform', ctx(kube({ nodes: [] })));
    expect(empty).toMatchObject({
      status: 'fail',
      message: 'EKS cluster platform is ACTIVE but has no nodes (parked?)',
    });
  });
});

describe('cilium_agent', () => {
  it('applies the rollout-status rule', () => {
    expect(daemonSetProblem(fixtureDaemonSet('kube-system', 'cilium', { desired: 3 }) as never)).toBeUndefined();
    expect(daemonSetProblem(fixtureDaemonSet('kube-system', 'cilium', { desired: 3, available: 2 }) as never)).toBe(
      '2 of 3 pods available',
    );
    expect(daemonSetProblem(fixtureDaemonSet('kube-system', 'cilium', { desired: 3, updated: 1 }) as never)).toBe(
      '1 of 3 pods updated to the current spec',
    );
    expect(
      daemonSetProblem(
        fixtureDaemonSet('kube-system', 'cilium', { desired: 3, generation: 4, observedGeneration: 3 }) as never,
      ),
    ).toBe('the controller has not observed generation 4 yet (at 3)');
    expect(daemonSetProblem(fixtureDaemonSet('kube-system', 'cilium', { desired: 0 }) as never)).toBe(
      'no pods scheduled (no nodes, or parked)',
    );
  });

  it('with the OnDelete strategy exempts only the update count: unavailable pods still fail', () => {
    const onDelete = (counts: Parameters<typeof fixtureDaemonSet>[2]) => {
      const ds = fixtureDaemonSet('kube-system', 'cilium', counts);
      (ds.spec as { updateStrategy: { type: string } }).updateStrategy.type = 'OnDelete';
      return ds as never;
    };
    // Pods wait for a manual delete to pick up a new template: not a health problem.
    expect(daemonSetProblem(onDelete({ desired: 3, updated: 1 }))).toBeUndefined();
    // Pods that are not available are, whatever the update strategy.
    expect(daemonSetProblem(onDelete({ desired: 3, available: 1 }))).toBe('1 of 3 pods available');
  });

  it('passes a fully available agent and fails a missing one', async () => {
    const good = await checkCiliumAgent(
      'platform',
      ctx(kube({ daemonSet: fixtureDaemonSet('kube-system', 'cilium', { desired: 4 }) })),
    );
    expect(good).toEqual({ status: 'pass', message: 'DaemonSet kube-system/cilium: 4/4 available' });
    const bad = await checkCiliumAgent(
      'platform',
      ctx(kube({ daemonSet: fixtureDaemonSet('kube-system', 'cilium', { desired: 4, available: 3 }) })),
    );
    expect(bad.status).toBe('fail');
    expect(bad.details).toEqual(['desired 4, updated 4, ready 3, available 3, unavailable 1']);
    expect((await checkCiliumAgent('platform', ctx(kube({})))).status).toBe('fail');
  });
});

describe('argocd_apps', () => {
  it('lists every Application that is not Synced and Healthy, with its status', async () => {
    const outcome = await checkArgocdApps(
      'platform',
      ctx(
        kube({
          apps: [
            fixtureApplication('root'),
            fixtureApplication('backstage', 'OutOfSync', 'Healthy'),
            fixtureApplication(
              'monitoring',
              'Synced',
              'Degraded',
              'argocd',
              'Deployment grafana exceeded its progress deadline',
            ),
            fixtureApplication('kyverno', 'Synced', 'Progressing'),
          ],
        }),
      ),
    );
    expect(outcome.status).toBe('fail');
    expect(outcome.message).toBe('3 of 4 Applications not Synced/Healthy: backstage, monitoring, kyverno');
    expect(outcome.details).toEqual([
      'backstage: OutOfSync/Healthy',
      'monitoring: Synced/Degraded (Deployment grafana exceeded its progress deadline)',
      'kyverno: Synced/Progressing',
    ]);
  });

  it('fails when there is no Application at all: nothing deployed is nothing verified', async () => {
    const outcome = await checkArgocdApps('platform', ctx(kube({ apps: [] })));
    expect(outcome).toMatchObject({
      status: 'fail',
      message: 'no Applications in namespace argocd: ArgoCD deploys nothing',
    });
  });

  it('passes when all are Synced and Healthy', async () => {
    const outcome = await checkArgocdApps(
      'platform',
      ctx(kube({ apps: [fixtureApplication('a'), fixtureApplication('b')] })),
    );
    expect(outcome).toEqual({ status: 'pass', message: '2 Applications Synced and Healthy' });
  });
});

describe('gateway', () => {
  it('requires Accepted and Programmed', async () => {
    const good = await checkGateway(
      'platform',
      'gateway',
      'public',
      ctx(kube({ gateway: fixtureGateway('gateway', 'public') })),
    );
    expect(good.status).toBe('pass');
    const bad = await checkGateway(
      'platform',
      'gateway',
      'public',
      ctx(kube({ gateway: fixtureGateway('gateway', 'public', true, false) })),
    );
    expect(bad).toEqual({
      status: 'fail',
      message: 'Gateway gateway/public: Programmed=False (AddressNotAssigned: no load balancer address assigned yet)',
    });
    const stale = stored(gateway('gateway', 'public'), 5);
    expect((await checkGateway('platform', 'gateway', 'public', ctx(kube({ gateway: stale })))).message).toContain(
      'Accepted is about generation 1, not the current 5',
    );
  });
});

describe('http endpoints (loopback server)', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/ok') return response.writeHead(200).end('fine');
      if (request.url === '/login') return response.writeHead(302, { location: 'https://sso.example.com/' }).end();
      if (request.url === '/broken') return response.writeHead(500).end('oops');
      // /hang: never answer
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  const httpCtx = (timeoutMs = 1000) =>
    ctx({}, { signal: AbortSignal.timeout(timeoutMs), timeoutMs }, fakeDeps({}, { fetch }));

  it('accepts an expected status and does not follow redirects', async () => {
    expect(await checkHttpEndpoint(`${base}/ok`, [200], httpCtx())).toEqual({ status: 'pass', message: 'HTTP 200' });
    expect(await checkHttpEndpoint(`${base}/login`, [200, 302], httpCtx())).toEqual({
      status: 'pass',
      message: 'HTTP 302 -> https://sso.example.com/',
    });
  });

  it('fails a 500, a refused connection and a hung endpoint (timeout, not a hang)', async () => {
    expect(await checkHttpEndpoint(`${base}/broken`, [200, 302], httpCtx())).toEqual({
      status: 'fail',
      message: 'HTTP 500, expected 200 or 302',
    });
    const closed = await closedPort();
    const refused = await checkHttpEndpoint(`http://127.0.0.1:${closed}/`, [200], httpCtx());
    expect(refused).toEqual({ status: 'fail', message: `cannot connect to 127.0.0.1:${closed} (ECONNREFUSED)` });
    expect(await checkHttpEndpoint('http://127.0.0.1:9/', [200], httpCtx())).toEqual({
      status: 'fail',
      message: 'request failed: fetch failed (bad port)',
    });
    const started = Date.now();
    expect(await checkHttpEndpoint(`${base}/hang`, [200], httpCtx(300))).toEqual({
      status: 'fail',
      message: 'no answer within 0.3s',
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await checkTailscaleUrl(`${base}/ok`, httpCtx())).toEqual({ status: 'pass', message: 'HTTP 200' });
  });
});

describe('tailscale', () => {
  const script = join(FIXTURES, 'fake-tailscale.sh');
  const realCtx = () => ctx({}, {}, fakeDeps({}, { runCommand: commandRunner(process.env) }));
  afterEach(() => vi.unstubAllEnvs());

  it('passes when running and the configured peers are online (real child process)', async () => {
    expect(
      await checkTailscale(script, ['platform-bastion', 'subnet-router.tail1234.ts.net', '100.64.0.2'], realCtx()),
    ).toEqual({
      status: 'pass',
      message: 'Running, 3 peers online',
    });
  });

  it('fails offline and unknown peers', async () => {
    const outcome = await checkTailscale(script, ['old-laptop', 'ghost'], realCtx());
    expect(outcome).toMatchObject({
      status: 'fail',
      message: 'tailscale peers offline: old-laptop; not in the tailnet: ghost',
    });
  });

  it('a peer re-registered under the same host name is online when its current node is', async () => {
    // A rebuilt bastion joins as a new node; the old one lingers offline until it is removed or its key expires.
    const status = {
      BackendState: 'Running',
      Self: { HostName: 'ci-runner', Online: true },
      Peer: {
        'nodekey:old': { HostName: 'platform-bastion', DNSName: 'platform-bastion.tail1234.ts.net.', Online: false },
        'nodekey:new': { HostName: 'platform-bastion', DNSName: 'platform-bastion-1.tail1234.ts.net.', Online: true },
        'nodekey:gone': { HostName: 'subnet-router', DNSName: 'subnet-router.tail1234.ts.net.', Online: false },
      },
    };
    const deps = fakeDeps(
      {},
      {
        runCommand: () => Promise.resolve({ type: 'exited', exitCode: 0, stdout: JSON.stringify(status), stderr: '' }),
      },
    );
    expect(await checkTailscale('tailscale', ['platform-bastion'], ctx({}, {}, deps))).toEqual({
      status: 'pass',
      message: 'Running, 1 peers online',
    });
    expect(await checkTailscale('tailscale', ['platform-bastion', 'subnet-router'], ctx({}, {}, deps))).toEqual({
      status: 'fail',
      message: 'tailscale peers offline: subnet-router',
    });
  });

  it('fails a stopped daemon and explains a missing binary', async () => {
    vi.stubEnv('FAKE_TAILSCALE_STATUS', join(FIXTURES, 'tailscale-stopped.json'));
    const stopped = await checkTailscale(script, [], realCtx());
    expect(stopped).toMatchObject({
      status: 'fail',
      message: 'tailscale is NeedsLogin, not Running',
      hint: 'run `tailscale up`',
    });
    expect(stopped.details).toEqual(['not logged in']);
    const missing = await checkTailscale('/nonexistent/tailscale', [], realCtx());
    expect(missing).toMatchObject({
      status: 'error',
      message: 'the tailscale binary "/nonexistent/tailscale" was not found',
    });
  });

  it('reports a failing CLI with its stderr', async () => {
    const outcome = await checkTailscale(
      'tailscale',
      [],
      ctx(
        {},
        {},
        fakeDeps(
          {},
          {
            runCommand: () =>
              Promise.resolve({
                type: 'exited',
                exitCode: 1,
                stdout: '',
                stderr: 'failed to connect to local tailscaled\n',
              }),
          },
        ),
      ),
    );
    expect(outcome).toEqual({
      status: 'fail',
      message: 'tailscale status failed (exit 1): failed to connect to local tailscaled',
    });
    expect(JSON.parse(readFileSync(join(FIXTURES, 'tailscale-running.json'), 'utf8'))).toMatchObject({
      BackendState: 'Running',
    });
  });
});
