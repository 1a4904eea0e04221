/**
 * Runs `down` or `up` over environments, one after another: preflight, then the steps in order, each recorded in
 * `.platctl-park/<env>.json` as it starts and ends (so `--resume` continues from the first unfinished one and the
 * next run has an ETA). An auth failure stops the whole command at once. `dryRun` only describes.
 */
import type { EnvironmentConfig, ParkConfig } from '../config/schema.js';
import type { EnvCloud } from '../cloud/environment.js';
import type { KubeWriter } from '../cloud/kube-writer.js';
import type { NodeGroupSize, ParkAws } from '../cloud/park-aws.js';
import type { CloudFailure, CloudResult } from '../cloud/result.js';
import type { Clock } from '../engine/waits.js';
import type { ParkContext, ParkStep, StepFailure, StepResult, UnitApplier } from './context.js';
import { failed } from './context.js';
import { downSteps } from './down.js';
import { downRefusal } from './restore-sizes.js';
import type { Operation, ParkFile, ParkOp, RecordPlaces } from './record.js';
import { PARK_RECORD_VERSION, RecordStore, loadParkFile, parkFilePath, saveJournal } from './record.js';
import { upSteps } from './up.js';

/** The `failed_step` of an outcome stopped in the preflight, before any step (and any journal) began. */
export const PREFLIGHT = 'preflight';

/** How long the credentials must last: a `down` takes minutes, an `up` waits on databases too. */
export const BUDGET_MS: Record<ParkOp, number> = { down: 30 * 60_000, up: 45 * 60_000 };

export type ParkEvent =
  | {
      readonly type: 'env-started';
      readonly at: string;
      readonly env: string;
      readonly op: ParkOp;
      readonly dry_run: boolean;
      readonly resumed: boolean;
      readonly steps: readonly string[];
      /** Sum of the last known durations of the steps to run, when any is known. */
      readonly eta_ms?: number;
    }
  | {
      readonly type: 'step-started';
      readonly at: string;
      readonly env: string;
      readonly step: string;
      readonly title: string;
    }
  | {
      readonly type: 'step-completed';
      readonly at: string;
      readonly env: string;
      readonly step: string;
      readonly duration_ms: number;
      readonly detail: string;
    }
  | {
      readonly type: 'step-skipped';
      readonly at: string;
      readonly env: string;
      readonly step: string;
      readonly detail: string;
    }
  | {
      readonly type: 'step-failed';
      readonly at: string;
      readonly env: string;
      readonly step: string;
      readonly duration_ms: number;
      readonly reason: string;
      readonly message: string;
      readonly hint?: string;
    }
  | {
      readonly type: 'step-planned';
      readonly env: string;
      readonly step: string;
      readonly title: string;
      readonly touches: readonly string[];
    }
  | { readonly type: 'env-finished'; readonly at: string; readonly env: string; readonly outcome: EnvOutcome };

export type EnvStatus =
  /** Every step ran and verified. */
  | 'completed'
  /** `--dry-run`: described only. */
  | 'planned'
  /** Nothing to do (`up` of an environment that is not parked, `--resume` with nothing unfinished). */
  | 'nothing-to-do'
  /** Preflight failed, or no record to bring up: nothing was touched. */
  | 'refused'
  | 'failed'
  /** A signal stopped it between steps. */
  | 'interrupted'
  /** The run lost its environment lock (state.backend s3): it started no step after that. */
  | 'fenced';

export interface EnvOutcome {
  readonly env: string;
  readonly op: ParkOp;
  readonly status: EnvStatus;
  readonly message?: string;
  readonly hint?: string;
  readonly reason?: string;
  readonly failed_step?: string;
  /** Steps done (this run or an earlier one resumed), and steps not done, in order. */
  readonly done_steps: readonly string[];
  readonly pending_steps: readonly string[];
}

/** What the runner needs per environment, built by the CLI from `.platctl.yaml`. */
export interface EnvAccess {
  readonly cloud: EnvCloud;
  readonly aws: ParkAws;
  readonly kube: () => Promise<CloudResult<KubeWriter>>;
  /** Other environments' clouds whose credentials the preflight checks too (`park.<env>.preflight_envs`). */
  readonly alsoCheck: readonly EnvCloud[];
  /** Applies the units `up` re-applies (`node_group_units`, `karpenter.unit`, `reconnect_units`), when any. */
  readonly units?: UnitApplier;
  /** Where the park record is shared (the CLI picks it from `.platctl.yaml`); default: local only. */
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

async function runEnv(options: ParkRunOptions, env: string): Promise<EnvOutcome> {
  const { op } = options;
  const settings = options.environments[env];
  const park = options.park[env];
  const cluster = settings?.cluster?.name;
  if (!settings || !park || !cluster) throw new Error(`park: environment ${env} was not checked by the CLI`); // a bug
  const access = options.access(env);
  const ctx: ParkContext = {
    env,
    op,
    cluster,
    settings,
    park,
    cloud: access.cloud,
    aws: options.fence ? fencedAws(access.aws, options.fence) : access.aws,
    kube: access.kube,
    records: new RecordStore(options.root, env, access.records, cluster),
    units: access.units,
    record: undefined,
    who: { ...options.who },
    clock: options.clock,
    now: options.now,
    signal: options.signal,
    restoreSizes: options.restoreSizes,
  };
  const refuse = (
    result: { reason: string; message: string; hint?: string },
    steps: readonly string[] = [],
  ): EnvOutcome => ({
    env,
    op,
    status: 'refused',
    reason: result.reason,
    message: result.message,
    ...(result.hint ? { hint: result.hint } : {}),
    done_steps: [],
    pending_steps: steps,
  });

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
  if (!preflight.ok) return refuse(preflight);

  if (op === 'down') {
    // A record not understood, or no sizes to record: refused before anything changes.
    const refusal = await downRefusal(ctx);
    if (refusal) return refuse(refusal);
  }

  if (op === 'up') {
    const record = await ctx.records.read();
    if (!record.ok) return refuse(record);
    if (!record.value) {
      return refuse({
        reason: 'not-parked',
        message: `${env} is not parked: there is no park record at ${ctx.records.location}`,
        hint: 'nothing to bring up; platctl status shows the park state',
      });
    }
    ctx.record = record.value;
    if (record.value.status === 'unparked' && !options.resume) {
      return {
        env,
        op,
        status: 'nothing-to-do',
        message: `${env} is not parked (unparked at ${record.value.unparked_at ?? '?'})`,
        done_steps: [],
        pending_steps: [],
      };
    }
  }
  const steps = op === 'down' ? downSteps(ctx) : upSteps(ctx);
  const names = steps.map((s) => s.name);

  if (options.dryRun) {
    options.emit({ type: 'env-started', at: iso(options.now), env, op, dry_run: true, resumed: false, steps: names });
    for (const step of steps) {
      const touches = await step.describe(ctx);
      if (!touches.ok) {
        return { ...refuse(touches, names), status: touches.reason === 'auth' ? 'failed' : 'refused' };
      }
      // `down`'s later steps describe from the record that its first step would write.
      options.emit({ type: 'step-planned', env, step: step.name, title: step.title, touches: touches.value });
    }
    return { env, op, status: 'planned', done_steps: [], pending_steps: names };
  }
  return runSteps(options, ctx, steps);
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
  return { ok: true, detail: '' };
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

async function runSteps(options: ParkRunOptions, ctx: ParkContext, steps: readonly ParkStep[]): Promise<EnvOutcome> {
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

  const finish = async (status: EnvStatus, failure?: StepFailure, failedStep?: string): Promise<EnvOutcome> => {
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
  };

  for (const step of steps) {
    const record = operation.steps[step.name] ?? { status: 'pending' };
    operation.steps[step.name] = record;
    // down's record step always runs: it is what loads the record the later steps work from.
    if (record.status === 'completed' && !(ctx.op === 'down' && step.name === 'record')) {
      options.emit({
        type: 'step-skipped',
        at: iso(options.now),
        env: ctx.env,
        step: step.name,
        detail: record.detail ?? '',
      });
      continue;
    }
    if (options.signal.aborted) return finish('interrupted');
    const fenced = await fencedBefore(options.fence, step.name);
    if (fenced) return finish('fenced', fenced);
    const begun = options.now();
    record.status = 'running';
    record.started_at = iso(options.now);
    delete record.ended_at;
    delete record.reason;
    await saveJournal(options.root, file);
    options.emit({ type: 'step-started', at: record.started_at, env: ctx.env, step: step.name, title: step.title });
    let result: StepResult;
    try {
      result = await step.run(ctx);
    } catch (error) {
      // An exception is a bug; record where it happened before it propagates.
      record.status = 'failed';
      record.reason = 'bug';
      record.detail = error instanceof Error ? error.message : String(error);
      await finish('failed');
      throw error;
    }
    const duration = options.now() - begun;
    record.ended_at = iso(options.now);
    record.duration_ms = duration;
    if (result.ok) {
      record.status = 'completed';
      record.detail = result.detail;
      file.durations_ms[`${ctx.op}/${step.name}`] = duration;
      await saveJournal(options.root, file);
      options.emit({
        type: 'step-completed',
        at: record.ended_at,
        env: ctx.env,
        step: step.name,
        duration_ms: duration,
        detail: result.detail,
      });
      continue;
    }
    record.status = 'failed';
    record.reason = result.reason;
    record.detail = result.message;
    options.emit({
      type: 'step-failed',
      at: record.ended_at,
      env: ctx.env,
      step: step.name,
      duration_ms: duration,
      reason: result.reason,
      message: result.message,
      ...(result.hint ? { hint: result.hint } : {}),
    });
    const lost = result.reason === 'fenced' || options.fence?.reason !== undefined;
    // A call the signal cut short fails as a timeout or an unreachable endpoint: it is still the interrupt.
    const status =
      result.reason === 'interrupted' || options.signal.aborted ? 'interrupted' : lost ? 'fenced' : 'failed';
    return finish(status, result, step.name);
  }
  return finish('completed');
}

/**
 * `aws` whose changes (scaling, stopping, starting, terminating) each ask the fence first: a run that lost its lock
 * while a step was under way makes no further change, whatever the step was doing. Reads go through unasked.
 */
function fencedAws(aws: ParkAws, fence: ParkFence): ParkAws {
  const refused = async (what: string): Promise<CloudFailure | undefined> =>
    (await fence.stillOurs())
      ? undefined
      : {
          ok: false,
          reason: 'error',
          message: `${fence.reason ?? 'the environment lock was lost'}: did not ${what}, and changed nothing after that`,
          hint: 'the local journal has every finished step; once the lock is free (or stale), --resume continues from here',
        };
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

/** Why `step` must not start: the run lost its environment lock. Undefined when it may. */
async function fencedBefore(fence: ParkFence | undefined, step: string): Promise<StepFailure | undefined> {
  if (!fence || (await fence.stillOurs())) return undefined;
  return failed(
    'fenced',
    `${fence.reason ?? 'the environment lock was lost'}: step ${step} and the ones after it were not started`,
    'the local journal has every finished step; once the lock is free (or stale), --resume continues from here',
  );
}
