/**
 * `bootstrap --dry-run` and `teardown --dry-run`: the whole plan of a run, as the run would do it, and nothing done.
 * In the order the run reaches them: the manual steps with the current result of their checks (bootstrap), the
 * unlock steps (teardown), each wave with each unit's exact terragrunt command line and its named hooks (bootstrap;
 * a hook's own applies, crd_two_stage's `-target` stage, with theirs), the convergence waits and the lockdown steps
 * (bootstrap).
 *
 * Checks are run (they only look: a check is how platctl learns whether a step is done); nothing else is.
 */
import type { ManualStepCheck, PlatctlConfig } from '../config/schema.js';
import { planWaits } from '../converge/plan.js';
import type { HookPoint } from '../engine/events.js';
import type { UnitId } from '../engine/graph.js';
import type { LockdownConfig } from '../engine/lockdown.js';
import { argsFor, stepsFor } from '../engine/lockdown.js';
import { formatCommandLine, formatDuration } from '../engine/logs.js';
import type { Plan } from '../engine/plan.js';
import { planWaves } from '../engine/plan.js';
import type { Paint } from '../engine/reporters/paint.js';
import type { RunCommand } from '../engine/unit-status.js';
import { tfCommandFor } from '../engine/unit-status.js';
import type { UnitHook } from '../engine/walk.js';
import type { CheckResult, CheckedStep, ManualStep } from '../hooks/manual-steps.js';
import { formatCheck, stepsForRun } from '../hooks/manual-steps.js';

export interface PlannedHook {
  readonly name: string;
  readonly point: HookPoint;
  /** The command lines of the applies the hook runs itself (crd_two_stage's first stage). */
  readonly applies: readonly string[];
}

export interface PlannedUnit {
  readonly id: UnitId;
  readonly wave: number;
  /** The exact terragrunt command line of the unit's apply (destroy). */
  readonly command: string;
  /** In the order they run: before-unit hooks, then after-unit hooks. */
  readonly hooks: readonly PlannedHook[];
}

export interface PlannedManualStep {
  readonly id: string;
  readonly description: string;
  readonly check?: ManualStepCheck;
  /**
   * `passed`: silent in the run; `not-done`: the run asks (terminal) or refuses; `confirm`: no check, asked or --yes;
   * `cannot-check`: the check could not look (credentials, permission, no answer): the run would refuse.
   */
  readonly status: 'passed' | 'not-done' | 'confirm' | 'cannot-check';
  readonly detail?: string;
}

export interface PlannedLockStep {
  readonly id: string;
  readonly unit: UnitId;
  readonly command: string;
}

export interface PlannedLockdown {
  readonly direction: 'lock' | 'unlock';
  /** Why the phase will not run (a partial selection without --lockdown); absent when it runs. */
  readonly skipped?: string;
  readonly steps: readonly PlannedLockStep[];
}

/** A convergence wait as the dry run shows it (bootstrap, `converge:`). */
export interface PlannedConvergeWait {
  readonly id: string;
  readonly what: string;
  /** The environment whose cluster it reads (none for an HTTP wait). */
  readonly env?: string;
  readonly timeout_ms: number;
  readonly after: readonly UnitId[];
  /** `waits`: looked at after the walk; `skipped`: `reason` says why this run does not wait for it. */
  readonly decision: 'waits' | 'skipped';
  readonly reason?: string;
}

export interface WalkPlanView {
  readonly command: RunCommand;
  /** Unit ids per wave, in walk order. */
  readonly waves: readonly (readonly UnitId[])[];
  /** Teardown floor: never destroyed. */
  readonly kept: readonly UnitId[];
  /** Left out by Terragrunt `exclude` blocks; `by` is the unit whose block did it (itself, or a dependent's). */
  readonly excluded: readonly { readonly unit: UnitId; readonly by: UnitId }[];
  readonly units: readonly PlannedUnit[];
  readonly manual_steps: readonly PlannedManualStep[];
  /** Bootstrap's convergence waits, in the order they run (after the walk, before lockdown). */
  readonly converge?: readonly PlannedConvergeWait[];
  readonly lockdown?: PlannedLockdown;
  /** Bootstrap's recoveries after a failed apply (engine/recovery.ts): on acts, off only advises. */
  readonly recover?: Readonly<Record<string, 'on' | 'off'>>;
}

/** What each recovery does when it is on, for the dry run. */
const RECOVERY_EFFECT: Readonly<Record<string, string>> = {
  'helm-pending':
    "a unit failing on a Helm release stuck pending-* gets that revision's Secret deleted and is applied once more",
};

export interface WalkPlanInput {
  readonly command: RunCommand;
  readonly plan: Plan;
  /** How many units the whole graph has: fewer in the plan is a partial selection. */
  readonly graphSize: number;
  readonly config: Pick<PlatctlConfig, 'units' | 'manual_steps' | 'lockdown' | 'converge' | 'environments'>;
  /** `--lockdown`: lock down (unlock) even after a partial selection. */
  readonly lockdownFlag: boolean;
  /** The terragrunt command line of `tfCommand` in `unit` with these Terraform arguments. */
  readonly commandLine: (unit: UnitId, tfCommand: 'apply' | 'destroy', tfArgs: readonly string[]) => readonly string[];
  /** The named hooks of a unit (bootstrap). */
  readonly hooks?: (unit: UnitId) => readonly UnitHook[];
  /** The recoveries bootstrap knows, and whether each is switched on (`recover:`, `--recover`). */
  readonly recover?: Readonly<Record<string, 'on' | 'off'>>;
  /** Runs a manual step's check (bootstrap). */
  readonly runCheck?: (step: CheckedStep, signal: AbortSignal) => Promise<CheckResult>;
  readonly signal: AbortSignal;
}

export async function buildWalkPlan(input: WalkPlanInput): Promise<WalkPlanView> {
  const { command, plan, config } = input;
  const waves = planWaves(plan);
  const tfCommand = tfCommandFor(command);
  const unitArgs = (unit: UnitId): readonly string[] =>
    (command === 'bootstrap' ? config.units[unit]?.apply_args : config.units[unit]?.teardown_args) ?? [];
  const line = (unit: UnitId, tf: 'apply' | 'destroy', args: readonly string[]): string =>
    formatCommandLine(input.commandLine(unit, tf, args));

  const units = waves.flatMap((ids, wave) =>
    ids.map((id): PlannedUnit => {
      const hooks = input.hooks?.(id) ?? [];
      const at = (point: HookPoint): PlannedHook[] =>
        hooks
          .filter(({ hook }) =>
            point === 'before-unit' ? hook.beforeUnit !== undefined : hook.afterUnit !== undefined,
          )
          .map(({ hook }) => ({
            name: hook.name,
            point,
            applies:
              point === 'before-unit'
                ? (hook.applies ?? []).map((extra) => line(id, tfCommand, [...unitArgs(id), ...extra]))
                : [],
          }));
      return {
        id,
        wave,
        command: line(id, tfCommand, unitArgs(id)),
        hooks: [...at('before-unit'), ...at('after-unit')],
      };
    }),
  );

  const manualSteps =
    command === 'bootstrap' && input.runCheck
      ? await checkSteps(stepsForRun(config.manual_steps, new Set(plan.walkGraph.ids())), input.runCheck, input.signal)
      : [];

  const lockdown = config.lockdown && config.lockdown.steps.length > 0 ? config.lockdown : undefined;
  return {
    command,
    waves,
    kept: plan.kept,
    excluded: [...plan.excluded].map(([unit, by]) => ({ unit, by })),
    units,
    manual_steps: manualSteps,
    ...(command === 'bootstrap' && (config.converge?.waits.length ?? 0) > 0 ? { converge: convergePlan(input) } : {}),
    ...(lockdown ? { lockdown: lockdownPlan(input, lockdown, line) } : {}),
    ...(input.recover ? { recover: input.recover } : {}),
  };
}

async function checkSteps(
  steps: readonly ManualStep[],
  runCheck: NonNullable<WalkPlanInput['runCheck']>,
  signal: AbortSignal,
): Promise<PlannedManualStep[]> {
  const out: PlannedManualStep[] = [];
  for (const step of steps) {
    const base = { id: step.id, description: step.description };
    if (step.check === undefined) {
      out.push({ ...base, status: 'confirm', detail: 'no check: confirmed on the terminal, or by --yes' });
      continue;
    }
    const result = await runCheck({ ...step, check: step.check }, signal);
    out.push({
      ...base,
      check: step.check,
      status: result.passed ? 'passed' : result.cannotRun === true ? 'cannot-check' : 'not-done',
      ...(result.passed ? {} : { detail: result.detail }),
    });
  }
  return out;
}

/** The waits, as if every unit of the plan completed: those bound to units outside it are skipped. */
function convergePlan(input: WalkPlanInput): PlannedConvergeWait[] {
  const { plan } = input;
  const waits = planWaits({
    converge: input.config.converge,
    environments: Object.keys(input.config.environments),
    unitStatus: (unit) => (plan.scope.has(unit) ? 'completed' : undefined),
    partial: plan.scope.size < input.graphSize,
  });
  return waits.map((wait) => ({
    id: wait.id,
    what: wait.what,
    ...(wait.env === undefined ? {} : { env: wait.env }),
    timeout_ms: wait.timeoutMs,
    after: wait.wait.after,
    decision: wait.decision === 'not-applied' ? 'skipped' : 'waits',
    ...(wait.reason === undefined ? {} : { reason: wait.reason }),
  }));
}

function lockdownPlan(
  input: WalkPlanInput,
  lockdown: LockdownConfig,
  line: (unit: UnitId, tf: 'apply' | 'destroy', args: readonly string[]) => string,
): PlannedLockdown {
  const direction = input.command === 'bootstrap' ? 'lock' : 'unlock';
  const partial = input.plan.scope.size < input.graphSize;
  const steps = stepsFor(lockdown, direction).map((step) => ({
    id: step.id,
    unit: step.unit,
    // Lockdown and unlock steps always apply, with the unit's apply_args first.
    command: line(step.unit, 'apply', [
      ...(input.config.units[step.unit]?.apply_args ?? []),
      ...argsFor(step, direction),
    ]),
  }));
  return {
    direction,
    ...(partial && !input.lockdownFlag
      ? { skipped: `this ${input.command} covers only part of the units; --lockdown runs it anyway` }
      : {}),
    steps,
  };
}

/** The plan as text, in the order the run does things. */
export function renderWalkPlan(view: WalkPlanView, paint: Paint): string {
  const out: string[] = [];
  const count = view.waves.reduce((n, w) => n + w.length, 0);
  const order = view.command === 'teardown' ? ' (destroy order: dependents first)' : '';
  out.push(`${paint.bold(`${view.command} plan`)}: ${count} units in ${view.waves.length} waves${order}`);

  if (view.manual_steps.length > 0) {
    out.push(`manual steps (checked before anything runs):`);
    for (const step of view.manual_steps) {
      const mark = {
        passed: paint.green('done    '),
        'not-done': paint.red('NOT DONE'),
        'cannot-check': paint.red('CANNOT CHECK'),
        confirm: paint.yellow('confirm '),
      }[step.status];
      const shown = step.check && (Array.isArray(step.check) ? formatCommandLine(step.check) : formatCheck(step.check));
      const check = step.check ? ` (check ${shown}${step.detail ? `: ${step.detail}` : ''})` : '';
      out.push(`  ${mark} ${step.id}: ${step.description}${step.check ? check : ` (${step.detail ?? ''})`}`);
    }
  }
  if (view.lockdown?.direction === 'unlock') out.push(...renderLockdown(view.lockdown, 'before the units'));

  const byId = new Map(view.units.map((u) => [u.id, u]));
  view.waves.forEach((wave, i) => {
    out.push(`wave ${i}: ${wave.join(', ')}`);
    for (const id of wave) {
      const unit = byId.get(id);
      if (!unit) continue;
      out.push(`  ${id}`);
      for (const hook of unit.hooks.filter((h) => h.point === 'before-unit')) {
        out.push(`    hook ${hook.name} (before)`);
        for (const apply of hook.applies) out.push(`      ${paint.dim('$')} ${apply}`);
      }
      out.push(`    ${paint.dim('$')} ${unit.command}`);
      for (const hook of unit.hooks.filter((h) => h.point === 'after-unit')) out.push(`    hook ${hook.name} (after)`);
    }
  });
  if (view.kept.length > 0) out.push(`kept (teardown floor, never destroyed): ${view.kept.join(', ')}`);
  if (view.excluded.length > 0) out.push(excludedLine(view));
  if (view.converge) out.push(...renderConverge(view.converge));
  if (view.lockdown?.direction === 'lock') out.push(...renderLockdown(view.lockdown, 'after every unit completed'));
  for (const [name, state] of Object.entries(view.recover ?? {})) {
    out.push(
      state === 'on'
        ? `recovery ${name}: on (${RECOVERY_EFFECT[name] ?? 'acts after a failed apply'})`
        : `recovery ${name}: off (a failure it recognises says what to do; recover: [${name}] or --recover ${name} lets platctl do it)`,
    );
  }
  return `${out.join('\n')}\n`;
}

/** The line for units `exclude` blocks leave out, naming the dependent when it is another unit's block. */
function excludedLine(view: WalkPlanView): string {
  const what =
    view.command === 'bootstrap'
      ? 'never applied; what needs them runs as if they were'
      : 'never destroyed; what they need is destroyed without waiting for them';
  const units = view.excluded.map(({ unit, by }) => (by === unit ? unit : `${unit} (by ${by}'s exclude_dependencies)`));
  return `excluded (Terragrunt exclude blocks; ${what}): ${units.join(', ')}`;
}

function renderLockdown(lockdown: PlannedLockdown, when: string): string[] {
  const what = lockdown.direction === 'lock' ? 'lockdown' : 'unlock';
  const steps = `${lockdown.steps.length} step${lockdown.steps.length === 1 ? '' : 's'}`;
  const head = lockdown.skipped
    ? `${what}: skipped (${lockdown.skipped}); its ${steps} would be:`
    : `${what} (${when}), ${steps}:`;
  return [
    head,
    ...lockdown.steps.flatMap((step, i) => [`  ${i + 1}. ${step.id} (${step.unit})`, `     $ ${step.command}`]),
  ];
}

function renderConverge(waits: readonly PlannedConvergeWait[]): string[] {
  const count = `${waits.length} wait${waits.length === 1 ? '' : 's'}`;
  return [
    `converge (after the units, before lockdown), ${count}, each bounded:`,
    ...waits.map((wait, i) => {
      const where = wait.env === undefined ? '' : ` in ${wait.env}`;
      const after = wait.after.length > 0 ? `, after ${wait.after.join(', ')}` : '';
      const head = `  ${i + 1}. ${wait.id}: ${wait.what}${where} (up to ${formatDuration(wait.timeout_ms)}${after})`;
      return wait.decision === 'skipped' ? `${head}: skipped (${wait.reason ?? 'not applied by this run'})` : head;
    }),
  ];
}
