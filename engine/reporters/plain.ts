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
        const which = event.resuming ? `\n  resuming ${event.resuming}` : '';
        return `${verb} ${event.command} ${event.run_id}: ${event.to_run} of ${event.total} units to run, parallelism ${event.parallelism}${kept}${which}`;
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
      case 'hook-started':
        return `${p.cyan('hook   ')} ${event.unit}: ${event.hook} (${event.point})`;
      case 'hook-finished': {
        const detail = event.detail ? `: ${event.detail}` : '';
        return event.ok
          ? `${p.green('hook ok')} ${event.unit}: ${event.hook} (${event.point}) ${formatDuration(event.duration_ms)}${detail}`
          : `${p.red('HOOK FAILED')} ${event.unit}: ${event.hook} (${event.point})${detail}`;
      }
      case 'lockdown-step-started': {
        const of = event.attempts > 1 ? ` (attempt ${event.attempt} of ${event.attempts})` : '';
        return `${p.cyan(event.direction === 'lock' ? 'lock   ' : 'unlock ')} ${event.step}: apply ${event.unit}${of}\n         log: ${event.log}`;
      }
      case 'lockdown-step-finished': {
        const what = `${event.direction === 'lock' ? 'lockdown' : 'unlock'} step ${event.step}`;
        const why = event.message ? `: ${event.message}` : '';
        switch (event.result) {
          case 'completed':
            return `${p.green('done   ')} ${what} ${formatDuration(event.duration_ms)}${why}`;
          case 'retrying':
            return `${p.yellow('retry  ')} ${what}${why}`;
          case 'failed':
            return `${p.red('FAILED ')} ${what}${why}\n         log: ${event.log}`;
          case 'interrupted':
            return `${p.yellow('stopped')} ${what} (interrupted)`;
          default:
            return unreachable(event.result);
        }
      }
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
