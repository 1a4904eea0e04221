/**
 * Runs planned checks on the engine's scheduler (engine/scheduler.ts): dependencies first, independent checks in
 * parallel under a concurrency limit, started in plan order, each under its own timeout. A check whose dependency did
 * not pass is skipped by the scheduler without taking a slot, naming the failure at the root; once an environment's
 * credentials are rejected mid-run, its remaining checks are skipped the same way.
 */
import type { EnvCloud } from '../cloud/environment.js';
import {
  checkCredentials,
  checkDeployerRole,
  checkDnsDelegation,
  checkStateBucket,
  checkUnitState,
} from './checks/aws.js';
import { checkBastion } from './checks/bastion.js';
import type { CheckContext } from './checks/context.js';
import { error } from './checks/context.js';
import { checkArgocdApps, checkCiliumAgent, checkClusterApi, checkEksCluster, checkGateway } from './checks/kube.js';
import { checkHttpEndpoint, checkTailscale, checkTailscaleUrl } from './checks/net.js';
import type { ValidateDeps } from './deps.js';
import type { CheckSpec, PlannedCheck } from './plan.js';
import type { CheckEvent, CheckOutcome, CheckResult, ValidateReport } from './types.js';
import { UNHEALTHY, checkFinished, formatTimeout, unreachable } from './types.js';
import { Graph } from '../engine/graph.js';
import { Scheduler } from '../engine/scheduler.js';
import { setTimer } from '../engine/timers.js';

/** Checks that read the cluster (their client module is worth loading early). */
const KUBE_KINDS: ReadonlySet<CheckSpec['kind']> = new Set([
  'cluster-api',
  'eks-cluster',
  'cilium-agent',
  'argocd-apps',
  'gateway',
]);

/** How long a validate run may take; the SSO session and credentials must last at least this long. */
export const VALIDATE_BUDGET_MS = 10 * 60_000;

export interface RunOptions {
  readonly checks: readonly PlannedCheck[];
  readonly deps: ValidateDeps;
  /** Checks running at once (`--concurrency`, `parallelism.validate`). */
  readonly concurrency: number;
  readonly budgetMs?: number;
  /** Called as each check ends, in completion order (the tracer). */
  readonly onResult?: (result: CheckResult) => void;
  /** Each check's `check-started` as it starts and `check-finished` as it ends (the reporters: what still runs). */
  readonly emit?: (event: CheckEvent) => void;
  /** Interrupt (SIGINT): checks not started yet are skipped. */
  readonly signal?: AbortSignal;
}

/** Runs the checks and returns the report, checks in plan order. */
export async function runChecks(options: RunOptions): Promise<ValidateReport> {
  const { deps } = options;
  const started = deps.now();
  deps.preload?.({
    aws: options.checks.some((c) => c.env !== undefined),
    kube: options.checks.some((c) => KUBE_KINDS.has(c.spec.kind)),
  });
  const results = await new CheckRun(options).run();
  const checks = options.checks.map((check) => {
    const result = results.get(check.id);
    if (!result) throw new Error(`validate: the check ${check.id} ended without a result`);
    return result;
  });
  return {
    // An interrupted run skipped checks it never made: it cannot vouch for the platform.
    healthy: options.signal?.aborted !== true && !checks.some((c) => UNHEALTHY.has(c.status)),
    checks,
    durationMs: Math.max(0, deps.now() - started),
  };
}

/** The checks' graph: an edge from each check to each check it requires. */
function checkGraph(checks: readonly PlannedCheck[]): Graph {
  const graph = new Graph();
  for (const check of checks) graph.addNode(check.id, check.env ?? '', '');
  for (const check of checks) {
    for (const required of check.requires) {
      if (!graph.has(required)) throw new Error(`validate: a check depends on the unknown check ${required}`);
      graph.addEdge(check.id, required);
    }
  }
  return graph;
}

/** Slots for checks: at least one; like the walk's, a whole number (or Infinity). */
function slotsOf(concurrency: number): number {
  const slots = Math.max(1, concurrency);
  if (!Number.isInteger(slots) && slots !== Number.POSITIVE_INFINITY) {
    throw new TypeError(`validate: the concurrency must be a whole number from 1 up, not ${String(concurrency)}`);
  }
  return slots;
}

/**
 * One run of the checks. The scheduler hands out the ready checks (plan order) while a slot is free and learns each
 * result: a pass releases its dependents, anything else skips them. A skipped check is reported once every check it
 * requires has ended, naming the first of them (in its `requires` order) that did not pass, or what that one was
 * skipped for: the cause at the root, the same whichever failure came first.
 */
class CheckRun {
  readonly #options: RunOptions;
  readonly #scheduler: Scheduler;
  readonly #slots: number;
  readonly #byId: ReadonlyMap<string, PlannedCheck>;
  /** Plan position, the order ready checks start in. */
  readonly #place: ReadonlyMap<string, number>;
  readonly #results = new Map<string, CheckResult>();
  /** Checks the scheduler skipped and not reported yet -> the failure the scheduler skipped them for. */
  readonly #skipped = new Map<string, string>();
  readonly #clouds = new Map<string, EnvCloud>();
  /** Environment -> the check whose credentials failure stops the rest of it. */
  readonly #authFailed = new Map<string, string>();
  #running = 0;
  #ended: ((outcome: { error: unknown } | undefined) => void) | undefined;

  constructor(options: RunOptions) {
    this.#options = options;
    this.#slots = slotsOf(options.concurrency);
    this.#byId = new Map(options.checks.map((check) => [check.id, check]));
    this.#place = new Map(options.checks.map((check, i) => [check.id, i]));
    this.#scheduler = new Scheduler(checkGraph(options.checks), { rank: (id) => this.#place.get(id) ?? 0 });
  }

  /** Every check's result, by id, once all have ended. Each wait is a check's own, bounded by its timeout. */
  run(): Promise<ReadonlyMap<string, CheckResult>> {
    return new Promise((resolve, reject) => {
      this.#ended = (outcome) => {
        this.#ended = undefined;
        if (outcome) reject(outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error)));
        else resolve(this.#results);
      };
      this.#fill();
    });
  }

  /** Starts ready checks while a slot is free; ends the run when every check has ended. */
  #fill(): void {
    try {
      while (this.#ended && this.#running < this.#slots) {
        const id = this.#scheduler.next();
        if (id === undefined) break;
        this.#start(this.#check(id));
      }
      // Skips still unreported when nothing is left to run, or nothing to start while nothing runs: a circle of
      // checks, which planning never makes; it ends the run rather than hanging it.
      const circle = this.#scheduler.finished ? this.#skipped.size > 0 : this.#scheduler.stalled;
      if (circle) throw new Error('validate: the checks depend on each other in a circle');
      if (this.#scheduler.finished) this.#ended?.(undefined);
    } catch (thrown: unknown) {
      this.#ended?.({ error: thrown });
    }
  }

  #start(check: PlannedCheck): void {
    const { deps, signal } = this.#options;
    const authCause = check.env !== undefined ? this.#authFailed.get(check.env) : undefined;
    if (authCause !== undefined) {
      const message = `skipped: ${authCause} found the credentials rejected`;
      this.#settle(check, { status: 'skip', message }, 0, authCause);
      return;
    }
    if (signal?.aborted) {
      this.#settle(check, { status: 'skip', message: 'skipped: interrupted' }, 0);
      return;
    }
    this.#running += 1;
    const begin = deps.now();
    this.#emit(() => ({
      type: 'check-started',
      at: new Date(begin).toISOString(),
      id: check.id,
      check: check.check,
      target: check.target,
      phase: check.phase,
      ...(check.env !== undefined ? { env: check.env } : {}),
    }));
    const budgetMs = this.#options.budgetMs ?? VALIDATE_BUDGET_MS;
    const ended = (outcome: CheckOutcome): void => {
      this.#running -= 1;
      try {
        this.#settle(check, outcome, Math.max(0, deps.now() - begin));
      } catch (thrown: unknown) {
        this.#ended?.({ error: thrown });
      }
      this.#fill();
    };
    runOne(check, this.#cloud, deps, budgetMs, signal).then(ended, (thrown: unknown) =>
      this.#ended?.({ error: thrown }),
    );
  }

  /** Records a check's result and tells the scheduler: a pass releases its dependents, anything else skips them. */
  #settle(check: PlannedCheck, outcome: CheckOutcome, durationMs: number, skippedBecause?: string): void {
    this.#record(check, outcome, durationMs, skippedBecause);
    if (outcome.status === 'pass') this.#scheduler.complete(check.id);
    else for (const { unit, because } of this.#scheduler.fail(check.id)) this.#skipped.set(unit, because);
    this.#reportSkips();
  }

  /** Reports, in plan order, each skipped check whose required checks have all ended. */
  #reportSkips(): void {
    let reported = true;
    while (reported && this.#skipped.size > 0) {
      reported = false;
      const waiting = [...this.#skipped.keys()].sort((a, b) => (this.#place.get(a) ?? 0) - (this.#place.get(b) ?? 0));
      for (const id of waiting) {
        const check = this.#check(id);
        if (!check.requires.every((required) => this.#results.has(required))) continue;
        const cause = this.#skipCause(check, this.#skipped.get(id) ?? id);
        this.#skipped.delete(id);
        this.#record(check, { status: 'skip', message: `skipped: ${cause} did not pass` }, 0, cause);
        reported = true;
      }
    }
  }

  /** The first required check that did not pass, or the failure it was itself skipped for. */
  #skipCause(check: PlannedCheck, because: string): string {
    for (const required of check.requires) {
      const result = this.#results.get(required);
      if (result && result.status !== 'pass') return result.skippedBecause ?? result.id;
    }
    return this.#results.get(because)?.skippedBecause ?? because;
  }

  #record(check: PlannedCheck, outcome: CheckOutcome, durationMs: number, skippedBecause?: string): void {
    const result: CheckResult = {
      id: check.id,
      check: check.check,
      target: check.target,
      phase: check.phase,
      ...(check.env !== undefined ? { env: check.env } : {}),
      ...outcome,
      durationMs,
      ...(skippedBecause !== undefined ? { skippedBecause } : {}),
    };
    if (outcome.authFailure && check.env !== undefined && !this.#authFailed.has(check.env))
      this.#authFailed.set(check.env, check.id);
    this.#results.set(check.id, result);
    this.#options.onResult?.(result);
    this.#emit(() => checkFinished(result, new Date(this.#options.deps.now()).toISOString()));
  }

  /** Builds and sends an event only when someone listens (a run without reporters reads no extra clock). */
  #emit(event: () => CheckEvent): void {
    this.#options.emit?.(event());
  }

  #check(id: string): PlannedCheck {
    const check = this.#byId.get(id);
    if (!check) throw new Error(`validate: no planned check ${id}`);
    return check;
  }

  readonly #cloud = (env: string): EnvCloud => {
    let existing = this.#clouds.get(env);
    if (!existing) {
      existing = this.#options.deps.cloud(env);
      this.#clouds.set(env, existing);
    }
    return existing;
  };
}

async function runOne(
  check: PlannedCheck,
  cloud: (env: string) => EnvCloud,
  deps: ValidateDeps,
  budgetMs: number,
  interrupt: AbortSignal | undefined,
): Promise<CheckOutcome> {
  const controller = new AbortController();
  // An interrupt ends the check now, reported as such: its abort-induced outcome would read like a timeout.
  let stop: (() => void) | undefined;
  const interrupted = new Promise<CheckOutcome>((resolve) => {
    stop = () => resolve({ status: 'skip', message: 'skipped: interrupted while running' });
  });
  const onInterrupt = () => {
    stop?.();
    controller.abort(interrupt?.reason);
  };
  interrupt?.addEventListener('abort', onInterrupt, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<CheckOutcome>((resolve) => {
    timer = setTimer(() => {
      controller.abort(new DOMException('check timed out', 'TimeoutError'));
      const message = `no answer within ${formatTimeout(check.timeoutMs)}`;
      resolve(check.timeoutIsFailure ? { status: 'fail', message } : error(`timed out: ${message}`));
    }, check.timeoutMs);
  });
  const ctx: CheckContext = { cloud, deps, signal: controller.signal, budgetMs, timeoutMs: check.timeoutMs };
  try {
    // The race guarantees the timeout even for a call that ignores its signal; the abort then cleans it up.
    return await Promise.race([
      dispatch(check.spec, ctx).catch((thrown: unknown) =>
        error(`check crashed: ${thrown instanceof Error ? thrown.message : String(thrown)}`),
      ),
      timedOut,
      interrupted,
    ]);
  } finally {
    clearTimeout(timer);
    interrupt?.removeEventListener('abort', onInterrupt);
    // Anything still in flight for this check (a hung socket) is released now.
    controller.abort(new DOMException('check finished', 'AbortError'));
  }
}

function dispatch(spec: CheckSpec, ctx: CheckContext): Promise<CheckOutcome> {
  switch (spec.kind) {
    case 'iam-credentials':
      return checkCredentials(spec.env, ctx);
    case 'iam-deployer-role':
      return checkDeployerRole(spec.env, spec.roleArn, ctx);
    case 'iam-state-bucket':
      return checkStateBucket(spec.env, spec.bucket, ctx);
    case 'cluster-api':
      return checkClusterApi(spec.env, ctx);
    case 'eks-cluster':
      return checkEksCluster(spec.env, ctx);
    case 'cilium-agent':
      return checkCiliumAgent(spec.env, ctx);
    case 'argocd-apps':
      return checkArgocdApps(spec.env, ctx);
    case 'unit-state':
      return checkUnitState(spec.env, spec.state, ctx);
    case 'http-endpoint':
      return checkHttpEndpoint(spec.url, spec.expect, ctx);
    case 'dns-delegation':
      return checkDnsDelegation(spec.env, spec.zone, ctx);
    case 'gateway':
      return checkGateway(spec.env, spec.namespace, spec.name, ctx);
    case 'tailscale-status':
      return checkTailscale(spec.binary, spec.peers, ctx);
    case 'tailscale-url':
      return checkTailscaleUrl(spec.url, ctx);
    case 'bastion':
      return checkBastion(spec.env, spec.tags, ctx);
    default:
      return unreachable(spec);
  }
}
