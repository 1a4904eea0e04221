/**
 * The three Route 53 reads the DNS delegation check needs, as SigV4-signed HTTPS requests (the Route 53 SDK
 * client is not available to this project). Honours AWS_ENDPOINT_URL_ROUTE_53 / AWS_ENDPOINT_URL like the SDK.
 */
import type { CredentialProvider } from './credentials.js';
import type { EnvVars } from './env.js';
import { endpointFor } from './env.js';
import type { XmlElement } from './xml.js';
import { children, parseXml, text } from './xml.js';

const API_VERSION = '2013-04-01';
/** Route 53 is a global service signed in us-east-1. */
const SIGNING_REGION = 'us-east-1';

/** A Route 53 error answer, named after its `Code` like the SDK's errors, so `isAuthError` recognises it. */
export class Route53Error extends Error {
  readonly status: number;
  readonly $metadata: { httpStatusCode: number };
  constructor(code: string, message: string, status: number) {
    super(message);
    this.name = code;
    this.status = status;
    this.$metadata = { httpStatusCode: status };
  }
}

export interface HostedZone {
  /** Without the `/hostedzone/` prefix. */
  readonly id: string;
  /** Lower-case, no trailing dot. */
  readonly name: string;
  readonly privateZone: boolean;
}

export interface Route53ClientOptions {
  readonly credentials: CredentialProvider;
  readonly env: EnvVars;
  readonly fetch?: typeof fetch;
}

/** A domain name compared the DNS way: lower-case, no trailing dot. */
export function normalizeDomain(name: string): string {
  return name.trim().toLowerCase().replace(/\.+$/, '');
}

export class Route53Client {
  readonly endpoint: string;
  readonly #credentials: CredentialProvider;
  readonly #fetch: typeof fetch;

  constructor(options: Route53ClientOptions) {
    this.endpoint = (endpointFor('Route 53', options.env) ?? 'https://route53.amazonaws.com').replace(/\/+$/, '');
    this.#credentials = options.credentials;
    this.#fetch = options.fetch ?? fetch;
  }

  /**
   * Sends one signed request and parses the XML answer; throws {@link Route53Error} for an error answer.
   * Exported for tests, which create zones in moto through it.
   */
  async request(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    query: Record<string, string> = {},
    body?: string,
    signal?: AbortSignal,
  ): Promise<XmlElement> {
    const [{ SignatureV4 }, { HttpRequest }, { Sha256 }] = await Promise.all([
      import('@smithy/signature-v4'),
      import('@smithy/protocol-http'),
      import('@aws-crypto/sha256-js'),
    ]);
    const url = new URL(this.endpoint);
    const basePath = url.pathname.replace(/\/+$/, '');
    const headers: Record<string, string> = { host: url.host };
    if (body !== undefined) headers['content-type'] = 'application/xml';
    const request = new HttpRequest({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: `${basePath}/${API_VERSION}${path}`,
      query,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const signer = new SignatureV4({
      credentials: this.#credentials,
      region: SIGNING_REGION,
      service: 'route53',
      sha256: Sha256,
    });
    const signed = await signer.sign(request);
    const search = new URLSearchParams(query).toString();
    const target = `${url.protocol}//${url.host}${signed.path}${search ? `?${search}` : ''}`;
    const signedHeaders = { ...(signed.headers as Record<string, string>) };
    delete signedHeaders.host;
    const response = await this.#fetch(target, {
      method,
      headers: signedHeaders,
      ...(body !== undefined ? { body } : {}),
      ...(signal ? { signal } : {}),
    });
    const xml = parseXml(await response.text());
    if (response.status >= 400) {
      const error = children(xml, 'ErrorResponse', 'Error')[0] ?? children(xml, 'Error')[0];
      const code = text(error, 'Code') ?? `HTTP${response.status}`;
      throw new Route53Error(code, text(error, 'Message') ?? response.statusText, response.status);
    }
    return xml;
  }

  /** GetHostedZone: the zone and its delegation set's name servers (normalized). */
  async getHostedZone(id: string, signal?: AbortSignal): Promise<{ zone: HostedZone; nameServers: string[] }> {
    const xml = await this.request('GET', `/hostedzone/${stripZonePrefix(id)}`, {}, undefined, signal);
    const root = children(xml, 'GetHostedZoneResponse')[0];
    const zoneEl = children(root, 'HostedZone')[0];
    return {
      zone: toZone(zoneEl),
      nameServers: children(root, 'DelegationSet', 'NameServers', 'NameServer').map((el) => normalizeDomain(el.text)),
    };
  }

  /**
   * ListHostedZonesByName, filtered to zones named exactly `name` (the API lists from `name` on, in order).
   * Public zones come first: delegation is about the public zone.
   */
  async findHostedZones(name: string, signal?: AbortSignal): Promise<HostedZone[]> {
    const wanted = normalizeDomain(name);
    const xml = await this.request('GET', '/hostedzonesbyname', { dnsname: wanted, maxitems: '20' }, undefined, signal);
    return children(xml, 'ListHostedZonesByNameResponse', 'HostedZones', 'HostedZone')
      .map(toZone)
      .filter((zone) => zone.name === wanted)
      .sort((a, b) => Number(a.privateZone) - Number(b.privateZone));
  }

  /** ListResourceRecordSets starting at (name, type); only records exactly matching both are returned. */
  async recordValues(zoneId: string, name: string, type: string, signal?: AbortSignal): Promise<string[]> {
    const wanted = normalizeDomain(name);
    const xml = await this.request(
      'GET',
      `/hostedzone/${stripZonePrefix(zoneId)}/rrset`,
      { name: wanted, type, maxitems: '1' },
      undefined,
      signal,
    );
    const sets = children(xml, 'ListResourceRecordSetsResponse', 'ResourceRecordSets', 'ResourceRecordSet');
    return sets
      .filter((set) => normalizeDomain(text(set, 'Name') ?? '') === wanted && text(set, 'Type') === type)
      .flatMap((set) => children(set, 'ResourceRecords', 'ResourceRecord'))
      .map((record) => text(record, 'Value') ?? '');
  }
}

function stripZonePrefix(id: string): string {
  return id.replace(/^\/?hostedzone\//, '');
}

function toZone(element: XmlElement | undefined): HostedZone {
  return {
    id: stripZonePrefix(text(element, 'Id') ?? ''),
    name: normalizeDomain(text(element, 'Name') ?? ''),
    privateZone: text(element, 'Config', 'PrivateZone') === 'true',
  };
}
