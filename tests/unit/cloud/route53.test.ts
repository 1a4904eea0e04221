import { describe, expect, it } from 'vitest';
import { Route53Client, Route53Error, normalizeDomain } from '../../../cloud/route53.js';
import { isAuthError } from '../../../cloud/auth-errors.js';
import { createHostedZone, upsertRecord, useMoto } from '../../helpers/moto.js';

const credentials = () => Promise.resolve({ accessKeyId: 'testing', secretAccessKey: 'testing' });

describe('Route53Client against moto', () => {
  const moto = useMoto();

  it('finds a zone by name and reads its delegation set', async () => {
    const client = new Route53Client({ credentials, env: moto.env });
    const created = await createHostedZone(client, 'platform.example.com');
    const zones = await client.findHostedZones('Platform.Example.com.');
    expect(zones.map((z) => z.id)).toEqual([created.id]);
    expect(zones[0]?.name).toBe('platform.example.com');
    const { zone, nameServers } = await client.getHostedZone(`/hostedzone/${created.id}`);
    expect(zone.name).toBe('platform.example.com');
    expect(nameServers.length).toBeGreaterThan(0);
    expect(nameServers).toEqual(created.nameServers);
  });

  it('lists only the exact NS record asked for', async () => {
    const client = new Route53Client({ credentials, env: moto.env });
    const parent = await createHostedZone(client, 'example.com');
    await upsertRecord(client, parent.id, 'platform.example.com', 'NS', ['ns-1.example.net.', 'ns-2.example.net.']);
    expect(await client.recordValues(parent.id, 'platform.example.com', 'NS')).toEqual([
      'ns-1.example.net.',
      'ns-2.example.net.',
    ]);
    expect(await client.recordValues(parent.id, 'other.example.com', 'NS')).toEqual([]);
  });

  it('raises a named error for an unknown zone', async () => {
    const client = new Route53Client({ credentials, env: moto.env });
    const failure = await client.getHostedZone('ZDOESNOTEXIST').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Route53Error);
    expect((failure as Route53Error).name).toBe('NoSuchHostedZone');
    expect(isAuthError(failure)).toBe(false);
  });

  it('honours AWS_ENDPOINT_URL_ROUTE_53 over AWS_ENDPOINT_URL', () => {
    const client = new Route53Client({
      credentials,
      env: { AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_ENDPOINT_URL_ROUTE_53: 'http://127.0.0.1:1234/' },
    });
    expect(client.endpoint).toBe('http://127.0.0.1:1234');
    expect(new Route53Client({ credentials, env: {} }).endpoint).toBe('https://route53.amazonaws.com');
  });
});

describe('normalizeDomain', () => {
  it('lower-cases and drops trailing dots', () => {
    expect(normalizeDomain(' NS-1.AwsDns.COM. ')).toBe('ns-1.awsdns.com');
  });
});
