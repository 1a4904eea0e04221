/**
 * One look of a convergence wait, through validate's check implementations (one implementation of "an Application
 * is Synced and Healthy", "a CRD is Established", "a workload is Available", "an endpoint answers"), over the same
 * cluster access validate uses: the environment's kubeconfig context, or EKS with a signed token.
 */
import type { ConvergeWait } from '../config/schema.js';
import type { CheckContext } from '../validate/checks/context.js';
import { checkArgocdApps, checkCrdsEstablished, checkWorkloadsAvailable } from '../validate/checks/kube.js';
import { checkHttpEndpoint } from '../validate/checks/net.js';
import type { ValidateDeps } from '../validate/deps.js';
import type { CheckOutcome } from '../validate/types.js';

/** How long one look may take before it counts as "no answer" (the wait goes on until its own bound). */
export const LOOK_TIMEOUT_MS = 30_000;

/** Looks once at what `wait` waits for; `signal` is the run's (Ctrl-C). */
export type WaitLook = (wait: ConvergeWait, env: string | undefined, signal: AbortSignal) => Promise<CheckOutcome>;

/** The looks, over validate's dependencies (its cloud access per environment, fetch). */
export function waitLooks(deps: ValidateDeps, lookTimeoutMs = LOOK_TIMEOUT_MS): WaitLook {
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
