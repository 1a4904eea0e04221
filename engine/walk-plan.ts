/**
 * `bootstrap --dry-run` and `teardown --dry-run`: the whole plan of a run, as the run would do it, and nothing done.
 * Built from what the run itself runs: the plan of engine/plan.ts, the lockdown steps of engine/lockdown.ts (described
 * from the list the lockdown runs), and what cli/ passes in from the layers above (the manual steps and their checks
 * from hooks/, the convergence waits as converge/ decides them). engine/reporters/plan.ts shows it, in the phase order
 * of engine/phases.ts.
 *
 * Checks are run (they only look: a check is how platctl learns whether a step is done); nothing else is.
 */
import type { ManualStepCheck, PlatctlConfig } from '../config/schema.js';
import type { HookPoint } from './events.js';
import type { Graph, UnitId } from './graph.js';
import { planLockdown } from './lockdown.js';
import { formatCommandLine } from './logs.js';
import { LOCKDOWN_PHASE } from './phases.js';
import type { Plan } from './plan.js';
import { planWaves } from './plan.js';
import { rollbackPreview } from './rollback.js';
import { optionalUnits } from './rollback-run.js';
import type { RunCommand, UnitStatus } from './unit-status.js';
import { tfCommandFor } from './unit-status.js';
import type { UnitHook } from './walk.js';

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
  /** With rollback on failure: per unit, what its failed apply would destroy at most, or the rule that holds. */
  readonly rollback?: ReturnType<typeof rollbackPreview>;
}

export type ManualStep = PlatctlConfig['manual_steps'][number];

/** How a manual step's check went, as hooks/ answers it (hooks/manual-steps.ts `CheckResult`). */
export type CheckAnswer =
  { readonly passed: true } | { readonly passed: false; readonly detail: string; readonly cannotRun?: boolean };

/** A convergence wait as converge/ decides it for a run (converge/plan.ts `PlannedWait`). */
export interface ConvergeDecision {
  readonly id: string;
  readonly what: string;
  readonly env: string | undefined;
  readonly timeoutMs: number;
  readonly wait: { readonly after: readonly UnitId[] };
  readonly decision: 'run' | 'passed' | 'not-applied';
  readonly reason?: string;
}

export interface WalkPlanInput {
  readonly command: RunCommand;
  readonly plan: Plan;
  /** How many units the whole graph has: fewer in the plan is a partial selection. */
  readonly graphSize: number;
  readonly config: Pick<PlatctlConfig, 'units' | 'lockdown' | 'converge' | 'optional'>;
  /** `--lockdown`: lock down (unlock) even after a partial selection. */
  readonly lockdownFlag: boolean;
  /** The terragrunt command line of `tfCommand` in `unit` with these Terraform arguments. */
  readonly commandLine: (unit: UnitId, tfCommand: 'apply' | 'destroy', tfArgs: readonly string[]) => readonly string[];
  /** The named hooks of a unit (bootstrap). */
  readonly hooks?: (unit: UnitId) => readonly UnitHook[];
  /** The recoveries bootstrap knows, and whether each is switched on (`recover:`, `--recover`). */
  readonly recover?: Readonly<Record<string, 'on' | 'off'>>;
  /** Present when the run would roll back on failure: the whole graph, and the units whose HCL prevents a destroy. */
  readonly rollback?: { readonly graph: Graph; readonly preventDestroy: ReadonlySet<UnitId> };
  /** Bootstrap's manual steps: those a run of these units needs (hooks/ `stepsForRun`), and how to check one. */
  readonly manualSteps?: {
    readonly forRun: (units: ReadonlySet<UnitId>) => readonly ManualStep[];
    readonly runCheck: (
      step: ManualStep & { readonly check: ManualStepCheck },
      signal: AbortSignal,
    ) => Promise<CheckAnswer>;
  };
  /** Bootstrap's convergence waits as the run would decide them (converge/ `planWaits`), given each unit's status. */
  readonly convergeWaits?: (run: {
    readonly unitStatus: (unit: UnitId) => UnitStatus | undefined;
    readonly partial: boolean;
  }) => readonly ConvergeDecision[];
  readonly signal: AbortSignal;
}

type Line = (unit: UnitId, tf: 'apply' | 'destroy', args: readonly string[]) => string;

export async function buildWalkPlan(input: WalkPlanInput): Promise<WalkPlanView> {
  const { command, plan, config } = input;
  const line: Line = (unit, tf, args) => formatCommandLine(input.commandLine(unit, tf, args));
  const manualSteps =
    command === 'bootstrap' && input.manualSteps
      ? await checkSteps(
          input.manualSteps.forRun(new Set(plan.walkGraph.ids())),
          input.manualSteps.runCheck,
          input.signal,
        )
      : [];
  const converge =
    command === 'bootstrap' && (config.converge?.waits.length ?? 0) > 0 ? convergePlan(input) : undefined;
  const lockdown = config.lockdown && config.lockdown.steps.length > 0 ? config.lockdown : undefined;
  const rollback = input.rollback;
  return {
    command,
    waves: planWaves(plan),
    kept: plan.kept,
    excluded: [...plan.excluded].map(([unit, by]) => ({ unit, by })),
    units: planUnits(input, line),
    manual_steps: manualSteps,
    ...(converge ? { converge } : {}),
    ...(lockdown ? { lockdown: await lockdownPlan(input, lockdown, line) } : {}),
    ...(input.recover ? { recover: input.recover } : {}),
    ...(rollback
      ? {
          rollback: rollbackPreview({
            graph: rollback.graph,
            walkOrder: planWaves(plan).flat(),
            optional: optionalUnits(config),
            floor: (id) => config.units[id]?.teardown_skip === true || rollback.preventDestroy.has(id),
          }),
        }
      : {}),
  };
}

/** Each unit of each wave with its command line and its named hooks (a hook's own applies with theirs). */
function planUnits(input: WalkPlanInput, line: Line): PlannedUnit[] {
  const { command, config } = input;
  const tfCommand = tfCommandFor(command);
  const unitArgs = (unit: UnitId): readonly string[] =>
    (command === 'bootstrap' ? config.units[unit]?.apply_args : config.units[unit]?.teardown_args) ?? [];
  return planWaves(input.plan).flatMap((ids, wave) =>
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
}

async function checkSteps(
  steps: readonly ManualStep[],
  runCheck: NonNullable<WalkPlanInput['manualSteps']>['runCheck'],
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
  const waits =
    input.convergeWaits?.({
      unitStatus: (unit) => (plan.scope.has(unit) ? 'completed' : undefined),
      partial: plan.scope.size < input.graphSize,
    }) ?? [];
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

/** Lockdown (bootstrap) or unlock (teardown): the steps the lockdown run would take, each with its command line. */
async function lockdownPlan(
  input: WalkPlanInput,
  lockdown: NonNullable<PlatctlConfig['lockdown']>,
  line: Line,
): Promise<PlannedLockdown> {
  const { direction } = LOCKDOWN_PHASE[input.command];
  const partial = input.plan.scope.size < input.graphSize;
  const steps = (await planLockdown(lockdown, direction)).map((step) => ({
    id: step.id,
    unit: step.unit,
    // Lockdown and unlock steps always apply, with the unit's apply_args first.
    command: line(step.unit, 'apply', [...(input.config.units[step.unit]?.apply_args ?? []), ...step.args]),
  }));
  return {
    direction,
    ...(partial && !input.lockdownFlag
      ? { skipped: `this ${input.command} covers only part of the units; --lockdown runs it anyway` }
      : {}),
    steps,
  };
}

/** `lockdown --dry-run`: each step in the order the run takes them, with its exact terragrunt command line. */
export interface LockdownPlanView {
  readonly direction: 'lock' | 'unlock';
  readonly retry: NonNullable<PlatctlConfig['lockdown']>['retry'] | null;
  readonly steps: readonly {
    readonly index: number;
    readonly id: string;
    readonly unit: UnitId;
    readonly command: string;
  }[];
}

export async function buildLockdownPlan(input: {
  readonly config: Pick<PlatctlConfig, 'units'>;
  readonly lockdown: NonNullable<PlatctlConfig['lockdown']>;
  readonly direction: 'lock' | 'unlock';
  /** The terragrunt command line of an apply in `unit` with these Terraform arguments. */
  readonly commandLine: (unit: UnitId, tfArgs: readonly string[]) => readonly string[];
}): Promise<LockdownPlanView> {
  const { config, lockdown, direction } = input;
  const steps = (await planLockdown(lockdown, direction)).map((step, index) => ({
    index,
    id: step.id,
    unit: step.unit,
    command: formatCommandLine(
      input.commandLine(step.unit, [...(config.units[step.unit]?.apply_args ?? []), ...step.args]),
    ),
  }));
  return { direction, retry: lockdown.retry ?? null, steps };
}
