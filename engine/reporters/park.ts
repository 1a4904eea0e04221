/**
 * What `down`/`up` show people: one line per step, a verdict per environment that says what is parked and what is
 * not, and the still-running lines of a non-terminal. On a non-terminal each line carries the timestamp prefix of
 * every plain line (lines.ts); on a live terminal it has none, as the walk's live view has none. `--json` prints the
 * events as they are (json.ts `JsonReporter`).
 */
import { PREFLIGHT, isParkEvent } from '../events.js';
import type { EnvOutcome, ParkEvent, ParkOp, Reporter, RunEvent } from '../events.js';
import type { HeartbeatOptions } from './lines.js';
import { Heartbeat } from './lines.js';
import type { Paint } from './paint.js';

/** `12s`, `3m05s`: a park step's duration, to the second (its waits are minutes long). */
export function formatStepDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/**
 * Renders down/up's events as lines for people on `out`. On a non-terminal `out` is a stamped stream (lines.ts
 * `stampedStream`), which gives each line the walk's timestamp prefix, and the lines the CLI writes between events too.
 */
export function parkLines(out: NodeJS.WritableStream, paint: Paint, op: ParkOp): (event: ParkEvent) => void {
  return (event) => {
    const text = parkText(event, paint, op);
    if (text !== '') out.write(text);
  };
}

/** The lines (each ending in a newline) an event shows people; empty for one that shows nothing. */
export function parkText(event: ParkEvent, paint: Paint, op: ParkOp): string {
  const pad = (name: string): string => name.padEnd(18);
  switch (event.type) {
    case 'env-started': {
      const eta = event.eta_ms === undefined ? '' : ` (about ${formatStepDuration(event.eta_ms)}, from the last run)`;
      const what = event.dry_run ? `${op} --dry-run` : event.resumed ? `${op} --resume` : op;
      return `${paint.bold(`${what} ${event.env}`)}${eta}\n`;
    }
    case 'step-planned':
      return `  ${pad(event.step)} ${event.title}\n` + event.touches.map((line) => `  ${pad('')}   ${line}\n`).join('');
    case 'step-started':
      return '';
    case 'step-skipped':
      return `  ${paint.dim(`- ${pad(event.step)} done in an earlier run${event.detail ? `: ${event.detail}` : ''}`)}\n`;
    case 'step-completed':
      return `  ${paint.green('✓')} ${pad(event.step)} ${event.detail} ${paint.dim(`(${formatStepDuration(event.duration_ms)})`)}\n`;
    case 'step-failed':
      return (
        `  ${paint.red('✗')} ${pad(event.step)} ${event.message}\n` +
        (event.hint ? `  ${pad('')}   hint: ${event.hint}\n` : '')
      );
    case 'env-finished':
      return parkVerdict(event.outcome, paint);
  }
}

/** How one environment ended, for people: what is parked (or brought back) and what is not. */
export function parkVerdict(o: EnvOutcome, paint: Paint): string {
  const hint = o.hint ? `  hint: ${o.hint}\n` : '';
  switch (o.status) {
    case 'completed':
      return `${paint.green(o.op === 'down' ? `${o.env}: parked, and verified through AWS` : `${o.env}: up and ready`)}\n`;
    case 'planned':
      return `${o.env}: dry run, nothing was changed\n`;
    case 'nothing-to-do':
      return `${o.env}: ${o.message ?? 'nothing to do'}\n`;
    case 'refused':
      return `${paint.red(`${o.env}: refused`)}: ${o.message ?? ''}; nothing was changed\n${hint}`;
    case 'failed':
    case 'interrupted':
    case 'fenced':
      return stoppedVerdict(o, paint, hint);
  }
}

function stoppedVerdict(o: EnvOutcome, paint: Paint, hint: string): string {
  if (o.status === 'interrupted' && o.failed_step === PREFLIGHT) {
    return `${paint.red(`${o.env}: ${o.op} ${o.message ?? 'interrupted'}`)}\n`;
  }
  const head =
    o.status === 'failed'
      ? `failed at step ${o.failed_step ?? '?'}`
      : o.status === 'fenced'
        ? `stopped: ${o.message ?? 'the environment lock was lost'}`
        : 'interrupted';
  const done = o.op === 'down' ? 'parked' : 'brought back';
  return (
    `${paint.red(`${o.env}: ${o.op} ${head}`)}${o.reason === 'auth' ? ' (credentials rejected: stopped at once)' : ''}\n` +
    `  ${done}: ${o.done_steps.join(', ') || 'nothing'}\n` +
    `  not ${done}: ${o.pending_steps.join(', ') || 'nothing'}\n` +
    (o.status === 'fenced' ? hint : '')
  );
}

/** Feeds `beat` from the events, then renders: a step runs from its start to its end (its waits included). */
export function parkHeartbeat(
  beat: Heartbeat,
  op: ParkOp,
  render: (event: ParkEvent) => void,
): (event: ParkEvent) => void {
  return (event) => {
    switch (event.type) {
      case 'step-started':
        beat.begin(
          `${event.env}\n${event.step}`,
          `${op} ${event.env}: ${event.step} (${event.title})`,
          Date.parse(event.at),
        );
        break;
      case 'step-completed':
      case 'step-failed':
      case 'step-skipped':
        beat.end(`${event.env}\n${event.step}`);
        break;
      case 'env-finished':
        beat.endAll(`${event.env}\n`);
        break;
      case 'env-started':
      case 'step-planned':
        break;
    }
    render(event);
  };
}

/** Still-running lines: where they go (they carry their own timestamp, so not through a stamped stream), how often. */
export interface ParkHeartbeat {
  readonly out: NodeJS.WritableStream;
  readonly options: HeartbeatOptions;
}

/**
 * down/up's reporter for people: {@link parkLines} on `out`, and on a non-terminal (with `heartbeat`) the
 * still-running lines of {@link parkHeartbeat}. A walk's events are the walk reporters' to render, validate's
 * validate.ts's.
 */
export class ParkReporter implements Reporter {
  readonly #render: (event: ParkEvent) => void;
  readonly #beat: Heartbeat | undefined;

  constructor(out: NodeJS.WritableStream, paint: Paint, op: ParkOp, heartbeat?: ParkHeartbeat) {
    const lines = parkLines(out, paint, op);
    this.#beat = heartbeat && new Heartbeat((line) => heartbeat.out.write(line), heartbeat.options);
    this.#render = this.#beat ? parkHeartbeat(this.#beat, op, lines) : lines;
  }

  event(event: RunEvent): void {
    if (isParkEvent(event)) this.#render(event);
  }

  close(): void {
    this.#beat?.close();
  }
}
