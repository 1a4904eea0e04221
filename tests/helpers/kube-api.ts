/**
 * A loopback stand-in for the Kubernetes API server: serves nodes, DaemonSets, ArgoCD Applications, Gateways (and
 * any other custom resource) from fixtures, over plain HTTP or HTTPS with a self-signed certificate, and records
 * every request. Real enough for `@kubernetes/client-node`: same paths, list envelopes, `Status` errors, paging.
 *
 *   const kube = await startKubeApi({ nodes: [readyNode('n1')] });
 *   const kubeconfig = kube.writeKubeconfig(dir, 'fixture');   // context "fixture", skipTLSVerify for http
 *   ...
 *   await kube.close();
 *
 * Fault injection: `kube.hang = (req) => boolean` never answers matching requests (a hung API server);
 * `kube.fail = (req) => ({ code, message }) | undefined` answers with a `Status` error.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type KubeFixtureObject = Record<string, unknown> & {
  metadata?: { name?: string; namespace?: string; [key: string]: unknown };
};

export interface KubeFixtures {
  nodes?: KubeFixtureObject[];
  /** Namespaced; `metadata.namespace` is required. */
  daemonSets?: KubeFixtureObject[];
  /** argoproj.io/v1alpha1 applications; namespaced. */
  applications?: KubeFixtureObject[];
  /** gateway.networking.k8s.io/v1 gateways; namespaced. */
  gateways?: KubeFixtureObject[];
  /** Any other collection, keyed `<group>/<version>/<plural>` (core: `v1/<plural>`). */
  custom?: Record<string, KubeFixtureObject[]>;
}

export interface RecordedRequest {
  readonly method: string;
  /** Path and query. */
  readonly url: string;
  readonly authorization?: string;
}

export interface KubeApiOptions {
  /** Serve HTTPS with a fresh self-signed certificate for 127.0.0.1 (needs the openssl binary). */
  readonly https?: boolean;
  /** At most this many items per list page (exercise `continue`); default: all. */
  readonly pageSize?: number;
  /** Answer 401 unless the request carries `Authorization: Bearer <prefix>...`. */
  readonly requireBearerPrefix?: string;
}

export interface KubeApiServer {
  readonly url: string;
  /** Base64 PEM of the server certificate (HTTPS only), as EKS DescribeCluster returns `certificateAuthority.data`. */
  readonly caData?: string;
  fixtures: KubeFixtures;
  readonly requests: RecordedRequest[];
  hang: ((request: RecordedRequest) => boolean) | undefined;
  fail: ((request: RecordedRequest) => { code: number; message: string } | undefined) | undefined;
  /** Writes a kubeconfig with one cluster/user/context named `context` pointing here; returns its path. */
  writeKubeconfig(dir: string, context?: string): string;
  close(): Promise<void>;
}

const GROUPED: Record<string, keyof KubeFixtures> = {
  'apps/v1/daemonsets': 'daemonSets',
  'argoproj.io/v1alpha1/applications': 'applications',
  'gateway.networking.k8s.io/v1/gateways': 'gateways',
  'v1/nodes': 'nodes',
};

function collection(fixtures: KubeFixtures, key: string): KubeFixtureObject[] {
  const named = GROUPED[key];
  if (named && named !== 'custom') return fixtures[named] ?? [];
  return fixtures.custom?.[key] ?? [];
}

/** Parses `/api/v1/...` and `/apis/<group>/<version>/...` into a collection key, namespace and name. */
function route(path: string): { key: string; namespace?: string; name?: string } | undefined {
  const core = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?([^/]+)(?:\/([^/]+))?$/.exec(path);
  if (core) return { key: `v1/${core[2]}`, ...opt('namespace', core[1]), ...opt('name', core[3]) };
  const grouped = /^\/apis\/([^/]+)\/([^/]+)\/(?:namespaces\/([^/]+)\/)?([^/]+)(?:\/([^/]+))?$/.exec(path);
  if (grouped) {
    return {
      key: `${grouped[1]}/${grouped[2]}/${grouped[4]}`,
      ...opt('namespace', grouped[3]),
      ...opt('name', grouped[5]),
    };
  }
  return undefined;
}

function opt<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: decodeURIComponent(value) } as Record<K, string>);
}

function status(response: ServerResponse, code: number, reason: string, message: string): void {
  response.writeHead(code, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code }));
}

function selfSignedCert(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'platctl-kube-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts the fake API server on a free loopback port. */
export async function startKubeApi(fixtures: KubeFixtures = {}, options: KubeApiOptions = {}): Promise<KubeApiServer> {
  const tls = options.https ? selfSignedCert() : undefined;
  const requests: RecordedRequest[] = [];
  const state: Pick<KubeApiServer, 'fixtures' | 'hang' | 'fail'> = { fixtures, hang: undefined, fail: undefined };

  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
    };
    requests.push(recorded);
    request.resume();
    if (state.hang?.(recorded)) return;
    const injected = state.fail?.(recorded);
    if (injected) return status(response, injected.code, 'InjectedFailure', injected.message);
    if (options.requireBearerPrefix !== undefined) {
      if (!recorded.authorization?.startsWith(`Bearer ${options.requireBearerPrefix}`)) {
        return status(response, 401, 'Unauthorized', 'Unauthorized');
      }
    }
    const url = new URL(recorded.url, 'http://fixture');
    if (recorded.method !== 'GET') return status(response, 405, 'MethodNotAllowed', 'the fixture server is read-only');
    if (url.pathname === '/version') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ major: '1', minor: '31', gitVersion: 'v1.31.0-fixture', platform: 'linux/amd64' }));
      return;
    }
    const target = route(url.pathname);
    if (!target) return status(response, 404, 'NotFound', `the server could not find the requested resource`);
    const all = collection(state.fixtures, target.key).filter(
      (item) => target.namespace === undefined || item.metadata?.namespace === target.namespace,
    );
    const plural = target.key.split('/').pop() ?? target.key;
    if (target.name !== undefined) {
      const item = all.find((candidate) => candidate.metadata?.name === target.name);
      if (!item) return status(response, 404, 'NotFound', `${plural} "${target.name}" not found`);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(item));
      return;
    }
    const offset = Number(url.searchParams.get('continue') ?? '0') || 0;
    const limit = Math.min(
      Number(url.searchParams.get('limit') ?? '0') || Number.MAX_SAFE_INTEGER,
      options.pageSize ?? Number.MAX_SAFE_INTEGER,
    );
    const page = all.slice(offset, offset + limit);
    const next = offset + page.length < all.length ? String(offset + page.length) : undefined;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        kind: 'List',
        apiVersion: 'v1',
        metadata: { resourceVersion: '1', ...(next ? { continue: next } : {}) },
        items: page,
      }),
    );
  };

  const server: Server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const caData = tls ? Buffer.from(tls.cert).toString('base64') : undefined;

  return {
    url,
    ...(caData ? { caData } : {}),
    get fixtures() {
      return state.fixtures;
    },
    set fixtures(value) {
      state.fixtures = value;
    },
    requests,
    get hang() {
      return state.hang;
    },
    set hang(value) {
      state.hang = value;
    },
    get fail() {
      return state.fail;
    },
    set fail(value) {
      state.fail = value;
    },
    writeKubeconfig(dir, context = 'fixture') {
      const file = join(dir, `kubeconfig-${context}`);
      const cluster = tls
        ? `    server: ${url}\n    certificate-authority-data: ${caData}\n`
        : `    server: ${url}\n    insecure-skip-tls-verify: true\n`;
      writeFileSync(
        file,
        `apiVersion: v1\nkind: Config\nclusters:\n- name: ${context}\n  cluster:\n${cluster}users:\n- name: ${context}\n  user:\n    token: fixture-token\ncontexts:\n- name: ${context}\n  context:\n    cluster: ${context}\n    user: ${context}\ncurrent-context: ${context}\n`,
      );
      return file;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hung requests hold their sockets open; a test server must not keep the test process alive.
        server.closeAllConnections();
      });
    },
  };
}

/** A node with a Ready condition of the given status. */
export function fixtureNode(name: string, ready: boolean | 'Unknown' = true): KubeFixtureObject {
  const readyStatus = ready === 'Unknown' ? 'Unknown' : ready ? 'True' : 'False';
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    status: {
      conditions: [
        { type: 'MemoryPressure', status: 'False' },
        {
          type: 'Ready',
          status: readyStatus,
          reason: readyStatus === 'True' ? 'KubeletReady' : 'KubeletNotReady',
          message: readyStatus === 'True' ? 'kubelet is posting ready status' : 'container runtime network not ready',
        },
      ],
    },
  };
}

/** A DaemonSet with `desired` pods of which `available` are available and `updated` are at the current spec. */
export function fixtureDaemonSet(
  namespace: string,
  name: string,
  counts: { desired: number; available?: number; updated?: number; generation?: number; observedGeneration?: number },
): KubeFixtureObject {
  const generation = counts.generation ?? 3;
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace, generation },
    spec: { updateStrategy: { type: 'RollingUpdate' } },
    status: {
      desiredNumberScheduled: counts.desired,
      currentNumberScheduled: counts.desired,
      updatedNumberScheduled: counts.updated ?? counts.desired,
      numberAvailable: counts.available ?? counts.desired,
      numberReady: counts.available ?? counts.desired,
      numberUnavailable: counts.desired - (counts.available ?? counts.desired),
      observedGeneration: counts.observedGeneration ?? generation,
    },
  };
}

/** An ArgoCD Application with the given sync and health status. */
export function fixtureApplication(
  name: string,
  sync = 'Synced',
  health = 'Healthy',
  namespace = 'argocd',
  healthMessage?: string,
): KubeFixtureObject {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace },
    spec: { project: 'default' },
    status: {
      sync: { status: sync, revision: 'abc123' },
      health: { status: health, ...(healthMessage ? { message: healthMessage } : {}) },
    },
  };
}

/** A Gateway API Gateway with Accepted/Programmed conditions. */
export function fixtureGateway(namespace: string, name: string, accepted = true, programmed = true): KubeFixtureObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace, generation: 2 },
    spec: { gatewayClassName: 'cilium' },
    status: {
      conditions: [
        {
          type: 'Accepted',
          status: accepted ? 'True' : 'False',
          reason: accepted ? 'Accepted' : 'Invalid',
          observedGeneration: 2,
        },
        {
          type: 'Programmed',
          status: programmed ? 'True' : 'False',
          reason: programmed ? 'Programmed' : 'AddressNotAssigned',
          message: programmed ? '' : 'no load balancer address assigned yet',
          observedGeneration: 2,
        },
      ],
    },
  };
}
