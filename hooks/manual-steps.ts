/**
 * The manual-steps preflight of `bootstrap`: things a person must do (create a token, delegate a zone) before units
 * that need them can apply. Only steps whose `before` units are in this run (every step without `before`) count.
 *
 * - A step whose check passes is satisfied, silently.
 * - A step whose check fails: on a terminal the person sees the description and is asked whether it is done; the
 *   check then runs again, and a check that still fails refuses (the person was wrong). Without a terminal every
 *   unsatisfied step is listed and the run refuses before anything runs.
 * - A step without a check needs a "yes" on the terminal, or `--yes`.
 * - `--yes` never bypasses a failing check: it fails closed.
 *
 * Each satisfied step is recorded in the state: how (check, confirmed, yes), by whom, and when.
 */
import type { ManualStepCheck, PlatctlConfig } from '../config/schema.js';
import type { UnitId } from '../engine/graph.js';
import type { BeforeRunContext, BeforeRunResult } from '../engine/phases.js';
import type { ManualStepRecord } from '../engine/state.js';
import type { Paint } from '../engine/reporters/paint.js';
import { userInfo } from 'node:os';

export type ManualStep = PlatctlConfig['manual_steps'][number];
/** A step with a check. */
export type CheckedStep = ManualStep & { readonly check: ManualStepCheck };

/**
 * How a check went: `detail` is one line (the exit code, a timeout, the last line of output, why a parameter does
 * not count). `cannotRun`: the check could not look at all (credentials rejected, no permission, no answer): the
 * step's state is unknown, so the run refuses at once and nobody is asked whether it is done; `hint` says what to do.
 */
export type CheckResult =
  | { readonly passed: true }
  | { readonly passed: false; readonly detail: string; readonly cannotRun?: boolean; readonly hint?: string };

export interface ManualStepDeps {
  /** Runs a step's check with its time limit (`check_timeout`): a command (argument list, no shell), or an SSM read. */
  readonly runCheck: (step: CheckedStep, signal: AbortSignal) => Promise<CheckResult>;
  /** On a terminal: shows the step (and why its check failed) and asks whether it is done. Absent without one. */
  readonly ask?: (step: ManualStep, failedCheck: string | undefined) => Promise<boolean>;
  /** `--yes`: confirms steps without a check; never a failing check. */
  readonly yes: boolean;
  /** Who runs platctl (login name), for the record. */
  readonly who: string;
}

/** The steps a run needs: those whose `before` units are in it. */
export function stepsForRun(steps: readonly ManualStep[], units: ReadonlySet<UnitId>): ManualStep[] {
  return steps.filter((step) => step.before === undefined || step.before.some((unit) => units.has(unit)));
}

/** The preflight as a before-run phase. */
export function manualStepsPhase(
  steps: readonly ManualStep[],
  deps: ManualStepDeps,
): (ctx: BeforeRunContext) => Promise<BeforeRunResult> {
  return async (ctx) => {
    const completed = new Set(
      Object.entries(ctx.resumed?.units ?? {}).flatMap(([id, u]) => (u.status === 'completed' ? [id] : [])),
    );
    const units = new Set(ctx.plan.walkGraph.ids().filter((id) => !completed.has(id)));
    return checkManualSteps(stepsForRun(steps, units), deps, ctx);
  };
}

export async function checkManualSteps(
  steps: readonly ManualStep[],
  deps: ManualStepDeps,
  ctx: Pick<BeforeRunContext, 'now' | 'signal' | 'resumed'>,
): Promise<BeforeRunResult> {
  const records: Record<string, ManualStepRecord> = {};
  const unsatisfied: string[] = [];
  const at = (): string => new Date(ctx.now()).toISOString();
  for (const step of steps) {
    // Interrupted: no further check or question (the caller turns this into exit 130).
    if (ctx.signal.aborted) return interruptedSteps();
    const earlier = ctx.resumed?.manual_steps?.[step.id];
    if (step.check === undefined) {
      if (earlier && earlier.how !== 'check') {
        // Confirmed when this run started: a resume does not ask again.
        records[step.id] = earlier;
      } else if (deps.yes) {
        records[step.id] = { how: 'yes', by: deps.who, at: at() };
      } else if (deps.ask && (await deps.ask(step, undefined))) {
        records[step.id] = { how: 'confirmed', by: deps.who, at: at() };
      } else {
        unsatisfied.push(`${step.id}: ${step.description} (no check: confirm it on a terminal, or pass --yes)`);
        if (deps.ask) break;
      }
      continue;
    }
    const checked: CheckedStep = { ...step, check: step.check };
    const first = await deps.runCheck(checked, ctx.signal);
    if (ctx.signal.aborted) return interruptedSteps();
    if (first.passed) {
      records[step.id] = { how: 'check', at: at() };
      continue;
    }
    if (first.cannotRun === true) return cannotRun(checked, first);
    if (!deps.ask) {
      unsatisfied.push(`${step.id}: ${step.description} (check ${formatCheck(step.check)}: ${first.detail})`);
      continue;
    }
    if (!(await deps.ask(step, first.detail))) {
      unsatisfied.push(`${step.id}: ${step.description} (not done)`);
      break;
    }
    const again = await deps.runCheck(checked, ctx.signal);
    if (ctx.signal.aborted) return interruptedSteps();
    if (!again.passed && again.cannotRun === true) return cannotRun(checked, again);
    if (!again.passed) {
      unsatisfied.push(
        `${step.id}: its check still fails after it was confirmed done (check ${formatCheck(step.check)}: ${again.detail})`,
      );
      break;
    }
    records[step.id] = { how: 'confirmed', by: deps.who, at: at() };
  }
  if (unsatisfied.length === 0) return { ok: true, manualSteps: records };
  return {
    ok: false,
    reason: 'manual-steps-not-done',
    message: `${unsatisfied.length === 1 ? 'a manual step is' : `${unsatisfied.length} manual steps are`} not done; nothing was run`,
    details: unsatisfied,
    hint: 'do them and run platctl bootstrap again (manual_steps in .platctl.yaml says what each one needs)',
  };
}

function interruptedSteps(): BeforeRunResult {
  return {
    ok: false,
    reason: 'interrupted',
    message: 'interrupted while checking the manual steps; nothing was run',
  };
}

/** A check that could not look: the whole preflight refuses, naming the step, what was checked and why. */
function cannotRun(step: CheckedStep, result: Extract<CheckResult, { passed: false }>): BeforeRunResult {
  return {
    ok: false,
    reason: 'manual-step-check-failed',
    message: `the check of manual step ${step.id} could not run; a check that cannot run never counts as done, so nothing was run`,
    details: [`${step.id}: check ${formatCheck(step.check)}: ${result.detail}`],
    hint: result.hint ?? 'fix what stops the check, then run platctl bootstrap again',
  };
}

/** A check for messages: an argument list as JSON, `ssm_parameter NAME`. */
export function formatCheck(check: ManualStepCheck): string {
  return Array.isArray(check) ? JSON.stringify(check) : `ssm_parameter ${check.ssm_parameter}`;
}

/** What is asked after {@link manualStepQuestion}, and what answer says the step is done: only y or yes. */
export const MANUAL_STEP_ANSWER = {
  question: 'Done? [y/N] ',
  /** True when `answer` (undefined: the prompt was closed or Ctrl-C) says done. */
  done: (answer: string | undefined): boolean => /^(y|yes)$/i.test(answer?.trim() ?? ''),
} as const;

/** The question asked on the terminal about a step (`failedCheck`: why its check did not find it done). */
export function manualStepQuestion(step: ManualStep, failedCheck: string | undefined, paint: Paint): string {
  const why = failedCheck === undefined ? '' : paint.dim(` (its check failed: ${failedCheck})`);
  return `${paint.bold(`Manual step ${step.id}`)}${why}\n  ${step.description}\n`;
}

/** The login name for the record (`env`: the process environment, passed by the CLI, for when the OS has none). */
export function whoAmI(env: Readonly<Record<string, string | undefined>>): string {
  try {
    return userInfo().username;
  } catch {
    return env.USER ?? env.LOGNAME ?? 'unknown';
  }
}
