/** Seeding moto with the AWS resources the hook and access tests read. */
import { CreateSubnetCommand, CreateVpcCommand, EC2Client } from '@aws-sdk/client-ec2';

/** Creates subnets in a fresh VPC; returns their ids in order. */
export async function seedSubnets(
  moto: { region: string; endpoint: string },
  subnets: { cidr: string; name: string; tags?: Record<string, string> }[],
): Promise<string[]> {
  const ec2 = new EC2Client({
    region: moto.region,
    endpoint: moto.endpoint,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
  const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.0.0.0/16' }));
  const ids: string[] = [];
  for (const subnet of subnets) {
    const tags = Object.entries({ Name: subnet.name, ...subnet.tags }).map(([Key, Value]) => ({ Key, Value }));
    const created = await ec2.send(
      new CreateSubnetCommand({
        VpcId: vpc.Vpc?.VpcId ?? '',
        CidrBlock: subnet.cidr,
        AvailabilityZone: `${moto.region}a`,
        TagSpecifications: [{ ResourceType: 'subnet', Tags: tags }],
      }),
    );
    ids.push(created.Subnet?.SubnetId ?? '');
  }
  return ids;
}
