/**
 * The reads of validate's bastion check, with a check's abort signal on every call: the instances carrying the
 * bastion tags (EC2 DescribeInstances) and their SSM agents (SSM DescribeInstanceInformation, see ./ssm.ts).
 */
import type { InstanceInfo } from './park-aws.js';
import type { CloudResult } from './result.js';
import { ok } from './result.js';
import type { AwsAccess } from './sdk-access.js';
import { callOptions, lazyClient, sdkConfig, sdkFailure } from './sdk-access.js';
import type { AgentInfo } from './ssm.js';
import { createSsmReader } from './ssm.js';

export interface BastionReader {
  /** Instances carrying every tag, terminated ones left out, by id. */
  instances(tags: Readonly<Record<string, string>>, signal?: AbortSignal): Promise<CloudResult<InstanceInfo[]>>;
  /** Their SSM agents; an instance whose agent never registered is not listed. */
  agents(ids: readonly string[], signal?: AbortSignal): Promise<CloudResult<AgentInfo[]>>;
}

export function createBastionReader(access: AwsAccess): BastionReader {
  const sdk = () => import('@aws-sdk/client-ec2');
  const getClient = lazyClient(() => sdk().then(({ EC2Client }) => new EC2Client(sdkConfig(access, 'EC2'))));
  const ssm = createSsmReader(access);
  return {
    async instances(tags, signal) {
      const described = Object.entries(tags)
        .map(([key, value]) => `${key}=${value}`)
        .join(', ');
      const found: InstanceInfo[] = [];
      try {
        const [{ paginateDescribeInstances }, ec2] = await Promise.all([sdk(), getClient()]);
        const filters = [
          { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped', 'shutting-down'] },
          ...Object.entries(tags).map(([key, value]) => ({ Name: `tag:${key}`, Values: [value] })),
        ];
        // The signal goes in the third argument: a paginator passes only that one on to each request.
        for await (const page of paginateDescribeInstances(
          { client: ec2 },
          { Filters: filters },
          callOptions(signal),
        )) {
          for (const reservation of page.Reservations ?? []) {
            for (const instance of reservation.Instances ?? []) {
              const instanceTags: Record<string, string> = {};
              for (const tag of instance.Tags ?? []) if (tag.Key) instanceTags[tag.Key] = tag.Value ?? '';
              found.push({
                id: instance.InstanceId ?? '',
                state: instance.State?.Name ?? 'unknown',
                tags: instanceTags,
              });
            }
          }
        }
      } catch (error) {
        return sdkFailure(
          error,
          `describing the instances tagged ${described} in ${access.region} (environment ${access.envName})`,
          access.profile,
        );
      }
      return ok(found.sort((a, b) => a.id.localeCompare(b.id)));
    },
    agents: (ids, signal) => ssm.agents(ids, signal),
  };
}
