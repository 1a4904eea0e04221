/**
 * SSM agents for tests. moto (5.2.1, and upstream at the time of writing) does not implement
 * DescribeInstanceInformation: it answers HTTP 500 with an HTML page. This is a loopback stub of that one operation,
 * answering exactly as AWS documents it (API Reference, DescribeInstanceInformation): the awsJson1_1 protocol,
 * `POST /` with `X-Amz-Target: AmazonSSM.DescribeInstanceInformation`, the `Filters` (`InstanceIds`) and
 * `MaxResults`/`NextToken` of the request, an `InstanceInformationList` with the documented members (timestamps as
 * epoch seconds) and `NextToken` in the answer, and errors as `{"__type", "message"}` with `x-amzn-errortype`.
 *
 * `describeInstanceInformation` is the answer itself, so the recording AWS proxy can serve it in front of moto, and
 * `startSsmAgentStub` serves it on its own port (AWS_ENDPOINT_URL_SSM) for focused tests.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback } from './loopback.js';

/** An agent's PingStatus, or undefined when no agent ever registered for the instance (it is not listed). */
export type PingStatus = 'Online' | 'ConnectionLost' | 'Inactive';

export interface SsmAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export const DESCRIBE_INSTANCE_INFORMATION = 'AmazonSSM.DescribeInstanceInformation';

const JSON_TYPE = 'application/x-amz-json-1.1';

function error(status: number, type: string, message: string): SsmAnswer {
  return {
    status,
    headers: { 'content-type': JSON_TYPE, 'x-amzn-errortype': type },
    body: JSON.stringify({ __type: type, message }),
  };
}

/** One InstanceInformation entry with the members AWS returns for an EC2 instance. */
function information(instanceId: string, pingStatus: PingStatus, lastPing: Date): Record<string, unknown> {
  const octet = (parseInt(instanceId.slice(-2), 16) % 250) + 2;
  return {
    InstanceId: instanceId,
    PingStatus: pingStatus,
    LastPingDateTime: lastPing.getTime() / 1000,
    AgentVersion: '3.3.1611.0',
    IsLatestVersion: true,
    PlatformType: 'Linux',
    PlatformName: 'Amazon Linux',
    PlatformVersion: '2023',
    ResourceType: 'EC2Instance',
    IPAddress: `10.0.1.${octet}`,
    ComputerName: `ip-10-0-1-${octet}.eu-west-1.compute.internal`,
    AssociationStatus: 'Success',
    SourceId: instanceId,
    SourceType: 'AWS::EC2::Instance',
  };
}

/**
 * The answer to one DescribeInstanceInformation request body. `pingStatus` says each instance's status (undefined:
 * not registered, not listed); `known` lists every instance the account has, for the "all instances" form.
 */
export async function describeInstanceInformation(
  requestBody: string,
  pingStatus: (instanceId: string) => Promise<PingStatus | undefined> | PingStatus | undefined,
  options: { readonly known?: readonly string[]; readonly now?: () => Date } = {},
): Promise<SsmAnswer> {
  let input: { Filters?: { Key?: string; Values?: string[] }[]; MaxResults?: number; NextToken?: string };
  try {
    input = JSON.parse(requestBody === '' ? '{}' : requestBody) as typeof input;
  } catch {
    return error(400, 'SerializationException', 'Start of structure or map found where not expected.');
  }
  const filters = input.Filters ?? [];
  const unknown = filters.find((f) => f.Key !== 'InstanceIds');
  if (unknown) return error(400, 'InvalidFilterKey', `The specified key is not valid: ${String(unknown.Key)}`);
  const max = input.MaxResults ?? 50;
  if (max < 5 || max > 50) {
    return error(
      400,
      'ValidationException',
      `1 validation error detected: Value '${max}' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 50`,
    );
  }
  const ids = filters.length > 0 ? filters.flatMap((f) => f.Values ?? []) : [...(options.known ?? [])];
  const listed: Record<string, unknown>[] = [];
  const now = options.now?.() ?? new Date();
  for (const id of [...new Set(ids)].sort()) {
    const status = await pingStatus(id);
    if (status !== undefined) listed.push(information(id, status, now));
  }
  const start = input.NextToken === undefined ? 0 : Number(Buffer.from(input.NextToken, 'base64').toString('utf8'));
  if (!Number.isInteger(start) || start < 0 || start > listed.length) {
    return error(400, 'InvalidNextToken', 'The specified token is not valid.');
  }
  const page = listed.slice(start, start + max);
  const next = start + max < listed.length ? Buffer.from(String(start + max)).toString('base64') : undefined;
  return {
    status: 200,
    headers: { 'content-type': JSON_TYPE },
    body: JSON.stringify({ InstanceInformationList: page, ...(next === undefined ? {} : { NextToken: next }) }),
  };
}

export interface SsmAgentStub {
  /** `http://127.0.0.1:<port>`: set AWS_ENDPOINT_URL_SSM to it. */
  readonly endpoint: string;
  /** Each instance's PingStatus; an instance not here has no registered agent. Change it while a test runs. */
  readonly agents: Map<string, PingStatus>;
  /** The request bodies received, in order. */
  readonly requests: Record<string, unknown>[];
  /** Answer every request with this instead (an error), while set. */
  fail: SsmAnswer | undefined;
  close(): Promise<void>;
}

/** A loopback SSM endpoint that implements DescribeInstanceInformation only (see the module comment). */
export async function startSsmAgentStub(): Promise<SsmAgentStub> {
  const agents = new Map<string, PingStatus>();
  const requests: Record<string, unknown>[] = [];
  const state: { fail: SsmAnswer | undefined } = { fail: undefined };
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const target = request.headers['x-amz-target'];
    let answer: SsmAnswer;
    if (request.method !== 'POST' || target !== DESCRIBE_INSTANCE_INFORMATION) {
      answer = error(400, 'UnknownOperationException', `this stub implements ${DESCRIBE_INSTANCE_INFORMATION} only`);
    } else {
      requests.push(JSON.parse(body === '' ? '{}' : body) as Record<string, unknown>);
      answer =
        state.fail ?? (await describeInstanceInformation(body, (id) => agents.get(id), { known: [...agents.keys()] }));
    }
    response.writeHead(answer.status, { ...answer.headers, 'content-length': String(Buffer.byteLength(answer.body)) });
    response.end(answer.body);
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((thrown: unknown) => {
      response.writeHead(500);
      response.end(String(thrown));
    });
  });
  const port = await listenOnLoopback(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    agents,
    requests,
    get fail() {
      return state.fail;
    },
    set fail(value) {
      state.fail = value;
    },
    close: () => closeServer(server),
  };
}
