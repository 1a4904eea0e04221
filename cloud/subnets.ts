/** EC2 subnets and their free addresses, for the `eni_ip_validation` hook. */
import type { AwsAccess } from './sdk-access.js';
import { callOptions, lazyClient, sdkConfig, sdkFailure } from './sdk-access.js';
import type { CloudResult } from './result.js';
import { failure, ok } from './result.js';

export interface SubnetInfo {
  readonly id: string;
  /** The `Name` tag, when there is one. */
  readonly name?: string;
  readonly availabilityZone?: string;
  readonly cidr?: string;
  /** DescribeSubnets `AvailableIpAddressCount`: IPv4 addresses not used by any network interface. */
  readonly availableIps: number;
}

/** Subnets by id, by tags (every tag must match; values may use EC2's * and ? wildcards), or both (the union). */
export interface SubnetSelector {
  readonly ids: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
}

export interface SubnetReader {
  describe(selector: SubnetSelector, signal?: AbortSignal): Promise<CloudResult<SubnetInfo[]>>;
}

export function createSubnetReader(access: AwsAccess): SubnetReader {
  const sdk = () => import('@aws-sdk/client-ec2');
  const getClient = lazyClient(() => sdk().then(({ EC2Client }) => new EC2Client(sdkConfig(access, 'EC2'))));
  const where = `in ${access.region} (environment ${access.envName})`;

  return {
    async describe(selector, signal) {
      const byId = new Map<string, SubnetInfo>();
      const [{ paginateDescribeSubnets }, ec2] = await Promise.all([sdk(), getClient()]);
      const read = async (input: { SubnetIds?: string[]; Filters?: { Name: string; Values: string[] }[] }) => {
        const found: SubnetInfo[] = [];
        // A paginator's own config has no signal: the third argument is what each page's send() gets.
        const pages = paginateDescribeSubnets({ client: ec2 }, input, callOptions(signal));
        for await (const page of pages) {
          for (const subnet of page.Subnets ?? []) {
            const name = subnet.Tags?.find((tag) => tag.Key === 'Name')?.Value;
            found.push({
              id: subnet.SubnetId ?? '',
              availableIps: subnet.AvailableIpAddressCount ?? 0,
              ...(name ? { name } : {}),
              ...(subnet.AvailabilityZone ? { availabilityZone: subnet.AvailabilityZone } : {}),
              ...(subnet.CidrBlock ? { cidr: subnet.CidrBlock } : {}),
            });
          }
        }
        return found;
      };

      if (selector.ids.length > 0) {
        try {
          for (const subnet of await read({ SubnetIds: [...selector.ids] })) byId.set(subnet.id, subnet);
        } catch (error) {
          const result = sdkFailure(error, `describing subnets ${selector.ids.join(', ')} ${where}`, access.profile);
          if (result.reason === 'not-found') {
            // EC2 names the missing ids in the message: "The subnet ID 'subnet-1' does not exist".
            return failure('not-found', result.message, 'fix the subnet ids of the eni_ip_validation hook');
          }
          return result;
        }
      }
      const tags = Object.entries(selector.tags);
      if (tags.length > 0) {
        const filters = tags.map(([key, value]) => ({ Name: `tag:${key}`, Values: [value] }));
        const described = tags.map(([key, value]) => `${key}=${value}`).join(', ');
        try {
          const found = await read({ Filters: filters });
          if (found.length === 0) {
            return failure(
              'not-found',
              `no subnet ${where} carries the tags ${described}`,
              'fix the subnet tags of the eni_ip_validation hook, or check the environment',
            );
          }
          for (const subnet of found) byId.set(subnet.id, subnet);
        } catch (error) {
          return sdkFailure(error, `describing subnets tagged ${described} ${where}`, access.profile);
        }
      }
      return ok([...byId.values()].sort((a, b) => a.id.localeCompare(b.id)));
    },
  };
}
