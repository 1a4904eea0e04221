/**
 * The end-of-run summary and `platctl status`: what failed and why (its last output lines and log path), what was
 * skipped and because of which unit, what was kept, the counts, and how to resume. Terragrunt's "Hit multiple
 * errors" names no unit (#2170, #681); this names every one.
 */
import type { StatusCounts } from '../events.js';
import { emptyCounts } from '../events.js';
import type { UnitId } from '../graph.js';
import { compareIds } from '../graph.js';
import { formatDuration } from '../logs.js';
import type { RunState, UnitState } from '../state.js';
import type { UnitStatus } from '../unit-status.js';
import type { Paint } from './paint.js';
import { pad, paintStatus } from './paint.js';

export function countStatuses(state: Readonly<RunState>): StatusCounts {
  const counts = emptyCounts();
  for (const unit of Object.values(state.units)) counts[unit.status] += 1;
  return counts;
}

const ORDER: readonly UnitStatus[] = [
  'completed',
  'failed',
  'skipped',
  'interrupted',
  'running',
  'pending',
  'excluded',
];

export function formatCounts(counts: StatusCounts, paint: Paint): string {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const parts = ORDER.filter((s) => counts[s] > 0).map((s) => paintStatus(paint, s, `${counts[s]} ${s}`));
  return `${total} unit${total === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

export interface SummaryInput {
  readonly state: Readonly<RunState>;
  /** Last output lines of failed units. */
  readonly lastLines: ReadonlyMap<UnitId, readonly string[]>;
  readonly paint: Paint;
  /** Printed as the last line when the run did not complete. */
  readonly resumeCommand?: string;
  readonly durationMs?: number;
  /** Extra lines (problems outside units). */
  readonly problems?: readonly string[];
}

/** The summary table printed after every run. */
export function renderSummary(input: SummaryInput): string {
  const { state, paint } = input;
  const units = Object.entries(state.units).sort((a, b) => compareIds(a[0], b[0]));
  const width = Math.min(48, Math.max(8, ...units.map(([id]) => id.length)));
  const out: string[] = [''];
  const took = input.durationMs === undefined ? '' : ` in ${formatDuration(input.durationMs)}`;
  const verdict =
    state.status === 'completed'
      ? paint.green('completed')
      : state.status === 'failed'
        ? paint.red('failed')
        : paint.yellow(state.status);
  out.push(`${paint.bold(`${state.command} ${state.run_id}`)}: ${verdict}${took}`);
  const phase = phaseHeadline(state, paint);
  if (phase.length > 0) out.push('', ...phase);

  for (const [id, unit] of units.filter(([, u]) => u.status === 'failed')) {
    out.push('');
    const exit = unit.exit_code === undefined ? '' : `, exit code ${unit.exit_code}`;
    const took = unit.duration_ms === undefined ? '' : `, ${formatDuration(unit.duration_ms)}`;
    const optional = unit.optional === true ? ', optional' : '';
    out.push(
      `${paintStatus(paint, 'failed', 'FAILED ')} ${paint.bold(id)} (${unit.reason ?? 'failed'}${exit}${took}${optional})`,
    );
    if (unit.error) out.push(`        ${unit.error}`);
    for (const line of input.lastLines.get(id) ?? []) out.push(paint.dim(`        │ ${line}`));
    if (unit.log) out.push(`        log: ${unit.log}`);
  }
  const skipped = units.filter(([, u]) => u.status === 'skipped');
  const interrupted = units.filter(([, u]) => u.status === 'interrupted');
  const kept = units.filter(([, u]) => u.kept === true);
  const excluded = units.filter(([, u]) => u.status === 'excluded');
  if (skipped.length + interrupted.length + kept.length + excluded.length > 0) out.push('');
  for (const [id, unit] of skipped)
    out.push(`${paintStatus(paint, 'skipped', 'SKIPPED')} ${pad(id, width)}  ${skipCause(unit)}`);
  for (const [id, unit] of interrupted) {
    out.push(`${paintStatus(paint, 'interrupted', 'STOPPED')} ${pad(id, width)}  interrupted; log: ${unit.log ?? '-'}`);
  }
  for (const [id] of kept) out.push(`${paint.dim('KEPT   ')} ${pad(id, width)}  teardown floor (never destroyed)`);
  for (const [id, unit] of excluded) {
    out.push(`${paintStatus(paint, 'excluded', 'EXCLUDED')} ${pad(id, width)}  ${exclusionCause(state, unit)}`);
  }
  for (const problem of input.problems ?? []) out.push(`${paint.yellow('warning:')} ${problem}`);
  out.push(...optionalAndRollback(state, paint));
  out.push('');
  out.push(formatCounts(countStatuses(state), paint));
  if (state.status !== 'completed' && input.resumeCommand !== undefined) {
    out.push(`Resume with: ${paint.bold(input.resumeCommand)}`);
  }
  return `${out.join('\n')}\n`;
}

/**
 * A failed lockdown (after a bootstrap) or unlock (before a teardown) as the run's headline: which step, why, its log,
 * what it leaves (units applied, the platform not locked down), and how to go on. Empty when the phase did not fail.
 */
export function phaseHeadline(state: Readonly<RunState>, paint: Paint): string[] {
  return [...convergeHeadline(state, paint), ...lockdownHeadline(state, paint)];
}

/**
 * A failed convergence as the run's headline: which wait, after how long, every object not ready with its
 * conditions and messages, and what it leaves (the units applied and standing, lockdown not run yet).
 */
function convergeHeadline(state: Readonly<RunState>, paint: Paint): string[] {
  const phase = state.converge;
  if (phase?.status !== 'failed') return [];
  const failed = Object.entries(phase.waits).find(([, wait]) => wait.status === 'failed');
  const [id, wait] = failed ?? ['?', undefined];
  const passed = Object.values(phase.waits).filter((w) => w.status === 'passed').length;
  return [
    `${paint.red('CONVERGENCE FAILED')} at wait ${paint.bold(id)}: ${wait?.error ?? 'no cause recorded'}`,
    ...(wait?.details ?? []).map((line) => `        ${line}`),
    `        the units are applied and stay (nothing is rolled back); lockdown has not run. Fix the cause, then ` +
      `platctl ${state.command} --resume waits again for what has not passed` +
      (passed > 0 ? ` (${passed} wait${passed === 1 ? '' : 's'} passed)` : ''),
  ];
}

function lockdownHeadline(state: Readonly<RunState>, paint: Paint): string[] {
  const phase = state.lockdown;
  if (phase?.status !== 'failed') return [];
  const failed = Object.entries(phase.steps).find(([, step]) => step.status === 'failed');
  const [id, step] = failed ?? ['?', undefined];
  const what = phase.direction === 'lock' ? 'LOCKDOWN' : 'UNLOCK';
  const attempts = step && step.attempts > 1 ? ` after ${step.attempts} attempts` : '';
  const lines = [
    `${paint.red(`${what} FAILED`)} at step ${paint.bold(id)}${attempts}: ${step?.error ?? 'no cause recorded'}`,
  ];
  if (step?.log) lines.push(`        log: ${step.log}`);
  lines.push(
    phase.direction === 'lock'
      ? `        the units are applied but the platform is NOT locked down: step ${id} and the ones after it are ` +
          `not in effect; platctl ${state.command} --resume continues at this step (or platctl lockdown)`
      : `        nothing was destroyed; fix the cause, then platctl ${state.command} --resume (or platctl lockdown ` +
          `--undo, then ${state.command})`,
  );
  return lines;
}

/** The optional units that failed, and what the rollback did (or the rule that held it). */
export function optionalAndRollback(state: Readonly<RunState>, paint: Paint): string[] {
  const out: string[] = [];
  const optional = Object.entries(state.units)
    .filter(([, u]) => u.status === 'failed' && u.optional === true)
    .map(([id]) => id)
    .sort(compareIds);
  if (optional.length > 0) {
    out.push(
      '',
      `${paint.yellow('Optional units failed:')} ${optional.join(', ')} (only their dependents were skipped)`,
    );
  }
  const rollback = state.rollback;
  if (rollback === undefined || rollback.status === 'armed') return out;
  out.push(
    '',
    `${rollback.status === 'completed' ? 'ROLLED BACK' : 'ROLLBACK'}: ${rollback.message ?? rollback.status}`,
  );
  for (const [id, unit] of Object.entries(rollback.units ?? {}).sort((a, b) => compareIds(a[0], b[0]))) {
    out.push(`        ${pad(id, 30)}  ${unit.status}${unit.error ? `: ${unit.error}` : ''}`);
  }
  for (const line of rollback.kept ?? []) out.push(`        ${line}`);
  return out;
}

/** Why an excluded unit was not run, in the words of the verb's Terraform command. */
function exclusionCause(state: Readonly<RunState>, unit: UnitState): string {
  const command = state.command === 'bootstrap' ? 'apply (treated as applied)' : 'destroy (not destroyed)';
  return unit.excluded_by === undefined
    ? `its exclude block leaves it out of ${command}`
    : `${unit.excluded_by}'s exclude block (exclude_dependencies) leaves it out of ${command}`;
}

function skipCause(unit: UnitState): string {
  const because = unit.skipped_because ?? '?';
  return unit.skip_reason === 'fail-fast'
    ? `not started: --fail-fast after ${because} failed`
    : `needs ${because}, which failed`;
}

/** `platctl status`: one row per unit. */
export function renderStatus(state: Readonly<RunState>, paint: Paint, options: { readonly live: boolean }): string {
  const units = Object.entries(state.units).sort((a, b) => compareIds(a[0], b[0]));
  const width = Math.min(48, Math.max(4, ...units.map(([id]) => id.length)));
  const lines: string[] = [];
  const resumes = state.resumes > 0 ? `, resumed ${state.resumes}×` : '';
  const ended = state.ended_at ? `, ended ${state.ended_at}` : '';
  const status = options.live ? 'running now' : state.status;
  lines.push(
    `${paint.bold(`${state.command} ${state.run_id}`)}: ${status} (started ${state.started_at}${ended}${resumes})`,
  );
  const phase = phaseHeadline(state, paint);
  if (phase.length > 0) lines.push('', ...phase);
  lines.push('');
  lines.push(paint.dim(`${pad('UNIT', width)}  ${pad('STATUS', 11)}  ${pad('DURATION', 8)}  DETAIL`));
  for (const [id, unit] of units) {
    const duration = unit.duration_ms === undefined ? '-' : formatDuration(unit.duration_ms);
    const detail =
      unit.status === 'failed'
        ? `${unit.error ?? ''}${unit.log ? `  (${unit.log})` : ''}`
        : unit.status === 'skipped'
          ? skipCause(unit)
          : unit.status === 'excluded'
            ? exclusionCause(state, unit)
            : unit.kept
              ? 'kept (teardown floor)'
              : unit.status === 'pending'
                ? ''
                : (unit.log ?? '');
    const word = unit.kept ? 'kept' : unit.rolled_back === true ? 'rolled back' : unit.status;
    lines.push(`${pad(id, width)}  ${pad(paintStatus(paint, unit.status, word), 11)}  ${pad(duration, 8)}  ${detail}`);
  }
  lines.push(...optionalAndRollback(state, paint));
  lines.push('');
  lines.push(formatCounts(countStatuses(state), paint));
  return `${lines.join('\n')}\n`;
}
