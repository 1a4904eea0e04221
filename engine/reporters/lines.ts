/**
 * What every plain line (output that is not a live terminal: CI, cron, `| tee`) shares, whichever verb prints it:
 * the timestamp prefix, child text without colour or cursor codes, and the heartbeat line that says what is still
 * running while nothing else is printed. The walk's plain reporter, lockdown and `down`/`up` all use these.
 */
import { Writable } from 'node:stream';
import { formatDuration } from '../logs.js';
import type { WalkEvent } from '../events.js';
import { stripAnsi } from '../redact.js';
import type { Paint } from './paint.js';

/** How often a non-terminal is told what is still running, unless configured (PLATCTL_PROGRESS_INTERVAL). */
export const DEFAULT_HEARTBEAT_MS = 30_000;

/** `HH:MM:SS` (UTC, like the state file's instants): the prefix of every plain line. */
export function lineStamp(at: string | number): string {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? '--:--:--' : date.toISOString().slice(11, 19);
}

/**
 * Text that came from a child (terragrunt, OpenTofu, a hook) as a plain line may show it: no colour or cursor
 * escapes, no other control characters (a carriage return would overwrite the line). Log files keep what they get.
 */
export function plainText(text: string): string {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  return stripAnsi(text).replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}

/**
 * A stream that writes each line it is given to `out` with the timestamp of the moment it is written: for output
 * that is rendered as lines of text rather than from timed events (`down`/`up`). Writes pass through at once.
 */
export function stampedStream(out: NodeJS.WritableStream, now: () => number): Writable {
  let atLineStart = true;
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      const text = String(chunk);
      let stamped = '';
      for (const part of text.split(/(?<=\n)/)) {
        if (part === '') continue;
        stamped += atLineStart ? `${lineStamp(now())} ${part}` : part;
        atLineStart = part.endsWith('\n');
      }
      out.write(stamped);
      done();
    },
  });
}

export interface HeartbeatOptions {
  /** Interval between heartbeat lines (a run shorter than it prints none). */
  readonly everyMs: number;
  readonly now: () => number;
}

/** Activities shown in one heartbeat line before "and N more". */
const SHOWN = 6;

/**
 * The heartbeat of a non-terminal: while anything runs, every `everyMs` one line says what is running and for how
 * long (`12:00:30 still running: platform/eks 4m30s, platform/vpc 1m02s`), so a log that has been silent for a long
 * unit or wait still shows the run is alive. The timer never keeps the process alive and stops when nothing runs.
 */
export class Heartbeat {
  readonly #write: (line: string) => void;
  readonly #options: HeartbeatOptions;
  readonly #running = new Map<string, { readonly label: string; readonly since: number }>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(write: (line: string) => void, options: HeartbeatOptions) {
    this.#write = write;
    this.#options = options;
  }

  /** `key` started (or started again) at `since` (ms); `label` says what it is. */
  begin(key: string, label: string, since: number = this.#options.now()): void {
    this.#running.set(key, { label, since });
    if (this.#timer === undefined && this.#options.everyMs > 0) {
      this.#timer = setInterval(() => this.#beat(), this.#options.everyMs);
      this.#timer.unref();
    }
  }

  end(key: string): void {
    this.#running.delete(key);
    if (this.#running.size === 0) this.#stop();
  }

  /** Ends every key that starts with `prefix`. */
  endAll(prefix = ''): void {
    for (const key of [...this.#running.keys()]) if (key.startsWith(prefix)) this.#running.delete(key);
    if (this.#running.size === 0) this.#stop();
  }

  close(): void {
    this.#running.clear();
    this.#stop();
  }

  #stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #beat(): void {
    const now = this.#options.now();
    const items = [...this.#running.values()].sort((a, b) => a.since - b.since);
    if (items.length === 0) return;
    const shown = items.slice(0, SHOWN).map((item) => `${item.label} ${formatDuration(Math.max(0, now - item.since))}`);
    const more = items.length > SHOWN ? `, and ${items.length - SHOWN} more` : '';
    this.#write(`${lineStamp(now)} still running: ${shown.join(', ')}${more}\n`);
  }
}

type ConvergeEvent = Extract<
  WalkEvent,
  { type: 'converge-wait-started' | 'converge-wait-progress' | 'converge-wait-finished' }
>;

/**
 * A convergence wait's line (plain and live output alike): what it waits for, what is still not ready and for how
 * long (each object with its conditions on a line of its own), how it ended.
 */
export function convergeLine(event: ConvergeEvent, p: Paint): string {
  const more = (details: readonly string[] | undefined): string =>
    (details ?? []).map((line) => `\n           ${plainText(line)}`).join('');
  switch (event.type) {
    case 'converge-wait-started':
      return `${p.cyan('wait   ')} ${event.wait}: ${event.what} (up to ${formatDuration(event.timeout_ms)})`;
    case 'converge-wait-progress':
      return (
        `${p.cyan('waiting')} ${event.wait} ${formatDuration(event.waited_ms)} of ${formatDuration(event.timeout_ms)}: ` +
        `${plainText(event.message)}${more(event.details)}`
      );
    case 'converge-wait-finished': {
      const why = event.message ? `: ${plainText(event.message)}` : '';
      switch (event.result) {
        case 'passed':
          return `${p.green('ready  ')} ${event.wait} ${formatDuration(event.waited_ms)}`;
        case 'skipped':
          return `${p.yellow('skipped')} wait ${event.wait}${why}`;
        case 'interrupted':
          return `${p.yellow('stopped')} wait ${event.wait} (interrupted)`;
        case 'failed':
          return `${p.red('FAILED ')} wait ${event.wait}${why}${more(event.details)}`;
      }
    }
  }
}
