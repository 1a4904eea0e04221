/**
 * `platctl validate`'s renderer: while the checks run, its {@link ValidateReporter} (the still-running lines of a
 * non-terminal); at the end a table for people (check, target, result, time, message, with details and hints
 * underneath), a one-line verdict, the versioned JSON document for machines; and the `--dry-run` plan. Colour comes
 * from the one {@link Paint} every reporter uses, decided by the CLI.
 */
import type { CheckPhase, CheckResultJson, CheckStatus, ValidateReport } from '../check-report.js';
import { UNHEALTHY, checkResultJson } from '../check-report.js';
import type { Reporter, RunEvent } from '../events.js';
import { isCheckEvent } from '../events.js';
import type { HeartbeatOptions } from './lines.js';
import { Heartbeat } from './lines.js';
import type { Paint } from './paint.js';

/** Still-running lines: where they go (stderr: stdout is the table or the `--json` document) and how often. */
export interface ValidateHeartbeat {
  readonly out: NodeJS.WritableStream;
  readonly options: HeartbeatOptions;
}

/**
 * validate's reporter while its checks run. With `heartbeat` (a non-terminal: cron, CI), every interval one line says
 * which checks are still running and for how long (`12:00:30 still running: iam/credentials:platform 30.0s`), so a
 * run waiting on a hung endpoint still shows it is alive; the report itself is printed once, at the end. Without it
 * (a live terminal, whose run is short and ends in the table; `--json`, whose stdout is one document) it prints
 * nothing. Other verbs' events are their reporters' to render.
 */
export class ValidateReporter implements Reporter {
  readonly #beat: Heartbeat | undefined;

  constructor(heartbeat?: ValidateHeartbeat) {
    this.#beat = heartbeat && new Heartbeat((line) => heartbeat.out.write(line), heartbeat.options);
  }

  event(event: RunEvent): void {
    if (!this.#beat || !isCheckEvent(event)) return;
    if (event.type === 'check-started') this.#beat.begin(event.id, event.id, Date.parse(event.at));
    else this.#beat.end(event.id);
  }

  close(): void {
    this.#beat?.close();
  }
}

/** What the plan shows of a planned check (validate/plan.ts `PlannedCheck` has it and more). */
export interface PlannedCheckRow {
  readonly id: string;
  readonly check: string;
  readonly target: string;
  readonly phase: CheckPhase;
  /** Ids of checks that must pass first. */
  readonly requires: readonly string[];
  readonly timeoutMs: number;
}

/** The `--json` document (version 1). */
export interface ValidateJson {
  readonly version: 1;
  readonly healthy: boolean;
  readonly duration_ms: number;
  readonly checks: readonly CheckResultJson[];
}

export function toJson(report: ValidateReport): ValidateJson {
  return {
    version: 1,
    healthy: report.healthy,
    duration_ms: Math.round(report.durationMs),
    checks: report.checks.map(checkResultJson),
  };
}

const LABEL: Record<CheckStatus, string> = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP', error: 'ERROR' };
const COLOUR: Record<CheckStatus, keyof Paint> = { pass: 'green', fail: 'red', skip: 'dim', error: 'yellow' };

/** `12ms`, `1.4s`. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`;
}

export interface RenderOptions {
  readonly paint: Paint;
  /** True when `paint` colours: a coloured line is never cut (the cut could split an escape code). */
  readonly color: boolean;
  /** Terminal width for truncating messages; no truncation when absent. */
  readonly width?: number;
}

/** The human table, one row per check, details and hints indented under failing rows. */
export function renderTable(report: ValidateReport, options: RenderOptions): string {
  const rows = report.checks.map((c) => [c.check, c.target, LABEL[c.status], formatDuration(c.durationMs), c.message]);
  const header = ['CHECK', 'TARGET', 'RESULT', 'TIME', 'MESSAGE'];
  const pad = padder(header, rows);
  const lines = [header.map((h, i) => (i === header.length - 1 ? h : pad(h, i))).join('  ')];
  report.checks.forEach((check, index) => {
    const row = rows[index] ?? [];
    const cells = row.map((cell, i) => {
      if (i === row.length - 1) return cell;
      const padded = pad(cell, i);
      return i === 2 ? options.paint[COLOUR[check.status]](padded) : padded;
    });
    let line = cells.join('  ');
    if (options.width !== undefined && !options.color && line.length > options.width && options.width > 40) {
      line = `${line.slice(0, options.width - 1)}…`;
    }
    lines.push(line);
    const indent = ' '.repeat(4);
    if (UNHEALTHY.has(check.status)) {
      for (const detail of check.details ?? []) lines.push(`${indent}${detail}`);
      if (check.hint) lines.push(`${indent}-> ${check.hint}`);
    }
  });
  return `${lines.join('\n')}\n`;
}

/** Pads cell `i` of a row to its column's width, the widest of the header and every row. */
function padder(header: readonly string[], rows: readonly (readonly string[])[]): (text: string, i: number) => string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return (text, i) => text.padEnd(widths[i] ?? 0);
}

/** The `validate --dry-run --json` document: the planned checks, nothing called. */
export interface ValidatePlanJson {
  readonly version: 1;
  readonly checks: readonly {
    readonly id: string;
    readonly check: string;
    readonly target: string;
    readonly phase: string;
    readonly requires: readonly string[];
    readonly timeout_ms: number;
  }[];
}

export function planToJson(checks: readonly PlannedCheckRow[]): ValidatePlanJson {
  return {
    version: 1,
    checks: checks.map((c) => ({
      id: c.id,
      check: c.check,
      target: c.target,
      phase: c.phase,
      requires: c.requires,
      timeout_ms: c.timeoutMs,
    })),
  };
}

/**
 * `validate --dry-run`: every check the run would make, in order, with what it waits for. A unit's row names the
 * check it gets (`unit/eks_cluster`, or `unit/state` when no `validate.checkers` pattern matches it).
 */
export function renderPlan(checks: readonly PlannedCheckRow[]): string {
  const rows = checks.map((c) => [c.check, c.target, c.phase, formatDuration(c.timeoutMs), c.requires.join(', ')]);
  const header = ['CHECK', 'TARGET', 'PHASE', 'TIMEOUT', 'AFTER'];
  const pad = padder(header, rows);
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : pad(cell, i)))
      .join('  ')
      .trimEnd();
  const units = checks.filter((c) => c.phase === 'units').length;
  return `${[line(header), ...rows.map(line)].join('\n')}\n${checks.length} checks planned (${units} per unit); nothing was called (--dry-run)\n`;
}

/** One line: healthy or not, with counts. */
export function renderVerdict(report: ValidateReport, options: RenderOptions): string {
  const count = (status: CheckStatus) => report.checks.filter((c) => c.status === status).length;
  const total = report.checks.length;
  const time = formatDuration(report.durationMs);
  if (report.healthy) {
    const skipped = count('skip');
    const text = `healthy: ${count('pass')} of ${total} checks passed${skipped ? `, ${skipped} not applicable` : ''} (${time})`;
    return `${options.paint.green(text)}\n`;
  }
  const parts = [
    count('fail') ? `${count('fail')} failed` : undefined,
    count('error') ? `${count('error')} could not be checked` : undefined,
    count('skip') ? `${count('skip')} skipped` : undefined,
    `${count('pass')} passed`,
  ].filter((p): p is string => p !== undefined);
  const text = `UNHEALTHY: ${parts.join(', ')} of ${total} checks (${time})`;
  return `${options.paint.red(text)}\n`;
}
