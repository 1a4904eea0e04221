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
 *
 * Writes behave like a real API server's, for any collection: POST creates (409 when it exists), PATCH applies a JSON
 * merge patch, DELETE removes, or only marks an object that still has finalizers (`deletionTimestamp`) until a
 * patch clears them. `POST .../pods/<name>/eviction` honours PodDisruptionBudgets (`policy/v1`, `matchLabels`,
 * `status.disruptionsAllowed`): 429 when one refuses. Lists filter by `labelSelector` (`k=v`, `k`) and
 * `fieldSelector` (`spec.nodeName=`, `metadata.name=`). `kube.controllers` run after every request.
 *
 * Only for what a real API server cannot be made to do: tests/unit/cloud/kube.test.ts uses it for list pages of 2
 * (continue tokens), a server that never answers, a fake clock for EKS token re-signing, and a certificate from
 * another CA. Everything else runs against the real server (kube-server.ts).
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
  readonly contentType?: string;
}

/** Stands in for a cluster controller: called with the fixtures after every request. */
export type FakeController = (fixtures: KubeFixtures) => void;

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
  /** Run after every request, in order. */
  readonly controllers: FakeController[];
  /** False makes `/readyz` answer 503. */
  ready: boolean;
  /** The requests that were not GETs (writes), as `METHOD path`. */
  writes(): string[];
  /** The objects of a collection key (`v1/pods`, `karpenter.sh/v1/nodepools`), live. */
  objects(key: string): KubeFixtureObject[];
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

/** The live array of a collection, created empty when missing so writes land in the fixtures. */
function collection(fixtures: KubeFixtures, key: string): KubeFixtureObject[] {
  const named = GROUPED[key];
  if (named && named !== 'custom') {
    fixtures[named] ??= [];
    return fixtures[named];
  }
  fixtures.custom ??= {};
  fixtures.custom[key] ??= [];
  return fixtures.custom[key];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

function labelsMatch(labels: Record<string, string> | undefined, selector: string): boolean {
  return selector
    .split(',')
    .filter((part) => part !== '')
    .every((part) => {
      const [key, value] = part.split('=');
      if (key === undefined) return true;
      return value === undefined ? labels?.[key] !== undefined : labels?.[key] === value;
    });
}

function fieldsMatch(item: KubeFixtureObject, selector: string): boolean {
  return selector
    .split(',')
    .filter((part) => part !== '')
    .every((part) => {
      const [path, value] = part.split('=');
      let current: unknown = item;
      for (const key of (path ?? '').split('.')) current = isObject(current) ? current[key] : undefined;
      return (typeof current === 'string' || typeof current === 'number' ? String(current) : '') === value;
    });
}

/** A pod's PodDisruptionBudget that allows no disruption now, if any. */
function blockingPdb(fixtures: KubeFixtures, pod: KubeFixtureObject): KubeFixtureObject | undefined {
  const labels = (pod.metadata?.labels ?? {}) as Record<string, string>;
  return collection(fixtures, 'policy/v1/poddisruptionbudgets').find((pdb) => {
    if (pdb.metadata?.namespace !== pod.metadata?.namespace) return false;
    const match = ((pdb.spec as Json | undefined)?.selector as Json | undefined)?.matchLabels as
      Record<string, string> | undefined;
    const selects = Object.entries(match ?? {}).every(([k, v]) => labels[k] === v);
    return selects && Number((pdb.status as Json | undefined)?.disruptionsAllowed ?? 0) <= 0;
  });
}

/** Removes `item` from `list` when it is marked for deletion and no finalizer holds it. */
function reap(list: KubeFixtureObject[], item: KubeFixtureObject): void {
  const finalizers = (item.metadata?.finalizers as string[] | undefined) ?? [];
  if (item.metadata?.deletionTimestamp !== undefined && finalizers.length === 0) {
    const index = list.indexOf(item);
    if (index >= 0) list.splice(index, 1);
  }
}

function readBody(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text === '' ? undefined : JSON.parse(text));
      } catch {
        resolve(text);
      }
    });
  });
}

/** Parses `/api/v1/...` and `/apis/<group>/<version>/...` into a collection key, namespace and name. */
function route(path: string): { key: string; namespace?: string; name?: string; sub?: string } | undefined {
  const core = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?([^/]+)(?:\/([^/]+))?(?:\/(eviction))?$/.exec(path);
  if (core) {
    return { key: `v1/${core[2]}`, ...opt('namespace', core[1]), ...opt('name', core[3]), ...opt('sub', core[4]) };
  }
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
  const state: Pick<KubeApiServer, 'fixtures' | 'hang' | 'fail' | 'ready'> = {
    fixtures,
    hang: undefined,
    fail: undefined,
    ready: true,
  };
  const controllers: FakeController[] = [];
  const json = (response: ServerResponse, code: number, body: unknown): void => {
    response.writeHead(code, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };

  const serve = (recorded: RecordedRequest, body: unknown, response: ServerResponse): void => {
    const url = new URL(recorded.url, 'http://fixture');
    const method = recorded.method;
    if (url.pathname === '/version' && method === 'GET') {
      return json(response, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0-fixture', platform: 'linux/amd64' });
    }
    if (url.pathname === '/readyz' && method === 'GET') {
      response.writeHead(state.ready ? 200 : 503, { 'content-type': 'text/plain' });
      response.end(state.ready ? 'ok' : '[-]etcd failed');
      return;
    }
    const target = route(url.pathname);
    if (!target) return status(response, 404, 'NotFound', `the server could not find the requested resource`);
    const list = collection(state.fixtures, target.key);
    const all = list.filter((item) => target.namespace === undefined || item.metadata?.namespace === target.namespace);
    const plural = target.key.split('/').pop() ?? target.key;
    const item = target.name === undefined ? undefined : all.find((c) => c.metadata?.name === target.name);
    const missing = (): void => status(response, 404, 'NotFound', `${plural} "${target.name ?? ''}" not found`);

    if (method === 'POST' && target.sub === 'eviction') {
      if (!item) return missing();
      const pdb = blockingPdb(state.fixtures, item);
      if (pdb) {
        return status(
          response,
          429,
          'TooManyRequests',
          "Cannot evict pod as it would violate the pod's disruption budget.",
        );
      }
      list.splice(list.indexOf(item), 1);
      return json(response, 201, { kind: 'Status', status: 'Success', code: 201 });
    }
    if (method === 'POST' && target.name === undefined) {
      const created = (isObject(body) ? body : {}) as KubeFixtureObject;
      const name = created.metadata?.name;
      if (all.some((c) => c.metadata?.name === name)) {
        return status(response, 409, 'AlreadyExists', `${plural} "${name ?? ''}" already exists`);
      }
      const stored: KubeFixtureObject = {
        ...created,
        metadata: {
          ...created.metadata,
          ...(target.namespace ? { namespace: target.namespace } : {}),
          uid: `uid-${Math.random().toString(16).slice(2)}`,
          creationTimestamp: new Date().toISOString(),
        },
      };
      list.push(stored);
      return json(response, 201, stored);
    }
    if (method === 'DELETE' && item) {
      const finalizers = (item.metadata?.finalizers as string[] | undefined) ?? [];
      if (finalizers.length > 0) {
        item.metadata = {
          ...item.metadata,
          deletionTimestamp: item.metadata?.deletionTimestamp ?? new Date().toISOString(),
        };
      } else {
        list.splice(list.indexOf(item), 1);
      }
      return json(response, 200, item);
    }
    if (method === 'PATCH' && item) {
      const patched = mergePatch(item, body) as KubeFixtureObject;
      for (const key of Object.keys(item)) delete item[key];
      Object.assign(item, patched);
      reap(list, item);
      return json(response, 200, item);
    }
    if (method !== 'GET')
      return item ? status(response, 405, 'MethodNotAllowed', `${method} not supported`) : missing();
    if (target.name !== undefined) return item ? json(response, 200, item) : missing();
    const labelSelector = url.searchParams.get('labelSelector');
    const fieldSelector = url.searchParams.get('fieldSelector');
    const selected = all.filter(
      (c) =>
        (labelSelector === null ||
          labelsMatch(c.metadata?.labels as Record<string, string> | undefined, labelSelector)) &&
        (fieldSelector === null || fieldsMatch(c, fieldSelector)),
    );
    const offset = Number(url.searchParams.get('continue') ?? '0') || 0;
    const limit = Math.min(
      Number(url.searchParams.get('limit') ?? '0') || Number.MAX_SAFE_INTEGER,
      options.pageSize ?? Number.MAX_SAFE_INTEGER,
    );
    const page = selected.slice(offset, offset + limit);
    const next = offset + page.length < selected.length ? String(offset + page.length) : undefined;
    return json(response, 200, {
      kind: 'List',
      apiVersion: 'v1',
      metadata: { resourceVersion: '1', ...(next ? { continue: next } : {}) },
      items: page,
    });
  };

  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
      ...(request.headers['content-type'] ? { contentType: request.headers['content-type'] } : {}),
    };
    requests.push(recorded);
    void readBody(request).then((body) => {
      if (state.hang?.(recorded)) return;
      const injected = state.fail?.(recorded);
      if (injected) return status(response, injected.code, 'InjectedFailure', injected.message);
      if (options.requireBearerPrefix !== undefined) {
        if (!recorded.authorization?.startsWith(`Bearer ${options.requireBearerPrefix}`)) {
          return status(response, 401, 'Unauthorized', 'Unauthorized');
        }
      }
      serve(recorded, body, response);
      for (const controller of controllers) controller(state.fixtures);
    });
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
    controllers,
    get ready() {
      return state.ready;
    },
    set ready(value) {
      state.ready = value;
    },
    writes: () => requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.url}`),
    objects: (key) => collection(state.fixtures, key),
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
