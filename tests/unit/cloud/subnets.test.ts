/** The EC2 subnet reader against moto over real HTTP: moto computes AvailableIpAddressCount from the CIDR and ENIs. */
import { EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { createSubnetReader } from '../../../cloud/subnets.js';
import { seedSubnets } from '../../helpers/aws-seed.js';
import { useMoto } from '../../helpers/moto.js';

describe('subnet reader against moto', () => {
  const moto = useMoto();
  const reader = () =>
    createSubnetReader({
      envName: 'platform',
      region: moto.region,
      env: moto.env,
      credentials: () => Promise.resolve({ accessKeyId: 'testing', secretAccessKey: 'testing' }),
    });

  it('reads subnets by id and by tag (with wildcards), as one list', async () => {
    const [a, b, c] = await seedSubnets(moto, [
      { cidr: '10.0.1.0/24', name: 'private-a', tags: { tier: 'private' } },
      { cidr: '10.0.2.0/28', name: 'private-b', tags: { tier: 'private' } },
      { cidr: '10.0.3.0/24', name: 'public-a', tags: { tier: 'public' } },
    ]);
    const byTag = await reader().describe({ ids: [], tags: { Name: 'private-*' } });
    const named = byTag.ok ? byTag.value.map((s) => [s.name, s.availableIps]) : [];
    // A /24 has 251 usable addresses and a /28 11: AWS keeps five of each subnet.
    expect(named.sort()).toEqual([
      ['private-a', 251],
      ['private-b', 11],
    ]);
    const both = await reader().describe({ ids: [c ?? ''], tags: { tier: 'private' } });
    expect(both.ok && both.value.map((s) => s.id).sort()).toEqual([a, b, c].sort());
    expect(both.ok && both.value.find((s) => s.id === c)).toMatchObject({
      name: 'public-a',
      availabilityZone: `${moto.region}a`,
      cidr: '10.0.3.0/24',
    });
  });

  it('counts addresses taken by instances', async () => {
    const [subnet] = await seedSubnets(moto, [{ cidr: '10.0.9.0/28', name: 'tiny' }]);
    const ec2 = new EC2Client({
      region: moto.region,
      endpoint: moto.endpoint,
      credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    });
    await ec2.send(new RunInstancesCommand({ ImageId: 'ami-12c6146b', MinCount: 3, MaxCount: 3, SubnetId: subnet }));
    const read = await reader().describe({ ids: [subnet ?? ''], tags: {} });
    expect(read.ok && read.value[0]?.availableIps).toBe(8);
  });

  it('names a missing subnet id and a tag no subnet carries', async () => {
    const missing = await reader().describe({ ids: ['subnet-0123456789abcdef0'], tags: {} });
    expect(missing).toMatchObject({ ok: false, reason: 'not-found' });
    expect(!missing.ok && missing.message).toContain('subnet-0123456789abcdef0');
    expect(!missing.ok && missing.hint).toContain('eni_ip_validation');

    const untagged = await reader().describe({ ids: [], tags: { Name: 'nothing-*' } });
    expect(untagged).toMatchObject({ ok: false, reason: 'not-found' });
    expect(!untagged.ok && untagged.message).toContain(
      'no subnet in eu-west-1 (environment platform) carries the tags Name=nothing-*',
    );
  });
});
