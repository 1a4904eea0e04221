/**
 * Per-unit log files: `.platctl-logs/<run_id>/<wave>_<unit id with / as __>.log`, and `.platctl-logs/latest`
 * pointing at the newest run. Each attempt appends a header (command, unit, start) and a footer (exit code,
 * duration), so a resumed unit keeps the output of its earlier attempts above the new one. Every line is redacted
 * and stripped of terminal escapes before it reaches the disk.
 */
import type { WriteStream } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { FsError } from './fs-errors.js';
import type { UnitId } from './graph.js';
import type { OutputStream, UnitOutput } from './executor.js';
import type { Redactor } from './redact.js';
import { stripAnsi } from './redact.js';

export const LOGS_DIR = '.platctl-logs';

/** How many trailing lines a log keeps in memory for the failure summary. */
const TAIL_LINES = 40;

/** The log file of a unit, relative to the repository root (posix separators: it goes into the state file). */
export function logRelPath(runId: string, wave: number, unit: UnitId): string {
  return `${LOGS_DIR}/${runId}/${wave}_${unit.replaceAll('/', '__')}.log`;
}

/**
 * Creates the run's log directory and points `latest` at it (atomically: a new link renamed over the old). Throws an
 * `FsError` naming the directory or link and the cause (read-only, full, no permission).
 */
export async function prepareRunLogs(root: string, runId: string): Promise<void> {
  const dir = join(root, LOGS_DIR);
  // One level at a time: a recursive mkdir reports a read-only parent as ENOENT, which would name the wrong cause.
  for (const path of [dir, join(dir, runId)]) {
    try {
      await mkdir(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new FsError('create the log directory', join(dir, runId), error);
      }
    }
  }
  const temp = join(dir, `.latest-${runId}`);
  try {
    await rm(temp, { force: true });
    await symlink(runId, temp);
    await rename(temp, join(dir, 'latest'));
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw new FsError('update the link', join(dir, 'latest'), error);
  }
}

/** A command line as a person would type it: arguments with spaces or quotes are single-quoted. */
export function formatCommandLine(argv: readonly string[]): string {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)).join(' ');
}

export interface LogHeader {
  readonly title: string;
  readonly unit: UnitId;
  readonly attempt: number;
  readonly startedAt: string;
  readonly commandLine: string;
  readonly cwd: string;
}

export interface LogFooter {
  readonly result: string;
  readonly exitCode?: number;
  readonly endedAt: string;
  readonly durationMs: number;
}

/** One attempt's writer into a unit's log file. */
export class UnitLog implements UnitOutput {
  readonly #stream: WriteStream;
  readonly #path: string;
  /** The first write error (disk full): later lines are dropped, and `close` reports it. */
  #error: unknown;
  readonly #redactor: Redactor;
  readonly #tail: string[] = [];
  /**
   * stderr's own tail. stdout and stderr arrive through two pipes, and on a loaded machine the end of stdout (tofu's
   * plan) can be read after stderr (where Terragrunt and tofu print the error), so "the last lines" of the two
   * interleaved would show the plan and hide the cause. The error is always the end of stderr.
   */
  readonly #stderrTail: string[] = [];
  #closed = false;

  private constructor(stream: WriteStream, path: string, redactor: Redactor) {
    this.#stream = stream;
    this.#path = path;
    this.#redactor = redactor;
    // A write error is kept for `close`, never thrown from an event: an unhandled 'error' would crash the run.
    stream.on('error', (error) => (this.#error ??= error));
  }

  /** Opens (appends to) `relPath` under `root` and writes the header. `redactor` must be this log's own. */
  static async open(root: string, relPath: string, header: LogHeader, redactor: Redactor): Promise<UnitLog> {
    const path = join(root, relPath);
    const stream = createWriteStream(path, { flags: 'a' });
    try {
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => resolve());
        stream.once('error', reject);
      });
    } catch (error) {
      throw new FsError('open', path, error);
    }
    const log = new UnitLog(stream, path, redactor);
    stream.write(
      [
        `# platctl ${header.title}: ${header.unit} (attempt ${header.attempt})`,
        `# started: ${header.startedAt}`,
        `# command: ${redactor.line(header.commandLine)}`,
        `# cwd:     ${header.cwd}`,
        '',
      ].join('\n'),
    );
    return log;
  }

  /** Starts a new part of the attempt (a hook's apply, then the unit's own) under its own header. */
  section(title: string, commandLine: readonly string[]): void {
    if (this.#closed) return;
    this.#stream.write(`# ---- ${title}\n# command: ${this.#redactor.line(formatCommandLine(commandLine))}\n`);
  }

  line(text: string, stream?: OutputStream): void {
    if (this.#closed) return;
    const clean = this.#redactor.line(stripAnsi(text).replace(/\r$/, ''));
    if (this.#error === undefined) this.#stream.write(`${clean}\n`);
    if (clean.trim() === '') return;
    for (const tail of stream === 'stderr' ? [this.#tail, this.#stderrTail] : [this.#tail]) {
      tail.push(clean);
      if (tail.length > TAIL_LINES) tail.shift();
    }
  }

  /** The tail that explains a failure: stderr's when the unit wrote to it (see #stderrTail), else everything's. */
  #failureTail(): readonly string[] {
    return this.#stderrTail.length > 0 ? this.#stderrTail : this.#tail;
  }

  /** The last non-empty lines written (redacted); of stderr, when the unit wrote any there. */
  lastLines(count: number): string[] {
    return this.#failureTail().slice(-count);
  }

  /**
   * The most telling line for a one-line error: the last one that mentions an error (Terraform prints
   * `Error: ...` followed by detail lines), else the last line; searched in stderr when the unit wrote any there.
   */
  errorLine(): string | undefined {
    const tail = this.#failureTail();
    for (let i = tail.length - 1; i >= 0; i -= 1) {
      const line = tail[i] ?? '';
      if (/\berror\b/i.test(line)) return line.replace(/^[\s│╷╵|]+/, '').trim();
    }
    return tail[tail.length - 1]?.trim();
  }

  /** Writes the footer and closes the file; throws an `FsError` when any of the log could not be written. */
  async close(footer: LogFooter): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const exit = footer.exitCode === undefined ? '' : ` (exit code ${footer.exitCode})`;
    if (this.#error === undefined) {
      this.#stream.write(
        [
          `# result:   ${footer.result}${exit}`,
          `# ended:    ${footer.endedAt}`,
          `# duration: ${formatDuration(footer.durationMs)}`,
          '',
        ].join('\n'),
      );
      // 'close' comes after 'error' (the end callback can come before it): then #error is known.
      await new Promise<void>((resolve) => {
        if (this.#stream.closed) resolve();
        this.#stream.once('close', () => resolve());
        this.#stream.end();
      });
    }
    if (this.#error !== undefined) {
      this.#stream.destroy();
      throw new FsError('write', this.#path, this.#error);
    }
  }
}

/** `850ms`, `12.3s`, `4m05s`, `1h02m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.round(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  return `${m}m${String(s).padStart(2, '0')}s`;
}

/**
 * The last `count` output lines of a log's latest attempt (platctl's own header and footer lines left out), for
 * `platctl status`. Empty when the log is missing.
 */
export async function readLogTail(root: string, relPath: string, count: number): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(join(root, relPath), 'utf8');
  } catch {
    return [];
  }
  const lines = text.split('\n');
  let start = 0;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    if ((lines[i] ?? '').startsWith('# platctl ')) {
      start = i;
      break;
    }
  }
  return lines
    .slice(start)
    .filter(
      (line) => line.trim() !== '' && !/^# (platctl |started:|command:|cwd: |result: |ended: |duration:)/.test(line),
    )
    .slice(-count);
}
