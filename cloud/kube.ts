/**
 * Read-only Kubernetes access for health checks, built either from EKS `DescribeCluster` (with an EKS token signed
 * per request, no aws CLI) or from a named context of the user's kubeconfig (clusters reached through a proxy, and
 * tests). `@kubernetes/client-node` costs ~330 ms to import, so it is imported here, lazily, and only here; requests
 * go through the one Kubernetes transport (`kube-transport.ts`), as the writer's do.
 */
import { existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { CredentialProvider } from './credentials.js';
import type { EksToken } from './eks-token.js';
import { eksToken } from './eks-token.js';
import type { EnvVars } from './env.js';
import { REQUEST_TIMEOUT_MS, homeDir, requestTimeoutMs } from './env.js';
import type { CloudResult } from './result.js';
import type { CustomResourceRef } from './kube-transport.js';
import {
  collectionPath,
  errorText,
  isObject,
  listPages,
  makeKubeTransport,
  objectPath,
  ok2xx,
} from './kube-transport.js';
import { failure, ok } from './result.js';

export type { CustomResourceRef } from './kube-transport.js';

/** The parts of a Node health checks read. */
export interface KubeCondition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
}

export interface KubeObject {
  readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly generation?: number };
  readonly status?: Record<string, unknown> & { readonly conditions?: readonly KubeCondition[] };
  readonly spec?: Record<string, unknown>;
}

export interface KubeNode extends KubeObject {
  readonly status?: { readonly conditions?: readonly KubeCondition[] };
}

export interface KubeDaemonSet extends KubeObject {
  readonly spec?: { readonly updateStrategy?: { readonly type?: string } };
  readonly status?: {
    readonly desiredNumberScheduled?: number;
    readonly updatedNumberScheduled?: number;
    readonly numberAvailable?: number;
    readonly numberReady?: number;
    readonly numberUnavailable?: number;
    readonly observedGeneration?: number;
    readonly conditions?: readonly KubeCondition[];
  };
}

/** The reads validate needs; each takes an AbortSignal so a hung API server cannot hang a check. */
export interface KubeReader {
  /** The API server URL, for messages. */
  readonly server: string;
  version(signal?: AbortSignal): Promise<CloudResult<{ gitVersion: string }>>;
  listNodes(signal?: AbortSignal): Promise<CloudResult<KubeNode[]>>;
  readDaemonSet(namespace: string, name: string, signal?: AbortSignal): Promise<CloudResult<KubeDaemonSet>>;
  listCustomObjects(ref: CustomResourceRef, signal?: AbortSignal): Promise<CloudResult<KubeObject[]>>;
  getCustomObject(ref: CustomResourceRef & { name: string }, signal?: AbortSignal): Promise<CloudResult<KubeObject>>;
  /** One decoded value of a Secret. A secret: callers must keep it out of logs, state and messages. */
  readSecretKey(namespace: string, name: string, key: string, signal?: AbortSignal): Promise<CloudResult<string>>;
}

/** The kubeconfig files in effect: KUBECONFIG (path-list) or ~/.kube/config. */
export function kubeconfigFiles(env: EnvVars): string[] {
  const list = (env.KUBECONFIG ?? '').split(delimiter).filter((p) => p !== '');
  return list.length > 0 ? list : [join(homeDir(env), '.kube', 'config')];
}

/** Where `platctl kubeconfig` writes: `output` (from `cwd`), else the first KUBECONFIG entry, else ~/.kube/config. */
export function kubeconfigTarget(output: string | undefined, cwd: string, env: EnvVars): string {
  if (output !== undefined) return resolve(cwd, output);
  return kubeconfigFiles(env)[0] ?? join(env.HOME ?? '', '.kube', 'config');
}

/**
 * A reader for `context` of the user's kubeconfig. Files merge like kubectl's: the first file that names a
 * cluster/user/context wins.
 */
export async function kubeReaderFromContext(context: string, env: EnvVars): Promise<CloudResult<KubeReader>> {
  const loaded = await kubeConfigFromContext(context, env);
  return loaded.ok ? ok(makeReader(loaded.value.kc, loaded.value.server, requestTimeoutMs(env))) : loaded;
}

/** The KubeConfig of `context` (see {@link kubeReaderFromContext}); park's writer is built on it too. */
export async function kubeConfigFromContext(
  context: string,
  env: EnvVars,
): Promise<CloudResult<{ kc: KubeConfig; server: string }>> {
  const k8s = await import('@kubernetes/client-node');
  const files = kubeconfigFiles(env).filter((file) => existsSync(file));
  if (files.length === 0) {
    return failure('not-configured', `no kubeconfig found (${kubeconfigFiles(env).join(', ')})`);
  }
  const kc = new k8s.KubeConfig();
  try {
    kc.loadFromFile(files[0] ?? '');
    for (const file of files.slice(1)) {
      const other = new k8s.KubeConfig();
      other.loadFromFile(file);
      for (const cluster of other.clusters) if (!kc.getCluster(cluster.name)) kc.addCluster(cluster);
      for (const user of other.users) if (!kc.getUser(user.name)) kc.addUser(user);
      for (const ctx of other.contexts) if (!kc.getContextObject(ctx.name)) kc.addContext(ctx);
    }
  } catch (error) {
    return failure('error', `cannot read kubeconfig ${files.join(', ')}: ${errorText(error)}`);
  }
  if (!kc.getContextObject(context)) {
    return failure(
      'not-configured',
      `kubeconfig context "${context}" not found in ${files.join(', ')}`,
      'fix environments.<env>.cluster.kubeconfig_context, or run `platctl kubeconfig`',
    );
  }
  kc.setCurrentContext(context);
  const server = kc.getCurrentCluster()?.server ?? '(unknown server)';
  return ok({ kc, server });
}

export interface EksClusterAccess {
  readonly name: string;
  readonly endpoint: string;
  /** Base64 of the PEM CA bundle, exactly as `DescribeCluster` returns it. */
  readonly caData: string;
  readonly region: string;
  readonly credentials: CredentialProvider;
  readonly now?: () => number;
  /** How long one request may go unanswered (default `REQUEST_TIMEOUT_MS`). */
  readonly requestTimeoutMs?: number;
}

/** Re-sign a token this long before the cluster would stop accepting it. */
const TOKEN_REFRESH_MARGIN_MS = 60_000;

/**
 * A reader for an EKS cluster. The token is not stored in the kubeconfig user (client-node would let a static
 * token override the authenticator): an authenticator signs one per request, cached until a
 * minute before it lapses, so a long run never meets a 401 at minute 15.
 */
export async function kubeReaderForEks(access: EksClusterAccess): Promise<KubeReader> {
  return makeReader(await kubeConfigForEks(access), access.endpoint, access.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
}

/** The KubeConfig {@link kubeReaderForEks} reads through; park's writer is built on it too. */
export async function kubeConfigForEks(access: EksClusterAccess): Promise<KubeConfig> {
  const k8s = await import('@kubernetes/client-node');
  const now = access.now ?? Date.now;
  const userName = `platctl-eks:${access.name}`;
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: access.name, server: access.endpoint, caData: access.caData, skipTLSVerify: false }],
    users: [{ name: userName }],
    contexts: [{ name: access.name, cluster: access.name, user: userName }],
    currentContext: access.name,
  });
  let cached: EksToken | undefined;
  kc.addAuthenticator({
    isAuthProvider: (user) => user.name === userName,
    applyAuthentication: async (_user, opts) => {
      if (!cached || now() > cached.expiresAt.getTime() - TOKEN_REFRESH_MARGIN_MS) {
        cached = await eksToken(access.name, access.region, access.credentials, now);
      }
      opts.headers = { ...(opts.headers ?? {}), Authorization: `Bearer ${cached.token}` };
    },
  });
  return kc;
}

/**
 * A reader over `kc`, sent through the one Kubernetes transport (`kube-transport.ts`): every request is bounded by
 * the request timeout and the caller's signal, credentials included.
 */
function makeReader(kc: KubeConfig, server: string, timeoutMs: number): KubeReader {
  const transport = makeKubeTransport(kc, server, { requestTimeoutMs: timeoutMs });
  const read = <T>(object: string, path: string, signal: AbortSignal | undefined): Promise<CloudResult<T>> =>
    transport.call(
      { doing: `reading ${object}`, object },
      () => transport.send('GET', path, { signal }),
      // A 2xx that is not a JSON object (an empty answer, a proxy's page) is a failure with its status.
      (status, json) => (ok2xx(status) && isObject(json) ? (json as T) : undefined),
    );
  const list = <T>(object: string, ref: CustomResourceRef, signal: AbortSignal | undefined) =>
    transport.call(
      { doing: `reading ${object}`, object },
      () =>
        listPages(
          (query) => transport.send('GET', `${collectionPath(ref, ref.namespace)}?${query.toString()}`, { signal }),
          ref,
        ),
      (status, json) => (ok2xx(status) ? (json as T[]) : undefined),
    );
  return {
    server,
    version: async (signal) => {
      const info = await read<{ gitVersion: string }>('the API server version', '/version', signal);
      return info.ok ? ok({ gitVersion: info.value.gitVersion }) : info;
    },
    listNodes: (signal) => list<KubeNode>('nodes', { group: '', version: 'v1', plural: 'nodes' }, signal),
    readDaemonSet: (namespace, name, signal) =>
      read(`DaemonSet ${namespace}/${name}`, objectPath(daemonSets(namespace), name), signal),
    listCustomObjects: (ref, signal) => list<KubeObject>(describeRef(ref), ref, signal),
    getCustomObject: (ref, signal) => read(`${describeRef(ref)} ${ref.name}`, objectPath(ref, ref.name), signal),
    readSecretKey: async (namespace, name, key, signal) => {
      const secret = { group: '', version: 'v1', plural: 'secrets', namespace };
      const what = `Secret ${namespace}/${name}`;
      const found = await read<{ data?: Record<string, string> }>(what, objectPath(secret, name), signal);
      return found.ok ? secretValue(found.value, what, key) : found;
    },
  };
}

function daemonSets(namespace: string): CustomResourceRef {
  return { group: 'apps', version: 'v1', plural: 'daemonsets', namespace };
}

/** One decoded key of a Secret read, or which keys it has. */
function secretValue(secret: { data?: Record<string, string> }, what: string, key: string): CloudResult<string> {
  const encoded = secret.data?.[key];
  if (encoded === undefined) {
    const keys = Object.keys(secret.data ?? {});
    return failure('not-found', `${what} has no key ${key}${keys.length > 0 ? ` (it has: ${keys.join(', ')})` : ''}`);
  }
  return ok(Buffer.from(encoded, 'base64').toString('utf8'));
}

function describeRef(ref: CustomResourceRef): string {
  return `${ref.plural}.${ref.group}${ref.namespace ? ` in namespace ${ref.namespace}` : ''}`;
}
