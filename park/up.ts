/**
 * `platctl up`, as a list of steps (docs/park.md): node groups back to the recorded sizes, the bastion, the cluster
 * API, Karpenter, Kyverno, reconnect units, restarts, database clients, Argo CD, and the verdict by pod readiness.
 * Node groups and Karpenter come back by re-applying their units through the engine when configured (Terraform is
 * the truth, the record the check), else from the record. The record is only marked unparked at the very end.
 */
import type { KubeJson, KubeWriter } from '../cloud/kube-writer.js';
import { KINDS } from '../cloud/kube-writer.js';
import type { CloudResult } from '../cloud/result.js';
import { ok } from '../cloud/result.js';
import type { ParkContext, ParkStep, StepFailure, StepResult } from './context.js';
import {
  applyUnit,
  done,
  failed,
  formatDuration,
  fromCloud,
  listSome,
  lostLock,
  pollUntil,
  waitOptions,
} from './context.js';
import { waitForBastionOnline } from './bastion-ready.js';
import { waitForState } from './down.js';
import { RESTARTED_AT, condition, isReady, nameOf, podPhase, qualified } from './kube-helpers.js';
import type { ParkRecord } from './record.js';

const AWS_WAIT_MS = 15 * 60_000;

function need(ctx: ParkContext): ParkRecord {
  if (!ctx.record) throw new Error('park: up ran a step without a record'); // a bug: the runner loads it first
  return ctx.record;
}

async function withKube(ctx: ParkContext, run: (kube: KubeWriter) => Promise<StepResult>): Promise<StepResult> {
  const kube = await ctx.kube();
  if (!kube.ok) return fromCloud(kube);
  return run(kube.value);
}

/** Each recorded node group: its live sizes and the recorded ones, for `--dry-run`. */
async function sizesNow(ctx: ParkContext): Promise<CloudResult<string[]>> {
  const lines: string[] = [];
  for (const [name, size] of Object.entries(need(ctx).node_groups)) {
    const now = await ctx.aws.describeNodeGroup(name);
    if (!now.ok) return now;
    lines.push(
      `${name}: ${now.value.min}/${now.value.max}/${now.value.desired} -> ${size.min}/${size.max}/${size.desired} (min/max/desired)`,
    );
  }
  return ok(lines.length > 0 ? lines : ['no node group recorded']);
}

/** The live sizes must equal the record exactly, however they were brought back. */
async function checkRecordedSizes(ctx: ParkContext, how: string, hint?: string): Promise<StepResult> {
  const groups = Object.entries(need(ctx).node_groups);
  const mismatches: string[] = [];
  for (const [name, size] of groups) {
    const now = await ctx.aws.describeNodeGroup(name);
    if (!now.ok) return fromCloud(now);
    const live = now.value;
    if (live.min !== size.min || live.max !== size.max || live.desired !== size.desired) {
      mismatches.push(
        `${name} is ${live.min}/${live.max}/${live.desired}, recorded ${size.min}/${size.max}/${size.desired}`,
      );
    }
  }
  if (mismatches.length > 0) {
    return failed(
      'mismatch',
      `node groups not at their recorded sizes (min/max/desired) after ${how}: ${mismatches.join('; ')}`,
      hint,
    );
  }
  const sizes = groups.map(([n, s]) => `${n} ${s.min}/${s.max}/${s.desired}`).join(', ') || 'no node group recorded';
  return done(`${sizes} (${how})`);
}

const nodeGroupsStep: ParkStep = {
  name: 'node-groups',
  title: 'Scale the node groups back to their recorded sizes',
  describe: sizesNow,
  run: async (ctx) => {
    for (const [name, size] of Object.entries(need(ctx).node_groups)) {
      const now = await ctx.aws.describeNodeGroup(name);
      if (!now.ok) return fromCloud(now);
      if (now.value.min === size.min && now.value.max === size.max && now.value.desired === size.desired) continue;
      // One call with all three: no ordering problem between min, max and desired.
      const scaled = await ctx.aws.scaleNodeGroup(name, size, waitOptions(ctx, AWS_WAIT_MS));
      if (!scaled.ok) return fromCloud(scaled);
    }
    return checkRecordedSizes(ctx, 'UpdateNodegroupConfig from the record');
  },
};

/** `park.<env>.node_group_units`: the node groups come back the way Terraform has them; the record is the check. */
const nodeGroupUnitsStep: ParkStep = {
  name: 'node-groups',
  title: 'Re-apply the node-group units, then check the recorded sizes',
  describe: async (ctx) => {
    const sizes = await sizesNow(ctx);
    if (!sizes.ok) return sizes;
    return ok([
      ...ctx.park.node_group_units.map((unit) => `apply ${unit}: ${ctx.units?.commandLine(unit, []) ?? '?'}`),
      'then the live sizes must equal the record:',
      ...sizes.value.map((line) => `  ${line}`),
    ]);
  },
  run: async (ctx) => {
    for (const unit of ctx.park.node_group_units) {
      const applied = await applyUnit(ctx, unit, []);
      if (!applied.ok) return applied;
    }
    const units = ctx.park.node_group_units.join(', ');
    return checkRecordedSizes(
      ctx,
      `applying ${units}`,
      `the Terraform of ${units} does not give the sizes recorded before parking (it may ignore desired_size, or ` +
        `the sizes were changed outside Terraform); fix the unit, or drop park.${ctx.env}.node_group_units to ` +
        `restore from the record, then run platctl up --resume`,
    );
  },
};

const bastionStep: ParkStep = {
  name: 'bastion',
  title: 'Start the bastion',
  describe: (ctx) => {
    const wanted = need(ctx).bastions.filter((b) => b.state === 'running');
    return Promise.resolve(
      ok(
        wanted.length > 0
          ? [
              ...wanted.map((b) => `start ${b.id}`),
              `then wait for its SSM agent to report Online (at most ${formatDuration(ctx.park.bastion_ready_timeout)})`,
            ]
          : ['no bastion was running'],
      ),
    );
  },
  run: async (ctx) => {
    const ids = need(ctx)
      .bastions.filter((b) => b.state === 'running' || b.state === 'pending')
      .map((b) => b.id);
    if (ids.length === 0) return done('no bastion was running before parking');
    // A stopping instance cannot be started: wait for it to stop first.
    const now = await ctx.aws.instances({ ids });
    if (!now.ok) return fromCloud(now);
    const stopping = now.value.filter((i) => i.state === 'stopping').map((i) => i.id);
    if (stopping.length > 0) {
      const waited = await waitForState(ctx, stopping, 'stopped');
      if (!waited.ok) return waited;
    }
    const toStart = now.value.filter((i) => i.state !== 'running' && i.state !== 'pending').map((i) => i.id);
    if (toStart.length > 0) {
      const started = await ctx.aws.startInstances(toStart);
      if (!started.ok) return fromCloud(started);
    }
    const running = await waitForState(ctx, ids, 'running');
    if (!running.ok) return running;
    const online = await waitForBastionOnline(ctx, ids);
    if (!online.ok) return online;
    return done(
      `${toStart.length > 0 ? `started ${toStart.join(', ')}` : `already running: ${ids.join(', ')}`}; ${online.value}`,
    );
  },
};

const clusterApiStep: ParkStep = {
  name: 'cluster-api',
  title: 'Wait for the cluster API (ACTIVE, /readyz)',
  describe: () => Promise.resolve(ok(['EKS DescribeCluster ACTIVE, then GET /readyz'])),
  run: async (ctx) => {
    const started = ctx.now();
    const waited = await pollUntil(
      ctx,
      ctx.park.ready_timeout,
      async () => {
        const described = await ctx.cloud.describeCluster(ctx.signal);
        if (!described.ok)
          return described.reason === 'auth' ? described : ok({ done: false, value: described.message });
        if (described.value.status !== 'ACTIVE')
          return ok({ done: false, value: `cluster is ${described.value.status}` });
        const kube = await ctx.kube();
        if (!kube.ok) return kube.reason === 'auth' ? kube : ok({ done: false, value: kube.message });
        const ready = await kube.value.readyz(ctx.signal);
        if (!ready.ok) return ready.reason === 'auth' ? ready : ok({ done: false, value: ready.message });
        return ok({ done: ready.value, value: ready.value ? 'ready' : '/readyz says not ready' });
      },
      (last) =>
        failed('not-ready', `the cluster API is not ready after ${formatDuration(ctx.park.ready_timeout)}: ${last}`),
    );
    if (!waited.ok) return waited;
    return done(`ready after ${formatDuration(ctx.now() - started)}`);
  },
};

const karpenterStep: ParkStep = {
  name: 'karpenter',
  title: 'Recreate the EC2NodeClasses and NodePools from the record',
  describe: (ctx) => {
    const { ec2nodeclasses, nodepools } = need(ctx).karpenter;
    return Promise.resolve(
      ok([
        `EC2NodeClasses: ${listSome(ec2nodeclasses.map(nameOf)) || 'none'}`,
        `NodePools: ${listSome(nodepools.map(nameOf)) || 'none'}`,
      ]),
    );
  },
  run: (ctx) =>
    withKube(ctx, async (kube) => {
      const { ec2nodeclasses, nodepools } = need(ctx).karpenter;
      const notes: string[] = [];
      // Classes first: a NodePool names its class in spec.template.spec.nodeClassRef.
      for (const [ref, objects] of [
        [KINDS.ec2nodeclasses, ec2nodeclasses],
        [KINDS.nodepools, nodepools],
      ] as const) {
        for (const object of objects) {
          let created = await kube.create(ref, object);
          if (created.ok && created.value === 'exists') {
            // One that down deleted may still be terminating (Karpenter holds an EC2NodeClass until its last
            // NodeClaim is gone): it would vanish right after counting as there. Wait for it, then create it.
            const gone = await waitUntilGone(ctx, kube, ref, nameOf(object));
            if (!gone.ok) return gone;
            if (gone.value) created = await kube.create(ref, object);
          }
          if (!created.ok) return fromCloud(created);
          notes.push(`${nameOf(object)}${created.value === 'exists' ? ' (already there)' : ''}`);
        }
      }
      return done(notes.length > 0 ? `created ${notes.join(', ')}` : 'nothing recorded');
    }),
};

function replaceArgs(ctx: ParkContext): string[] {
  return (ctx.park.karpenter?.replace ?? []).map((address) => `-replace=${address}`);
}

/** `park.<env>.karpenter.unit`: Terraform recreates the NodePools and EC2NodeClasses, replacing the addresses. */
const karpenterUnitStep: ParkStep = {
  name: 'karpenter',
  title: 'Re-apply the Karpenter unit to recreate the EC2NodeClasses and NodePools',
  describe: (ctx) => {
    const unit = ctx.park.karpenter?.unit ?? '';
    return Promise.resolve(
      ok([
        `apply ${unit}: ${ctx.units?.commandLine(unit, replaceArgs(ctx)) ?? '?'}`,
        `NodePools expected back: ${listSome(need(ctx).karpenter.nodepools.map(nameOf)) || 'none recorded'}`,
      ]),
    );
  },
  run: async (ctx) => {
    const unit = ctx.park.karpenter?.unit ?? '';
    const replaced = ctx.park.karpenter?.replace ?? [];
    const applied = await applyUnit(ctx, unit, replaceArgs(ctx));
    if (!applied.ok) return applied;
    return done(
      `applied ${unit}${replaced.length > 0 ? ` replacing ${listSome(replaced)}` : ''} (log: ${applied.log})`,
    );
  },
};

/** `park.<env>.reconnect_units`, in order: what connects the cluster to the rest (e.g. cross-VPC DNS). */
const reconnectStep: ParkStep = {
  name: 'reconnect',
  title: 'Re-apply the reconnect units',
  describe: (ctx) =>
    Promise.resolve(
      ok(ctx.park.reconnect_units.map((unit) => `apply ${unit}: ${ctx.units?.commandLine(unit, []) ?? '?'}`)),
    ),
  run: async (ctx) => {
    for (const unit of ctx.park.reconnect_units) {
      const applied = await applyUnit(ctx, unit, []);
      if (!applied.ok) return applied;
    }
    return done(`applied ${ctx.park.reconnect_units.join(', ')}`);
  },
};

/**
 * Whether `name` was terminating and is gone now (false: it exists and is not being deleted). Bounded by
 * `ready_timeout`; past it, fails naming the object and the finalizers that hold it.
 */
async function waitUntilGone(
  ctx: ParkContext,
  kube: KubeWriter,
  ref: (typeof KINDS)[keyof typeof KINDS],
  name: string,
): Promise<StepFailure | { ok: true; value: boolean }> {
  let terminating = false;
  const waited = await pollUntil(
    ctx,
    ctx.park.ready_timeout,
    async () => {
      const now = await kube.get(ref, name);
      if (!now.ok) return now.reason === 'not-found' ? ok({ done: true, value: undefined }) : now;
      if (now.value.metadata?.deletionTimestamp === undefined) return ok({ done: true, value: now.value });
      terminating = true;
      return ok({ done: false, value: now.value });
    },
    (last) =>
      failed(
        'stuck',
        `${last?.kind ?? ref.plural} ${name} is still being deleted after ${formatDuration(ctx.park.ready_timeout)} ` +
          `(finalizers: ${(last?.metadata?.finalizers ?? []).join(', ') || 'none'}), so it cannot be created again`,
        'Karpenter removes its finalizer once no NodeClaim uses it: check that the controller runs, then platctl up --resume',
      ),
  );
  if (!waited.ok) return waited;
  return { ok: true, value: terminating || waited.value === undefined };
}

const karpenterReadyStep: ParkStep = {
  name: 'karpenter-ready',
  title: 'Wait for Karpenter (controller available, NodePools Ready)',
  describe: (ctx) => {
    const deployment = ctx.park.karpenter?.deployment;
    return Promise.resolve(
      ok([
        ...(deployment ? [`deployment ${deployment.namespace}/${deployment.name} available`] : []),
        `NodePools Ready: ${listSome(need(ctx).karpenter.nodepools.map(nameOf)) || 'none'}`,
      ]),
    );
  },
  run: (ctx) =>
    withKube(ctx, async (kube) => {
      const deployment = ctx.park.karpenter?.deployment;
      const pools = need(ctx).karpenter.nodepools.map(nameOf);
      const waited = await pollUntil(
        ctx,
        ctx.park.ready_timeout,
        async () => {
          if (deployment) {
            const d = await kube.get({ ...KINDS.deployments, namespace: deployment.namespace }, deployment.name);
            if (!d.ok)
              return d.reason === 'not-found'
                ? ok({ done: false, value: `deployment ${deployment.namespace}/${deployment.name} not found` })
                : d;
            if (Number(d.value.status?.availableReplicas ?? 0) < 1) {
              return ok({
                done: false,
                value: `deployment ${deployment.namespace}/${deployment.name} has no available replica`,
              });
            }
          }
          const waiting: string[] = [];
          for (const name of pools) {
            const pool = await kube.get(KINDS.nodepools, name);
            if (!pool.ok && pool.reason !== 'not-found') return pool;
            if (!pool.ok || !isReady(pool.value)) waiting.push(name);
          }
          return ok({ done: waiting.length === 0, value: `NodePools not Ready: ${waiting.join(', ')}` });
        },
        (last) =>
          failed('not-ready', `Karpenter is not ready after ${formatDuration(ctx.park.ready_timeout)}: ${last}`),
      );
      if (!waited.ok) return waited;
      return done(`${deployment ? 'controller available, ' : ''}${pools.length} NodePools Ready`);
    }),
};

const KYVERNO_RESOURCE_WEBHOOKS = {
  validating: 'kyverno-resource-validating-webhook-cfg',
  mutating: 'kyverno-resource-mutating-webhook-cfg',
} as const;

async function readyPods(
  kube: KubeWriter,
  namespace: string,
): Promise<CloudResult<{ ready: KubeJson[]; all: KubeJson[] }>> {
  const pods = await kube.list({ ...KINDS.pods, namespace });
  if (!pods.ok) return pods;
  const live = pods.value.filter((p) => podPhase(p) !== 'Succeeded' && p.metadata?.deletionTimestamp === undefined);
  return ok({ ready: live.filter(isReady), all: live });
}

function restartPatch(at: string): Record<string, unknown> {
  return { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: at } } } } };
}

const kyvernoStep: ParkStep = {
  name: 'kyverno',
  title: 'Recover Kyverno if its fail-closed webhook has no ready pod',
  describe: (ctx) =>
    Promise.resolve(
      ok([
        `pods in ${ctx.park.kyverno?.namespace ?? ''}; webhooks ${Object.values(KYVERNO_RESOURCE_WEBHOOKS).join(', ')}`,
      ]),
    ),
  run: (ctx) =>
    withKube(ctx, async (kube) => {
      const namespace = ctx.park.kyverno?.namespace ?? 'kyverno';
      const pods = await readyPods(kube, namespace);
      if (!pods.ok) return fromCloud(pods);
      if (pods.value.ready.length > 0) return done(`${pods.value.ready.length} Kyverno pods ready; nothing to recover`);
      const webhook = await kube.get(KINDS.validatingWebhooks, KYVERNO_RESOURCE_WEBHOOKS.validating);
      if (!webhook.ok && webhook.reason !== 'not-found') return fromCloud(webhook);
      const failClosed =
        webhook.ok &&
        ((webhook.value.webhooks ?? []) as { failurePolicy?: string }[]).some((w) => w.failurePolicy === 'Fail');
      const actions: string[] = [];
      if (failClosed) {
        // With no Kyverno pod to answer, a fail-closed webhook blocks every pod, Kyverno's own included. Kyverno
        // recreates its webhooks once it runs.
        for (const [ref, name] of [
          [KINDS.validatingWebhooks, KYVERNO_RESOURCE_WEBHOOKS.validating],
          [KINDS.mutatingWebhooks, KYVERNO_RESOURCE_WEBHOOKS.mutating],
        ] as const) {
          const deleted = await kube.delete(ref, name);
          if (!deleted.ok) return fromCloud(deleted);
          if (deleted.value === 'deleted') actions.push(`deleted ${name}`);
        }
      }
      const deployments = await kube.list({ ...KINDS.deployments, namespace });
      if (!deployments.ok) return fromCloud(deployments);
      const at = new Date(ctx.now()).toISOString();
      for (const d of deployments.value) {
        const patched = await kube.mergePatch({ ...KINDS.deployments, namespace }, nameOf(d), restartPatch(at));
        if (!patched.ok) return fromCloud(patched);
        actions.push(`restarted ${namespace}/${nameOf(d)}`);
      }
      const waited = await pollUntil(
        ctx,
        ctx.park.ready_timeout,
        async () => {
          const now = await readyPods(kube, namespace);
          return now.ok ? ok({ done: now.value.ready.length > 0, value: now.value.all.length }) : now;
        },
        (count) =>
          failed(
            'not-ready',
            `no Kyverno pod ready in ${namespace} after ${formatDuration(ctx.park.ready_timeout)} (${count} pods)`,
            "look at the Kyverno pods' events and logs",
          ),
      );
      if (!waited.ok) return waited;
      return done(`${actions.join(', ')}; Kyverno ready`);
    }),
};

const rolloutsStep: ParkStep = {
  name: 'rollouts',
  title: 'Restart the configured workloads',
  describe: (ctx) => Promise.resolve(ok(ctx.park.rollouts.map((r) => `restart ${r.kind} ${r.namespace}/${r.name}`))),
  run: (ctx) =>
    withKube(ctx, async (kube) => {
      const at = new Date(ctx.now()).toISOString();
      for (const r of ctx.park.rollouts) {
        const ref = { ...(r.kind === 'statefulset' ? KINDS.statefulsets : KINDS.deployments), namespace: r.namespace };
        const patched = await kube.mergePatch(ref, r.name, restartPatch(at));
        if (!patched.ok) {
          return patched.reason === 'not-found'
            ? failed('not-found', patched.message, `fix park.${ctx.env}.rollouts in .platctl.yaml`)
            : fromCloud(patched);
        }
      }
      return done(`restarted ${ctx.park.rollouts.map((r) => `${r.namespace}/${r.name}`).join(', ')}`);
    }),
};

/**
 * A database's Ready time is written by its operator's clock, a pod's start by its node's kubelet: two hosts, and
 * both to the second. A client pod that started less than this after the database was Ready may well have started
 * before it, so it is restarted too (a needless restart costs a rollout; a missed one leaves a broken client).
 */
export const DB_CLIENT_CLOCK_MARGIN_MS = 30_000;

function startedAt(pod: KubeJson): number {
  const start = pod.status?.startTime;
  return typeof start === 'string' ? Date.parse(start) || 0 : 0;
}

const dbClientsStep: ParkStep = {
  name: 'db-clients',
  title: 'Restart database clients that started before their database',
  describe: (ctx) =>
    Promise.resolve(
      ok(ctx.park.db_clients.map((c) => `${c.namespace}/${c.deployment} after CloudNativePG cluster ${c.database}`)),
    ),
  run: (ctx) =>
    withKube(ctx, async (kube) => {
      const restarted: string[] = [];
      const fine: string[] = [];
      const deadline = ctx.now() + ctx.park.db_clients_timeout;
      for (const client of ctx.park.db_clients) {
        const cnpg = { ...KINDS.cnpgClusters, namespace: client.namespace };
        const waited = await pollUntil(
          ctx,
          Math.max(0, deadline - ctx.now()),
          async () => {
            const db = await kube.get(cnpg, client.database);
            if (!db.ok) return db.reason === 'not-found' ? ok({ done: false, value: undefined }) : db;
            const ready = condition(db.value, 'Ready');
            return ok({ done: ready?.status === 'True', value: ready?.lastTransitionTime });
          },
          () =>
            failed(
              'not-ready',
              `CloudNativePG cluster ${client.namespace}/${client.database} not ready after ${formatDuration(ctx.park.db_clients_timeout)}`,
            ),
        );
        if (!waited.ok) return waited;
        // No Ready time to go by: every pod may have started before the database.
        const readyAt = Date.parse(waited.value ?? '') || Infinity;
        const deployment = await kube.get({ ...KINDS.deployments, namespace: client.namespace }, client.deployment);
        if (!deployment.ok) return fromCloud(deployment);
        const labels =
          (deployment.value.spec?.selector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels ?? {};
        const selector = Object.entries(labels)
          .map(([k, v]) => `${k}=${v}`)
          .join(',');
        const pods = await kube.list(
          { ...KINDS.pods, namespace: client.namespace },
          selector ? { labelSelector: selector } : {},
        );
        if (!pods.ok) return fromCloud(pods);
        const early = pods.value.filter((p) => startedAt(p) < readyAt + DB_CLIENT_CLOCK_MARGIN_MS);
        if (early.length === 0) {
          fine.push(`${client.namespace}/${client.deployment}`);
          continue;
        }
        const patched = await kube.mergePatch(
          { ...KINDS.deployments, namespace: client.namespace },
          client.deployment,
          restartPatch(new Date(ctx.now()).toISOString()),
        );
        if (!patched.ok) return fromCloud(patched);
        restarted.push(
          `${client.namespace}/${client.deployment} (${early.length} pods started before ${client.database} was ready, ` +
            `or within ${formatDuration(DB_CLIENT_CLOCK_MARGIN_MS)} of it)`,
        );
      }
      return done(
        [
          restarted.length > 0 ? `restarted ${restarted.join(', ')}` : '',
          fine.length > 0 ? `fine: ${fine.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join('; '),
      );
    }),
};

const argoResumeStep: ParkStep = {
  name: 'argocd-resume',
  title: 'Resume Argo CD auto-sync',
  describe: (ctx) =>
    Promise.resolve(ok(need(ctx).argocd.apps.map((a) => `resume ${need(ctx).argocd.namespace}/${a.name}`))),
  run: (ctx) =>
    withKube(ctx, async (kube) => {
      const { namespace, apps } = need(ctx).argocd;
      for (const app of apps) {
        const patched = await kube.mergePatch({ ...KINDS.applications, namespace }, app.name, {
          spec: { syncPolicy: { automated: app.automated } },
        });
        if (!patched.ok) return fromCloud(patched);
      }
      return done(apps.length > 0 ? `resumed ${apps.map((a) => a.name).join(', ')}` : 'nothing was paused');
    }),
};

/** Core namespaces, cluster-scoped: to tell a `ready_namespaces` entry that does not exist from an empty one. */
const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces' } as const;

/** Why each of `empty` (namespaces with no pods) is not ready: it does not exist, or it holds no pod. */
async function emptyWhy(kube: KubeWriter, empty: readonly string[]): Promise<CloudResult<string[]>> {
  const out: string[] = [];
  for (const namespace of empty) {
    const found = await kube.get(NAMESPACES, namespace);
    if (!found.ok && found.reason !== 'not-found') return found;
    out.push(found.ok ? `namespace ${namespace} has no pod` : `namespace ${namespace} does not exist`);
  }
  return ok(out);
}

/**
 * Every pod of every `ready_namespaces` entry Ready, and at least one in each: a namespace with no pod (misspelt,
 * or whose workloads never came) is not ready, so it can never make `up` report a platform it did not see.
 */
const podsReadyStep: ParkStep = {
  name: 'pods-ready',
  title: 'Wait for every pod of the readiness namespaces',
  describe: (ctx) => Promise.resolve(ok([`namespaces: ${ctx.park.ready_namespaces.join(', ')}`])),
  run: (ctx) =>
    withKube(ctx, async (kube) => {
      const started = ctx.now();
      let timedOut: { waiting: string[]; empty: string[] } | undefined;
      const waited = await pollUntil(
        ctx,
        ctx.park.ready_timeout,
        async () => {
          const waiting: string[] = [];
          const empty: string[] = [];
          let total = 0;
          for (const namespace of ctx.park.ready_namespaces) {
            const pods = await readyPods(kube, namespace);
            if (!pods.ok) return pods;
            total += pods.value.all.length;
            if (pods.value.all.length === 0) empty.push(namespace);
            waiting.push(...pods.value.all.filter((p) => !isReady(p)).map(qualified));
          }
          return ok({ done: waiting.length === 0 && empty.length === 0, value: { waiting, empty, total } });
        },
        (last) => {
          timedOut = last;
          return failed('not-ready', 'not ready');
        },
      );
      if (waited.ok) {
        return done(
          `${waited.value.total} pods ready in ${ctx.park.ready_namespaces.join(', ')} after ${formatDuration(ctx.now() - started)}`,
        );
      }
      if (!timedOut) return waited;
      const why = await emptyWhy(kube, timedOut.empty);
      if (!why.ok) return fromCloud(why);
      const after = formatDuration(ctx.park.ready_timeout);
      const head =
        timedOut.waiting.length > 0 ? `pods not ready after ${after}: ${listSome(timedOut.waiting)}` : undefined;
      return failed(
        'not-ready',
        head === undefined ? `not ready after ${after}: ${why.value.join('; ')}` : [head, ...why.value].join('; '),
        timedOut.empty.length > 0
          ? `check park.${ctx.env}.ready_namespaces in .platctl.yaml (a namespace listed there must hold the ` +
              `workloads up waits for), and kubectl get pods -n ${timedOut.empty.join(',')}; then platctl up --resume`
          : 'see kubectl describe pod for each',
      );
    }),
};

const unparkStep: ParkStep = {
  name: 'unpark-record',
  title: 'Mark the park record unparked',
  describe: (ctx) => Promise.resolve(ok([`${ctx.records.location}: parked -> unparked (kept as history)`])),
  run: async (ctx) => {
    const current = await ctx.records.read();
    if (!current.ok) return fromCloud(current);
    if (!current.value || current.value.status === 'unparked') return done('already unparked');
    const record: ParkRecord = {
      ...current.value,
      status: 'unparked',
      unparked_at: new Date(ctx.now()).toISOString(),
      unparked_by: { host: ctx.who.host, user: ctx.who.user },
    };
    const written = await ctx.records.write(record, false);
    if (!written.ok) return fromCloud(written);
    if (written.value === 'fenced') return lostLock(ctx);
    if (written.value === 'conflict') {
      return failed(
        'error',
        `${ctx.records.location} changed while up ran`,
        'look at it, then run platctl up --resume',
      );
    }
    ctx.record = record;
    return done(`unparked at ${record.unparked_at ?? ''}; parked since ${record.parked_at}`);
  },
};

/** The steps of `up` for this environment's configuration and record. */
export function upSteps(ctx: Pick<ParkContext, 'park' | 'record'>): ParkStep[] {
  const record = ctx.record;
  const karpenterUnit = ctx.park.karpenter?.unit !== undefined;
  const karpenter =
    karpenterUnit ||
    (record !== undefined && (record.karpenter.nodepools.length > 0 || record.karpenter.ec2nodeclasses.length > 0));
  return [
    ctx.park.node_group_units.length > 0 ? nodeGroupUnitsStep : nodeGroupsStep,
    ...(record && record.bastions.length > 0 ? [bastionStep] : []),
    clusterApiStep,
    ...(karpenter ? [karpenterUnit ? karpenterUnitStep : karpenterStep, karpenterReadyStep] : []),
    ...(ctx.park.kyverno ? [kyvernoStep] : []),
    ...(ctx.park.reconnect_units.length > 0 ? [reconnectStep] : []),
    ...(ctx.park.rollouts.length > 0 ? [rolloutsStep] : []),
    ...(ctx.park.db_clients.length > 0 ? [dbClientsStep] : []),
    ...(record && record.argocd.apps.length > 0 ? [argoResumeStep] : []),
    ...(ctx.park.ready_namespaces.length > 0 ? [podsReadyStep] : []),
    unparkStep,
  ];
}
