/**
 * A loopback OTLP/HTTP trace receiver: what an OpenTelemetry collector is to platctl and Terragrunt. It accepts
 * `POST /v1/traces` as JSON (what platctl's exporter sends) and as protobuf (what Terragrunt's Go exporter sends,
 * decoded with protobufjs from the part of the OTLP schema a test reads), answers 200, and keeps every span, flattened,
 * with hex ids.
 */
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { closeServer, listenOnLoopback } from './loopback.js';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** The span's attributes, values as their JSON scalar (or array). */
  readonly attributes: Readonly<Record<string, unknown>>;
  /** `service.name` of the resource that sent it. */
  readonly service: string;
  readonly startNs: bigint;
  readonly endNs: bigint;
  /** 2: error. */
  readonly statusCode: number;
  /** The names of the span's events, in order (JSON only: the protobuf decoding reads no events). */
  readonly eventNames: readonly string[];
  /** How it came: `json` or `protobuf`. */
  readonly encoding: 'json' | 'protobuf';
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>` (OTEL_EXPORTER_OTLP_ENDPOINT). */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Content types of the requests received, in order. */
  readonly contentTypes: string[];
  close(): Promise<void>;
}

/** The part of opentelemetry/proto/collector/trace/v1 the tests read (field numbers from the OTLP schema). */
const OTLP_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { repeated Span spans = 2; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
`;

const REQUEST = protobuf.parse(OTLP_PROTO, { keepCase: true }).root.lookupType('otlp.ExportTraceServiceRequest');

interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
}
interface JsonKeyValue {
  key: string;
  value?: JsonAnyValue;
}
interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: JsonKeyValue[];
  status?: { code?: number };
  events?: { name?: string }[];
}
interface JsonRequest {
  resourceSpans?: {
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: { spans?: JsonSpan[] }[];
  }[];
}

function valueOf(value: JsonAnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: readonly JsonKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

/** Both encodings, as the JSON mapping (protobuf decoded with bytes as hex, 64-bit numbers as strings). */
function spansOf(request: JsonRequest, encoding: ReceivedSpan['encoding']): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const name = attributesOf(rs.resource?.attributes)['service.name'];
    const service = typeof name === 'string' ? name : '';
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((span) => ({
        traceId: span.traceId.toLowerCase(),
        spanId: span.spanId.toLowerCase(),
        parentSpanId: (span.parentSpanId ?? '').toLowerCase(),
        name: span.name,
        attributes: attributesOf(span.attributes),
        service,
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        statusCode: span.status?.code ?? 0,
        eventNames: (span.events ?? []).map((e) => e.name ?? ''),
        encoding,
      })),
    );
  });
}

function decodeProtobuf(body: Buffer): JsonRequest {
  const message = REQUEST.decode(body);
  const object = REQUEST.toObject(message, { longs: String, defaults: false, oneofs: false, bytes: String });
  // protobufjs gives bytes as base64; OTLP/JSON gives trace and span ids as hex.
  const hex = (b64: unknown): string => (typeof b64 === 'string' ? Buffer.from(b64, 'base64').toString('hex') : '');
  const snake = object as {
    resource_spans?: {
      resource?: { attributes?: ProtoKeyValue[] };
      scope_spans?: { spans?: ProtoSpan[] }[];
    }[];
  };
  return {
    resourceSpans: (snake.resource_spans ?? []).map((rs) => ({
      resource: { attributes: (rs.resource?.attributes ?? []).map(protoKv) },
      scopeSpans: (rs.scope_spans ?? []).map((ss) => ({
        spans: (ss.spans ?? []).map((span) => ({
          traceId: hex(span.trace_id),
          spanId: hex(span.span_id),
          parentSpanId: hex(span.parent_span_id),
          name: span.name ?? '',
          startTimeUnixNano: span.start_time_unix_nano ?? '0',
          endTimeUnixNano: span.end_time_unix_nano ?? '0',
          attributes: (span.attributes ?? []).map(protoKv),
          status: { code: span.status?.code ?? 0 },
        })),
      })),
    })),
  };
}

interface ProtoAnyValue {
  string_value?: string;
  bool_value?: boolean;
  int_value?: string;
  double_value?: number;
  array_value?: { values?: ProtoAnyValue[] };
}
interface ProtoKeyValue {
  key: string;
  value?: ProtoAnyValue;
}
interface ProtoSpan {
  trace_id?: string;
  span_id?: string;
  parent_span_id?: string;
  name?: string;
  start_time_unix_nano?: string;
  end_time_unix_nano?: string;
  attributes?: ProtoKeyValue[];
  status?: { code?: number };
}

function protoValue(value: ProtoAnyValue | undefined): JsonAnyValue | undefined {
  if (!value) return undefined;
  return {
    ...(value.string_value !== undefined ? { stringValue: value.string_value } : {}),
    ...(value.bool_value !== undefined ? { boolValue: value.bool_value } : {}),
    ...(value.int_value !== undefined ? { intValue: value.int_value } : {}),
    ...(value.double_value !== undefined ? { doubleValue: value.double_value } : {}),
    ...(value.array_value !== undefined
      ? { arrayValue: { values: (value.array_value.values ?? []).map((v) => protoValue(v) ?? {}) } }
      : {}),
  };
}

function protoKv(kv: ProtoKeyValue): JsonKeyValue {
  const value = protoValue(kv.value);
  return { key: kv.key, ...(value ? { value } : {}) };
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const type = String(req.headers['content-type'] ?? '');
      contentTypes.push(type);
      try {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        if (type.startsWith('application/json')) {
          spans.push(...spansOf(JSON.parse(body.toString('utf8')) as JsonRequest, 'json'));
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } else if (type.startsWith('application/x-protobuf')) {
          spans.push(...spansOf(decodeProtobuf(body), 'protobuf'));
          // An empty ExportTraceServiceResponse.
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        } else {
          res.writeHead(415).end();
        }
      } catch (error) {
        res.writeHead(400).end(String(error));
      }
    });
  });
  const port = await listenOnLoopback(server);
  return { endpoint: `http://127.0.0.1:${port}`, spans, contentTypes, close: () => closeServer(server) };
}

/** The spans below `parent` (direct children). */
export function childrenOf(spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((s) => s.traceId === parent.traceId && s.parentSpanId === parent.spanId);
}
