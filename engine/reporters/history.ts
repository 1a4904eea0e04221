/**
 * `platctl history`'s table: one line per past run of the shared state (docs/state.md), newest first, in aligned
 * columns: run, verb, who, when, how long (in whole seconds, minutes or hours), result, environments.
 */
import type { DamagedRun, ListedRun, RunSummary } from '../shared-state.js';

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

/**
 * `platctl history`'s output for the runs listed: one JSON object (`json`), or the table, with what was rebuilt or
 * damaged said first on stderr (a damaged run is never hidden behind "no runs recorded"). `failed`: a run is damaged.
 * `where`: the bucket's runs folder and the project root, named when there is no run.
 */
export function historyOutput(
  listed: { readonly runs: readonly ListedRun[]; readonly damaged: readonly DamagedRun[] },
  json: boolean,
  where: { readonly runs: string; readonly root: string },
): { readonly stdout: string; readonly stderr: string; readonly failed: boolean } {
  const { runs, damaged } = listed;
  const failed = damaged.length > 0;
  if (json) return { stdout: `${JSON.stringify({ runs, ...(failed ? { damaged } : {}) })}\n`, stderr: '', failed };
  const stderr =
    runs
      .flatMap((run) => (run.rebuilt === undefined ? [] : [`platctl: warning: run ${run.run_id}: ${run.rebuilt}\n`]))
      .join('') + damaged.map((run) => `platctl: ${run.message}\n  hint: ${run.hint}\n`).join('');
  if (runs.length > 0) return { stdout: renderHistory(runs), stderr, failed };
  return { stdout: failed ? '' : `no runs recorded in ${where.runs} (root ${where.root})\n`, stderr, failed };
}
