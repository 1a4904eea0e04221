/**
 * The three Route 53 reads the DNS delegation check needs, over the AWS SDK's Route 53 client. The client is built
 * by {@link EnvCloud.route53} (credentials, endpoint overrides such as AWS_ENDPOINT_URL_ROUTE_53); this wrapper only
 * shapes the answers: zone ids without their `/hostedzone/` prefix and domain names compared the DNS way. The SDK
 * module is imported on first use (it is loaded already once a client exists), so importing this file for
 * {@link normalizeDomain} costs nothing.
 */
import type { HostedZone as SdkHostedZone, RRType, Route53Client } from '@aws-sdk/client-route-53';

/** Route 53 is a global service; the SDK signs its requests in us-east-1. */
export const ROUTE53_REGION = 'us-east-1';

export interface HostedZone {
  /** Without the `/hostedzone/` prefix. */
  readonly id: string;
  /** Lower-case, no trailing dot. */
  readonly name: string;
  readonly privateZone: boolean;
}

/** A domain name compared the DNS way: lower-case, no trailing dot. */
export function normalizeDomain(name: string): string {
  return name.trim().toLowerCase().replace(/\.+$/, '');
}

/** A hosted zone id without the `/hostedzone/` prefix the API puts on it in some answers. */
export function stripZonePrefix(id: string): string {
  return id.replace(/^\/?hostedzone\//, '');
}

/** Reads zones and records. SDK errors are passed through unchanged (their `name` is the Route 53 error code). */
export class Route53Reader {
  readonly #client: Route53Client;

  constructor(client: Route53Client) {
    this.#client = client;
  }

  /** GetHostedZone: the zone and its delegation set's name servers (normalized). */
  async getHostedZone(id: string, signal?: AbortSignal): Promise<{ zone: HostedZone; nameServers: string[] }> {
    const { GetHostedZoneCommand } = await import('@aws-sdk/client-route-53');
    const answer = await this.#client.send(new GetHostedZoneCommand({ Id: stripZonePrefix(id) }), options(signal));
    return {
      zone: toZone(answer.HostedZone),
      nameServers: (answer.DelegationSet?.NameServers ?? []).map(normalizeDomain),
    };
  }

  /**
   * ListHostedZonesByName, filtered to zones named exactly `name` (the API lists from `name` on, in order).
   * Public zones come first: delegation is about the public zone.
   */
  async findHostedZones(name: string, signal?: AbortSignal): Promise<HostedZone[]> {
    const wanted = normalizeDomain(name);
    const { ListHostedZonesByNameCommand } = await import('@aws-sdk/client-route-53');
    const answer = await this.#client.send(
      new ListHostedZonesByNameCommand({ DNSName: wanted, MaxItems: 20 }),
      options(signal),
    );
    return (answer.HostedZones ?? [])
      .map(toZone)
      .filter((zone) => zone.name === wanted)
      .sort((a, b) => Number(a.privateZone) - Number(b.privateZone));
  }

  /** ListResourceRecordSets starting at (name, type); only records exactly matching both are returned. */
  async recordValues(zoneId: string, name: string, type: RRType, signal?: AbortSignal): Promise<string[]> {
    const wanted = normalizeDomain(name);
    const { ListResourceRecordSetsCommand } = await import('@aws-sdk/client-route-53');
    const answer = await this.#client.send(
      new ListResourceRecordSetsCommand({
        HostedZoneId: stripZonePrefix(zoneId),
        StartRecordName: wanted,
        StartRecordType: type,
        MaxItems: 1,
      }),
      options(signal),
    );
    return (answer.ResourceRecordSets ?? [])
      .filter((set) => normalizeDomain(set.Name ?? '') === wanted && set.Type === type)
      .flatMap((set) => set.ResourceRecords ?? [])
      .map((record) => record.Value ?? '');
  }
}

function options(signal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return signal ? { abortSignal: signal } : {};
}

function toZone(zone: SdkHostedZone | undefined): HostedZone {
  return {
    id: stripZonePrefix(zone?.Id ?? ''),
    name: normalizeDomain(zone?.Name ?? ''),
    privateZone: zone?.Config?.PrivateZone === true,
  };
}
