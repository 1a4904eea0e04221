/**
 * Read-only Kubernetes access for health checks, built either from EKS `DescribeCluster` (with an EKS token signed
 * per request, no aws CLI) or from a named context of the user's kubeconfig (clusters reached through a proxy, and
 * tests). `@kubernetes/client-node` costs ~330 ms to import, so it is imported here, lazily, and only here.
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { CredentialProvider } from './credentials.js';
import type { EksToken } from './eks-token.js';
import { eksToken } from './eks-token.js';
import type { EnvVars } from './env.js';
import { REQUEST_TIMEOUT_MS, homeDir, requestTimeoutMs } from './env.js';
import type { CloudResult } from './result.js';
import { TLS_VERIFY_CODES, failure, isAbortError, networkErrorCode, ok } from './result.js';

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

/** A custom resource by group/version/plural, namespaced when `namespace` is set. */
export interface CustomResourceRef {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespace?: string;
  /** Lists only the objects these labels select (`app.kubernetes.io/part-of=platform`). */
  readonly labelSelector?: string;
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

/**
 * A reader for `context` of the user's kubeconfig. Files merge like kubectl's: the first file that names a
 * cluster/user/context wins.
 */
export async function kubeReaderFromContext(context: string, env: EnvVars): Promise<CloudResult<KubeReader>> {
  const loaded = await kubeConfigFromContext(context, env);
  return loaded.ok ? ok(await makeReader(loaded.value.kc, loaded.value.server, requestTimeoutMs(env))) : loaded;
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

async function makeReader(kc: KubeConfig, server: string, timeoutMs: number): Promise<KubeReader> {
  const k8s = await import('@kubernetes/client-node');
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const versionApi = kc.makeApiClient(k8s.VersionApi);

  // client-node has no per-call signal parameter; a request middleware puts one on the request context. Every call
  // gets one: the caller's, if any, and the request timeout, so an API server that never answers cannot hang a run.
  const withSignal = (callerSignal: AbortSignal | undefined) => {
    const limit = AbortSignal.timeout(timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, limit]) : limit;
    return {
      middleware: [
        {
          pre: (context: InstanceType<typeof k8s.RequestContext>) => {
            context.setSignal(signal);
            return new k8s.Observable(Promise.resolve(context));
          },
          post: (response: InstanceType<typeof k8s.ResponseContext>) => new k8s.Observable(Promise.resolve(response)),
        },
      ],
      middlewareMergeStrategy: 'append' as const,
    };
  };

  const call = async <T>(what: string, run: () => Promise<T>): Promise<CloudResult<T>> => {
    try {
      return ok(await run());
    } catch (error) {
      return kubeFailure(what, server, error, k8s.ApiException);
    }
  };

  /** Follows `metadata.continue` so large clusters are read completely. */
  const listAll = async <T>(
    page: (cont: string | undefined) => Promise<{ items?: T[]; metadata?: { _continue?: string; continue?: string } }>,
  ): Promise<T[]> => {
    const items: T[] = [];
    let cont: string | undefined;
    do {
      const result = await page(cont);
      items.push(...(result.items ?? []));
      cont = result.metadata?._continue ?? result.metadata?.continue ?? undefined;
    } while (cont);
    return items;
  };

  return {
    server,
    version: (signal) =>
      call('the API server version', async () => {
        const info = await versionApi.getCode({}, withSignal(signal));
        return { gitVersion: info.gitVersion };
      }),
    listNodes: (signal) =>
      call('nodes', () =>
        listAll<KubeNode>(async (cont) => {
          const list = await core.listNode({ limit: 500, ...(cont ? { _continue: cont } : {}) }, withSignal(signal));
          return list as unknown as { items: KubeNode[]; metadata?: { _continue?: string } };
        }),
      ),
    readDaemonSet: (namespace, name, signal) =>
      call(`DaemonSet ${namespace}/${name}`, async () => {
        const ds = await apps.readNamespacedDaemonSet({ name, namespace }, withSignal(signal));
        return ds;
      }),
    listCustomObjects: (ref, signal) =>
      call(describeRef(ref), () =>
        listAll<KubeObject>(async (cont) => {
          const base = {
            group: ref.group,
            version: ref.version,
            plural: ref.plural,
            limit: 500,
            ...(ref.labelSelector === undefined ? {} : { labelSelector: ref.labelSelector }),
          };
          const params = cont ? { ...base, _continue: cont } : base;
          const result: unknown = ref.namespace
            ? await custom.listNamespacedCustomObject({ ...params, namespace: ref.namespace }, withSignal(signal))
            : await custom.listClusterCustomObject(params, withSignal(signal));
          return result as { items?: KubeObject[]; metadata?: { continue?: string } };
        }),
      ),
    getCustomObject: (ref, signal) =>
      call(`${describeRef(ref)} ${ref.name}`, async () => {
        const base = { group: ref.group, version: ref.version, plural: ref.plural, name: ref.name };
        const result: unknown = ref.namespace
          ? await custom.getNamespacedCustomObject({ ...base, namespace: ref.namespace }, withSignal(signal))
          : await custom.getClusterCustomObject(base, withSignal(signal));
        return result as KubeObject;
      }),
    readSecretKey: async (namespace, name, key, signal) => {
      const read = await call(`Secret ${namespace}/${name}`, () =>
        core.readNamespacedSecret({ name, namespace }, withSignal(signal)),
      );
      if (!read.ok) return read;
      const encoded = read.value.data?.[key];
      if (encoded === undefined) {
        const keys = Object.keys(read.value.data ?? {});
        return failure(
          'not-found',
          `Secret ${namespace}/${name} has no key ${key}${keys.length > 0 ? ` (it has: ${keys.join(', ')})` : ''}`,
        );
      }
      return ok(Buffer.from(encoded, 'base64').toString('utf8'));
    },
  };
}

function describeRef(ref: CustomResourceRef): string {
  return `${ref.plural}.${ref.group}${ref.namespace ? ` in namespace ${ref.namespace}` : ''}`;
}

function kubeFailure(
  what: string,
  server: string,
  error: unknown,
  apiException: abstract new (...args: never[]) => Error,
): CloudResult<never> {
  if (error instanceof apiException) {
    const code = (error as unknown as { code: number }).code;
    const body = (error as unknown as { body?: unknown }).body;
    const detail = statusMessage(body);
    const suffix = detail ? `: ${detail}` : '';
    if (code === 404) return failure('not-found', `${what} not found${suffix}`);
    if (code === 401) {
      return failure(
        'unauthorized',
        `the API server rejected the credentials (401) reading ${what}${suffix}`,
        'give this principal an EKS access entry (or an aws-auth mapping) on the cluster; with kubeconfig_context, check that context user',
      );
    }
    if (code === 403) return failure('forbidden', `not allowed to read ${what} (403)${suffix}`);
    return failure('error', `reading ${what} failed with HTTP ${code}${suffix}`);
  }
  if (isAbortError(error)) return failure('timeout', `no answer from the API server ${server} reading ${what}`);
  const code = networkErrorCode(error);
  if (code && TLS_VERIFY_CODES.has(code)) {
    return failure(
      'unreachable',
      `the API server ${server} presented a certificate that the cluster's certificate authority does not verify (${code}), reading ${what}`,
      'the CA in the kubeconfig (or from EKS DescribeCluster) is not the one that signed this server: run `platctl kubeconfig` again, or look for a proxy that intercepts TLS',
    );
  }
  if (code) return failure('unreachable', `cannot reach the API server ${server} (${code})`);
  return failure('error', `reading ${what} failed: ${errorText(error)}`);
}

function statusMessage(body: unknown): string | undefined {
  if (typeof body === 'string') {
    try {
      return statusMessage(JSON.parse(body));
    } catch {
      return body.trim().slice(0, 200) || undefined;
    }
  }
  if (typeof body === 'object' && body !== null) {
    const message = (body as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return undefined;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n', 1)[0] ?? error.name) : String(error);
}
