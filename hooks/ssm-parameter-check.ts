/**
 * The manual-step check `{ssm_parameter: NAME}`: the step is done when the parameter exists in its environment's
 * account and region and holds a real value, by the same placeholder rules as `.platctl.yaml` (REPLACE_ME,
 * CHANGEME, YOUR_..., <...>, TODO, ...), or an empty one.
 *
 * The value (decrypted, for a SecureString) is only tested here: what leaves is the rule it broke, never the value
 * nor the part of it that matched. A missing parameter is a step not done; a check that cannot look (credentials
 * rejected, no permission, no answer in `check_timeout`) cannot run, and never counts as done.
 */
import type { CloudResult } from '../cloud/result.js';
import type { SsmReader } from '../cloud/ssm.js';
import { findPlaceholder } from '../config/placeholders.js';
import { manualStepEnv } from '../config/semantic.js';
import type { CheckResult, CheckedStep } from './manual-steps.js';

export interface SsmParameterCheckDeps {
  /** The declared environments (the check's environment defaults from them: see {@link manualStepEnv}). */
  readonly envNames: readonly string[];
  /** The SSM access of an environment, with its profile, account and region. */
  readonly ssm: (env: string) => Promise<CloudResult<SsmReader>>;
}

/** Why a value does not count as set, or undefined when it does. Never includes the value. */
export function placeholderRule(value: string): string | undefined {
  if (value.trim() === '') return 'it is empty';
  const match = findPlaceholder(value);
  return match === undefined ? undefined : `it is a placeholder (${match.rule})`;
}

/** Runs `step`'s `ssm_parameter` check within its `check_timeout`; `signal` is the run's. */
export async function checkSsmParameter(
  step: CheckedStep,
  signal: AbortSignal,
  deps: SsmParameterCheckDeps,
): Promise<CheckResult> {
  const check = step.check;
  if (Array.isArray(check)) throw new Error(`manual step ${step.id}: not an ssm_parameter check`); // a bug: the caller dispatches
  const name = check.ssm_parameter;
  const env = manualStepEnv(check, step.before, deps.envNames);
  // A bug if it happens: loading the configuration refuses a check whose environment is not decided.
  if (env === undefined) throw new Error(`manual step ${step.id}: no environment for ssm_parameter ${name}`);
  const reader = await deps.ssm(env);
  if (!reader.ok) return cannotRun(`environment ${env}: ${reader.message}`, reader.hint);
  const limit = AbortSignal.any([signal, AbortSignal.timeout(step.check_timeout)]);
  const read = await reader.value.parameter(name, placeholderRule, limit);
  if (signal.aborted) return { passed: false, detail: 'interrupted' };
  if (read.ok) {
    const why = read.value.verdict;
    if (why === undefined) return { passed: true };
    return {
      passed: false,
      detail: `SSM parameter ${name} (${read.value.type}) is not set: ${why}; its value is not shown`,
    };
  }
  if (read.reason === 'not-found') return { passed: false, detail: read.message };
  if (read.reason === 'timeout') {
    return cannotRun(
      `no answer from SSM about ${name} in environment ${env} within ${Math.round(step.check_timeout / 1000)}s (check_timeout)`,
      'check the network path to AWS, or raise check_timeout',
    );
  }
  const hint =
    read.reason === 'forbidden'
      ? `the principal needs ssm:GetParameter on ${name} (and kms:Decrypt on its key, for a SecureString)`
      : read.hint;
  return cannotRun(read.message, hint);
}

function cannotRun(detail: string, hint: string | undefined): CheckResult {
  return { passed: false, cannotRun: true, detail, ...(hint === undefined ? {} : { hint }) };
}
