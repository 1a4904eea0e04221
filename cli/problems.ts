/**
 * Rendering discovery problems for people: `file:line:col: error: message [kind]`, the details and hint indented
 * under it, at most 20 of a kind followed by a count, and a one-line summary.
 */
import { formatLocation } from '../config/errors.js';
import type { Problem } from '../discover/types.js';

export const MAX_PER_KIND = 20;

export function formatProblem(problem: Problem, cwd: string): string {
  const where = problem.location
    ? `${formatLocation(problem.location, cwd)}: `
    : problem.unit
      ? `${problem.unit}: `
      : '';
  const lines = [`${where}${problem.severity}: ${problem.message} [${problem.kind}]`];
  for (const detail of problem.details ?? []) lines.push(`  ${detail}`);
  if (problem.hint) lines.push(`  hint: ${problem.hint}`);
  return lines.join('\n');
}

/** Errors first, then warnings; within each, by kind in order of first appearance; capped per kind. */
export function formatProblems(problems: readonly Problem[], cwd: string): string {
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
      for (const p of list.slice(0, MAX_PER_KIND)) out.push(formatProblem(p, cwd));
      if (list.length > MAX_PER_KIND) {
        out.push(`... and ${list.length - MAX_PER_KIND} more ${kind} ${severity}s (${list.length} in all)`);
      }
    }
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

export function summarizeProblems(problems: readonly Problem[]): string {
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.length - errors;
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(errors, 'error')}, ${plural(warnings, 'warning')}`;
}
