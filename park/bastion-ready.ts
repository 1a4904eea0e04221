/**
 * The bastion is judged by SSM, as operators reach it (Session Manager): once `up` has it running, it waits,
 * bounded by `park.<env>.bastion_ready_timeout`, until the SSM agent of every started instance reports `Online`
 * (DescribeInstanceInformation, PingStatus). A running instance whose agent never comes back (no instance profile,
 * no route to the SSM endpoints) is a bastion nobody can use: the step fails, naming what the agent last said.
 */
import type { AgentInfo } from '../cloud/ssm.js';
import { ok } from '../cloud/result.js';
import type { ParkContext, StepResult } from './context.js';
import { done, failed, formatDuration, pollUntil } from './context.js';

/** How each instance's agent stands, one phrase per instance not yet Online. */
export function agentsNotOnline(ids: readonly string[], agents: readonly AgentInfo[], now: number): string[] {
  const byId = new Map(agents.map((agent) => [agent.instanceId, agent]));
  return ids.flatMap((id) => {
    const agent = byId.get(id);
    if (!agent) return [`${id}: no SSM agent has registered`];
    if (agent.pingStatus === 'Online') return [];
    const last = agent.lastPing ? `, last ping ${formatDuration(Math.max(0, now - agent.lastPing.getTime()))} ago` : '';
    return [`${id}: SSM agent ${agent.pingStatus}${last}`];
  });
}

/** Waits until the SSM agent of every instance of `ids` is Online, within `bastion_ready_timeout`. */
export async function waitForBastionOnline(ctx: ParkContext, ids: readonly string[]): Promise<StepResult> {
  const timeout = ctx.park.bastion_ready_timeout;
  const started = ctx.now();
  const waited = await pollUntil(
    ctx,
    timeout,
    async () => {
      const agents = await ctx.aws.ssmAgents(ids, ctx.signal);
      if (!agents.ok) return agents;
      const missing = agentsNotOnline(ids, agents.value, ctx.now());
      return ok({ done: missing.length === 0, value: missing });
    },
    (last) =>
      failed(
        'not-ready',
        `the bastion runs, but its SSM agent is not Online after ${formatDuration(timeout)} (bastion_ready_timeout): ${last.join('; ')}`,
        'check that the instance profile grants SSM (AmazonSSMManagedInstanceCore) and that the instance reaches the ' +
          `SSM endpoints, then run platctl up --resume (or raise park.${ctx.env}.bastion_ready_timeout)`,
      ),
  );
  if (!waited.ok) return waited;
  return done(`SSM agent Online after ${formatDuration(ctx.now() - started)}`);
}
