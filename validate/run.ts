/**
 * Runs planned checks: dependencies first, independent checks in parallel under a concurrency limit, each under its
 * own timeout. A check whose dependency did not pass is skipped without taking a slot, naming the failure at the
 * root; once an environment's credentials are rejected mid-run, its remaining checks are skipped the same way.
 */
import pLimit from 'p-limit';
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
import type { CheckOutcome, CheckResult, ValidateReport } from './types.js';
import { UNHEALTHY, formatTimeout, unreachable } from './types.js';
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
  /** Called as each check ends, in completion order (progress output). */
  readonly onResult?: (result: CheckResult) => void;
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
  const limit = pLimit(Math.max(1, options.concurrency));
  const clouds = new Map<string, EnvCloud>();
  const cloud = (env: string): EnvCloud => {
    let existing = clouds.get(env);
    if (!existing) {
      existing = deps.cloud(env);
      clouds.set(env, existing);
    }
    return existing;
  };
  /** Environment -> the check whose credentials failure stops the rest of it. */
  const authFailed = new Map<string, string>();
  const byId = new Map(options.checks.map((check) => [check.id, check]));
  const results = new Map<string, Promise<CheckResult>>();

  const resultOf = (id: string): Promise<CheckResult> => {
    let promise = results.get(id);
    if (!promise) {
      const check = byId.get(id);
      if (!check) throw new Error(`validate: a check depends on the unknown check ${id}`);
      promise = settle(check);
      results.set(id, promise);
    }
    return promise;
  };

  const finish = (
    check: PlannedCheck,
    outcome: CheckOutcome,
    durationMs: number,
    skippedBecause?: string,
  ): CheckResult => {
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
    if (outcome.authFailure && check.env !== undefined && !authFailed.has(check.env))
      authFailed.set(check.env, check.id);
    options.onResult?.(result);
    return result;
  };

  const settle = async (check: PlannedCheck): Promise<CheckResult> => {
    const prerequisites = await Promise.all(check.requires.map(resultOf));
    const blocker = prerequisites.find((r) => r.status !== 'pass');
    if (blocker) {
      const cause = blocker.skippedBecause ?? blocker.id;
      return finish(check, { status: 'skip', message: `skipped: ${cause} did not pass` }, 0, cause);
    }
    return limit(async () => {
      const authCause = check.env !== undefined ? authFailed.get(check.env) : undefined;
      if (authCause !== undefined) {
        return finish(
          check,
          { status: 'skip', message: `skipped: ${authCause} found the credentials rejected` },
          0,
          authCause,
        );
      }
      if (options.signal?.aborted) return finish(check, { status: 'skip', message: 'skipped: interrupted' }, 0);
      const begin = deps.now();
      const outcome = await runOne(check, cloud, deps, options.budgetMs ?? VALIDATE_BUDGET_MS, options.signal);
      return finish(check, outcome, Math.max(0, deps.now() - begin));
    });
  };

  const checks = await Promise.all(options.checks.map((check) => resultOf(check.id)));
  return {
    // An interrupted run skipped checks it never made: it cannot vouch for the platform.
    healthy: options.signal?.aborted !== true && !checks.some((c) => UNHEALTHY.has(c.status)),
    checks,
    durationMs: Math.max(0, deps.now() - started),
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
