/** eni_ip_validation against moto over HTTP: real DescribeSubnets answers, AvailableIpAddressCount included. */
import { describe, expect, it } from 'vitest';
import { createHookClients } from '../../../cloud/hook-clients.js';
import { eniIpValidationHook, judgeFreeIps } from '../../../hooks/eni-ip-validation.js';
import { useMoto } from '../../helpers/moto.js';
import { seedSubnets } from '../../helpers/aws-seed.js';
import { hookContext } from './context.js';

describe('eni_ip_validation', () => {
  const moto = useMoto();
  const hook = (settings: Record<string, unknown>) => {
    const clients = createHookClients({
      environments: { platform: { dir: 'live/platform', aws: { region: moto.region } } },
      env: moto.env,
    });
    const ctx = hookContext('eni_ip_validation', settings, 'platform/node-groups');
    return { ctx, run: () => eniIpValidationHook(clients)(ctx.settings).beforeUnit?.(ctx) };
  };

  it('passes when every subnet has enough free IPs, and logs each count', async () => {
    await seedSubnets(moto, [
      { cidr: '10.0.1.0/24', name: 'private-a' },
      { cidr: '10.0.2.0/24', name: 'private-b' },
    ]);
    const { ctx, run } = hook({ min_free_ips: 200, subnets: { tags: { Name: 'private-*' } } });
    expect(await run()).toEqual({ ok: true, value: '2 subnets with at least 200 free IPs (fewest: 251)' });
    expect(ctx.lines.filter((line) => line.includes(': 251 free IPs'))).toHaveLength(2);
  });

  it('fails naming each short subnet and its count', async () => {
    const [, small, tiny] = await seedSubnets(moto, [
      { cidr: '10.0.1.0/24', name: 'private-a' },
      { cidr: '10.0.2.0/26', name: 'private-b' },
      { cidr: '10.0.3.0/28', name: 'private-c' },
    ]);
    const { run } = hook({ subnets: { tags: { Name: 'private-*' } } });
    const result = await run();
    expect(result?.ok).toBe(false);
    const message = result && !result.ok ? result.message : '';
    expect(message).toContain(
      'eni_ip_validation hook of platform/node-groups: 2 of 3 subnets have fewer than 64 free IPs',
    );
    expect(message).toContain(`${small} (private-b, ${moto.region}a) has 59`);
    expect(message).toContain(`${tiny} (private-c, ${moto.region}a) has 11`);
    expect(message).not.toContain('private-a');
    expect(message).toContain('bootstrap --resume');
  });

  it('fails with the subnet id when a configured subnet does not exist', async () => {
    const { run } = hook({ subnets: { ids: ['subnet-0123456789abcdef0'] } });
    const result = await run();
    expect(result).toMatchObject({ ok: false });
    expect(result && !result.ok && result.message).toMatch(
      /^eni_ip_validation hook of platform\/node-groups: reading the subnets: .*subnet-0123456789abcdef0/,
    );
  });

  it('fails when the environment has no AWS settings', async () => {
    const env = { ...moto.env, AWS_REGION: undefined, AWS_DEFAULT_REGION: undefined };
    const clients = createHookClients({ environments: { platform: { dir: 'x' } }, env });
    const ctx = hookContext('eni_ip_validation', { subnets: { ids: ['subnet-0a'] } });
    const result = await eniIpValidationHook(clients)(ctx.settings).beforeUnit?.(ctx);
    expect(result && !result.ok && result.message).toContain('environment platform has no AWS region');
  });

  it('judges a count equal to the minimum as enough', () => {
    expect(judgeFreeIps('platform/x', [{ id: 'subnet-1', availableIps: 64 }], 64).ok).toBe(true);
    expect(judgeFreeIps('platform/x', [{ id: 'subnet-1', availableIps: 63 }], 64)).toMatchObject({ ok: false });
  });
});
