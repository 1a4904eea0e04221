/**
 * The dry runs as text: `bootstrap --dry-run` and `teardown --dry-run` (the plan of engine/walk-plan.ts, in the phase
 * order of engine/phases.ts, then the rollback preview of engine/rollback.ts) and `lockdown --dry-run`.
 */
import { formatCommandLine, formatDuration } from '../logs.js';
import type { RunPhaseName } from '../phases.js';
import { LOCKDOWN_PHASE, RUN_PHASE_ORDER } from '../phases.js';
import type {
  LockdownPlanView,
  PlannedConvergeWait,
  PlannedLockdown,
  PlannedManualStep,
  WalkPlanView,
} from '../walk-plan.js';
import type { ConfirmRequest } from '../run.js';
import type { Paint } from './paint.js';

/** What each recovery does when it is on, for the dry run. */
const RECOVERY_EFFECT: Readonly<Record<string, string>> = {
  'helm-pending':
    "a unit failing on a Helm release stuck pending-* gets that revision's Secret deleted and is applied once more",
};

/** The plan as text, in the order the run does things. */
export function renderWalkPlan(view: WalkPlanView, paint: Paint): string {
  const count = view.waves.reduce((n, w) => n + w.length, 0);
  const order = view.command === 'teardown' ? ' (destroy order: dependents first)' : '';
  const out = [`${paint.bold(`${view.command} plan`)}: ${count} units in ${view.waves.length} waves${order}`];
  const lockdownAt = (phase: RunPhaseName, when: string): string[] =>
    view.lockdown && LOCKDOWN_PHASE[view.command].phase === phase ? renderLockdown(view.lockdown, when) : [];
  const phases: Record<RunPhaseName, () => string[]> = {
    beforeRun: () => renderManualSteps(view.manual_steps, paint),
    beforeWalk: () => lockdownAt('beforeWalk', 'before the units'),
    walk: () => renderWalk(view, paint),
    converge: () => (view.converge ? renderConverge(view.converge) : []),
    afterWalk: () => lockdownAt('afterWalk', 'after every unit completed'),
  };
  for (const phase of RUN_PHASE_ORDER) out.push(...phases[phase]());
  for (const [name, state] of Object.entries(view.recover ?? {})) {
    out.push(
      state === 'on'
        ? `recovery ${name}: on (${RECOVERY_EFFECT[name] ?? 'acts after a failed apply'})`
        : `recovery ${name}: off (a failure it recognises says what to do; recover: [${name}] or --recover ${name} lets platctl do it)`,
    );
  }
  return `${out.join('\n')}\n${view.rollback ? renderRollbackPreview(view.rollback) : ''}`;
}

function renderManualSteps(steps: readonly PlannedManualStep[], paint: Paint): string[] {
  if (steps.length === 0) return [];
  const out = [`manual steps (checked before anything runs):`];
  for (const step of steps) {
    const mark = {
      passed: paint.green('done    '),
      'not-done': paint.red('NOT DONE'),
      'cannot-check': paint.red('CANNOT CHECK'),
      confirm: paint.yellow('confirm '),
    }[step.status];
    // An argument list as the shell would show it; an SSM check as hooks/manual-steps.ts `formatCheck` words it.
    const shown =
      step.check &&
      (Array.isArray(step.check) ? formatCommandLine(step.check) : `ssm_parameter ${step.check.ssm_parameter}`);
    const check = step.check ? ` (check ${shown}${step.detail ? `: ${step.detail}` : ''})` : '';
    out.push(`  ${mark} ${step.id}: ${step.description}${step.check ? check : ` (${step.detail ?? ''})`}`);
  }
  return out;
}

/** Each wave, each unit's command line between its hooks; then the floor and what exclude blocks leave out. */
function renderWalk(view: WalkPlanView, paint: Paint): string[] {
  const out: string[] = [];
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
  return out;
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

/** The dry run's rollback lines: per unit, what its failed apply would destroy, or the rule that holds. */
function renderRollbackPreview(preview: NonNullable<WalkPlanView['rollback']>): string {
  const lines = [
    'rollback on failure (at most: units that stood before the run, found by the probe, are spared):',
    ...preview.map(({ unit, destroys, rule }) =>
      rule !== undefined
        ? `  if ${unit} fails: nothing destroyed (${rule})`
        : `  if ${unit} fails: destroy ${destroys.join(', ')}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** `lockdown --dry-run` as text: a title, then each step with its command line. */
export function renderLockdownPlan(view: LockdownPlanView, paint: Paint): string {
  const title = `${paint.bold(view.direction === 'lock' ? 'lockdown plan' : 'unlock plan')}: ${view.steps.length} steps\n`;
  return (
    title + view.steps.map((step) => `${step.index + 1}. ${step.id} (${step.unit})\n   ${step.command}\n`).join('')
  );
}

/** A dry run's output: its plan as one JSON line under `--json`, else as people read it. */
export function renderDryRun(
  view:
    | { readonly kind: 'walk'; readonly plan: WalkPlanView }
    | { readonly kind: 'lockdown'; readonly plan: LockdownPlanView },
  json: boolean,
  paint: Paint,
): string {
  if (json) return `${JSON.stringify(view.plan)}\n`;
  return view.kind === 'walk' ? renderWalkPlan(view.plan, paint) : renderLockdownPlan(view.plan, paint);
}

/**
 * Teardown's question after {@link renderTeardownConfirm}: asked only when something would be destroyed, and only
 * `yes` confirms (a destroy is not something a stray Enter or `y` should start).
 */
export const TEARDOWN_CONFIRM = {
  /** False when there is nothing to destroy: nothing to ask. */
  needed: (request: ConfirmRequest): boolean => request.toRun.length > 0,
  question: 'Type "yes" to destroy: ',
  /** True when `answer` (undefined: the prompt was closed or Ctrl-C) confirms. */
  confirmed: (answer: string | undefined): boolean => answer?.trim() === 'yes',
} as const;

/** Units listed by name in teardown's question before "and N more". */
const LISTED = 15;

/** What a teardown asks about before it destroys: the units, dependents first, and what it spares. */
export function renderTeardownConfirm(request: ConfirmRequest, paint: Paint): string {
  const listed = request.toRun.slice(0, LISTED).map((id) => `  - ${id}\n`);
  const more = request.toRun.length > LISTED ? [`  … and ${request.toRun.length - LISTED} more\n`] : [];
  const what = request.resuming ? `Resuming teardown ${request.resuming}: ` : '';
  return (
    `${what}${paint.red(paint.bold(`this destroys ${request.toRun.length} unit${request.toRun.length === 1 ? '' : 's'}`))} in ${request.envs.join(', ') || '(none)'}, dependents first:\n` +
    `${listed.join('')}${more.join('')}` +
    (request.kept.length > 0 ? `Kept (teardown floor, never destroyed): ${request.kept.join(', ')}\n` : '') +
    (request.excluded.length > 0
      ? `Excluded (a Terragrunt exclude block, never destroyed): ${request.excluded.join(', ')}\n`
      : '')
  );
}
