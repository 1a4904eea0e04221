/**
 * Kubernetes writes for `platctl down`/`up`: patch, evict, delete and create, on the same KubeConfig the readers use
 * (an EKS token signed per request, or a kubeconfig context). Every call returns a value; 404 on a delete and 409 on
 * a create are reported as such so callers can treat them as "already done".
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { EnvironmentConfig } from '../config/schema.js';
import type { EnvVars } from './env.js';
import { REQUEST_TIMEOUT_MS, formatSeconds, requestTimeoutMs } from './env.js';
import type { EnvCloud } from './environment.js';
import type { CustomResourceRef } from './kube.js';
import { errorText, kubeConfigForEks, kubeConfigFromContext } from './kube.js';
import type { CloudResult } from './result.js';
import { failure, isAbortError, networkErrorCode, ok } from './result.js';

/** Any Kubernetes object as JSON. */
export type KubeJson = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    ownerReferences?: { kind?: string; name?: string }[];
    [key: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export type EvictionResult = 'evicted' | 'gone' | 'blocked';

/** Writes and reads `down`/`up` make; the kind is given as a core/apps collection or a custom resource ref. */
export interface KubeWriter {
  readonly server: string;
  /** GET /readyz: true when the API server says it is ready. */
  readyz(signal?: AbortSignal): Promise<CloudResult<boolean>>;
  list(ref: CustomResourceRef, options?: ListOptions): Promise<CloudResult<KubeJson[]>>;
  get(ref: CustomResourceRef, name: string): Promise<CloudResult<KubeJson>>;
  create(ref: CustomResourceRef, body: KubeJson): Promise<CloudResult<'created' | 'exists'>>;
  /** Deletes; `gone` when it was not there. */
  delete(
    ref: CustomResourceRef,
    name: string,
    options?: { gracePeriodSeconds?: number; propagationPolicy?: string },
  ): Promise<CloudResult<'deleted' | 'gone'>>;
  /** A JSON merge patch (RFC 7386): `null` removes a key. */
  mergePatch(ref: CustomResourceRef, name: string, body: Record<string, unknown>): Promise<CloudResult<KubeJson>>;
  /** The Eviction API: `blocked` when a PodDisruptionBudget refuses (429). */
  evict(namespace: string, name: string): Promise<CloudResult<EvictionResult>>;
}

/** Collections platctl touches, as refs (the core group is the empty string). */
export const KINDS = {
  pods: { group: '', version: 'v1', plural: 'pods' },
  nodes: { group: '', version: 'v1', plural: 'nodes' },
  deployments: { group: 'apps', version: 'v1', plural: 'deployments' },
  statefulsets: { group: 'apps', version: 'v1', plural: 'statefulsets' },
  nodepools: { group: 'karpenter.sh', version: 'v1', plural: 'nodepools' },
  nodeclaims: { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' },
  ec2nodeclasses: { group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses' },
  applications: { group: 'argoproj.io', version: 'v1alpha1', plural: 'applications' },
  cnpgClusters: { group: 'postgresql.cnpg.io', version: 'v1', plural: 'clusters' },
  validatingWebhooks: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural: 'validatingwebhookconfigurations',
  },
  mutatingWebhooks: { group: 'admissionregistration.k8s.io', version: 'v1', plural: 'mutatingwebhookconfigurations' },
} as const satisfies Record<string, CustomResourceRef>;

/**
 * A writer over `kc`. Requests go through client-node's own HTTP machinery (TLS, CA, authenticators) with a path
 * built from the ref, so one code path serves core, apps and custom resources alike.
 */
export function makeKubeWriter(
  kc: KubeConfig,
  server: string,
  limits: { readonly signal?: AbortSignal | undefined; readonly requestTimeoutMs?: number } = {},
): KubeWriter {
  const timeoutMs = limits.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const cluster = kc.getCurrentCluster();
  const base = (cluster?.server ?? server).replace(/\/$/, '');

  const request = async (
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
    signal?: AbortSignal,
  ): Promise<{ status: number; json: unknown }> => {
    // The run's signal (the first Ctrl-C) and the call's own both end the request.
    const signals = [limits.signal, signal].filter((s): s is AbortSignal => s !== undefined);
    const abort = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    // client-node fills the headers (a token, or the authenticator's) and the agent (CA, client certificate).
    const options: { headers: Record<string, string>; agent?: unknown; auth?: string } = { headers: {} };
    await credentialsWithin(kc.applyToHTTPSOptions(options as never), abort, timeoutMs);
    const url = new URL(`${base}${path}`);
    const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined) {
      headers['content-type'] = contentType;
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    if (abort?.aborted) throw Object.assign(new Error('the run was interrupted'), { name: 'AbortError' });
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        {
          method,
          headers,
          ...(options.agent ? { agent: options.agent as never } : {}),
          ...(options.auth ? { auth: options.auth } : {}),
          ...(abort ? { signal: abort } : {}),
          timeout: timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown = text;
            try {
              json = text === '' ? undefined : JSON.parse(text);
            } catch {
              // not JSON: the text is the message
            }
            resolve({ status: response.statusCode ?? 0, json });
          });
        },
      );
      // Also bounds the whole answer, not only the silence between two packets of it.
      const whole = setTimeout(() => req.emit('timeout'), timeoutMs);
      req.on('close', () => clearTimeout(whole));
      req.on('timeout', () =>
        req.destroy(Object.assign(new Error(`no answer within ${formatSeconds(timeoutMs)}`), { name: 'TimeoutError' })),
      );
      req.on('error', reject);
      req.end(payload);
    });
  };

  const call = async <T>(
    what: string,
    run: () => Promise<{ status: number; json: unknown }>,
    accept: (status: number, json: unknown) => T | undefined,
  ): Promise<CloudResult<T>> => {
    let answer: { status: number; json: unknown };
    try {
      answer = await run();
    } catch (error) {
      if (error instanceof Error && error.message.startsWith(NO_CREDENTIALS)) {
        return failure(
          'timeout',
          `${error.message} ${what}`,
          "check the kubeconfig context's user: its exec command must print a credential without waiting for input",
        );
      }
      if (isAbortError(error)) {
        const within =
          error instanceof Error && error.name === 'TimeoutError' ? ` within ${formatSeconds(timeoutMs)}` : '';
        return failure('timeout', `no answer from the API server ${base}${within} ${what}`);
      }
      const code = networkErrorCode(error);
      if (code) return failure('unreachable', `cannot reach the API server ${base} (${code}) ${what}`);
      return failure('error', `${what} failed: ${errorText(error)}`);
    }
    const accepted = accept(answer.status, answer.json);
    if (accepted !== undefined) return ok(accepted);
    const detail = message(answer.json);
    const suffix = detail ? `: ${detail}` : '';
    if (answer.status === 401) {
      return failure(
        'unauthorized',
        `the API server rejected the credentials (401) ${what}${suffix}`,
        'give this principal an EKS access entry (or an aws-auth mapping) on the cluster',
      );
    }
    if (answer.status === 403) return failure('forbidden', `not allowed ${what} (403)${suffix}`);
    if (answer.status === 404) return failure('not-found', `${what}: not found${suffix}`);
    return failure('error', `${what} failed with HTTP ${answer.status}${suffix}`);
  };

  const ok2xx = (status: number): boolean => status >= 200 && status < 300;

  return {
    server: base,
    readyz: (signal) =>
      call(
        'asking /readyz',
        () => request('GET', '/readyz', undefined, undefined, signal),
        (status) => (ok2xx(status) ? true : status === 500 || status === 503 ? false : undefined),
      ),
    list: (ref, options = {}) => {
      // The namespace may come with the ref (as for get, patch, delete) or with the options.
      const namespace = options.namespace ?? ref.namespace;
      return call(
        `listing ${describe(ref, namespace)}`,
        async () => {
          const items: unknown[] = [];
          let cont: string | undefined;
          let last = { status: 200, json: undefined as unknown };
          do {
            const query = new URLSearchParams({ limit: '500' });
            if (cont) query.set('continue', cont);
            if (options.labelSelector) query.set('labelSelector', options.labelSelector);
            if (options.fieldSelector) query.set('fieldSelector', options.fieldSelector);
            last = await request('GET', `${collectionPath(ref, namespace)}?${query.toString()}`);
            if (!ok2xx(last.status)) return last;
            const page = last.json as { items?: unknown[]; metadata?: { continue?: string } };
            items.push(...(page.items ?? []));
            cont = page.metadata?.continue || undefined;
          } while (cont);
          return { status: 200, json: items };
        },
        (status, json) => (ok2xx(status) ? (json as KubeJson[]) : undefined),
      );
    },
    get: (ref, name) =>
      call(
        `reading ${describe(ref, ref.namespace)} ${name}`,
        () => request('GET', objectPath(ref, name)),
        (s, j) => (ok2xx(s) ? (j as KubeJson) : undefined),
      ),
    create: (ref, body) =>
      call(
        `creating ${describe(ref, ref.namespace)} ${body.metadata?.name ?? ''}`,
        () => request('POST', collectionPath(ref, ref.namespace), body),
        (status) => (ok2xx(status) ? 'created' : status === 409 ? 'exists' : undefined),
      ),
    delete: (ref, name, options = {}) => {
      const query = new URLSearchParams();
      if (options.gracePeriodSeconds !== undefined) query.set('gracePeriodSeconds', String(options.gracePeriodSeconds));
      if (options.propagationPolicy) query.set('propagationPolicy', options.propagationPolicy);
      const suffix = query.size > 0 ? `?${query.toString()}` : '';
      return call(
        `deleting ${describe(ref, ref.namespace)} ${name}`,
        () => request('DELETE', `${objectPath(ref, name)}${suffix}`),
        (status) => (ok2xx(status) ? 'deleted' : status === 404 ? 'gone' : undefined),
      );
    },
    mergePatch: (ref, name, body) =>
      call(
        `patching ${describe(ref, ref.namespace)} ${name}`,
        () => request('PATCH', objectPath(ref, name), body, 'application/merge-patch+json'),
        (s, j) => (ok2xx(s) ? (j as KubeJson) : undefined),
      ),
    evict: (namespace, name) =>
      call(
        `evicting pod ${namespace}/${name}`,
        () =>
          request('POST', `${objectPath({ ...KINDS.pods, namespace }, name)}/eviction`, {
            apiVersion: 'policy/v1',
            kind: 'Eviction',
            metadata: { name, namespace },
          }),
        (status) => (ok2xx(status) ? 'evicted' : status === 404 ? 'gone' : status === 429 ? 'blocked' : undefined),
      ),
  };
}

function collectionPath(ref: CustomResourceRef, namespace: string | undefined): string {
  const prefix = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${prefix}${ns}/${ref.plural}`;
}

function objectPath(ref: CustomResourceRef, name: string): string {
  return `${collectionPath(ref, ref.namespace)}/${encodeURIComponent(name)}`;
}

function describe(ref: CustomResourceRef, namespace: string | undefined): string {
  const kind = ref.group === '' || ref.group === 'apps' ? ref.plural : `${ref.plural}.${ref.group}`;
  return namespace ? `${kind} in ${namespace}` : kind;
}

function message(json: unknown): string | undefined {
  if (typeof json === 'string') return json.trim().slice(0, 200) || undefined;
  if (typeof json === 'object' && json !== null) {
    const text = (json as { message?: unknown }).message;
    if (typeof text === 'string') return text;
  }
  return undefined;
}

const NO_CREDENTIALS = "no credentials from the kubeconfig's user";

/**
 * The kubeconfig user's credentials, bounded: with an `exec` user (`aws eks get-token`, a credential helper)
 * client-node runs the program and waits for it without a time limit or a signal, so a hung helper would hold a
 * park step past the first Ctrl-C. Rejects as a timeout after `timeoutMs`, or as an interruption on `abort` (the
 * helper itself is left to end on its own: client-node gives no handle on it).
 */
function credentialsWithin(work: Promise<unknown>, abort: AbortSignal | undefined, timeoutMs: number): Promise<void> {
  const interrupted = () => Object.assign(new Error('the run was interrupted'), { name: 'AbortError' });
  if (abort?.aborted) return Promise.reject(interrupted());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      done();
      reject(
        Object.assign(new Error(`${NO_CREDENTIALS} within ${formatSeconds(timeoutMs)}`), {
          name: 'TimeoutError',
        }),
      );
    }, timeoutMs);
    const onAbort = () => {
      done();
      reject(interrupted());
    };
    const done = () => {
      clearTimeout(timer);
      abort?.removeEventListener('abort', onAbort);
    };
    abort?.addEventListener('abort', onAbort, { once: true });
    work.then(
      () => {
        done();
        resolve();
      },
      (error: unknown) => {
        done();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * The writer for an environment's cluster: through `cluster.kubeconfig_context` when set, else from EKS
 * DescribeCluster with an EKS token signed per request (as the readers do).
 */
export async function kubeWriterForEnv(
  cloud: EnvCloud,
  settings: EnvironmentConfig,
  env: EnvVars,
  signal?: AbortSignal,
): Promise<CloudResult<KubeWriter>> {
  const limits = { signal, requestTimeoutMs: requestTimeoutMs(env) };
  const context = settings.cluster?.kubeconfig_context;
  if (context) {
    const loaded = await kubeConfigFromContext(context, env);
    return loaded.ok ? ok(makeKubeWriter(loaded.value.kc, loaded.value.server, limits)) : loaded;
  }
  const described = await cloud.describeCluster(signal);
  if (!described.ok) return described;
  const { endpoint, caData, status, name } = described.value;
  if (!endpoint || !caData) return failure('error', `EKS cluster ${name} has no API endpoint (status ${status})`);
  const provider = await cloud.credentials();
  if (!provider.ok) return provider;
  if (cloud.region === undefined) return failure('not-configured', `environment ${cloud.envName} has no AWS region`);
  const kc = await kubeConfigForEks({ name, endpoint, caData, region: cloud.region, credentials: provider.value });
  return ok(makeKubeWriter(kc, endpoint, limits));
}
