/**
 * A small client of the Argo CD REST API (the grpc-gateway under `/api/v1`): log in as a local user, read an
 * account, create and delete its API tokens. Passwords and tokens are secrets: they are sent, never returned in a
 * message; every error text is scrubbed of them in case a server echoes a request.
 */
import type { CloudResult } from './result.js';
import { describeNonJson } from './non-json.js';
import { failure, isAbortError, networkErrorCode, ok } from './result.js';
import { timerDelay } from '../engine/timers.js';

/** An API token of an Argo CD account (times are Unix seconds; `expiresAt` 0 means never). */
export interface ArgoToken {
  readonly id: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
}

export interface ArgoAccount {
  readonly name: string;
  readonly enabled: boolean;
  readonly capabilities: readonly string[];
  readonly tokens: readonly ArgoToken[];
}

/** What a logged-in session can do. The session's own JWT stays inside. */
export interface ArgoSession {
  getAccount(name: string, signal?: AbortSignal): Promise<CloudResult<ArgoAccount>>;
  /** Creates a token with id `id`; the token text is returned once and must go straight into a secret store. */
  createToken(account: string, id: string, signal?: AbortSignal): Promise<CloudResult<{ token: string }>>;
  deleteToken(account: string, id: string, signal?: AbortSignal): Promise<CloudResult<void>>;
}

export interface ArgoCdClientOptions {
  /** The API server, e.g. `https://argocd.platform.example.com` (a path prefix is kept). */
  readonly server: string;
  /** Per-request time limit (default 30 s). */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

export interface ArgoCdClient {
  readonly server: string;
  /** POST /api/v1/session with a local user's credentials. */
  login(username: string, password: string, signal?: AbortSignal): Promise<CloudResult<ArgoSession>>;
}

export function createArgoCdClient(options: ArgoCdClientOptions): ArgoCdClient {
  const server = options.server.replace(/\/+$/, '');
  const call = makeCall(server, options.fetch ?? fetch, options.timeoutMs ?? 30_000);
  return { server, login: (username, password, signal) => login(call, server, { username, password }, signal) };
}

type Method = 'GET' | 'POST' | 'DELETE';
interface CallInit {
  readonly body?: unknown;
  readonly bearer?: string;
  readonly signal?: AbortSignal | undefined;
}
/** One JSON call; `secrets` are scrubbed from any text that leaves it. */
type ArgoCall = (
  method: Method,
  path: string,
  what: string,
  secrets: readonly string[],
  init: CallInit,
) => Promise<CloudResult<unknown>>;

function makeCall(server: string, doFetch: typeof fetch, timeoutMs: number): ArgoCall {
  return async (method, path, what, secrets, init) => {
    const scrub = (text: string) =>
      secrets.reduce((out, secret) => (secret ? out.split(secret).join('***') : out), text);
    const signals = [AbortSignal.timeout(timerDelay(timeoutMs)), ...(init.signal ? [init.signal] : [])];
    const headers: Record<string, string> = { accept: 'application/json' };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (init.bearer !== undefined) headers.authorization = `Bearer ${init.bearer}`;
    let response: Response;
    try {
      response = await doFetch(`${server}${path}`, {
        method,
        headers,
        redirect: 'manual',
        signal: AbortSignal.any(signals),
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      });
    } catch (error) {
      return sendFailure(error, server, what, scrub);
    }
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = text === '' ? {} : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.ok && body !== undefined) return ok(body);
    return answerFailure({ response, text, body, url: `${server}${path}` }, what, scrub);
  };
}

/** A request that got no answer: a timeout or Ctrl-C, or a network error. */
function sendFailure(
  error: unknown,
  server: string,
  what: string,
  scrub: (text: string) => string,
): CloudResult<never> {
  if (isAbortError(error)) return failure('timeout', `no answer from Argo CD at ${server} ${what}`);
  const code = networkErrorCode(error);
  const detail = code ?? scrub(error instanceof Error ? error.message : String(error));
  return failure(
    'unreachable',
    `cannot reach Argo CD at ${server} ${what} (${detail})`,
    "check the hook's server URL; a private CA needs NODE_EXTRA_CA_CERTS",
  );
}

/** An answer that is not a JSON success: the status, the server's message, or what answered instead of the API. */
function answerFailure(
  answer: { readonly response: Response; readonly text: string; readonly body: unknown; readonly url: string },
  what: string,
  scrub: (text: string) => string,
): CloudResult<never> {
  const { response, text, body } = answer;
  const status = response.status;
  // A web page (a proxy's, an ingress's) where the API was expected: say what answered, and what to check.
  const page =
    body === undefined
      ? describeNonJson(
          {
            status,
            contentType: response.headers.get('content-type') ?? undefined,
            body: scrub(text),
            url: answer.url,
          },
          'Argo CD',
        )
      : undefined;
  const message = page ? page.message : scrub(errorMessage(body, text));
  const line = `Argo CD answered HTTP ${status} ${what}${message ? `: ${message}` : ''}`;
  if (page && (response.ok || status >= 500)) return failure('error', `${what}: ${page.message}`, page.hint);
  if (status === 401) return failure('unauthorized', line);
  if (status === 403) return failure('forbidden', line);
  if (status === 404) return failure('not-found', line);
  if (status >= 300 && status < 400) {
    return failure(
      'error',
      line,
      `the server redirects (to ${response.headers.get('location') ?? '?'}): use the API URL it points at`,
    );
  }
  return failure('error', line);
}

/** POST /api/v1/session; the session's JWT stays inside the {@link ArgoSession} it returns. */
async function login(
  call: ArgoCall,
  server: string,
  user: { readonly username: string; readonly password: string },
  signal: AbortSignal | undefined,
): Promise<CloudResult<ArgoSession>> {
  const { username, password } = user;
  const answer = await call('POST', '/api/v1/session', `logging in as ${username}`, [password], {
    body: { username, password },
    signal,
  });
  if (!answer.ok) {
    if (answer.reason === 'unauthorized') {
      return failure(
        'unauthorized',
        answer.message,
        `the password in Argo CD's admin secret no longer works for ${username}: was it changed without updating the secret?`,
      );
    }
    return answer;
  }
  const jwt = (answer.value as { token?: unknown }).token;
  if (typeof jwt !== 'string' || jwt === '') {
    return failure('error', `Argo CD at ${server} answered the login of ${username} without a token`);
  }
  return ok(session(call, jwt));
}

function session(call: ArgoCall, jwt: string): ArgoSession {
  const account = (name: string) => `/api/v1/account/${encodeURIComponent(name)}`;
  return {
    async getAccount(name, callSignal) {
      const got = await call('GET', account(name), `reading account ${name}`, [jwt], {
        bearer: jwt,
        signal: callSignal,
      });
      return got.ok ? ok(parseAccount(name, got.value)) : got;
    },
    async createToken(name, id, callSignal) {
      const created = await call('POST', `${account(name)}/token`, `creating a token for account ${name}`, [jwt], {
        body: { name, id },
        bearer: jwt,
        signal: callSignal,
      });
      if (!created.ok) return created;
      const token = (created.value as { token?: unknown }).token;
      if (typeof token !== 'string' || token === '') {
        return failure('error', `Argo CD answered the token request for account ${name} without a token`);
      }
      return ok({ token });
    },
    async deleteToken(name, id, callSignal) {
      const deleted = await call(
        'DELETE',
        `${account(name)}/token/${encodeURIComponent(id)}`,
        `deleting token ${id} of account ${name}`,
        [jwt],
        { bearer: jwt, signal: callSignal },
      );
      return deleted.ok ? ok(undefined) : deleted;
    },
  };
}

/** grpc-gateway errors are `{ error, code, message }`; anything else is shown as a short text. */
function errorMessage(body: unknown, text: string): string {
  if (typeof body === 'object' && body !== null) {
    const message = (body as { message?: unknown; error?: unknown }).message ?? (body as { error?: unknown }).error;
    if (typeof message === 'string') return message;
  }
  return text.trim().split('\n', 1)[0]?.slice(0, 200) ?? '';
}

/** int64 fields come back as strings from grpc-gateway. */
function toNumber(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : typeof value === 'number' ? value : 0;
  return Number.isFinite(n) ? n : 0;
}

function parseAccount(name: string, body: unknown): ArgoAccount {
  const raw = (typeof body === 'object' && body !== null ? body : {}) as {
    name?: unknown;
    enabled?: unknown;
    capabilities?: unknown;
    tokens?: unknown;
  };
  const tokens: unknown[] = Array.isArray(raw.tokens) ? (raw.tokens as unknown[]) : [];
  return {
    name: typeof raw.name === 'string' ? raw.name : name,
    enabled: raw.enabled === true,
    capabilities: Array.isArray(raw.capabilities) ? raw.capabilities.filter((c) => typeof c === 'string') : [],
    tokens: tokens
      .filter(
        (t): t is { id: string; issuedAt?: unknown; expiresAt?: unknown } =>
          typeof t === 'object' && t !== null && typeof (t as { id?: unknown }).id === 'string',
      )
      .map((t) => ({ id: t.id, issuedAt: toNumber(t.issuedAt), expiresAt: toNumber(t.expiresAt) })),
  };
}
