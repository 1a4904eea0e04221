/**
 * How a mutating run's end reads: what its events told about it (each failed unit's last lines, the run's duration),
 * the summary and the words after it for `bootstrap`/`teardown`, and the closing line of `platctl lockdown`. cli/
 * writes them to its streams and picks the exit code.
 */
import type { LockDirection, WalkEvent } from '../events.js';
import type { UnitId } from '../graph.js';
import type { PhaseResult } from '../phases.js';
import type { RunResult } from '../run.js';
import type { RunCommand } from '../unit-status.js';
import type { Paint } from './paint.js';
import { renderSummary } from './summary.js';

/** What the run's events told about it, for the summary: each failed unit's last lines and the run's duration. */
export class RunTrack {
  readonly failureLines = new Map<UnitId, readonly string[]>();
  durationMs: number | undefined;

  event(event: WalkEvent): void {
    if (event.type === 'unit-failed') this.failureLines.set(event.unit, event.last_lines.slice(-8));
    if (event.type === 'run-finished') this.durationMs = event.duration_ms;
  }
}

/** The words of a run's end, by where they go: `human` (stdout, or stderr under `--json`), then `stderr`. */
export interface OutcomeText {
  readonly human?: string;
  readonly stderr?: string;
}

/** A cancelled or finished run's words: the summary, and why a run that lost its shared lock stopped. */
export function renderRunEnd(
  result: Extract<RunResult, { type: 'cancelled' | 'finished' }>,
  context: {
    readonly command: RunCommand;
    readonly paint: Paint;
    readonly track: RunTrack;
    /** The exact command that continues the run. */
    readonly resumeCommand: string;
  },
): OutcomeText {
  const { command, paint, track, resumeCommand } = context;
  if (result.type === 'cancelled') return { stderr: `platctl: ${command} cancelled; nothing was changed\n` };
  const human = renderSummary({
    state: result.state,
    lastLines: track.failureLines,
    paint,
    resumeCommand,
    ...(track.durationMs === undefined ? {} : { durationMs: track.durationMs }),
    problems: result.problems,
  });
  if (result.fenced === undefined) return { human };
  return {
    human,
    stderr:
      `platctl: refused: ${result.fenced}; no unit was started after that, the running ones finished, and the ` +
      `local state has everything.\n  hint: once no other run holds the lock, continue with ${resumeCommand}\n`,
  };
}

/** `platctl lockdown [--undo]`'s closing words: how many steps completed, or which failed and why. */
export function renderLockdownEnd(
  result: PhaseResult,
  context: {
    readonly direction: LockDirection;
    readonly steps: number;
    readonly runId: string;
    readonly paint: Paint;
  },
): OutcomeText {
  if (!result.ok) {
    return { stderr: `platctl: ${result.message}\n${(result.details ?? []).map((d) => `  ${d}\n`).join('')}` };
  }
  const what = context.direction === 'lock' ? 'lockdown' : 'unlock';
  return { human: `${context.paint.green(`${what} completed`)} (${context.steps} steps, run ${context.runId})\n` };
}
