/**
 * The one way platctl talks to a Kubernetes API server: the reader (`kube.ts`) and the writer (`kube-writer.ts`) both
 * send through {@link makeKubeTransport}. Auth, CA and proxy come from client-node's `KubeConfig`; the request itself
 * is node:http(s), because client-node's API clients cannot bound every wait of a call:
 *
 * - they run the kubeconfig user's credentials (an `exec` helper such as `aws eks get-token`) inside the request
 *   factory, before any middleware can attach a signal, and wait for the helper with no time limit. Measured with
 *   client-node 1.4.0 and an exec helper of `sleep 5`: `version()` through the API clients returned after 5007 ms
 *   with a 300 ms request timeout, and after 5020 ms with the signal aborted at 50 ms (a helper that never ends
 *   would hang the run). Here the credentials are raced against the timeout and the run's signal
 *   ({@link credentialsWithin}), and the request carries both.
 * - their typed clients are one per API group and decode answers into model classes; down/up touch core, apps,
 *   admission and custom resources alike, as plain JSON, through a path built from a {@link CustomResourceRef}.
 *
 * Start-up is no reason either way: `KubeConfig` loads client-node's whole generated API (11 fresh processes,
 * medians: `import('@kubernetes/client-node')` 490 ms, its `dist/config.js` alone 480 ms, `node:https` 5 ms).
 */
import { request as httpRequest } from 'node:http';
import type { RequestOptions } from 'node:https';
import { request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { REQUEST_TIMEOUT_MS, formatSeconds } from './env.js';
import type { CloudResult } from './result.js';
import { TLS_VERIFY_CODES, failure, isAbortError, networkErrorCode, ok } from './result.js';

/** A resource collection by group/version/plural (the core group is the empty string), namespaced when `namespace` is set. */
export interface CustomResourceRef {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespace?: string;
  /** Lists only the objects these labels select (`app.kubernetes.io/part-of=platform`). */
  readonly labelSelector?: string;
}

/** What the API server answered: the status and the body, parsed when it is JSON, else its text. */
export interface KubeAnswer {
  readonly status: number;
  readonly json: unknown;
}

export interface SendOptions {
  readonly body?: unknown;
  readonly contentType?: string;
  /** The call's own signal; the transport's run signal and request timeout apply as well. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * What a call does, for its messages. `doing` is the phrase ("listing pods in kube-system"); a read also names
 * its `object` ("DaemonSet kube-system/cilium"), and its 403/404 are worded around it ("... not found").
 */
export interface KubeCallName {
  readonly doing: string;
  readonly object?: string;
}

export interface KubeLimits {
  /** The run's signal: the first Ctrl-C ends every request. */
  readonly signal?: AbortSignal | undefined;
  /** How long one request (credentials included) may go unanswered (default `REQUEST_TIMEOUT_MS`). */
  readonly requestTimeoutMs?: number;
}

export interface KubeTransport {
  /** The API server URL, for messages. */
  readonly server: string;
  readonly send: (method: string, path: string, options?: SendOptions) => Promise<KubeAnswer>;
  /**
   * Runs `run` and maps its answer: what `accept` returns is the value; any other status, and any error, becomes a
   * {@link CloudResult} failure named by `name`.
   */
  readonly call: <T>(
    name: KubeCallName,
    run: () => Promise<KubeAnswer>,
    accept: (status: number, json: unknown) => T | undefined,
  ) => Promise<CloudResult<T>>;
}

/** A transport to the current cluster of `kc` (`server` when the kubeconfig names none). */
export function makeKubeTransport(kc: KubeConfig, server: string, limits: KubeLimits = {}): KubeTransport {
  const timeoutMs = limits.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const base = (kc.getCurrentCluster()?.server ?? server).replace(/\/$/, '');
  const send = (method: string, path: string, options: SendOptions = {}): Promise<KubeAnswer> =>
    sendRequest(kc, { method, url: new URL(`${base}${path}`), timeoutMs, ...options }, limits.signal);
  return {
    server: base,
    send,
    call: async (name, run, accept) => {
      let answer: KubeAnswer;
      try {
        answer = await run();
      } catch (error) {
        return errorFailure(error, name, base, timeoutMs);
      }
      const accepted = accept(answer.status, answer.json);
      return accepted === undefined ? statusFailure(answer, name) : ok(accepted);
    },
  };
}

export const ok2xx = (status: number): boolean => status >= 200 && status < 300;

/** A JSON object (not a text, not an empty answer). */
export const isObject = (json: unknown): json is Record<string, unknown> => typeof json === 'object' && json !== null;

/** `/api/v1/namespaces/x/pods`, `/apis/karpenter.sh/v1/nodepools`. */
export function collectionPath(ref: CustomResourceRef, namespace: string | undefined): string {
  const prefix = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${prefix}${ns}/${ref.plural}`;
}

export function objectPath(ref: CustomResourceRef, name: string): string {
  return `${collectionPath(ref, ref.namespace)}/${encodeURIComponent(name)}`;
}

/** Follows `metadata.continue`, 500 a page, so large clusters are read completely; stops at the first non-2xx. */
export async function listPages(
  send: (query: URLSearchParams) => Promise<KubeAnswer>,
  selectors: { readonly labelSelector?: string | undefined; readonly fieldSelector?: string | undefined } = {},
): Promise<KubeAnswer> {
  const items: unknown[] = [];
  let cont: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '500' });
    if (cont) query.set('continue', cont);
    if (selectors.labelSelector) query.set('labelSelector', selectors.labelSelector);
    if (selectors.fieldSelector) query.set('fieldSelector', selectors.fieldSelector);
    const answer = await send(query);
    if (!ok2xx(answer.status)) return answer;
    if (!isObject(answer.json))
      throw new Error(`HTTP ${answer.status} without a JSON list: ${message(answer.json) ?? 'empty'}`);
    const page = answer.json as { items?: unknown[]; metadata?: { continue?: string } };
    items.push(...(page.items ?? []));
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return { status: 200, json: items };
}

interface RequestSpec extends SendOptions {
  readonly method: string;
  readonly url: URL;
  readonly timeoutMs: number;
}

const interrupted = (): Error => Object.assign(new Error('the run was interrupted'), { name: 'AbortError' });

/** One request: the credentials, then the exchange, each bounded by the timeout and both signals. */
async function sendRequest(kc: KubeConfig, spec: RequestSpec, runSignal: AbortSignal | undefined): Promise<KubeAnswer> {
  // The run's signal (the first Ctrl-C) and the call's own both end the request.
  const signals = [runSignal, spec.signal].filter((s): s is AbortSignal => s !== undefined);
  const abort = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  // client-node fills the headers (a token, or the authenticator's) and the agent (CA, client certificate, proxy).
  const options: { headers: Record<string, string>; agent?: unknown; auth?: string } = { headers: {} };
  await credentialsWithin(kc.applyToHTTPSOptions(options as never), abort, spec.timeoutMs);
  const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
  const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
  if (payload !== undefined) {
    headers['content-type'] = spec.contentType ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  if (abort?.aborted) throw interrupted();
  return exchange(
    spec,
    {
      method: spec.method,
      headers,
      ...(options.agent ? { agent: options.agent as never } : {}),
      ...(options.auth ? { auth: options.auth } : {}),
      ...(abort ? { signal: abort } : {}),
      timeout: spec.timeoutMs,
    },
    payload,
  );
}

/** Sends and reads the whole answer; the timeout bounds all of it, not only the silence between two packets. */
function exchange(spec: RequestSpec, options: RequestOptions, payload: string | undefined): Promise<KubeAnswer> {
  const send = spec.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(spec.url, options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: parseBody(chunks) }));
    });
    const whole = setTimeout(() => req.emit('timeout'), spec.timeoutMs);
    req.on('close', () => clearTimeout(whole));
    req.on('timeout', () =>
      req.destroy(
        Object.assign(new Error(`no answer within ${formatSeconds(spec.timeoutMs)}`), { name: 'TimeoutError' }),
      ),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function parseBody(chunks: readonly Buffer[]): unknown {
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text; // not JSON: the text is the message
  }
}

const NO_CREDENTIALS = "no credentials from the kubeconfig's user";

/**
 * The kubeconfig user's credentials, bounded: with an `exec` user (`aws eks get-token`, a credential helper)
 * client-node runs the program and waits for it without a time limit or a signal, so a hung helper would hold a
 * run past the first Ctrl-C. Rejects as a timeout after `timeoutMs`, or as an interruption on `abort` (the
 * helper itself is left to end on its own: client-node gives no handle on it).
 */
function credentialsWithin(work: Promise<unknown>, abort: AbortSignal | undefined, timeoutMs: number): Promise<void> {
  if (abort?.aborted) return Promise.reject(interrupted());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      done();
      const within = `${NO_CREDENTIALS} within ${formatSeconds(timeoutMs)}`;
      reject(Object.assign(new Error(within), { name: 'TimeoutError' }));
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

/** A request that got no answer: no credentials, a timeout or Ctrl-C, a network or certificate error. */
function errorFailure(error: unknown, name: KubeCallName, server: string, timeoutMs: number): CloudResult<never> {
  const { doing } = name;
  if (error instanceof Error && error.message.startsWith(NO_CREDENTIALS)) {
    return failure(
      'timeout',
      `${error.message} ${doing}`,
      "check the kubeconfig context's user: its exec command must print a credential without waiting for input",
    );
  }
  if (isAbortError(error)) {
    const within = error instanceof Error && error.name === 'TimeoutError' ? ` within ${formatSeconds(timeoutMs)}` : '';
    return failure('timeout', `no answer from the API server ${server}${within} ${doing}`);
  }
  const code = networkErrorCode(error);
  if (code && TLS_VERIFY_CODES.has(code)) {
    return failure(
      'unreachable',
      `the API server ${server} presented a certificate that the cluster's certificate authority does not verify (${code}), ${doing}`,
      'the CA in the kubeconfig (or from EKS DescribeCluster) is not the one that signed this server: run `platctl kubeconfig` again, or look for a proxy that intercepts TLS',
    );
  }
  const during = name.object === undefined ? ` ${doing}` : '';
  if (code) return failure('unreachable', `cannot reach the API server ${server} (${code})${during}`);
  return failure('error', `${doing} failed: ${errorText(error)}`);
}

/** An answer the call does not accept: 401, 403, 404 or another status, with the server's own message. */
function statusFailure(answer: KubeAnswer, name: KubeCallName): CloudResult<never> {
  const { doing, object } = name;
  const detail = message(answer.json);
  const suffix = detail ? `: ${detail}` : '';
  if (answer.status === 401) {
    const context = object === undefined ? '' : '; with kubeconfig_context, check that context user';
    return failure(
      'unauthorized',
      `the API server rejected the credentials (401) ${doing}${suffix}`,
      `give this principal an EKS access entry (or an aws-auth mapping) on the cluster${context}`,
    );
  }
  if (answer.status === 403) {
    return failure('forbidden', `not allowed ${object === undefined ? doing : `to read ${object}`} (403)${suffix}`);
  }
  if (answer.status === 404) {
    return failure('not-found', object === undefined ? `${doing}: not found${suffix}` : `${object} not found${suffix}`);
  }
  return failure('error', `${doing} failed with HTTP ${answer.status}${suffix}`);
}

function message(json: unknown): string | undefined {
  if (typeof json === 'string') return json.trim().slice(0, 200) || undefined;
  if (typeof json === 'object' && json !== null) {
    const text = (json as { message?: unknown }).message;
    if (typeof text === 'string') return text;
  }
  return undefined;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n', 1)[0] ?? error.name) : String(error);
}
