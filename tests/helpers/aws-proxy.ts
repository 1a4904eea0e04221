/**
 * A recording proxy in front of moto: every AWS call a test makes through it is recorded (method, path, the query
 * protocol's Action), so a test can count write calls (`--dry-run` must make none) and inject an answer for one
 * call (an expired token in the middle of a run).
 *
 * It answers one call itself, because moto does not implement it: SSM DescribeInstanceInformation, by the loopback
 * stub of tests/helpers/ssm-agents.ts (AWS's documented JSON). An instance's agent is `Online` while moto says the
 * instance is running and `ConnectionLost` otherwise, unless the test sets `agents` (undefined: not registered).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll } from 'vitest';
import type { PingStatus } from './ssm-agents.js';
import { DESCRIBE_INSTANCE_INFORMATION, describeInstanceInformation } from './ssm-agents.js';
import { closeServer, listenOnLoopback } from './loopback.js';

export interface AwsCall {
  readonly method: string;
  readonly path: string;
  /** `Action=` of the query protocols (EC2, STS), else undefined. */
  readonly action?: string;
}

export interface InjectedAnswer {
  readonly status: number;
  readonly body: string;
  readonly headers?: Record<string, string>;
}

export interface AwsProxy {
  readonly endpoint: string;
  readonly calls: AwsCall[];
  /** Calls that change something: not a GET/HEAD, not a Describe/Get/List action. */
  writes(): AwsCall[];
  inject: ((call: AwsCall) => InjectedAnswer | undefined) | undefined;
  /** Calls it matches are black-holed: read, never forwarded, never answered (until the proxy closes). */
  hang: ((call: AwsCall) => boolean) | undefined;
  /** The SSM agents' PingStatus by instance id, instead of moto's instance states (see the module comment). */
  agents: ((instanceId: string) => PingStatus | undefined) | undefined;
  close(): Promise<void>;
}

export function isWrite(call: AwsCall): boolean {
  if (call.method === 'GET' || call.method === 'HEAD') return false;
  if (call.action !== undefined) return !/^(Describe|Get|List)/.test(call.action);
  return true;
}

/** An answer EKS (rest-json) gives for expired credentials. */
export function expiredTokenJson(): InjectedAnswer {
  return {
    status: 403,
    headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'ExpiredTokenException' },
    body: JSON.stringify({ message: 'The security token included in the request is expired' }),
  };
}

export async function startAwsProxy(target: string): Promise<AwsProxy> {
  const calls: AwsCall[] = [];
  const state: { inject: AwsProxy['inject']; hang: AwsProxy['hang']; agents: AwsProxy['agents'] } = {
    inject: undefined,
    hang: undefined,
    agents: undefined,
  };
  const ec2 = new EC2Client({
    region: 'eu-west-1',
    endpoint: target,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
  const pingStatus = async (instanceId: string): Promise<PingStatus | undefined> => {
    if (state.agents) return state.agents(instanceId);
    const answer = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
    const instance = answer.Reservations?.[0]?.Instances?.[0];
    if (!instance) return undefined;
    return instance.State?.Name === 'running' ? 'Online' : 'ConnectionLost';
  };
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = request.url ?? '/';
    const amzTarget = request.headers['x-amz-target'];
    const action =
      /(?:^|&)Action=([A-Za-z]+)/.exec(body.toString('utf8'))?.[1] ??
      /[?&]Action=([A-Za-z]+)/.exec(url)?.[1] ??
      (typeof amzTarget === 'string' ? amzTarget.slice(amzTarget.indexOf('.') + 1) : undefined);
    const call: AwsCall = {
      method: request.method ?? 'GET',
      path: url.split('?')[0] ?? url,
      ...(action ? { action } : {}),
    };
    calls.push(call);
    if (state.hang?.(call)) return;
    const injected = state.inject?.(call);
    if (injected) {
      response.writeHead(injected.status, injected.headers ?? {});
      response.end(injected.body);
      return;
    }
    if (amzTarget === DESCRIBE_INSTANCE_INFORMATION) {
      const answer = await describeInstanceInformation(body.toString('utf8'), pingStatus);
      response.writeHead(answer.status, answer.headers);
      response.end(answer.body);
      return;
    }
    const headers = { ...request.headers };
    delete headers.host;
    const answer = await fetch(`${target}${url}`, {
      method: request.method ?? 'GET',
      headers: headers as Record<string, string>,
      ...(body.length > 0 ? { body } : {}),
      redirect: 'manual',
    });
    const out = Buffer.from(await answer.arrayBuffer());
    const outHeaders: Record<string, string> = {};
    answer.headers.forEach((value, key) => {
      if (!['content-encoding', 'transfer-encoding', 'content-length', 'connection'].includes(key))
        outHeaders[key] = value;
    });
    response.writeHead(answer.status, { ...outHeaders, 'content-length': String(out.length) });
    response.end(out);
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(502);
      response.end(String(error));
    });
  });
  const port = await listenOnLoopback(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    writes: () => calls.filter(isWrite),
    get inject() {
      return state.inject;
    },
    set inject(value) {
      state.inject = value;
    },
    get hang() {
      return state.hang;
    },
    set hang(value) {
      state.hang = value;
    },
    get agents() {
      return state.agents;
    },
    set agents(value) {
      state.agents = value;
    },
    close: () => closeServer(server),
  };
}

/** A proxy in front of moto for a test file: started before its tests (once moto is up), closed after them. */
export function useAwsProxy(moto: { readonly endpoint: string }): AwsProxy {
  let proxy: AwsProxy | undefined;
  beforeAll(async () => {
    proxy = await startAwsProxy(moto.endpoint);
  });
  afterAll(async () => {
    await proxy?.close();
  });
  const get = (): AwsProxy => {
    if (!proxy) throw new Error('the proxy is not running: use it inside a test or hook');
    return proxy;
  };
  return {
    get endpoint() {
      return get().endpoint;
    },
    get calls() {
      return get().calls;
    },
    writes: () => get().writes(),
    get inject() {
      return get().inject;
    },
    set inject(value) {
      get().inject = value;
    },
    get hang() {
      return get().hang;
    },
    set hang(value) {
      get().hang = value;
    },
    get agents() {
      return get().agents;
    },
    set agents(value) {
      get().agents = value;
    },
    close: () => get().close(),
  };
}
