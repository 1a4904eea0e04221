/**
 * The bastion, judged as operators reach it: every instance carrying `park.<env>.bastion.tags` runs and its SSM
 * agent reports Online. A parked environment's stopped bastion is where `down` left it: reported as parked (a skip),
 * not as a failure; a parked environment whose bastion runs anyway is a failure (it costs, and down said it stopped).
 */
import type { CheckOutcome } from '../types.js';
import type { CheckContext } from './context.js';
import { error, fail, fromCloudFailure, pass } from './context.js';

export async function checkBastion(
  env: string,
  tags: Readonly<Record<string, string>>,
  ctx: CheckContext,
): Promise<CheckOutcome> {
  if (!ctx.deps.bastion) return error('this build of validate cannot read the bastion (no EC2/SSM access wired)');
  const reader = await ctx.deps.bastion(env);
  if (!reader.ok) return fromCloudFailure(reader);
  const found = await reader.value.instances(tags, ctx.signal);
  if (!found.ok) return fromCloudFailure(found);
  const described = Object.entries(tags)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
  if (found.value.length === 0) {
    return fail(`no instance is tagged ${described}`, { hint: `fix park.${env}.bastion.tags in .platctl.yaml` });
  }
  const notRunning = found.value.filter((i) => i.state !== 'running');
  const park = (await ctx.deps.parkState?.(env)) ?? { state: 'not-parked' as const };
  if (park.state === 'parked') {
    const since = `${env} is parked (since ${park.since})`;
    if (notRunning.length === found.value.length && found.value.every((i) => i.state === 'stopped')) {
      return {
        status: 'skip',
        message: `parked: ${since}, bastion ${ids(found.value)} stopped; platctl up brings it back`,
      };
    }
    const running = found.value.filter((i) => i.state !== 'stopped');
    return fail(`${since}, yet bastion ${running.map((i) => `${i.id} is ${i.state}`).join(', ')}`, {
      hint: 'run platctl down --resume to stop it, or platctl up to unpark the environment',
    });
  }
  if (notRunning.length > 0) {
    const unknown = park.state === 'unknown' ? ` (and the park state of ${env} is unknown: ${park.message})` : '';
    const outcome = park.state === 'unknown' ? error : fail;
    return outcome(`bastion ${notRunning.map((i) => `${i.id} is ${i.state}`).join(', ')}${unknown}`, {
      hint: `start it, or run platctl up if ${env} was parked`,
    });
  }
  const agents = await reader.value.agents(
    found.value.map((i) => i.id),
    ctx.signal,
  );
  if (!agents.ok) return fromCloudFailure(agents);
  const byId = new Map(agents.value.map((a) => [a.instanceId, a]));
  const offline = found.value.flatMap((i) => {
    const agent = byId.get(i.id);
    if (!agent) return [`${i.id}: no SSM agent has registered`];
    return agent.pingStatus === 'Online' ? [] : [`${i.id}: SSM agent ${agent.pingStatus}`];
  });
  if (offline.length > 0) {
    return fail(`bastion running, but not reachable through SSM: ${offline.join('; ')}`, {
      hint: 'check its instance profile (AmazonSSMManagedInstanceCore) and its route to the SSM endpoints',
    });
  }
  return pass(`${ids(found.value)} running, SSM agent Online`);
}

function ids(instances: readonly { readonly id: string }[]): string {
  return instances.map((i) => i.id).join(', ');
}
