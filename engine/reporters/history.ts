/**
 * `platctl history`'s table: one line per past run of the shared state (docs/state.md), newest first, in aligned
 * columns: run, verb, who, when, how long (in whole seconds, minutes or hours), result, environments.
 */
import type { RunSummary } from '../shared-state.js';

/** One line per run, aligned columns. */
export function renderHistory(runs: readonly RunSummary[]): string {
  const rows = [
    ['RUN', 'VERB', 'BY', 'STARTED', 'DURATION', 'RESULT', 'ENVIRONMENTS'],
    ...runs.map((run) => [
      run.run_id,
      run.command,
      `${run.by.user}@${run.by.host}`,
      run.started_at.replace(/\.\d+Z$/, 'Z'),
      run.duration_ms === undefined ? '-' : formatDuration(run.duration_ms),
      run.status + (run.resumes > 0 ? ` (resumed ${run.resumes}x)` : ''),
      run.envs.join(','),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows
    .map(
      (row) =>
        `${row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
