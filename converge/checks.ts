/**
 * One look of a convergence wait, through validate's check implementations (one implementation of "an Application
 * is Synced and Healthy", "a CRD is Established", "a workload is Available", "an endpoint answers"), over the same
 * cluster access validate uses: the environment's kubeconfig context, or EKS with a signed token.
 */
import type { ConvergeWait } from '../config/schema.js';
import type { OutputsRead } from '../engine/terragrunt.js';
import type { CheckContext } from '../validate/checks/context.js';
import { checkArgocdApps, checkCrdsEstablished, checkWorkloadsAvailable } from '../validate/checks/kube.js';
import { checkHttpEndpoint } from '../validate/checks/net.js';
import type { ValidateDeps } from '../validate/deps.js';
import type { CheckOutcome } from '../validate/types.js';

/** How long one look may take before it counts as "no answer" (the wait goes on until its own bound). */
export const LOOK_TIMEOUT_MS = 30_000;

/** Looks once at what `wait` waits for; `signal` is the run's (Ctrl-C). */
export type WaitLook = (wait: ConvergeWait, env: string | undefined, signal: AbortSignal) => Promise<CheckOutcome>;

/** Reads a unit's outputs (`terragrunt output -json`), within `timeoutMs` and until `signal` aborts. */
export type OutputReader = (unit: string, signal: AbortSignal, timeoutMs: number) => Promise<OutputsRead>;

/**
 * The looks, over validate's dependencies (its cloud access per environment, fetch) and, for `output` waits, a
 * reader of units' outputs.
 */
export function waitLooks(deps: ValidateDeps, lookTimeoutMs = LOOK_TIMEOUT_MS, outputs?: OutputReader): WaitLook {
  return async (wait, env, signal) => {
    const limit = AbortSignal.timeout(lookTimeoutMs);
    const ctx: CheckContext = {
      cloud: deps.cloud,
      deps,
      signal: AbortSignal.any([signal, limit]),
      budgetMs: lookTimeoutMs,
      timeoutMs: lookTimeoutMs,
    };
    if (wait.http) return checkHttpEndpoint(wait.http.url, wait.http.expect, ctx);
    if (wait.output) {
      if (!outputs) return { status: 'error', message: `converge wait ${wait.id}: no terragrunt to read outputs with` };
      return checkOutput(wait.output, await outputs(wait.output.unit, signal, lookTimeoutMs));
    }
    if (env === undefined) {
      return { status: 'error', message: `converge wait ${wait.id} names no environment`, hint: 'add env:' };
    }
    if (wait.argocd_apps) {
      const { namespace, selector, project } = wait.argocd_apps;
      return checkArgocdApps(env, ctx, {
        namespace,
        ...(selector === undefined ? {} : { selector }),
        ...(project === undefined ? {} : { project }),
      });
    }
    if (wait.crds) return checkCrdsEstablished(env, wait.crds, ctx);
    if (wait.workloads) return checkWorkloadsAvailable(env, wait.workloads, ctx);
    return { status: 'error', message: `converge wait ${wait.id} names nothing to wait for` };
  };
}

/**
 * An `output` wait's verdict from what `terragrunt output -json` read: set (and equal to `equals`) passes; unset or
 * another value is not ready yet; a read that failed is an error. A sensitive output's value is never shown.
 */
export function checkOutput(want: NonNullable<ConvergeWait['output']>, read: OutputsRead): CheckOutcome {
  const which = `output ${want.name} of ${want.unit}`;
  if (read.type === 'failed') {
    return {
      status: 'error',
      message: `cannot read ${which}: ${read.message}`,
      hint: `run terragrunt output -json in ${want.unit} to see why`,
    };
  }
  const found = read.outputs.get(want.name);
  if (found === undefined || found.value === null) {
    const names = [...read.outputs.keys()].sort();
    return {
      status: 'fail',
      message: `${which} is not set`,
      details: [names.length === 0 ? `${want.unit} has no outputs` : `${want.unit} has outputs: ${names.join(', ')}`],
    };
  }
  const shown = (value: unknown): string => {
    if (found.sensitive) return '(sensitive)';
    const text = JSON.stringify(value);
    return text.length > 200 ? `${text.slice(0, 200)}...` : text;
  };
  if (want.equals !== undefined && found.value !== want.equals) {
    return {
      status: 'fail',
      message: found.sensitive
        ? `${which} (sensitive) is not the value expected`
        : `${which} is ${shown(found.value)}, not ${JSON.stringify(want.equals)}`,
    };
  }
  return { status: 'pass', message: `${which} is ${shown(found.value)}` };
}
