/**
 * A loopback stand-in for the Argo CD API server: the session login and the account token calls of the REST
 * gateway (`/api/v1/session`, `/api/v1/account/{name}[/token[/{id}]]`), with grpc-gateway's error bodies
 * (`{ error, code, message }`). Enough for the `argocd_account_token` hook; it records every request.
 *
 *   const argo = await startArgoApi({ password: 'pw', accounts: { backstage: { capabilities: ['apiKey'] } } });
 *   ... argo.url ...
 *   await argo.close();
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback } from './loopback.js';

export interface ArgoFixtureToken {
  id: string;
  issuedAt: number;
  expiresAt?: number;
}

export interface ArgoFixtureAccount {
  capabilities: string[];
  enabled?: boolean;
  tokens?: ArgoFixtureToken[];
}

export interface ArgoRecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization?: string;
  readonly body: string;
}

export interface ArgoApiServer {
  readonly url: string;
  /** The admin password the server accepts. */
  password: string;
  readonly accounts: Record<string, ArgoFixtureAccount>;
  readonly requests: ArgoRecordedRequest[];
  /** Every session JWT and account token the server handed out (to check none of them leaks). */
  readonly issued: string[];
  /** Answers matching requests with this HTTP status and message instead. */
  fail: ((request: ArgoRecordedRequest) => { status: number; message: string } | undefined) | undefined;
  close(): Promise<void>;
}

/** grpc codes of the errors the real server sends for these statuses. */
const GRPC_CODE: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 500: 13 };

export async function startArgoApi(options: {
  password: string;
  accounts?: Record<string, ArgoFixtureAccount>;
}): Promise<ArgoApiServer> {
  const sessions = new Set<string>();
  const state = {
    password: options.password,
    accounts: options.accounts ?? {},
    requests: [] as ArgoRecordedRequest[],
    issued: [] as string[],
    fail: undefined as ArgoApiServer['fail'],
  };

  const send = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  const error = (response: ServerResponse, status: number, message: string) =>
    send(response, status, { error: message, code: GRPC_CODE[status] ?? 2, message, details: [] });

  const handle = (request: IncomingMessage, body: string, response: ServerResponse): void => {
    const path = new URL(request.url ?? '/', 'http://argo').pathname;
    const recorded: ArgoRecordedRequest = {
      method: request.method ?? 'GET',
      path,
      body,
      ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
    };
    state.requests.push(recorded);
    const injected = state.fail?.(recorded);
    if (injected) return error(response, injected.status, injected.message);

    if (path === '/api/v1/session' && recorded.method === 'POST') {
      const login = JSON.parse(body || '{}') as { username?: string; password?: string };
      if (login.username !== 'admin' || login.password !== state.password) {
        return error(response, 401, 'Invalid username or password');
      }
      const jwt = `session-${randomBytes(12).toString('hex')}`;
      sessions.add(jwt);
      state.issued.push(jwt);
      return send(response, 200, { token: jwt });
    }
    const bearer = recorded.authorization?.replace(/^Bearer /, '');
    if (bearer === undefined || !sessions.has(bearer)) return error(response, 401, 'no session information');

    const match = /^\/api\/v1\/account\/([^/]+)(?:\/token(?:\/([^/]+))?)?$/.exec(path);
    if (!match) return error(response, 404, `no route for ${path}`);
    const name = decodeURIComponent(match[1] ?? '');
    const account = state.accounts[name];
    if (!account) return error(response, 404, `account '${name}' does not exist`);
    const isTokenPath = path.includes('/token');
    if (!isTokenPath && recorded.method === 'GET') {
      return send(response, 200, {
        name,
        enabled: account.enabled ?? true,
        capabilities: account.capabilities,
        // int64 fields come back as strings from the real gateway.
        tokens: (account.tokens ?? []).map((t) => ({
          id: t.id,
          issuedAt: String(t.issuedAt),
          ...(t.expiresAt ? { expiresAt: String(t.expiresAt) } : {}),
        })),
      });
    }
    if (isTokenPath && match[2] === undefined && recorded.method === 'POST') {
      if (!account.capabilities.includes('apiKey')) {
        return error(response, 400, `account '${name}' does not have 'apiKey' capability`);
      }
      const request = JSON.parse(body || '{}') as { id?: string };
      const id = request.id || randomBytes(8).toString('hex');
      account.tokens ??= [];
      if (account.tokens.some((t) => t.id === id)) {
        return error(response, 400, `account already has token with id '${id}'`);
      }
      const token = `argo-token-${randomBytes(16).toString('hex')}`;
      state.issued.push(token);
      account.tokens.push({ id, issuedAt: Math.floor(Date.now() / 1000) });
      return send(response, 200, { token });
    }
    if (isTokenPath && match[2] !== undefined && recorded.method === 'DELETE') {
      const id = decodeURIComponent(match[2]);
      const before = account.tokens?.length ?? 0;
      account.tokens = (account.tokens ?? []).filter((t) => t.id !== id);
      if (account.tokens.length === before) return error(response, 404, `token with id '${id}' not found`);
      return send(response, 200, {});
    }
    return error(response, 404, `no route for ${recorded.method} ${path}`);
  };

  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => handle(request, body, response));
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    get password() {
      return state.password;
    },
    set password(value) {
      state.password = value;
    },
    get accounts() {
      return state.accounts;
    },
    requests: state.requests,
    issued: state.issued,
    get fail() {
      return state.fail;
    },
    set fail(value) {
      state.fail = value;
    },
    close: () => closeServer(server),
  };
}
