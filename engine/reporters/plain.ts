/**
 * One line per transition, for logs that are not a terminal (CI, cron, `| tee`): no cursor movement, no colour
 * unless forced, and each line stands alone with a timestamp and the unit id.
 */
import type { Reporter, WalkEvent } from '../events.js';
import { formatDuration } from '../logs.js';
import { unreachable } from '../unit-status.js';
import type { Paint } from './paint.js';

export class PlainReporter implements Reporter {
  readonly #out: NodeJS.WritableStream;
  readonly #paint: Paint;
  #total = 0;
  #finished = 0;

  constructor(out: NodeJS.WritableStream, paint: Paint) {
    this.#out = out;
    this.#paint = paint;
  }

  event(event: WalkEvent): void {
    const line = this.#format(event);
    if (line !== undefined) this.#out.write(`${event.at.slice(11, 19)} ${line}\n`);
  }

  close(): void {
    // Nothing buffered.
  }

  #progress(): string {
    return this.#paint.dim(`[${this.#finished}/${this.#total}]`);
  }

  #format(event: WalkEvent): string | undefined {
    const p = this.#paint;
    switch (event.type) {
      case 'run-started': {
        this.#total = event.to_run;
        const kept =
          (event.kept.length > 0 ? `, keeping ${event.kept.length} (floor)` : '') +
          (event.excluded.length > 0 ? `, ${event.excluded.length} excluded (exclude blocks)` : '');
        const verb = event.resumed ? 'resuming' : 'starting';
        return `${verb} ${event.command} ${event.run_id}: ${event.to_run} of ${event.total} units to run, parallelism ${event.parallelism}${kept}`;
      }
      case 'unit-started':
        return `${p.cyan('start  ')} ${event.unit}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}`;
      case 'unit-completed':
        this.#finished += 1;
        return `${p.green('done   ')} ${event.unit} ${formatDuration(event.duration_ms)} ${this.#progress()}`;
      case 'unit-failed':
        this.#finished += 1;
        return `${p.red('FAILED ')} ${event.unit} ${formatDuration(event.duration_ms)}: ${event.error} ${this.#progress()}\n         log: ${event.log}`;
      case 'unit-interrupted':
        return `${p.yellow('stopped')} ${event.unit} ${formatDuration(event.duration_ms)} (interrupted)`;
      case 'unit-skipped':
        this.#finished += 1;
        return `${p.yellow('skipped')} ${event.unit}: ${
          event.reason === 'fail-fast'
            ? `--fail-fast after ${event.because} failed`
            : `needs ${event.because}, which failed`
        } ${this.#progress()}`;
      case 'interrupting':
        return p.yellow(
          `${event.signal}: starting nothing new; interrupting ${event.running.length} running unit(s) and waiting for them (Ctrl-C again to kill now)`,
        );
      case 'warning':
        return `${p.yellow('warning:')} ${event.message}`;
      case 'run-finished':
        return undefined;
      default:
        return unreachable(event);
    }
  }
}
