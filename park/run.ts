/**
 * Runs `down` or `up` over environments, one after another: preflight, then the steps in order, each recorded in
 * `.platctl-park/<env>.json` as it starts and ends (so `--resume` continues from the first unfinished one and the
 * next run has an ETA). An auth failure stops the whole command at once. `dryRun` only describes. The steps run on the
 * engine's one runner (engine/steps.ts): this file gives it the journal above and the environment locks as its fence.
 */
import type { EnvironmentConfig, ParkConfig } from '../config/schema.js';
import type { EnvCloud } from '../cloud/environment.js';
import type { KubeWriter } from '../cloud/kube-writer.js';
import type { NodeGroupSize, ParkAws } from '../cloud/park-aws.js';
import type { CloudFailure, CloudResult } from '../cloud/result.js';
import type { Step, StepEvent, StepJournal, StepsOutcome } from '../engine/steps.js';
import { describeSteps, runSteps as runOrderedSteps } from '../engine/steps.js';
import type { EnvOutcome, EnvStatus, ParkEvent } from '../engine/events.js';
import { PREFLIGHT } from '../engine/events.js';
import type { Clock } from '../engine/waits.js';
import type { ParkContext, ParkStep, StepFailure, StepResult, UnitApplier } from './context.js';
import { failed } from './context.js';
import { downSteps } from './down.js';
import { downRefusal } from './restore-sizes.js';
import type { Operation, ParkFile, ParkOp, RecordPlaces, StepRecord } from './record.js';
import { PARK_RECORD_VERSION, RecordStore, loadParkFile, parkFilePath, saveJournal } from './record.js';
import { upSteps } from './up.js';

// The events and outcomes are defined in engine/events.ts (every verb's events in one union); named here too.
export type { EnvOutcome, EnvStatus, ParkEvent } from '../engine/events.js';
export { PREFLIGHT } from '../engine/events.js';

/** How long the credentials must last: a `down` takes minutes, an `up` waits on databases too. */
export const BUDGET_MS: Record<ParkOp, number> = { down: 30 * 60_000, up: 45 * 60_000 };

/** What the runner needs per environment, built by the CLI from `.platctl.yaml`. */
export interface EnvAccess {
  readonly cloud: EnvCloud;
  readonly aws: ParkAws;
  readonly kube: () => Promise<CloudResult<KubeWriter>>;
  /** Other environments' clouds whose credentials the preflight checks too (`park.<env>.preflight_envs`). */
  readonly alsoCheck: readonly EnvCloud[];
  /** Applies the units `up` re-applies (`node_group_units`, `karpenter.unit`, `reconnect_units`), when any. */
  readonly units?: UnitApplier;
  /** Where the park record is shared (park/access.ts picks it from `.platctl.yaml`); default: local only. */
  readonly records?: RecordPlaces;
}

/** The environment locks of `state.backend: s3` as the runner sees them (docs/state.md, fencing). */
export interface ParkFence {
  /** True while the locks are still this run's (renewing first when a renewal is due); false once fenced. */
  stillOurs(): Promise<boolean>;
  /** Why the run was fenced; undefined while it is not. */
  readonly reason: string | undefined;
}

export interface ParkRunOptions {
  readonly op: ParkOp;
  readonly root: string;
  readonly envs: readonly string[];
  readonly environments: Readonly<Record<string, EnvironmentConfig>>;
  readonly park: Readonly<Record<string, ParkConfig>>;
  readonly dryRun: boolean;
  readonly resume: boolean;
  readonly who: { readonly host: string; readonly user: string };
  readonly access: (env: string) => EnvAccess;
  readonly emit: (event: ParkEvent) => void;
  readonly now: () => number;
  /** Every wait of a step goes through it; its sleeps end on `signal`. */
  readonly clock: Clock;
  readonly signal: AbortSignal;
  /** With `state.backend: s3`: no step starts once the environment locks are lost. */
  readonly fence?: ParkFence | undefined;
  /** `down --restore-size`, for the one environment of the command (park/restore-sizes.ts). */
  readonly restoreSizes?: Readonly<Record<string, NodeGroupSize>> | undefined;
}

export async function runPark(options: ParkRunOptions): Promise<EnvOutcome[]> {
  const outcomes: EnvOutcome[] = [];
  for (const env of options.envs) {
    if (options.signal.aborted) break;
    const outcome = await runEnv(options, env);
    options.emit({ type: 'env-finished', at: iso(options.now), env, outcome });
    outcomes.push(outcome);
    // Credentials rejected mid-run stop everything; a refused environment (its preflight) does not stop the others.
    if (
      (outcome.reason === 'auth' && outcome.status === 'failed') ||
      outcome.status === 'interrupted' ||
      outcome.status === 'fenced'
    ) {
      break;
    }
  }
  return outcomes;
}

function signalName(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'a signal';
}

function iso(now: () => number): string {
  return new Date(now()).toISOString();
}

/** A park step on the runner of engine/steps.ts: tried once, described for `--dry-run` from the same list. */
type RunnerStep = Step<string, StepFailure, ParkStep, CloudResult<string[]>>;

function onRunner(ctx: ParkContext, step: ParkStep): RunnerStep {
  return {
    name: step.name,
    about: step,
    run: async () => {
      const result = await step.run(ctx);
      return result.ok ? { ok: true, value: result.value } : { ok: false, failure: result };
    },
    describe: () => step.describe(ctx),
  };
}

async function runEnv(options: ParkRunOptions, env: string): Promise<EnvOutcome> {
  const { op } = options;
  const { ctx, access } = parkContext(options, env);
  const preflight = await runPreflight(ctx, access);
  if (!preflight.ok && options.signal.aborted) {
    // Stopped before any step: nothing was changed and there is nothing to resume.
    return {
      env,
      op,
      status: 'interrupted',
      reason: 'interrupted',
      message: `interrupted (${signalName(options.signal)}) during the preflight: nothing was changed`,
      failed_step: PREFLIGHT,
      done_steps: [],
      pending_steps: [],
    };
  }
  if (!preflight.ok) return refusal(ctx, preflight);
  // down: a record not understood, or no sizes to record; up: no record to bring up. Refused before anything changes.
  const before = op === 'down' ? await downRefusal(ctx) : await upStart(options, ctx);
  if (before) return 'status' in before ? before : refusal(ctx, before);
  const steps = (op === 'down' ? downSteps(ctx) : upSteps(ctx)).map((step) => onRunner(ctx, step));
  return options.dryRun ? describeEnv(options, ctx, steps) : runSteps(options, ctx, steps);
}

/** The context of `env`'s steps, and what the CLI built to reach it. */
function parkContext(options: ParkRunOptions, env: string): { ctx: ParkContext; access: EnvAccess } {
  const settings = options.environments[env];
  const park = options.park[env];
  const cluster = settings?.cluster?.name;
  if (!settings || !park || !cluster) throw new Error(`park: environment ${env} was not checked by the CLI`); // a bug
  const access = options.access(env);
  const ctx: ParkContext = {
    env,
    op: options.op,
    cluster,
    settings,
    park,
    cloud: access.cloud,
    aws: options.fence ? fencedAws(access.aws, options.fence) : access.aws,
    kube: options.fence ? fencedKube(access.kube, options.fence) : access.kube,
    records: new RecordStore(options.root, env, access.records, cluster),
    units: access.units,
    record: undefined,
    who: { ...options.who },
    clock: options.clock,
    now: options.now,
    signal: options.signal,
    restoreSizes: options.restoreSizes,
  };
  return { ctx, access };
}

/** An environment refused before any step: nothing was touched. */
function refusal(
  ctx: ParkContext,
  result: { reason: string; message: string; hint?: string },
  steps: readonly string[] = [],
): EnvOutcome {
  return {
    env: ctx.env,
    op: ctx.op,
    status: 'refused',
    reason: result.reason,
    message: result.message,
    ...(result.hint ? { hint: result.hint } : {}),
    done_steps: [],
    pending_steps: steps,
  };
}

/** `up` works from the environment's record: why it cannot start (a refusal or nothing to do), or undefined. */
async function upStart(
  options: ParkRunOptions,
  ctx: ParkContext,
): Promise<EnvOutcome | { reason: string; message: string; hint?: string } | undefined> {
  const record = await ctx.records.read();
  if (!record.ok) return record;
  if (!record.value) {
    return {
      reason: 'not-parked',
      message: `${ctx.env} is not parked: there is no park record at ${ctx.records.location}`,
      hint: 'nothing to bring up; platctl status shows the park state',
    };
  }
  ctx.record = record.value;
  if (record.value.status !== 'unparked' || options.resume) return undefined;
  return {
    env: ctx.env,
    op: ctx.op,
    status: 'nothing-to-do',
    message: `${ctx.env} is not parked (unparked at ${record.value.unparked_at ?? '?'})`,
    done_steps: [],
    pending_steps: [],
  };
}

/** `--dry-run`: each step and what it would touch, in the order a run takes them; nothing is changed. */
async function describeEnv(
  options: ParkRunOptions,
  ctx: ParkContext,
  steps: readonly RunnerStep[],
): Promise<EnvOutcome> {
  const { env, op } = ctx;
  const names = steps.map((s) => s.name);
  options.emit({ type: 'env-started', at: iso(options.now), env, op, dry_run: true, resumed: false, steps: names });
  for await (const { about, description: touches } of describeSteps(steps)) {
    if (!touches) throw new Error(`park: step ${about.name} has no description`); // a bug: every park step has one
    if (!touches.ok)
      return { ...refusal(ctx, touches, names), status: touches.reason === 'auth' ? 'failed' : 'refused' };
    // `down`'s later steps describe from the record that its first step would write.
    options.emit({ type: 'step-planned', env, step: about.name, title: about.title, touches: touches.value });
  }
  return { env, op, status: 'planned', done_steps: [], pending_steps: names };
}

async function runPreflight(ctx: ParkContext, access: EnvAccess): Promise<StepResult> {
  for (const cloud of [access.cloud, ...access.alsoCheck]) {
    const checked = await cloud.preflight(BUDGET_MS[ctx.op], ctx.signal);
    if (!checked.ok) {
      return failed(
        checked.reason === 'error' ? 'error' : 'auth',
        `preflight of ${cloud.envName}${cloud.profile ? ` (profile ${cloud.profile})` : ''}: ${checked.message}`,
        checked.hint,
      );
    }
    if (cloud === access.cloud) ctx.who.arn = checked.identity.arn;
  }
  const described = await ctx.cloud.describeCluster(ctx.signal);
  if (!described.ok) return failed(described.reason, `preflight: ${described.message}`, described.hint);
  if (described.value.status !== 'ACTIVE') {
    return failed(
      'not-ready',
      `preflight: EKS cluster ${ctx.cluster} is ${described.value.status}, not ACTIVE`,
      'wait for it, then run again',
    );
  }
  if (ctx.op === 'down') {
    // down needs the Kubernetes API for every step after the record: find out now, before anything changes.
    const kube = await ctx.kube();
    if (!kube.ok) return failed(kube.reason, `preflight: the cluster API: ${kube.message}`, kube.hint);
    const ready = await kube.value.readyz(ctx.signal);
    if (!ready.ok) return failed(ready.reason, `preflight: the cluster API: ${ready.message}`, ready.hint);
    if (!ready.value)
      return failed('not-ready', `preflight: the cluster API ${kube.value.server} is not ready (/readyz)`);
  }
  return { ok: true, value: '' };
}

async function loadOrStart(
  options: ParkRunOptions,
  ctx: ParkContext,
  names: readonly string[],
): Promise<{ ok: true; file: ParkFile; resumed: boolean } | { ok: false; outcome: EnvOutcome }> {
  const loaded = await loadParkFile(options.root, ctx.env, ctx.cluster);
  if (loaded.type === 'invalid') {
    const path = parkFilePath(options.root, ctx.env);
    // Where the record is shared, the local file only mirrors it and keeps the journal: moving it away loses no
    // record. Without a shared store it is the record: it must be repaired, never just moved away.
    const hint = ctx.records.shared
      ? `it only mirrors the shared record (${ctx.records.location}, which stays the truth) and keeps the journal ` +
        `of the last down/up: move it aside (mv ${path} ${path}.damaged) and run again`
      : loaded.hint;
    return {
      ok: false,
      outcome: {
        env: ctx.env,
        op: ctx.op,
        status: 'refused',
        reason: 'error',
        message: loaded.message,
        hint,
        done_steps: [],
        pending_steps: names,
      },
    };
  }
  const file: ParkFile =
    loaded.type === 'ok' ? loaded.file : { version: PARK_RECORD_VERSION, env: ctx.env, durations_ms: {} };
  const last = file.last;
  if (options.resume) {
    if (!last || last.op !== ctx.op || last.status === 'completed') {
      const what = last
        ? `the last ${last.op} of ${ctx.env} (${last.started_at}) ${last.status === 'completed' ? 'completed' : 'was not a ' + ctx.op}`
        : `no ${ctx.op} of ${ctx.env} was recorded`;
      return {
        ok: false,
        outcome: {
          env: ctx.env,
          op: ctx.op,
          status: 'nothing-to-do',
          message: `nothing to resume: ${what}`,
          done_steps: [],
          pending_steps: [],
        },
      };
    }
    last.resumes += 1;
    last.status = 'running';
    delete last.ended_at;
    delete last.stopped_because;
    for (const name of names) last.steps[name] ??= { status: 'pending' };
    return { ok: true, file, resumed: true };
  }
  file.last = {
    op: ctx.op,
    started_at: iso(options.now),
    by: { host: ctx.who.host, user: ctx.who.user },
    status: 'running',
    resumes: 0,
    steps: Object.fromEntries(names.map((n) => [n, { status: 'pending' as const }])),
  };
  return { ok: true, file, resumed: false };
}

async function runSteps(options: ParkRunOptions, ctx: ParkContext, steps: readonly RunnerStep[]): Promise<EnvOutcome> {
  const names = steps.map((s) => s.name);
  const started = await loadOrStart(options, ctx, names);
  if (!started.ok) return started.outcome;
  const { file, resumed } = started;
  const operation = file.last as Operation;
  await saveJournal(options.root, file);
  const toRun = steps.filter((s) => operation.steps[s.name]?.status !== 'completed');
  const known = toRun.map((s) => file.durations_ms[`${ctx.op}/${s.name}`]).filter((d): d is number => d !== undefined);
  options.emit({
    type: 'env-started',
    at: iso(options.now),
    env: ctx.env,
    op: ctx.op,
    dry_run: false,
    resumed,
    steps: names,
    ...(known.length > 0 ? { eta_ms: known.reduce((a, b) => a + b, 0) } : {}),
  });
  const finish = (status: EnvStatus, failure?: StepFailure, failedStep?: string): Promise<EnvOutcome> =>
    finishEnv(options, ctx, file, names, { status, failure, failedStep });
  // An exception from a step is a bug: record where it happened before it propagates.
  let crashed: string | undefined;
  const guarded = steps.map((step) => ({
    ...step,
    run: (attempt: number) =>
      step.run(attempt).catch((error: unknown) => {
        crashed = step.name;
        throw error;
      }),
  }));
  const { fence } = options;
  let outcome: StepsOutcome<StepFailure>;
  try {
    outcome = await runOrderedSteps(guarded, {
      journal: parkJournal(options.root, ctx.op, file),
      signal: options.signal,
      now: options.now,
      ...(fence ? { fence: () => fence.stillOurs() } : {}),
      emit: (event) => emitStepEvent(options, ctx, operation, event),
    });
  } catch (error) {
    const record = crashed === undefined ? undefined : operation.steps[crashed];
    if (!record) throw error;
    record.status = 'failed';
    record.reason = 'bug';
    record.detail = error instanceof Error ? error.message : String(error);
    await finish('failed');
    throw error;
  }
  if (outcome.type === 'completed' || outcome.type === 'interrupted') return finish(outcome.type);
  if (outcome.type === 'fenced') return finish('fenced', fencedBefore(fence, outcome.step));
  const result = outcome.failure;
  const lost = result.reason === 'fenced' || fence?.reason !== undefined;
  // A call the signal cut short fails as a timeout or an unreachable endpoint: it is still the interrupt.
  const status = result.reason === 'interrupted' || options.signal.aborted ? 'interrupted' : lost ? 'fenced' : 'failed';
  return finish(status, result, outcome.step);
}

/** Ends the operation in the journal and says how the environment ended. */
async function finishEnv(
  options: ParkRunOptions,
  ctx: ParkContext,
  file: ParkFile,
  names: readonly string[],
  end: { status: EnvStatus; failure: StepFailure | undefined; failedStep: string | undefined },
): Promise<EnvOutcome> {
  const { status, failure, failedStep } = end;
  const operation = file.last as Operation;
  operation.status = status === 'completed' ? 'completed' : 'failed';
  operation.ended_at = iso(options.now);
  if ((status === 'fenced' || status === 'interrupted') && failure) operation.stopped_because = failure.message;
  else if (status === 'interrupted')
    operation.stopped_because = `interrupted (${signalName(options.signal)}) between steps`;
  await saveJournal(options.root, file);
  return {
    env: ctx.env,
    op: ctx.op,
    status,
    ...(failure
      ? { reason: failure.reason, message: failure.message, ...(failure.hint ? { hint: failure.hint } : {}) }
      : {}),
    ...(failedStep ? { failed_step: failedStep } : {}),
    done_steps: names.filter((n) => operation.steps[n]?.status === 'completed'),
    pending_steps: names.filter((n) => operation.steps[n]?.status !== 'completed'),
  };
}

/**
 * The journal of `.platctl-park/<env>.json` (its format unchanged) as the runner's: each step's start and success is
 * written as it happens; a failure is written with the operation's end ({@link finishEnv}).
 */
function parkJournal(root: string, op: ParkOp, file: ParkFile): StepJournal<string, StepFailure> {
  const operation = file.last as Operation;
  const entry = (name: string): StepRecord => (operation.steps[name] ??= { status: 'pending' });
  return {
    // down's record step always runs: it is what loads the record the later steps work from.
    completed: (name) => entry(name).status === 'completed' && !(op === 'down' && name === 'record'),
    started: (name, _attempt, at) => {
      const record = entry(name);
      record.status = 'running';
      record.started_at = new Date(at).toISOString();
      delete record.ended_at;
      delete record.reason;
      return saveJournal(root, file);
    },
    ended: async (name, end) => {
      const record = entry(name);
      record.ended_at = new Date(end.at).toISOString();
      record.duration_ms = end.durationMs;
      if (end.type === 'done') {
        record.status = 'completed';
        record.detail = end.value;
        file.durations_ms[`${op}/${name}`] = end.durationMs;
        await saveJournal(root, file);
        return;
      }
      record.status = 'failed';
      record.reason = end.failure.reason;
      record.detail = end.failure.message;
    },
  };
}

/** The runner's events as park's own. */
function emitStepEvent(
  options: ParkRunOptions,
  ctx: ParkContext,
  operation: Operation,
  event: StepEvent<string, StepFailure, ParkStep>,
): void {
  const { env } = ctx;
  const { step } = event;
  switch (event.type) {
    case 'skipped':
      options.emit({
        type: 'step-skipped',
        at: iso(options.now),
        env,
        step,
        detail: operation.steps[step]?.detail ?? '',
      });
      return;
    case 'started':
      options.emit({ type: 'step-started', at: new Date(event.at).toISOString(), env, step, title: event.about.title });
      return;
    case 'retrying':
      return; // park steps are tried once
    case 'done':
      options.emit({
        type: 'step-completed',
        at: new Date(event.at).toISOString(),
        env,
        step,
        duration_ms: event.durationMs,
        detail: event.value,
      });
      return;
    case 'failed': {
      const { reason, message, hint } = event.failure;
      const at = new Date(event.at).toISOString();
      const duration_ms = event.durationMs;
      options.emit({ type: 'step-failed', at, env, step, duration_ms, reason, message, ...(hint ? { hint } : {}) });
    }
  }
}

/**
 * A change refused because the run lost its lock: undefined while the lock is still ours. Asked before each change a
 * step makes to AWS or to the cluster, so a run that lost its lock while a step was under way makes no further
 * change, whatever the step was doing.
 */
function fenceCheck(fence: ParkFence): (what: string) => Promise<CloudFailure | undefined> {
  return async (what) =>
    (await fence.stillOurs())
      ? undefined
      : {
          ok: false,
          reason: 'error',
          message: `${fence.reason ?? 'the environment lock was lost'}: did not ${what}, and changed nothing after that`,
          hint: 'the local journal has every finished step; once the lock is free (or stale), --resume continues from here',
        };
}

/** `aws` whose changes (scaling, stopping, starting, terminating) each ask the fence first. Reads go through unasked. */
function fencedAws(aws: ParkAws, fence: ParkFence): ParkAws {
  const refused = fenceCheck(fence);
  return {
    listNodeGroups: () => aws.listNodeGroups(),
    describeNodeGroup: (name) => aws.describeNodeGroup(name),
    instances: (filter) => aws.instances(filter),
    stateBucketRecords: (bucket) => aws.stateBucketRecords(bucket),
    ssmAgents: (ids, signal) => aws.ssmAgents(ids, signal),
    scaleNodeGroup: async (name, scaling, wait) =>
      (await refused(`scale node group ${name}`)) ?? aws.scaleNodeGroup(name, scaling, wait),
    stopInstances: async (ids) => (await refused(`stop ${ids.join(', ')}`)) ?? aws.stopInstances(ids),
    startInstances: async (ids) => (await refused(`start ${ids.join(', ')}`)) ?? aws.startInstances(ids),
    terminateInstances: async (ids) => (await refused(`terminate ${ids.join(', ')}`)) ?? aws.terminateInstances(ids),
  };
}

/**
 * The cluster, whose changes (creates, deletes, patches, evictions: NodePools, pods, webhooks) each ask the fence
 * first, as AWS's do. Reads go through unasked.
 */
function fencedKube(
  kube: () => Promise<CloudResult<KubeWriter>>,
  fence: ParkFence,
): () => Promise<CloudResult<KubeWriter>> {
  const refused = fenceCheck(fence);
  const wrap = (writer: KubeWriter): KubeWriter => ({
    server: writer.server,
    readyz: (signal) => writer.readyz(signal),
    list: (ref, options) => writer.list(ref, options),
    get: (ref, name) => writer.get(ref, name),
    create: async (ref, body) =>
      (await refused(`create ${ref.plural} ${body.metadata?.name ?? ''}`.trim())) ?? writer.create(ref, body),
    delete: async (ref, name, options) =>
      (await refused(`delete ${ref.plural} ${name}`)) ?? writer.delete(ref, name, options),
    mergePatch: async (ref, name, body) =>
      (await refused(`patch ${ref.plural} ${name}`)) ?? writer.mergePatch(ref, name, body),
    evict: async (namespace, name) =>
      (await refused(`evict pod ${namespace}/${name}`)) ?? writer.evict(namespace, name),
  });
  let fenced: Promise<CloudResult<KubeWriter>> | undefined;
  return () => (fenced ??= kube().then((got) => (got.ok ? { ok: true, value: wrap(got.value) } : got)));
}

/** Why `step` did not start: the run lost its environment lock. */
function fencedBefore(fence: ParkFence | undefined, step: string): StepFailure {
  return failed(
    'fenced',
    `${fence?.reason ?? 'the environment lock was lost'}: step ${step} and the ones after it were not started`,
    'the local journal has every finished step; once the lock is free (or stale), --resume continues from here',
  );
}
