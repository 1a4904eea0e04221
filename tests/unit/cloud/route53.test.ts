/** The Route 53 reads over the SDK client that EnvCloud builds, against moto over HTTP. */
import { describe, expect, it } from 'vitest';
import { isAuthError } from '../../../cloud/auth-errors.js';
import { createEnvCloud } from '../../../cloud/environment.js';
import type { Route53Reader } from '../../../cloud/route53.js';
import { normalizeDomain } from '../../../cloud/route53.js';
import { createHostedZone, route53Client, upsertRecord, useMoto } from '../../helpers/moto.js';

describe('Route53Reader against moto', () => {
  const moto = useMoto();

  /** The reader exactly as validate gets it: from the environment's cloud access, with `env` as the process's. */
  async function reader(env: Record<string, string | undefined> = moto.env): Promise<Route53Reader> {
    const cloud = createEnvCloud({ envName: 'platform', settings: { dir: 'live', aws: { region: 'eu-west-1' } }, env });
    const built = await cloud.route53();
    if (!built.ok) throw new Error(built.message);
    return built.value;
  }

  it('finds a zone by name and reads its delegation set', async () => {
    const created = await createHostedZone(route53Client(moto), 'platform.example.com');
    const client = await reader();
    const zones = await client.findHostedZones('Platform.Example.com.');
    expect(zones.map((z) => z.id)).toEqual([created.id]);
    expect(zones[0]?.name).toBe('platform.example.com');
    const { zone, nameServers } = await client.getHostedZone(`/hostedzone/${created.id}`);
    expect(zone.name).toBe('platform.example.com');
    expect(nameServers.length).toBeGreaterThan(0);
    expect(nameServers).toEqual(created.nameServers);
  });

  it('lists only the exact NS record asked for', async () => {
    const parent = await createHostedZone(route53Client(moto), 'example.com');
    await upsertRecord(route53Client(moto), parent.id, 'platform.example.com', 'NS', [
      'ns-1.example.net.',
      'ns-2.example.net.',
    ]);
    const client = await reader();
    expect(await client.recordValues(parent.id, 'platform.example.com', 'NS')).toEqual([
      'ns-1.example.net.',
      'ns-2.example.net.',
    ]);
    expect(await client.recordValues(parent.id, 'other.example.com', 'NS')).toEqual([]);
  });

  it('passes the SDK error for an unknown zone through, named by its Route 53 code', async () => {
    const failure = await (await reader()).getHostedZone('ZDOESNOTEXIST').catch((e: unknown) => e);
    expect((failure as Error).name).toBe('NoSuchHostedZone');
    expect(isAuthError(failure)).toBe(false);
  });

  it('honours AWS_ENDPOINT_URL_ROUTE_53 over AWS_ENDPOINT_URL', async () => {
    await createHostedZone(route53Client(moto), 'routed.example.com');
    const client = await reader({
      ...moto.env,
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
      AWS_ENDPOINT_URL_ROUTE_53: moto.endpoint,
    });
    expect((await client.findHostedZones('routed.example.com')).length).toBe(1);
  });
});

describe('normalizeDomain', () => {
  it('lower-cases and drops trailing dots', () => {
    expect(normalizeDomain(' NS-1.AwsDns.COM. ')).toBe('ns-1.awsdns.com');
  });
});
