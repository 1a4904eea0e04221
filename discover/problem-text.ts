/**
 * Rendering discovery problems and configuration errors for people: `file:line:col: error: message [kind]`, the
 * details and hint indented under it, and a one-line summary. Output stays bounded however broken the repository
 * is: at most MAX_PER_KIND problems of a kind, MAX_DETAILS detail lines per problem and MAX_LINE characters per
 * line, then a count of what was left out. `--verbose` prints everything; `--json` carries the full list as data.
 */
import { formatConfigError, formatLocation } from '../config/errors.js';
import type { ConfigError } from '../config/errors.js';
import type { Problem } from './types.js';

// The one printer of a failure lives below every layer (config/explain.ts); named here too, where cli/ has read it.
export { explainOutcome } from '../config/explain.js';

/** Problems (or configuration errors) of one kind printed before the rest are counted. */
export const MAX_PER_KIND = 20;
/** Detail lines printed per problem (a cycle's edges, a parse error's further messages). */
export const MAX_DETAILS = 10;
/** Characters printed of one line. */
export const MAX_LINE = 300;

export interface ProblemFormat {
  /** Print every problem, every detail and whole lines. */
  readonly verbose?: boolean | undefined;
}

const count = (n: number): string => n.toLocaleString('en-US');

/** The line, cut at MAX_LINE characters with a note of how many more there are. */
function clip(line: string, options: ProblemFormat): string {
  if (options.verbose || line.length <= MAX_LINE) return line;
  return `${line.slice(0, MAX_LINE)}... (${count(line.length - MAX_LINE)} more characters; --verbose shows them)`;
}

export function formatProblem(problem: Problem, cwd: string, options: ProblemFormat = {}): string {
  const where = problem.location
    ? `${formatLocation(problem.location, cwd)}: `
    : problem.unit
      ? `${problem.unit}: `
      : '';
  const lines = [`${where}${problem.severity}: ${problem.message} [${problem.kind}]`];
  const details = problem.details ?? [];
  const shown = options.verbose ? details : details.slice(0, MAX_DETAILS);
  for (const detail of shown) lines.push(`  ${detail}`);
  if (shown.length < details.length) {
    lines.push(`  ... and ${count(details.length - shown.length)} more lines (--verbose shows them)`);
  }
  if (problem.hint) lines.push(`  hint: ${problem.hint}`);
  return lines.map((line) => clip(line, options)).join('\n');
}

/**
 * Errors first, then warnings; within each, by kind in order of first appearance; at most MAX_PER_KIND of a kind,
 * then a count. Only the problems printed are formatted, so a lazily computed hint is only computed for them.
 */
export function formatProblems(problems: readonly Problem[], cwd: string, options: ProblemFormat = {}): string {
  const out: string[] = [];
  for (const severity of ['error', 'warning'] as const) {
    const byKind = new Map<string, Problem[]>();
    for (const p of problems) {
      if (p.severity !== severity) continue;
      const list = byKind.get(p.kind) ?? [];
      list.push(p);
      byKind.set(p.kind, list);
    }
    for (const [kind, list] of byKind) {
      const shown = options.verbose ? list : list.slice(0, MAX_PER_KIND);
      for (const p of shown) out.push(formatProblem(p, cwd, options));
      if (shown.length < list.length) {
        out.push(
          `... and ${count(list.length - shown.length)} more ${kind} ${severity}s (${count(list.length)} in all; --verbose or --json lists every one)`,
        );
      }
    }
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

export function summarizeProblems(problems: readonly Problem[]): string {
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.length - errors;
  const plural = (n: number, word: string): string => `${count(n)} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(errors, 'error')}, ${plural(warnings, 'warning')}`;
}

/**
 * Configuration errors in file order, at most MAX_PER_KIND of each reason (30,000 misspelt keys would otherwise be
 * 60,000 lines), then a count per reason left out; ends with a newline.
 */
export function formatConfigErrorList(
  errors: readonly ConfigError[],
  cwd: string,
  options: ProblemFormat = {},
): string {
  const shownPerReason = new Map<string, number>();
  const hidden = new Map<string, number>();
  let out = '';
  for (const error of errors) {
    const shown = shownPerReason.get(error.reason) ?? 0;
    if (!options.verbose && shown >= MAX_PER_KIND) {
      hidden.set(error.reason, (hidden.get(error.reason) ?? 0) + 1);
      continue;
    }
    shownPerReason.set(error.reason, shown + 1);
    out += `${formatConfigError(error, cwd)
      .split('\n')
      .map((line) => clip(line, options))
      .join('\n')}\n`;
  }
  for (const [reason, n] of hidden) {
    out += `... and ${count(n)} more ${reason} errors (${count(n + MAX_PER_KIND)} in all; --verbose or platctl config check --json lists every one)\n`;
  }
  return out;
}

/** The machine-readable form of a discovery that failed: every problem, hints included, whatever people were shown. */
export function discoveryFailedJson(problems: readonly Problem[]): string {
  return `${JSON.stringify({ type: 'discovery-failed', problems })}\n`;
}

/** Why the unit graph cannot be used, after its problems were printed: what is wrong, and what to do. */
export function unusableGraphMessage(problems: readonly Problem[]): string {
  return (
    `platctl: the unit graph is not usable: ${summarizeProblems(problems)}. Fix the errors above` +
    `${problems.some((p) => p.kind === 'unresolved-expression') ? ' (or pass --allow-unresolved for expressions that need a real run)' : ''}.\n`
  );
}
