/**
 * `eni_ip_validation`: before a unit (node groups, a cluster), check that each configured subnet has at least
 * `min_free_ips` free IPv4 addresses. With the VPC CNI every pod takes an address from its node's subnet, so a
 * short subnet shows up much later as nodes that never get Ready or pods stuck in ContainerCreating; failing here
 * says which subnet and how short it is before anything is applied.
 */
import type { CloudResult } from '../cloud/result.js';
import type { SubnetInfo, SubnetReader } from '../cloud/subnets.js';
import { hookFailure } from './failure.js';
import type { HookContext, HookFactory, HookResult } from '../engine/hooks.js';

export interface EniIpValidationDeps {
  /** The subnet reader of an environment (see `cloud/hook-clients.ts`). */
  subnets(env: string): Promise<CloudResult<SubnetReader>>;
}

const NAME = 'eni_ip_validation';

/** A subnet for people: `subnet-0abc (private-a, eu-west-1a)`. */
export function describeSubnet(subnet: SubnetInfo): string {
  const about = [subnet.name, subnet.availabilityZone].filter((part) => part !== undefined);
  return about.length > 0 ? `${subnet.id} (${about.join(', ')})` : subnet.id;
}

/** The verdict on `subnets` for `unit`: every subnet needs `minFreeIps` available addresses. */
export function judgeFreeIps(unit: string, subnets: readonly SubnetInfo[], minFreeIps: number): HookResult {
  const short = subnets.filter((subnet) => subnet.availableIps < minFreeIps);
  if (short.length === 0) {
    const least = Math.min(...subnets.map((subnet) => subnet.availableIps));
    return {
      ok: true,
      value: `${subnets.length} subnet${subnets.length === 1 ? '' : 's'} with at least ${minFreeIps} free IPs (fewest: ${least})`,
    };
  }
  const list = short.map((subnet) => `${describeSubnet(subnet)} has ${subnet.availableIps}`).join(', ');
  return {
    ok: false,
    reason: 'too-few-free-ips',
    message:
      `${NAME} hook of ${unit}: ${short.length} of ${subnets.length} subnets have fewer than ${minFreeIps} free IPs: ${list}. ` +
      'Free addresses in them (unused network interfaces, load balancers, idle nodes) or add subnets, then run ' +
      'bootstrap --resume; lower min_free_ips only if the unit needs fewer.',
  };
}

/** The hook's whole check for one unit, with the reader injected. */
export async function validateFreeIps(
  ctx: HookContext<'eni_ip_validation'>,
  reader: SubnetReader,
): Promise<HookResult> {
  const { settings } = ctx;
  const subnets = await reader.describe(settings.subnets, ctx.signal);
  if (!subnets.ok) return hookFailure(NAME, ctx.unit, 'reading the subnets', subnets);
  for (const subnet of subnets.value) ctx.log(`${NAME}: ${describeSubnet(subnet)}: ${subnet.availableIps} free IPs`);
  return judgeFreeIps(ctx.unit, subnets.value, settings.min_free_ips);
}

/** The factory the hook registry wires: `eni_ip_validation: eniIpValidationHook(clients)`. */
export function eniIpValidationHook(deps: EniIpValidationDeps): HookFactory<'eni_ip_validation'> {
  return () => ({
    name: NAME,
    async beforeUnit(ctx) {
      const reader = await deps.subnets(ctx.env);
      if (!reader.ok) return hookFailure(NAME, ctx.unit, `reaching EC2 for environment ${ctx.env}`, reader);
      return validateFreeIps(ctx, reader.value);
    },
  });
}
