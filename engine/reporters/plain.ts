/**
 * One line per transition, for logs that are not a terminal (CI, cron, `| tee`): no cursor movement, no colour
 * unless forced, no colour or control codes from terragrunt, and each line stands alone with a timestamp and the unit
 * id. With a heartbeat, a line every interval says which units or lockdown steps are still running, and for how long.
 */
import type { Reporter, RunEvent, WalkEvent } from '../events.js';
import { isCheckEvent, isParkEvent } from '../events.js';
import { formatDuration } from '../logs.js';
import { unreachable } from '../unit-status.js';
import type { HeartbeatOptions } from './lines.js';
import { Heartbeat, convergeLine, lineStamp, plainText } from './lines.js';
import type { Paint } from './paint.js';

export interface PlainReporterOptions {
  /** Still-running lines (a non-terminal); none when absent (the live view draws its own). */
  readonly heartbeat?: HeartbeatOptions;
}

export class PlainReporter implements Reporter {
  readonly #out: NodeJS.WritableStream;
  readonly #paint: Paint;
  readonly #heartbeat: Heartbeat | undefined;
  #total = 0;
  #finished = 0;

  constructor(out: NodeJS.WritableStream, paint: Paint, options: PlainReporterOptions = {}) {
    this.#out = out;
    this.#paint = paint;
    this.#heartbeat = options.heartbeat && new Heartbeat((line) => out.write(line), options.heartbeat);
  }

  /** A walk's events; down/up's are park.ts's to render, validate's validate.ts's. */
  event(event: RunEvent): void {
    if (isParkEvent(event) || isCheckEvent(event)) return;
    this.#track(event);
    const line = this.#format(event);
    if (line !== undefined) this.#out.write(`${lineStamp(event.at)} ${line}\n`);
  }

  close(): void {
    this.#heartbeat?.close();
  }

  /** What is running, for the heartbeat. */
  #track(event: WalkEvent): void {
    const beat = this.#heartbeat;
    if (!beat) return;
    const since = Date.parse(event.at);
    switch (event.type) {
      case 'unit-started':
        beat.begin(`unit ${event.unit}`, event.unit, since);
        return;
      case 'unit-completed':
      case 'unit-failed':
      case 'unit-interrupted':
        beat.end(`unit ${event.unit}`);
        return;
      case 'lockdown-step-started':
        beat.begin(
          'lockdown',
          `${event.direction === 'lock' ? 'lockdown' : 'unlock'} step ${event.step} (${event.unit})`,
          since,
        );
        return;
      case 'lockdown-step-finished':
        if (event.result === 'retrying') {
          beat.begin(
            'lockdown',
            `waiting to retry ${event.direction === 'lock' ? 'lockdown' : 'unlock'} step ${event.step}`,
            since,
          );
        } else beat.end('lockdown');
        return;
      case 'converge-wait-started':
        beat.begin('converge', `converge wait ${event.wait}`, since);
        return;
      case 'converge-wait-finished':
        beat.end('converge');
        return;
      case 'run-finished':
        beat.close();
        return;
      case 'rollback-unit':
        if (event.result === 'started') beat.begin(`rollback ${event.unit}`, `rollback of ${event.unit}`, since);
        else beat.end(`rollback ${event.unit}`);
        return;
      case 'run-started':
      case 'unit-skipped':
      case 'hook-started':
      case 'hook-finished':
      case 'rollback-probe':
      case 'rollback-decided':
      case 'rollback-finished':
      case 'interrupting':
      case 'warning':
      case 'converge-wait-progress':
        return;
    }
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
        return `${p.red('FAILED ')} ${event.unit} ${formatDuration(event.duration_ms)}: ${plainText(event.error)} ${this.#progress()}\n         log: ${event.log}`;
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
        const detail = event.detail ? `: ${plainText(event.detail)}` : '';
        return event.ok
          ? `${p.green('hook ok')} ${event.unit}: ${event.hook} (${event.point}) ${formatDuration(event.duration_ms)}${detail}`
          : `${p.red('HOOK FAILED')} ${event.unit}: ${event.hook} (${event.point})${detail}`;
      }
      case 'lockdown-step-started': {
        const of = event.attempts > 1 ? ` (attempt ${event.attempt} of ${event.attempts})` : '';
        return `${p.cyan(event.direction === 'lock' ? 'lock   ' : 'unlock ')} ${event.step}: apply ${event.unit}${of}\n         log: ${event.log}`;
      }
      case 'lockdown-step-finished':
        return lockdownStepLine(event, p);
      case 'rollback-probe':
      case 'rollback-decided':
      case 'rollback-unit':
      case 'rollback-finished':
        return rollbackLine(event, p);
      case 'interrupting':
        return p.yellow(
          `${event.signal}: starting nothing new; interrupting ${event.running.length} running unit(s) and waiting for them (Ctrl-C again to kill now)`,
        );
      case 'warning':
        return `${p.yellow('warning:')} ${plainText(event.message)}`;
      case 'converge-wait-started':
      case 'converge-wait-progress':
      case 'converge-wait-finished':
        return convergeLine(event, p);
      case 'run-finished':
        return undefined;
      default:
        return unreachable(event);
    }
  }
}

/** A lockdown or unlock step's end: done, retrying, failed (with its log) or stopped. */
function lockdownStepLine(event: Extract<WalkEvent, { type: 'lockdown-step-finished' }>, p: Paint): string {
  const what = `${event.direction === 'lock' ? 'lockdown' : 'unlock'} step ${event.step}`;
  const why = event.message ? `: ${plainText(event.message)}` : '';
  const result = event.result;
  switch (result) {
    case 'completed':
      return `${p.green('done   ')} ${what} ${formatDuration(event.duration_ms)}${why}`;
    case 'retrying':
      return `${p.yellow('retry  ')} ${what}${why}`;
    case 'failed':
      return `${p.red('FAILED ')} ${what}${why}\n         log: ${event.log}`;
    case 'interrupted':
      return `${p.yellow('stopped')} ${what} (interrupted)`;
    default:
      return unreachable(result);
  }
}

/** The rollback's lines: each probe's answer, the decision, each unit destroyed (or not), and the end. */
function rollbackLine(event: Extract<WalkEvent, { type: `rollback-${string}` }>, p: Paint): string {
  switch (event.type) {
    case 'rollback-probe':
      return `${p.dim('probe  ')} ${event.unit}: ${
        event.result === 'absent'
          ? 'no state before the run'
          : event.result === 'standing'
            ? `standing (${event.detail ?? 'has state'}); a rollback never destroys it`
            : `cannot tell (${plainText(event.detail ?? 'the probe failed')}); counted as standing`
      }`;
    case 'rollback-decided': {
      const kept = event.kept.map((line) => `\n         ${plainText(line)}`).join('');
      return event.action === 'destroy'
        ? `${p.red('ROLLBACK')} ${plainText(event.message)}: ${event.destroy.join(', ')}${kept}`
        : `${p.yellow('rollback')} ${plainText(event.message)}${kept}`;
    }
    case 'rollback-unit': {
      const result = event.result;
      switch (result) {
        case 'started':
          return `${p.cyan('destroy')} ${event.unit} (rollback)${event.log ? `\n         log: ${event.log}` : ''}`;
        case 'destroyed':
          return `${p.green('done   ')} ${event.unit} destroyed (rollback)`;
        case 'failed':
          return `${p.red('FAILED ')} ${event.unit} (rollback): ${plainText(event.error ?? 'failed')}`;
        case 'skipped':
          return `${p.yellow('skipped')} ${event.unit} (rollback): ${plainText(event.error ?? 'not destroyed')}`;
        case 'interrupted':
          return `${p.yellow('stopped')} ${event.unit} (rollback, interrupted)`;
        default:
          return unreachable(result);
      }
    }
    case 'rollback-finished':
      return event.status === 'completed'
        ? `${p.green('rollback done')}: destroyed ${event.destroyed.join(', ') || 'nothing'}`
        : `${p.red(`rollback ${event.status}`)}: destroyed ${event.destroyed.join(', ') || 'nothing'}; still standing: ${event.left.join(', ')}`;
  }
}
