/**
 * Colour for reporters, decided once by the CLI (NO_COLOR, FORCE_COLOR, --no-color, TTY) and passed in: reporters
 * never look at the environment themselves.
 */
import { Chalk } from 'chalk';
import type { UnitStatus } from '../unit-status.js';

export interface Paint {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly cyan: (text: string) => string;
}

export function makePaint(color: boolean): Paint {
  const chalk = new Chalk({ level: color ? 1 : 0 });
  return {
    bold: (t) => chalk.bold(t),
    dim: (t) => chalk.dim(t),
    red: (t) => chalk.red(t),
    green: (t) => chalk.green(t),
    yellow: (t) => chalk.yellow(t),
    cyan: (t) => chalk.cyan(t),
  };
}

/** A status word in its colour. */
export function paintStatus(paint: Paint, status: UnitStatus, text: string = status): string {
  switch (status) {
    case 'completed':
      return paint.green(text);
    case 'failed':
      return paint.red(text);
    case 'skipped':
    case 'interrupted':
      return paint.yellow(text);
    case 'running':
      return paint.cyan(text);
    case 'pending':
    case 'excluded':
      return paint.dim(text);
  }
}

/** Pads to a width measured without colour escapes. */
export function pad(text: string, width: number): string {
  // eslint-disable-next-line no-control-regex -- measuring visible width means ignoring escapes
  const visible = text.replace(/\u001b\[[0-9;]*m/g, '').length;
  return visible >= width ? text : text + ' '.repeat(width - visible);
}
