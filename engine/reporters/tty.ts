/**
 * The live view on a terminal: finished units scroll up as permanent lines (the same lines the plain reporter
 * prints), and below them a block redrawn in place shows the running units with their elapsed time, the count of
 * units done, and an ETA from the durations of earlier runs.
 */
import { createLogUpdate } from 'log-update';
import type { Reporter, RunEvent } from '../events.js';
import { isCheckEvent, isParkEvent } from '../events.js';
import type { UnitId } from '../graph.js';
import { formatDuration } from '../logs.js';
import type { Paint } from './paint.js';
import { PlainReporter } from './plain.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface TtyReporterOptions {
  readonly now: () => number;
  /** Redraw period. */
  readonly intervalMs?: number;
  /** Running units shown before "and N more". */
  readonly maxRows?: number;
}

export class TtyReporter implements Reporter {
  readonly #paint: Paint;
  readonly #now: () => number;
  readonly #update: ReturnType<typeof createLogUpdate>;
  readonly #lines: PlainReporter;
  readonly #maxRows: number;
  /** Running units and when they started. */
  readonly #running = new Map<UnitId, number>();
  /** Units not finished yet (ETA). */
  readonly #left = new Set<UnitId>();
  #pendingLines = '';
  #estimates: Readonly<Record<UnitId, number>> = {};
  #paths: Readonly<Record<UnitId, number>> = {};
  #known = false;
  #command = '';
  #toRun = 0;
  #finished = 0;
  #failed = 0;
  #parallelism = 1;
  #measured: number[] = [];
  #frame = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(out: NodeJS.WritableStream & { columns?: number }, paint: Paint, options: TtyReporterOptions) {
    this.#paint = paint;
    this.#now = options.now;
    this.#maxRows = options.maxRows ?? 12;
    this.#update = createLogUpdate(out, { showCursor: false });
    // Permanent lines go through a plain reporter writing into a buffer that is flushed above the live block.
    this.#lines = new PlainReporter(
      {
        write: (chunk: string | Uint8Array) => {
          this.#pendingLines += String(chunk);
          return true;
        },
      } as NodeJS.WritableStream,
      paint,
    );
    this.#timer = setInterval(() => this.#render(), options.intervalMs ?? 100);
    // A pending redraw must never keep platctl alive.
    this.#timer.unref();
  }

  /** A walk's events; down/up's are park.ts's to render, validate's validate.ts's. */
  event(event: RunEvent): void {
    if (isParkEvent(event) || isCheckEvent(event)) return;
    this.#lines.event(event);
    switch (event.type) {
      case 'run-started':
        this.#command = event.command;
        this.#toRun = event.to_run;
        this.#parallelism = event.parallelism;
        this.#estimates = event.estimates_ms;
        this.#paths = event.remaining_path_ms;
        this.#known = event.estimates_known;
        for (const unit of Object.keys(event.estimates_ms)) this.#left.add(unit);
        break;
      case 'unit-started':
        this.#running.set(event.unit, Date.parse(event.at));
        break;
      case 'unit-completed':
      case 'unit-failed':
      case 'unit-interrupted':
      case 'unit-skipped':
        this.#running.delete(event.unit);
        this.#left.delete(event.unit);
        this.#finished += 1;
        if (event.type === 'unit-failed') this.#failed += 1;
        if (event.type === 'unit-completed') this.#measured.push(event.duration_ms);
        break;
      case 'hook-started':
      case 'hook-finished':
      case 'lockdown-step-started':
      case 'lockdown-step-finished':
      case 'converge-wait-started':
      case 'converge-wait-progress':
      case 'converge-wait-finished':
      case 'rollback-probe':
      case 'rollback-decided':
      case 'rollback-unit':
      case 'rollback-finished':
      case 'interrupting':
      case 'warning':
      case 'run-finished':
        break;
    }
    this.#render();
  }

  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#update.clear();
    if (this.#pendingLines !== '') this.#update.persist(this.#pendingLines.replace(/\n$/, ''));
    this.#pendingLines = '';
    this.#update.done();
  }

  #render(): void {
    if (this.#pendingLines !== '') {
      this.#update.persist(this.#pendingLines.replace(/\n$/, ''));
      this.#pendingLines = '';
    }
    if (this.#command === '') return;
    const p = this.#paint;
    const now = this.#now();
    this.#frame = (this.#frame + 1) % SPINNER.length;
    const eta = this.#eta(now);
    const head = [
      p.bold(this.#command),
      `${this.#finished}/${this.#toRun} done`,
      `${this.#running.size} running`,
      ...(this.#failed > 0 ? [p.red(`${this.#failed} failed`)] : []),
      ...(eta === undefined ? [] : [`ETA ~${formatDuration(eta)}`]),
    ].join(p.dim(' · '));
    const rows = [...this.#running.entries()]
      .sort((a, b) => a[1] - b[1])
      .slice(0, this.#maxRows)
      .map(([unit, since]) => {
        const estimate = this.#estimates[unit];
        const usual = this.#known && estimate !== undefined ? p.dim(` (usually ${formatDuration(estimate)})`) : '';
        return `  ${p.cyan(SPINNER[this.#frame] ?? '')} ${unit} ${formatDuration(now - since)}${usual}`;
      });
    if (this.#running.size > this.#maxRows) rows.push(p.dim(`  … and ${this.#running.size - this.#maxRows} more`));
    this.#update([head, ...rows].join('\n'));
  }

  /**
   * The lower bound of the remaining time: the longest remaining chain, or the remaining work spread over the slots,
   * whichever is larger, each running unit counted from where it is. Durations from earlier runs; without any, the
   * average of this run's units once one has finished (before that, no ETA).
   */
  #eta(now: number): number | undefined {
    let scale = 1;
    if (!this.#known) {
      if (this.#measured.length === 0) return undefined;
      // Placeholder estimates are 1 each: paths count units, so the average duration turns them into time.
      scale = this.#measured.reduce((a, b) => a + b, 0) / this.#measured.length;
    }
    let work = 0;
    let path = 0;
    for (const unit of this.#left) {
      const since = this.#running.get(unit);
      const elapsed = since === undefined ? 0 : now - since;
      const estimate = (this.#estimates[unit] ?? 1) * scale;
      const done = Math.min(elapsed, estimate);
      work += estimate - done;
      path = Math.max(path, (this.#paths[unit] ?? 1) * scale - done);
    }
    return Math.max(path, work / Math.max(1, this.#parallelism));
  }
}
