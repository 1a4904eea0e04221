/**
 * `platctl validate` as a library: plan the checks from configuration and units, run them, return the report.
 * Pure of process: configuration, units, environment variables, clock and clients all come in as parameters.
 */
import type { EnvCloud } from '../cloud/environment.js';
import { createEnvCloud } from '../cloud/environment.js';
import { preloadCloudModules } from '../cloud/preload.js';
import type { EnvVars } from '../cloud/env.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { ValidateDeps } from './deps.js';
import { commandRunner, dnsResolver } from './deps.js';
import type { PlanInput } from './plan.js';
import { DEFAULT_CHECK_TIMEOUT_MS, planChecks } from './plan.js';
import { runChecks } from './run.js';
import type { CheckEvent, CheckResult, ValidateReport } from './types.js';

export type { ValidateDeps } from './deps.js';
export type { PlanInput, PlannedCheck } from './plan.js';
export { planChecks, prefixNeedsUnits, checkerFor, stateLocation } from './plan.js';
export { runChecks, VALIDATE_BUDGET_MS } from './run.js';
export type { CheckEvent, CheckResult, CheckStatus, ValidateReport } from './types.js';

export interface ValidateInput extends PlanInput {
  readonly concurrency: number;
  readonly budgetMs?: number;
  readonly onResult?: (result: CheckResult) => void;
  /** The checks' events as they start and end (engine/check-report.ts `CheckEvent`). */
  readonly emit?: (event: CheckEvent) => void;
  readonly signal?: AbortSignal;
}

export type ValidateOutcome =
  | { readonly ok: true; readonly report: ValidateReport }
  | { readonly ok: false; readonly reason: 'no-match'; readonly message: string };

/** Plans and runs a validation. `no-match` means `--check` selected nothing (a usage error). */
export async function validate(input: ValidateInput, deps: ValidateDeps): Promise<ValidateOutcome> {
  const plan = planChecks(input);
  if (!plan.ok) return { ok: false, reason: plan.reason, message: plan.message };
  const report = await runChecks({
    checks: plan.checks,
    deps,
    concurrency: input.concurrency,
    ...(input.budgetMs !== undefined ? { budgetMs: input.budgetMs } : {}),
    ...(input.onResult ? { onResult: input.onResult } : {}),
    ...(input.emit ? { emit: input.emit } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  return { ok: true, report };
}

export interface DefaultDepsOptions {
  readonly config: PlatctlConfig;
  readonly env: EnvVars;
  readonly now?: () => number;
  /** Resolvers for the DNS fallback of the delegation check (`ip` or `ip:port`); the system's when absent. */
  readonly dnsServers?: readonly string[];
  readonly fetch?: typeof fetch;
  /** Whether an environment is parked (its park record, read where it lives); absent: never parked. */
  readonly parkState?: ValidateDeps['parkState'];
}

/** The real dependencies: AWS and cluster access per environment, fetch, node's DNS resolver, child processes. */
export function createValidateDeps(options: DefaultDepsOptions): ValidateDeps {
  const now = options.now ?? Date.now;
  const clouds = new Map<string, EnvCloud>();
  const cloud = (envName: string): EnvCloud => {
    let found = clouds.get(envName);
    if (!found) {
      const settings = options.config.environments[envName];
      if (!settings) throw new Error(`validate: unknown environment ${envName}`);
      // Calls made while resolving credentials cannot be aborted: they must not outlive a check's timeout.
      const providerRequestTimeoutMs = options.config.validate.timeout ?? DEFAULT_CHECK_TIMEOUT_MS;
      found = createEnvCloud({ envName, settings, env: options.env, now, providerRequestTimeoutMs });
      clouds.set(envName, found);
    }
    return found;
  };
  return {
    cloud,
    bastion: async (envName) => {
      const [{ awsAccessOf }, { createBastionReader }] = await Promise.all([
        import('../cloud/sdk-access.js'),
        import('../cloud/bastion.js'),
      ]);
      const access = await awsAccessOf(cloud(envName), options.env);
      return access.ok ? { ok: true, value: createBastionReader(access.value) } : access;
    },
    ...(options.parkState ? { parkState: options.parkState } : {}),
    fetch: options.fetch ?? fetch,
    resolveNs: dnsResolver(options.dnsServers),
    runCommand: commandRunner(options.env),
    now,
    preload: preloadCloudModules,
  };
}
