/**
 * The DNS delegation check end to end: Route 53 in moto, and for a parent zone outside the account, node's resolver
 * pointed (like PLATCTL_DNS_SERVERS) at a tiny loopback DNS server that answers NS queries from a table.
 */
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnvCloud } from '../../../cloud/environment.js';
import { checkDnsDelegation } from '../../../validate/checks/aws.js';
import type { CheckContext } from '../../../validate/checks/context.js';
import { dnsResolver } from '../../../validate/deps.js';
import { MOTO_ACCOUNT_ID, createHostedZone, route53Client, upsertRecord, useMoto } from '../../helpers/moto.js';
import { fakeDeps } from './fakes.js';

function encodeName(name: string): Buffer {
  const parts = name.replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([
    ...parts.map((p) => Buffer.concat([Buffer.from([p.length]), Buffer.from(p)])),
    Buffer.from([0]),
  ]);
}

function readName(message: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  for (let length = message[at] ?? 0; length > 0; length = message[at] ?? 0) {
    labels.push(message.subarray(at + 1, at + 1 + length).toString());
    at += length + 1;
  }
  return { name: labels.join('.').toLowerCase(), end: at + 1 };
}

/** Answers NS queries for the names in `table`; NXDOMAIN for anything else. */
async function startDnsServer(table: Record<string, string[]>): Promise<{ address: string; socket: Socket }> {
  const socket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    const { name, end } = readName(query, 12);
    const question = query.subarray(12, end + 4);
    const values = table[name] ?? [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(values.length > 0 ? 0x8180 : 0x8183, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(values.length, 6);
    const answers = values.map((value) => {
      const rdata = encodeName(value);
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0);
      fixed.writeUInt16BE(2, 2);
      fixed.writeUInt16BE(1, 4);
      fixed.writeUInt32BE(300, 6);
      fixed.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([fixed, rdata]);
    });
    socket.send(Buffer.concat([header, question, ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  return { address: `127.0.0.1:${socket.address().port}`, socket };
}

describe('dns/delegation', () => {
  const moto = useMoto();
  let dns: { address: string; socket: Socket };
  const table: Record<string, string[]> = {};
  beforeAll(async () => {
    dns = await startDnsServer(table);
  });
  afterAll(() => dns.socket.close());

  function ctx(): CheckContext {
    const cloud = createEnvCloud({
      envName: 'platform',
      settings: { dir: 'live/platform', aws: { region: 'eu-west-1', account_id: MOTO_ACCOUNT_ID } },
      env: moto.env,
    });
    return {
      cloud: () => cloud,
      deps: fakeDeps({}, { resolveNs: dnsResolver([dns.address]) }),
      signal: AbortSignal.timeout(5000),
      budgetMs: 60_000,
      timeoutMs: 5000,
    };
  }
  const route53 = () => route53Client(moto);

  it('reads the parent from Route 53 when the parent zone is in the account', async () => {
    const parent = await createHostedZone(route53(), 'example.com');
    const child = await createHostedZone(route53(), 'platform.example.com');
    await upsertRecord(route53(), parent.id, 'platform.example.com', 'NS', child.nameServers);
    const outcome = await checkDnsDelegation('platform', 'platform.example.com', ctx());
    expect(outcome.status).toBe('pass');
    expect(outcome.message).toMatch(
      /^Route 53 zone example\.com \(\w+\) delegates platform\.example\.com to its \d+ name servers$/,
    );
  });

  it('fails a parent zone without an NS record for the zone', async () => {
    await createHostedZone(route53(), 'example.com');
    await createHostedZone(route53(), 'platform.example.com');
    const outcome = await checkDnsDelegation('platform', 'platform.example.com', ctx());
    expect(outcome).toMatchObject({ status: 'fail' });
    expect(outcome.message).toContain('has no NS record for platform.example.com: the zone is not delegated');
  });

  it('falls back to DNS when the parent zone is elsewhere: match and mismatch', async () => {
    const child = await createHostedZone(route53(), 'platform.example.org');
    table['platform.example.org'] = child.nameServers;
    expect(await checkDnsDelegation('platform', 'platform.example.org', ctx())).toMatchObject({
      status: 'pass',
      message: `DNS delegates platform.example.org to its ${child.nameServers.length} name servers`,
    });
    table['platform.example.org'] = ['ns-9.old-zone.example.net'];
    const mismatch = await checkDnsDelegation('platform', 'platform.example.org', ctx());
    expect(mismatch).toMatchObject({
      status: 'fail',
      message: "DNS delegates platform.example.org to other name servers than the hosted zone's",
    });
    expect(mismatch.details?.[0]).toBe('parent: ns-9.old-zone.example.net');
  });

  it('fails a zone DNS does not know, and one missing from the account', async () => {
    await createHostedZone(route53(), 'ghost.example.org');
    const unknown = await checkDnsDelegation('platform', 'ghost.example.org', ctx());
    expect(unknown).toMatchObject({ status: 'fail' });
    expect(unknown.message).toContain('DNS has no NS records for ghost.example.org (ENOTFOUND)');
    const missing = await checkDnsDelegation('platform', 'nowhere.example.org', ctx());
    expect(missing).toEqual({
      status: 'fail',
      message: 'no public hosted zone named nowhere.example.org in this account',
    });
  });
});
