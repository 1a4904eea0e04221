/**
 * `platctl down`, as a list of steps in the order they must run (docs/park.md): the record first, then Argo CD, the
 * do-not-disrupt annotations, Karpenter, the managed node groups, the bastion, and the proof through the AWS APIs
 * that nothing costs compute any more.
 */
import type { KubeJson } from '../cloud/kube-writer.js';
import { KINDS } from '../cloud/kube-writer.js';
import type { InstanceInfo, NodeGroupInfo, NodeGroupSize } from '../cloud/park-aws.js';
import { LIVE_STATES } from '../cloud/park-aws.js';
import type { CloudFailure, CloudResult } from '../cloud/result.js';
import { ok } from '../cloud/result.js';
import { poll } from '../engine/waits.js';
import type { ParkContext, ParkStep, StepFailure, StepResult } from './context.js';
import {
  done,
  failed,
  formatDuration,
  fromCloud,
  interrupted,
  listSome,
  lostLock,
  pollInterval,
  waitOptions,
} from './context.js';
import {
  DO_NOT_DISRUPT,
  drainNodes,
  nameOf,
  nodeGroupNodes,
  qualified,
  selected,
  stripForRecord,
} from './kube-helpers.js';
import type { ParkRecord } from './record.js';

/** How long an EKS node-group update and an instance stop may take. */
const AWS_WAIT_MS = 15 * 60_000;

/** The node groups this environment parks, as they are now. */
export async function parkedGroups(ctx: ParkContext): Promise<CloudResult<NodeGroupInfo[]>> {
  const names = ctx.park.node_groups === 'all' ? await ctx.aws.listNodeGroups() : ok([...ctx.park.node_groups].sort());
  if (!names.ok) return names;
  const out: NodeGroupInfo[] = [];
  for (const name of names.value) {
    const group = await ctx.aws.describeNodeGroup(name);
    if (!group.ok) {
      return group.reason === 'not-found'
        ? { ...group, hint: `fix park.${ctx.env}.node_groups in .platctl.yaml (no node group ${name})` }
        : group;
    }
    out.push(group.value);
  }
  return ok(out);
}

/** The bastion instances (by `park.<env>.bastion.tags`), not terminated. */
export async function bastions(ctx: ParkContext): Promise<CloudResult<InstanceInfo[]>> {
  const tags = ctx.park.bastion?.tags;
  if (!tags) return ok([]);
  return ctx.aws.instances({ tags });
}

async function karpenterObjects(ctx: ParkContext): Promise<CloudResult<{ pools: KubeJson[]; classes: KubeJson[] }>> {
  const karpenter = ctx.park.karpenter;
  if (!karpenter) return ok({ pools: [], classes: [] });
  const kube = await ctx.kube();
  if (!kube.ok) return kube;
  const pools = await kube.value.list(KINDS.nodepools);
  if (!pools.ok) return pools;
  const classes = await kube.value.list(KINDS.ec2nodeclasses);
  if (!classes.ok) return classes;
  return ok({
    pools: selected(pools.value, karpenter.nodepools),
    classes: selected(classes.value, karpenter.ec2nodeclasses),
  });
}

async function argoApps(ctx: ParkContext): Promise<CloudResult<KubeJson[]>> {
  const argocd = ctx.park.argocd;
  if (!argocd) return ok([]);
  const kube = await ctx.kube();
  if (!kube.ok) return kube;
  const out: KubeJson[] = [];
  for (const name of argocd.apps) {
    const app = await kube.value.get({ ...KINDS.applications, namespace: argocd.namespace }, name);
    if (!app.ok) {
      return app.reason === 'not-found'
        ? {
            ...app,
            hint: `fix park.${ctx.env}.argocd.apps in .platctl.yaml (no Application ${argocd.namespace}/${name})`,
          }
        : app;
    }
    out.push(app.value);
  }
  return ok(out);
}

function sizeText(size: NodeGroupSize): string {
  return `min ${size.min} / max ${size.max} / desired ${size.desired}`;
}

const recordStep: ParkStep = {
  name: 'record',
  title: 'Write the park record',
  describe: async (ctx) => {
    const existing = await ctx.records.read();
    if (!existing.ok) return existing;
    if (existing.value?.status === 'parked') {
      return ok([`keep the record of ${existing.value.parked_at} at ${ctx.records.location}`]);
    }
    const groups = await parkedGroups(ctx);
    if (!groups.ok) return groups;
    return ok([
      `write ${ctx.records.location} with:`,
      ...groups.value.map((g) => `  node group ${g.name}: ${sizeText(ctx.restoreSizes?.[g.name] ?? g)}`),
    ]);
  },
  run: async (ctx) => {
    const existing = await ctx.records.read();
    if (!existing.ok) return fromCloud(existing);
    if (existing.value?.status === 'parked') {
      ctx.record = existing.value;
      await ctx.records.mirror(existing.value);
      return done(
        `kept the record of ${existing.value.parked_at} (${existing.value.parked_by.user}@${existing.value.parked_by.host})`,
      );
    }
    const built = await buildRecord(ctx);
    if (!built.ok) return built;
    const written = await ctx.records.write(built.record, existing.value === undefined);
    if (!written.ok) return fromCloud(written);
    if (written.value === 'fenced') return lostLock(ctx);
    if (written.value === 'conflict') {
      // Another runner wrote first: work from its record, never over it.
      const theirs = await ctx.records.read();
      if (!theirs.ok) return fromCloud(theirs);
      if (theirs.value?.status !== 'parked') {
        return failed('error', `${ctx.records.location} changed while writing it`, 'run platctl down again');
      }
      ctx.record = theirs.value;
      await ctx.records.mirror(theirs.value);
      return done(`another runner recorded first (${theirs.value.parked_at}); using its record`);
    }
    ctx.record = built.record;
    const zero = Object.entries(built.record.node_groups).filter(
      ([, s]) => s.desired === 0 && s.max > 0 && s.min === 0,
    );
    const note = zero.length > 0 ? `; already at 0 before parking: ${zero.map(([n]) => n).join(', ')}` : '';
    return done(
      `recorded ${Object.keys(built.record.node_groups).length} node groups, ${built.record.karpenter.nodepools.length} NodePools, ` +
        `${built.record.karpenter.ec2nodeclasses.length} EC2NodeClasses, ${built.record.bastions.length} bastions, ` +
        `${built.record.argocd.apps.length} Argo CD apps at ${ctx.records.location}${note}`,
    );
  },
};

async function buildRecord(ctx: ParkContext): Promise<{ ok: true; record: ParkRecord } | StepFailure> {
  const groups = await parkedGroups(ctx);
  if (!groups.ok) return fromCloud(groups);
  const hosts = await bastions(ctx);
  if (!hosts.ok) return fromCloud(hosts);
  const scaled = hosts.value.filter((i) => i.tags['aws:autoscaling:groupName'] !== undefined);
  if (scaled.length > 0) {
    return failed(
      'error',
      `bastion ${scaled.map((i) => i.id).join(', ')} belongs to an Auto Scaling group, which would replace it once stopped`,
      `tag only the bastion instance itself in park.${ctx.env}.bastion.tags, or park it by scaling its group`,
    );
  }
  const karpenter = await karpenterObjects(ctx);
  if (!karpenter.ok) return fromCloud(karpenter);
  const apps = await argoApps(ctx);
  if (!apps.ok) return fromCloud(apps);
  const automated = apps.value.flatMap((app) => {
    const policy = (app.spec?.syncPolicy ?? {}) as { automated?: unknown };
    return policy.automated === undefined || policy.automated === null
      ? []
      : [{ name: nameOf(app), automated: policy.automated }];
  });
  return {
    ok: true,
    record: {
      version: 1,
      env: ctx.env,
      cluster: ctx.cluster,
      status: 'parked',
      parked_at: new Date(ctx.now()).toISOString(),
      parked_by: { ...ctx.who },
      node_groups: Object.fromEntries(
        // --restore-size gives the sizes of a group already at 0 when no record holds them (park/restore-sizes.ts).
        groups.value.map((g) => [g.name, ctx.restoreSizes?.[g.name] ?? { min: g.min, max: g.max, desired: g.desired }]),
      ),
      karpenter: {
        nodepools: karpenter.value.pools.map(stripForRecord),
        ec2nodeclasses: karpenter.value.classes.map(stripForRecord),
      },
      bastions: hosts.value.map((i) => ({ id: i.id, state: i.state })),
      argocd: { namespace: ctx.park.argocd?.namespace ?? 'argocd', apps: automated },
    },
  };
}

const argoPauseStep: ParkStep = {
  name: 'argocd-pause',
  title: 'Pause Argo CD auto-sync',
  describe: async (ctx) => {
    const apps = await argoApps(ctx);
    if (!apps.ok) return apps;
    return ok(
      apps.value.map((app) => {
        const automated = (app.spec?.syncPolicy as { automated?: unknown } | undefined)?.automated;
        return `${qualified(app)}: automated sync ${automated ? 'on -> paused' : 'already off'}`;
      }),
    );
  },
  run: async (ctx) => {
    const kube = await ctx.kube();
    if (!kube.ok) return fromCloud(kube);
    const record = ctx.record;
    const names = record?.argocd.apps.map((a) => a.name) ?? [];
    for (const name of names) {
      const patched = await kube.value.mergePatch(
        { ...KINDS.applications, namespace: record?.argocd.namespace ?? 'argocd' },
        name,
        {
          spec: { syncPolicy: { automated: null } },
        },
      );
      if (!patched.ok) return fromCloud(patched);
    }
    return done(names.length > 0 ? `paused ${names.join(', ')}` : 'no application had automated sync');
  },
};

async function annotated(
  ctx: ParkContext,
): Promise<CloudResult<{ kind: 'pods' | 'nodes' | 'nodeclaims'; objects: KubeJson[] }[]>> {
  const kube = await ctx.kube();
  if (!kube.ok) return kube;
  const out: { kind: 'pods' | 'nodes' | 'nodeclaims'; objects: KubeJson[] }[] = [];
  for (const kind of ['pods', 'nodes', 'nodeclaims'] as const) {
    if (kind === 'nodeclaims' && !ctx.park.karpenter) continue;
    const list = await kube.value.list(KINDS[kind]);
    if (!list.ok) return list;
    out.push({ kind, objects: list.value.filter((o) => o.metadata?.annotations?.[DO_NOT_DISRUPT] !== undefined) });
  }
  return ok(out);
}

const doNotDisruptStep: ParkStep = {
  name: 'do-not-disrupt',
  title: `Clear ${DO_NOT_DISRUPT}`,
  describe: async (ctx) => {
    const found = await annotated(ctx);
    if (!found.ok) return found;
    const lines = found.value
      .filter((f) => f.objects.length > 0)
      .map((f) => `${f.kind}: ${listSome(f.objects.map(qualified))}`);
    return ok(lines.length > 0 ? lines : ['nothing carries it']);
  },
  run: async (ctx) => {
    const found = await annotated(ctx);
    if (!found.ok) return fromCloud(found);
    const kube = await ctx.kube();
    if (!kube.ok) return fromCloud(kube);
    const cleared: string[] = [];
    for (const { kind, objects } of found.value) {
      for (const object of objects) {
        const ref = { ...KINDS[kind], ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}) };
        const patched = await kube.value.mergePatch(ref, nameOf(object), {
          metadata: { annotations: { [DO_NOT_DISRUPT]: null } },
        });
        if (!patched.ok && patched.reason !== 'not-found') return fromCloud(patched);
        cleared.push(`${kind.replace(/s$/, '')} ${qualified(object)}`);
      }
    }
    return done(cleared.length > 0 ? `cleared on ${listSome(cleared)}` : 'nothing carried it');
  },
};

const karpenterStep: ParkStep = {
  name: 'karpenter',
  title: 'Delete NodePools and EC2NodeClasses, wait for the NodeClaims to go',
  describe: async (ctx) => {
    const objects = await karpenterObjects(ctx);
    if (!objects.ok) return objects;
    const kube = await ctx.kube();
    if (!kube.ok) return kube;
    const claims = await kube.value.list(KINDS.nodeclaims);
    if (!claims.ok) return claims;
    return ok([
      `NodePools: ${listSome(objects.value.pools.map(nameOf)) || 'none'}`,
      `EC2NodeClasses: ${listSome(objects.value.classes.map(nameOf)) || 'none'}`,
      `NodeClaims now: ${listSome(claims.value.map(nameOf)) || 'none'}`,
    ]);
  },
  run: async (ctx) => {
    const karpenter = ctx.park.karpenter;
    const kube = await ctx.kube();
    if (!kube.ok) return fromCloud(kube);
    if (!karpenter) return done('no Karpenter configured');
    const objects = await karpenterObjects(ctx);
    if (!objects.ok) return fromCloud(objects);
    const pools = objects.value.pools.map(nameOf);
    for (const name of pools) {
      const deleted = await kube.value.delete(KINDS.nodepools, name, { propagationPolicy: 'Foreground' });
      if (!deleted.ok) return fromCloud(deleted);
    }
    for (const name of objects.value.classes.map(nameOf)) {
      const deleted = await kube.value.delete(KINDS.ec2nodeclasses, name);
      if (!deleted.ok) return fromCloud(deleted);
    }
    // The delete cascade returns at once; the NodeClaims (and their instances) go afterwards.
    const recorded = new Set(ctx.record?.karpenter.nodepools.map(nameOf) ?? pools);
    const ours = (claim: KubeJson): boolean =>
      karpenter.nodepools === 'all' || recorded.has(claim.metadata?.labels?.['karpenter.sh/nodepool'] ?? '');
    const started = ctx.now();
    const waited = await poll<KubeJson[], CloudFailure>({
      clock: ctx.clock,
      signal: ctx.signal,
      timeoutMs: karpenter.nodeclaim_timeout,
      intervalMs: pollInterval(karpenter.nodeclaim_timeout),
      check: async () => {
        const claims = await kube.value.list(KINDS.nodeclaims);
        if (!claims.ok) return { failure: claims };
        const left = claims.value.filter(ours);
        return { done: left.length === 0, value: left };
      },
    });
    if (waited.type === 'aborted' || (waited.type === 'failed' && ctx.signal.aborted)) {
      return interrupted(ctx, 'waiting for the NodeClaims to go', 'the NodePools and EC2NodeClasses were deleted');
    }
    if (waited.type === 'failed') return fromCloud(waited.failure);
    if (waited.type === 'timeout') {
      const left = waited.last;
      const stuck = left.map(
        (c) => `${nameOf(c)} (finalizers: ${(c.metadata?.finalizers ?? []).join(', ') || 'none'})`,
      );
      return failed(
        'stuck',
        `${left.length} NodeClaim${left.length === 1 ? '' : 's'} still there ${formatDuration(ctx.now() - started)} after their NodePools were deleted: ${stuck.join('; ')}`,
        'the Karpenter controller clears these finalizers once the instance is gone: check that it runs (its logs say why it waits), ' +
          'then run platctl down --resume; raise park.<env>.karpenter.nodeclaim_timeout if it is only slow',
      );
    }
    return done(
      `deleted NodePools ${listSome(pools) || '(none left)'} and EC2NodeClasses ${listSome(objects.value.classes.map(nameOf)) || '(none left)'}; no NodeClaim left after ${formatDuration(ctx.now() - started)}`,
    );
  },
};

const nodeGroupsStep: ParkStep = {
  name: 'node-groups',
  title: 'Drain and scale the managed node groups to 0',
  describe: async (ctx) => {
    const groups = await parkedGroups(ctx);
    if (!groups.ok) return groups;
    return ok(
      groups.value.map(
        (g) => `${g.name}: ${sizeText(g)} -> min 0 / desired 0 (drain grace ${formatDuration(ctx.park.drain_grace)})`,
      ),
    );
  },
  run: async (ctx) => {
    const groups = await parkedGroups(ctx);
    if (!groups.ok) return fromCloud(groups);
    const kube = await ctx.kube();
    if (!kube.ok) return fromCloud(kube);
    const notes: string[] = [];
    for (const group of groups.value) {
      const before = notes.length > 0 ? `; done before it: ${notes.join('; ')}` : '';
      if (ctx.signal.aborted)
        return interrupted(ctx, `before node group ${group.name}`, `nothing of it changed${before}`);
      const nodes = await nodeGroupNodes(kube.value, group.name);
      if (!nodes.ok) return fromCloud(nodes);
      const drained = await drainNodes(ctx, kube.value, nodes.value, ctx.park.drain_grace);
      if (!drained.ok)
        return ctx.signal.aborted ? interrupted(ctx, `draining node group ${group.name}`) : fromCloud(drained);
      if (drained.value.interruptedWith) {
        const left = drained.value.interruptedWith;
        return interrupted(
          ctx,
          `draining node group ${group.name}`,
          `its nodes stay cordoned; evicted ${listSome(drained.value.evicted) || 'nothing'}, still there ${listSome(left) || 'nothing'}; ` +
            `nothing was forced and the group was not scaled${before}`,
        );
      }
      if (ctx.signal.aborted)
        return interrupted(ctx, `after draining node group ${group.name}`, `the group was not scaled${before}`);
      if (group.min !== 0 || group.desired !== 0) {
        const scaled = await ctx.aws.scaleNodeGroup(group.name, { min: 0, desired: 0 }, waitOptions(ctx, AWS_WAIT_MS));
        if (!scaled.ok) {
          return ctx.signal.aborted
            ? interrupted(
                ctx,
                `scaling node group ${group.name}`,
                `the scaling was asked of EKS; nothing was terminated${before}`,
              )
            : fromCloud(scaled);
        }
      }
      if (ctx.signal.aborted)
        return interrupted(ctx, `after scaling node group ${group.name}`, `nothing was terminated${before}`);
      // Drained nodes the Auto Scaling group has not terminated yet go now: nothing should run on them.
      const stragglers = await ctx.aws.instances({ asgs: group.asgs, states: LIVE_STATES });
      if (!stragglers.ok) return fromCloud(stragglers);
      if (stragglers.value.length > 0) {
        const terminated = await ctx.aws.terminateInstances(stragglers.value.map((i) => i.id));
        if (!terminated.ok) return fromCloud(terminated);
      }
      const after = await ctx.aws.describeNodeGroup(group.name);
      if (!after.ok) return fromCloud(after);
      if (after.value.min !== 0 || after.value.desired !== 0) {
        return failed('not-zero', `node group ${group.name} is at ${sizeText(after.value)} after scaling to 0`);
      }
      const forced =
        drained.value.forced.length > 0
          ? `, forced after ${formatDuration(ctx.park.drain_grace)}: ${listSome(drained.value.forced)}`
          : '';
      const killed = stragglers.value.length > 0 ? `, terminated ${stragglers.value.map((i) => i.id).join(', ')}` : '';
      notes.push(`${group.name} 0/${after.value.max}/0 (evicted ${drained.value.evicted.length}${forced}${killed})`);
    }
    return done(notes.length > 0 ? notes.join('; ') : 'no node group');
  },
};

const bastionStep: ParkStep = {
  name: 'bastion',
  title: 'Stop the bastion',
  describe: async (ctx) => {
    const found = await bastions(ctx);
    if (!found.ok) return found;
    return ok(
      found.value.length > 0
        ? found.value.map((i) => `${i.id}: ${i.state} -> stopped`)
        : ['no instance carries the bastion tags'],
    );
  },
  run: async (ctx) => {
    const found = await bastions(ctx);
    if (!found.ok) return fromCloud(found);
    if (found.value.length === 0) {
      return failed(
        'not-found',
        `no instance tagged ${JSON.stringify(ctx.park.bastion?.tags ?? {})}`,
        `fix park.${ctx.env}.bastion.tags in .platctl.yaml`,
      );
    }
    const toStop = found.value.filter((i) => i.state === 'running' || i.state === 'pending').map((i) => i.id);
    if (toStop.length > 0) {
      const stopped = await ctx.aws.stopInstances(toStop);
      if (!stopped.ok) return fromCloud(stopped);
    }
    const ids = found.value.map((i) => i.id);
    const waited = await waitForState(ctx, ids, 'stopped');
    if (!waited.ok) return waited;
    return done(toStop.length > 0 ? `stopped ${toStop.join(', ')}` : `already stopped: ${ids.join(', ')}`);
  },
};

/** Polls until every instance of `ids` is in `state`. */
export async function waitForState(ctx: ParkContext, ids: readonly string[], state: string): Promise<StepResult> {
  const waited = await poll<InstanceInfo[], CloudFailure>({
    clock: ctx.clock,
    signal: ctx.signal,
    timeoutMs: AWS_WAIT_MS,
    intervalMs: pollInterval(AWS_WAIT_MS),
    check: async () => {
      const now = await ctx.aws.instances({
        ids,
        states: ['pending', 'running', 'stopping', 'stopped', 'shutting-down', 'terminated'],
      });
      if (!now.ok) return { failure: now };
      const other = now.value.filter((i) => ids.includes(i.id) && i.state !== state);
      return { done: other.length === 0, value: other };
    },
  });
  const still = (other: readonly InstanceInfo[] | undefined): string =>
    (other ?? []).map((i) => `${i.id} (${i.state})`).join(', ');
  switch (waited.type) {
    case 'done':
      return done('');
    case 'failed':
      return ctx.signal.aborted
        ? interrupted(ctx, `waiting for ${ids.join(', ')} to be ${state}`)
        : fromCloud(waited.failure);
    case 'aborted':
      return interrupted(
        ctx,
        `waiting for ${ids.join(', ')} to be ${state}`,
        `still not ${state}: ${still(waited.last)}`,
      );
    case 'timeout':
      return failed('not-ready', `still not ${state}: ${still(waited.last)}`);
  }
}

const verifyStep: ParkStep = {
  name: 'verify-cost-zero',
  title: 'Verify through AWS that no compute is left',
  describe: () => Promise.resolve(ok(['node groups at 0, no running instance of the cluster, bastion stopped'])),
  run: async (ctx) => {
    const problems: string[] = [];
    const groups = await parkedGroups(ctx);
    if (!groups.ok) return fromCloud(groups);
    for (const g of groups.value) {
      if (g.min !== 0 || g.desired !== 0) problems.push(`node group ${g.name} at ${sizeText(g)}`);
    }
    const asgs = groups.value.flatMap((g) => g.asgs);
    const byGroup = await ctx.aws.instances({ asgs, states: LIVE_STATES });
    if (!byGroup.ok) return fromCloud(byGroup);
    const byCluster = await ctx.aws.instances({ tags: { 'eks:eks-cluster-name': ctx.cluster }, states: LIVE_STATES });
    if (!byCluster.ok) return fromCloud(byCluster);
    const hosts = await bastions(ctx);
    if (!hosts.ok) return fromCloud(hosts);
    const running = new Map<string, InstanceInfo>();
    for (const i of [...byGroup.value, ...byCluster.value, ...hosts.value.filter((h) => h.state !== 'stopped')])
      running.set(i.id, i);
    for (const i of running.values()) {
      const label = i.tags.Name ?? i.tags['aws:autoscaling:groupName'] ?? i.tags['karpenter.sh/nodepool'] ?? '';
      problems.push(`instance ${i.id}${label ? ` (${label})` : ''} is ${i.state}`);
    }
    if (problems.length > 0) {
      return failed(
        'not-zero',
        `still running: ${problems.join('; ')}`,
        'run platctl down --resume; if it stays, stop these by hand and report it',
      );
    }
    return done(
      `${groups.value.length} node groups at 0, no live instance of cluster ${ctx.cluster}` +
        `${hosts.value.length > 0 ? `, bastion ${hosts.value.map((h) => h.id).join(', ')} stopped` : ''}`,
    );
  },
};

/** The steps of `down` for this environment's configuration. */
export function downSteps(ctx: Pick<ParkContext, 'park'>): ParkStep[] {
  return [
    recordStep,
    ...(ctx.park.argocd ? [argoPauseStep] : []),
    doNotDisruptStep,
    ...(ctx.park.karpenter ? [karpenterStep] : []),
    nodeGroupsStep,
    ...(ctx.park.bastion ? [bastionStep] : []),
    verifyStep,
  ];
}
