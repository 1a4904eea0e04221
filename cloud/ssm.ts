/**
 * The Systems Manager calls platctl makes: a Parameter Store parameter judged without its value leaving this module
 * (the manual-step check `ssm_parameter`), and the SSM agents of instances (the bastion's readiness: `up` waits for
 * `Online`, `validate` checks it). The SDK client is imported on first use and built like every other client of an
 * environment ({@link sdkConfig}).
 *
 * A parameter's value is read with decryption only to be handed to the caller's `judge`, which answers something
 * that is not the value (a placeholder rule). The value is never returned, logged, or put in an error message.
 */
import type { CloudResult } from './result.js';
import { failure, ok } from './result.js';
import type { AwsAccess } from './sdk-access.js';
import { callOptions, lazyClient, sdkConfig, sdkFailure } from './sdk-access.js';

/** What GetParameter says about a parameter, with the judge's verdict on its value instead of the value. */
export interface ParameterFacts<T> {
  /** `String`, `StringList` or `SecureString`. */
  readonly type: string;
  readonly version?: number;
  readonly verdict: T;
}

/** An instance's SSM agent as DescribeInstanceInformation reports it. */
export interface AgentInfo {
  readonly instanceId: string;
  /** `Online`, `ConnectionLost` or `Inactive`. */
  readonly pingStatus: string;
  readonly lastPing?: Date;
  readonly agentVersion?: string;
}

export interface SsmReader {
  /**
   * GetParameter with decryption; `judge` sees the value and its answer is returned. A missing parameter is a
   * `not-found` failure.
   */
  parameter<T>(
    name: string,
    judge: (value: string) => T,
    signal?: AbortSignal,
  ): Promise<CloudResult<ParameterFacts<T>>>;
  /**
   * The SSM agents of `ids` (DescribeInstanceInformation, filtered by instance id). An instance whose agent never
   * registered is not in the answer.
   */
  agents(ids: readonly string[], signal?: AbortSignal): Promise<CloudResult<AgentInfo[]>>;
}

/** Instance ids per DescribeInstanceInformation call: one filter's values are limited; platctl asks about a few. */
const IDS_PER_CALL = 50;

export function createSsmReader(access: AwsAccess): SsmReader {
  const sdk = () => import('@aws-sdk/client-ssm');
  const getClient = lazyClient(() => sdk().then(({ SSMClient }) => new SSMClient(sdkConfig(access, 'SSM'))));
  const where = `in ${access.region} (environment ${access.envName})`;

  return {
    async parameter(name, judge, signal) {
      let facts: { type: string; version?: number; verdict: ReturnType<typeof judge> };
      try {
        const [{ GetParameterCommand }, ssm] = await Promise.all([sdk(), getClient()]);
        const answer = await ssm.send(
          new GetParameterCommand({ Name: name, WithDecryption: true }),
          callOptions(signal),
        );
        const parameter = answer.Parameter;
        facts = {
          type: parameter?.Type ?? 'String',
          ...(parameter?.Version === undefined ? {} : { version: parameter.Version }),
          verdict: judge(parameter?.Value ?? ''),
        };
      } catch (error) {
        if (error instanceof Error && error.name === 'ParameterNotFound') {
          return failure('not-found', `SSM parameter ${name} does not exist ${where}`);
        }
        return sdkFailure(error, `reading SSM parameter ${name} ${where}`, access.profile);
      }
      return ok(facts);
    },

    async agents(ids, signal) {
      const found: AgentInfo[] = [];
      try {
        const [{ paginateDescribeInstanceInformation }, ssm] = await Promise.all([sdk(), getClient()]);
        for (let at = 0; at < ids.length; at += IDS_PER_CALL) {
          // The signal goes in the third argument: a paginator passes only that one on to each request.
          const pages = paginateDescribeInstanceInformation(
            { client: ssm },
            { Filters: [{ Key: 'InstanceIds', Values: ids.slice(at, at + IDS_PER_CALL) }] },
            callOptions(signal),
          );
          for await (const page of pages) {
            for (const info of page.InstanceInformationList ?? []) {
              if (info.InstanceId === undefined) continue;
              found.push({
                instanceId: info.InstanceId,
                pingStatus: info.PingStatus ?? 'unknown',
                ...(info.LastPingDateTime ? { lastPing: info.LastPingDateTime } : {}),
                ...(info.AgentVersion ? { agentVersion: info.AgentVersion } : {}),
              });
            }
          }
        }
      } catch (error) {
        return sdkFailure(error, `describing the SSM agents of ${ids.join(', ')} ${where}`, access.profile);
      }
      return ok(found.sort((a, b) => a.instanceId.localeCompare(b.instanceId)));
    },
  };
}
