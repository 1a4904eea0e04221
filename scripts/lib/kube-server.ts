/**
 * A real Kubernetes API server: etcd and kube-apiserver, built from source by `npm run tools`
 * (scripts/install-kube.sh) into .tools/bin, started on free loopback ports with a fresh CA, a serving certificate,
 * service account keys, a token file and RBAC on. No kubelet and no controllers: the caller plays the kubelet (writes
 * pod and node status through the status subresource) and any controller it needs.
 *
 * The one start-up shared by the tests (tests/helpers/kube-server.ts adds vitest hooks around it) and
 * `npm run demo:park` (scripts/demo-park.ts), so the demo runs against the same server the tests do. It imports
 * nothing from tests/.
 *
 *   const kube = await startKubeServer({ audit: true });
 *   await kube.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } });
 *   const file = kube.writeKubeconfig(dir, { context: 'fixture', user: 'limited' });
 *   await kube.stop();
 *
 * When the binaries are not built, {@link kubeServerUnavailable} gives the reason, unless CI (or
 * PLATCTL_REQUIRE_KUBE=1) is set: then a missing binary throws, so CI never skips silently.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

/**
 * The repository: the first folder above this module holding scripts/install-kube.sh (this file runs from scripts/lib
 * under tsx and vitest, and from dist/scripts/lib once built).
 */
function repoRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'scripts', 'install-kube.sh'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no scripts/install-kube.sh above ${import.meta.dirname}`);
    dir = parent;
  }
  return dir;
}

const REPO_ROOT = repoRoot();

/** A TCP port free on 127.0.0.1 now (another process may take it before it is used: callers retry). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The pinned Kubernetes version, read from the build script so the two never disagree. */
export const KUBERNETES_VERSION = /^KUBERNETES_VERSION=(\S+)$/m.exec(
  readFileSync(join(REPO_ROOT, 'scripts/install-kube.sh'), 'utf8'),
)?.[1];

export interface KubeBinaries {
  readonly apiserver: string;
  readonly etcd: string;
  readonly kubectl: string;
}

/** Where the binaries are: PLATCTL_KUBE_BIN (a directory) or the repository's .tools/bin. */
export function kubeBinaries(): KubeBinaries {
  const dir = process.env.PLATCTL_KUBE_BIN ?? join(REPO_ROOT, '.tools/bin');
  return { apiserver: join(dir, 'kube-apiserver'), etcd: join(dir, 'etcd'), kubectl: join(dir, 'kubectl') };
}

function required(): boolean {
  return (process.env.CI ?? '') !== '' || process.env.PLATCTL_REQUIRE_KUBE === '1';
}

/**
 * Why the real API server cannot run here, or undefined when it can. Missing binaries are a reason to skip; under CI
 * (or PLATCTL_REQUIRE_KUBE=1) they throw instead, so the suite fails rather than skips.
 */
export function kubeServerUnavailable(): string | undefined {
  const bins = kubeBinaries();
  const missing = [bins.apiserver, bins.etcd, bins.kubectl].filter((file) => !existsSync(file));
  if (missing.length === 0) return undefined;
  const reason = `the real Kubernetes API server is not built (missing ${missing.join(', ')}): run \`npm run tools\``;
  if (required()) throw new Error(reason);
  return reason;
}

/** A user of the token file: `admin` is in system:masters; `limited` has no group and only what RBAC grants it. */
export type KubeUser = 'admin' | 'limited';

export type KubeObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
};

export interface KubeResponse {
  readonly status: number;
  readonly body: unknown;
}

export interface KubeServerOptions {
  /** A TokenReview webhook (`--authentication-token-webhook-config-file`) at this http(s) URL. */
  readonly authWebhookUrl?: string;
  /** Give up waiting for /readyz after this long (default 120 s: a loaded 2-core machine). */
  readonly startTimeoutMs?: number;
  /** Keep the server's audit log (every request's user, verb, object and answer): read it with `audit()`. */
  readonly audit?: boolean;
}

/** One request as the server's audit log records it (stage ResponseComplete). */
export interface AuditEvent {
  readonly verb: string;
  readonly requestURI: string;
  readonly user: { readonly username: string };
  readonly objectRef?: {
    readonly resource?: string;
    readonly subresource?: string;
    readonly namespace?: string;
    readonly name?: string;
    readonly apiGroup?: string;
  };
  readonly responseStatus?: { readonly code?: number };
}

export interface KubeServer {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** Base64 of the CA's PEM, as EKS `DescribeCluster` returns `certificateAuthority.data`. */
  readonly caData: string;
  readonly caFile: string;
  /** The temporary folder holding certificates, tokens and etcd's data; removed by stop(). */
  readonly dir: string;
  /** Process ids of etcd and kube-apiserver (or of setpriv, which execs them in place). */
  readonly pids: readonly number[];
  /** How long the last start took, from spawning etcd to /readyz answering ok. */
  readonly startupMs: number;
  readonly tokens: Readonly<Record<KubeUser, string>>;
  /** One request as `user` (default admin): JSON in, JSON out. `body` as a string is sent as it is. */
  request(
    method: string,
    path: string,
    body?: unknown,
    options?: { contentType?: string; user?: KubeUser; token?: string },
  ): Promise<KubeResponse>;
  /** Creates `object`; throws on anything but 201/200. Returns the stored object. */
  create<T extends KubeObject>(object: T): Promise<T>;
  /**
   * Creates `object` and then, as the kubelet or a controller would, writes its `status` through the status
   * subresource (a create drops status where status is a subresource). Returns the stored object.
   */
  apply(object: KubeObject): Promise<KubeObject>;
  /** Reads an object by apiVersion/kind/namespace/name; undefined on 404. */
  get(ref: ObjectRef): Promise<KubeObject | undefined>;
  /** Lists a collection (`namespace` undefined: every namespace, or a cluster-scoped kind). */
  list(ref: Omit<ObjectRef, 'name'>, query?: string): Promise<KubeObject[]>;
  /** A JSON merge patch of the object, or of its status subresource. */
  patch(ref: ObjectRef, patch: Record<string, unknown>, options?: { status?: boolean }): Promise<KubeObject>;
  /** Deletes (404 ignored); with `force`, clears finalizers first and deletes with grace 0. */
  delete(ref: ObjectRef, options?: { force?: boolean }): Promise<void>;
  /** Creates a CRD and waits until the server reports it Established and serves it. */
  createCrd(crd: KubeObject): Promise<void>;
  /** Writes a kubeconfig with one cluster/user/context; returns its path. */
  writeKubeconfig(
    dir: string,
    options?: { context?: string; user?: KubeUser; token?: string; server?: string },
  ): string;
  /**
   * The requests the server answered so far, oldest first (needs `audit: true`). The log is written before the
   * answer is sent, so a request whose answer the caller has seen is in it.
   */
  audit(): AuditEvent[];
  /** Stops etcd and the API server and removes every file they wrote; safe to call twice. */
  stop(): Promise<void>;
}

export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

/** Every server this process started, killed on exit however the test file ends. */
const running = new Set<ChildProcess>();
const dirs = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
}

/**
 * Runs `file` so that it dies with this process even when the exit hook cannot run (a worker killed with SIGKILL):
 * setpriv's parent-death signal, when util-linux provides it.
 */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((file) => existsSync(file));

function spawnGuarded(file: string, args: string[]): ChildProcess {
  const [command, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'KILL', '--', file, ...args]] : [file, args];
  const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** The REST path of a kind: the plural is the lower-cased kind with English plural rules (true for every kind used). */
export function resourcePath(ref: Omit<ObjectRef, 'name'> & { name?: string }, sub?: string): string {
  const lower = ref.kind.toLowerCase();
  const plural = lower.endsWith('s')
    ? `${lower}es`
    : /[^aeiou]y$/.test(lower)
      ? `${lower.slice(0, -1)}ies`
      : `${lower}s`;
  const base = ref.apiVersion.includes('/') ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  const ns = ref.namespace ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
  const name = ref.name ? `/${encodeURIComponent(ref.name)}` : '';
  return `${base}${ns}/${plural}${name}${sub ? `/${sub}` : ''}`;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA, a serving certificate for 127.0.0.1 signed by it, and an EC key pair for service account tokens. */
function writeCertificates(dir: string): void {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'];
  openssl(dir, ['req', '-x509', ...ec, '-subj', '/CN=platctl-test-ca', '-keyout', 'ca.key', '-out', 'ca.crt']);
  openssl(dir, [
    'req',
    '-x509',
    ...ec,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-subj',
    '/CN=kube-apiserver',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-addext',
    'basicConstraints=critical,CA:FALSE',
    '-keyout',
    'server.key',
    '-out',
    'server.crt',
  ]);
  openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'sa.key']);
  openssl(dir, ['ec', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);
}

interface Spawned {
  etcd: ChildProcess;
  apiserver: ChildProcess;
  url: string;
  stderr: () => string;
}

function spawnServers(dir: string, bins: KubeBinaries, ports: number[], options: KubeServerOptions): Spawned {
  const [etcdClient, etcdPeer, apiPort] = ports as [number, number, number];
  const clientUrl = `http://127.0.0.1:${etcdClient}`;
  const peerUrl = `http://127.0.0.1:${etcdPeer}`;
  let log = '';
  const keep = (name: string) => (chunk: Buffer) => {
    log = (log + chunk.toString().replace(/^/gm, `${name}: `)).slice(-8000);
  };
  // The data folder stays on disk (tmpdir): etcd preallocates ~120 MB of WAL.
  const etcd = spawnGuarded(bins.etcd, [
    '--name=platctl-test',
    `--data-dir=${join(dir, 'etcd')}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=platctl-test=${peerUrl}`,
    '--unsafe-no-fsync',
    '--log-level=error',
  ]);
  etcd.stderr?.on('data', keep('etcd'));
  const args = [
    `--etcd-servers=${clientUrl}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${apiPort}`,
    '--advertise-address=127.0.0.1',
    '--endpoint-reconciler-type=none',
    `--tls-cert-file=${join(dir, 'server.crt')}`,
    `--tls-private-key-file=${join(dir, 'server.key')}`,
    `--client-ca-file=${join(dir, 'ca.crt')}`,
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc',
    `--service-account-key-file=${join(dir, 'sa.pub')}`,
    `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
    '--service-cluster-ip-range=10.96.0.0/16',
    '--disable-admission-plugins=ServiceAccount',
    '--profiling=false',
    '-v=0',
  ];
  if (options.audit) {
    writeFileSync(
      join(dir, 'audit-policy.yaml'),
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived, ResponseStarted, Panic]\nrules:\n- level: Metadata\n',
    );
    args.push(
      `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`,
      `--audit-log-path=${join(dir, 'audit.log')}`,
      '--audit-log-format=json',
      '--audit-log-mode=blocking',
      '--audit-log-maxbackup=0',
    );
  }
  if (options.authWebhookUrl !== undefined) {
    writeFileSync(
      join(dir, 'webhook.kubeconfig'),
      `apiVersion: v1\nkind: Config\nclusters:\n- name: authn\n  cluster:\n    server: ${options.authWebhookUrl}\nusers:\n- name: apiserver\n  user: {}\ncontexts:\n- name: authn\n  context:\n    cluster: authn\n    user: apiserver\ncurrent-context: authn\n`,
    );
    args.push(
      `--authentication-token-webhook-config-file=${join(dir, 'webhook.kubeconfig')}`,
      '--authentication-token-webhook-version=v1',
      '--authentication-token-webhook-cache-ttl=0s',
    );
  }
  const apiserver = spawnGuarded(bins.apiserver, args);
  apiserver.stderr?.on('data', keep('kube-apiserver'));
  return { etcd, apiserver, url: `https://127.0.0.1:${apiPort}`, stderr: () => log };
}

function httpsJson(
  url: string,
  ca: string,
  method: string,
  body: unknown,
  headers: Record<string, string>,
  timeoutMs = 30_000,
): Promise<KubeResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = httpsRequest(
      url,
      {
        method,
        ca,
        // A length, never chunking: Node sends a DELETE's body unframed unless told its length, and the server then
        // reads that body as the next request on the kept-alive connection (400 Bad Request).
        headers: {
          accept: 'application/json',
          ...headers,
          ...(payload === undefined ? {} : { 'content-length': String(Buffer.byteLength(payload)) }),
        },
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            // plain text (e.g. /readyz)
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `probe` is true; throws `what` when `deadline` passes or `stop()` says there is no point. */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  options: { timeoutMs?: number; intervalMs?: number; stop?: () => string | undefined } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const stop = options.stop?.();
    if (stop !== undefined) throw new Error(`${what}: ${stop}`);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${options.timeoutMs ?? 30_000} ms`);
    await sleep(options.intervalMs ?? 100);
  }
}

/** Starts etcd and kube-apiserver on free loopback ports and waits until /readyz answers ok. */
export async function startKubeServer(options: KubeServerOptions = {}): Promise<KubeServer> {
  const unavailable = kubeServerUnavailable();
  if (unavailable !== undefined) throw new Error(unavailable);
  installExitHook();
  const bins = kubeBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'platctl-kube-'));
  dirs.add(dir);
  try {
    writeCertificates(dir);
    const tokens: Record<KubeUser, string> = {
      admin: randomBytes(24).toString('hex'),
      limited: randomBytes(24).toString('hex'),
    };
    writeFileSync(
      join(dir, 'tokens.csv'),
      `${tokens.admin},admin,uid-admin,"system:masters"\n${tokens.limited},limited,uid-limited\n`,
    );
    const ca = readFileSync(join(dir, 'ca.crt'), 'utf8');
    const started = Date.now();
    let lastError = '';
    // A port picked free can be taken before the server binds it: try a few sets.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const ports = [await freePort(), await freePort(), await freePort()];
      const spawned = spawnServers(dir, bins, ports, options);
      const exited = (): string | undefined => {
        for (const [name, child] of [
          ['etcd', spawned.etcd],
          ['kube-apiserver', spawned.apiserver],
        ] as const) {
          if (child.exitCode !== null || child.signalCode !== null) {
            return `${name} exited (${child.exitCode ?? child.signalCode ?? '?'}):\n${spawned.stderr().trim().split('\n').slice(-15).join('\n')}`;
          }
        }
        return undefined;
      };
      try {
        await waitFor(
          `kube-apiserver at ${spawned.url} did not become ready`,
          async () =>
            (
              await httpsJson(
                `${spawned.url}/readyz`,
                ca,
                'GET',
                undefined,
                {
                  authorization: `Bearer ${tokens.admin}`,
                },
                5000,
              )
            ).status === 200,
          { timeoutMs: options.startTimeoutMs ?? 120_000, intervalMs: 200, stop: exited },
        );
        return makeServer(dir, spawned, ca, tokens, Date.now() - started);
      } catch (error) {
        await stopProcesses([spawned.apiserver, spawned.etcd]);
        rmSync(join(dir, 'etcd'), { recursive: true, force: true });
        lastError = error instanceof Error ? error.message : String(error);
        if (!/address already in use/.test(lastError)) break;
      }
    }
    throw new Error(lastError);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    dirs.delete(dir);
    throw error;
  }
}

/**
 * SIGKILL at once: nothing the servers hold outlives them (etcd's data folder is removed next), and on SIGTERM
 * kube-apiserver drains for longer than the 5 s a graceful stop was given (measured: every stop took the full 5 s).
 */
async function stopProcesses(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await gone;
    }),
  );
}

function makeServer(
  dir: string,
  spawned: Spawned,
  ca: string,
  tokens: Record<KubeUser, string>,
  startupMs: number,
): KubeServer {
  const caFile = join(dir, 'ca.crt');
  let stopped: Promise<void> | undefined;

  const server: KubeServer = {
    url: spawned.url,
    caData: Buffer.from(ca).toString('base64'),
    caFile,
    dir,
    pids: [spawned.etcd.pid ?? 0, spawned.apiserver.pid ?? 0],
    startupMs,
    tokens,
    request: (method, path, body, options = {}) =>
      httpsJson(`${spawned.url}${path}`, ca, method, body, {
        authorization: `Bearer ${options.token ?? tokens[options.user ?? 'admin']}`,
        ...(body !== undefined ? { 'content-type': options.contentType ?? 'application/json' } : {}),
      }),
    async create(object) {
      const path = resourcePath({ ...object, ...object.metadata, name: undefined } as never);
      const res = await server.request('POST', path, object);
      if (res.status !== 201 && res.status !== 200) throw new Error(describeFailure('create', path, res));
      return res.body as typeof object;
    },
    apply: (object) => applyObject(server, object),
    async get(ref) {
      const path = resourcePath(ref);
      const res = await server.request('GET', path);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw new Error(describeFailure('get', path, res));
      return res.body as KubeObject;
    },
    async list(ref, query) {
      const path = `${resourcePath(ref)}${query ? `?${query}` : ''}`;
      const res = await server.request('GET', path);
      if (res.status !== 200) throw new Error(describeFailure('list', path, res));
      return (res.body as { items?: KubeObject[] }).items ?? [];
    },
    async patch(ref, patch, options = {}) {
      const path = resourcePath(ref, options.status ? 'status' : undefined);
      const res = await server.request('PATCH', path, patch, { contentType: 'application/merge-patch+json' });
      if (res.status !== 200) throw new Error(describeFailure('patch', path, res));
      return res.body as KubeObject;
    },
    delete: (ref, options = {}) => deleteObject(server, ref, options),
    createCrd: (crd) => createServedCrd(server, crd),
    writeKubeconfig(target, options = {}) {
      const context = options.context ?? 'fixture';
      const token = options.token ?? tokens[options.user ?? 'admin'];
      const file = join(target, `kubeconfig-${context}`);
      writeFileSync(
        file,
        `apiVersion: v1\nkind: Config\nclusters:\n- name: ${context}\n  cluster:\n    server: ${options.server ?? spawned.url}\n    certificate-authority-data: ${Buffer.from(ca).toString('base64')}\nusers:\n- name: ${context}\n  user:\n    token: ${token}\ncontexts:\n- name: ${context}\n  context:\n    cluster: ${context}\n    user: ${context}\ncurrent-context: ${context}\n`,
        { mode: 0o600 },
      );
      return file;
    },
    audit: () => readAudit(dir),
    stop() {
      stopped ??= (async () => {
        await stopProcesses([spawned.apiserver, spawned.etcd]);
        rmSync(dir, { recursive: true, force: true });
        dirs.delete(dir);
      })();
      return stopped;
    },
  };
  return server;
}

/** Creates the object, then sets its status through the status subresource (where the kind has one). */
async function applyObject(server: KubeServer, object: KubeObject): Promise<KubeObject> {
  const created = await server.create(object);
  if (object.status === undefined) return created;
  const ref = { ...object, name: object.metadata.name, namespace: object.metadata.namespace } as ObjectRef;
  const path = resourcePath(ref, 'status');
  const res = await server.request(
    'PATCH',
    path,
    { status: object.status },
    {
      contentType: 'application/merge-patch+json',
    },
  );
  // 404: this kind has no status subresource, so the create stored the status with the object.
  if (res.status === 404) return created;
  if (res.status !== 200) throw new Error(describeFailure('patch', path, res));
  return res.body as KubeObject;
}

/** Deletes the object; `force` clears its finalizers first and deletes at once. A missing object is no error. */
async function deleteObject(server: KubeServer, ref: ObjectRef, options: { force?: boolean }): Promise<void> {
  const path = resourcePath(ref);
  if (options.force) {
    const cleared = await server.request(
      'PATCH',
      path,
      { metadata: { finalizers: null } },
      {
        contentType: 'application/merge-patch+json',
      },
    );
    if (cleared.status === 404) return;
  }
  const res = await server.request(
    'DELETE',
    path,
    options.force ? { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 } : undefined,
  );
  if (res.status !== 200 && res.status !== 202 && res.status !== 404) {
    throw new Error(describeFailure('delete', path, res));
  }
}

/** Creates a CRD and waits until it is Established, served, and its objects can be listed. */
async function createServedCrd(server: KubeServer, crd: KubeObject): Promise<void> {
  await server.create(crd);
  const spec = crd.spec as { group: string; names: { plural: string }; versions: { name: string }[] };
  const name = crd.metadata.name;
  await waitFor(`CRD ${name} did not become Established`, async () => {
    const got = await server.get({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name,
    });
    const conditions =
      (got?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
    return conditions.some((c) => c.type === 'Established' && c.status === 'True');
  });
  // Established is not yet served: wait until discovery lists the new resource, then until a list answers (for a
  // moment it is 429 "storage is (re)initializing" while the server's cache of the new kind fills).
  const version = spec.versions[0]?.name ?? 'v1';
  await waitFor(`CRD ${name} is not served`, async () => {
    const res = await server.request('GET', `/apis/${spec.group}/${version}`);
    const resources = (res.body as { resources?: { name: string }[] } | undefined)?.resources ?? [];
    return res.status === 200 && resources.some((r) => r.name === spec.names.plural);
  });
  await waitFor(`CRD ${name} cannot be listed`, async () => {
    const res = await server.request('GET', `/apis/${spec.group}/${version}/${spec.names.plural}?limit=1`);
    return res.status === 200;
  });
}

/** The audit log's events so far. */
function readAudit(dir: string): AuditEvent[] {
  const file = join(dir, 'audit.log');
  if (!existsSync(file)) return [];
  // The server appends while we read: only lines it has finished (ended by a newline) are events.
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.pop();
  return lines.filter((line) => line !== '').map((line) => JSON.parse(line) as AuditEvent);
}

function describeFailure(verb: string, path: string, res: KubeResponse): string {
  const message = (res.body as { message?: string } | undefined)?.message ?? JSON.stringify(res.body);
  return `${verb} ${path}: HTTP ${res.status}: ${message}`;
}
