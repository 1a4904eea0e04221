/**
 * platctl's own environment variables that hold a number of seconds, read in one place and checked before any verb
 * runs: a value platctl does not understand, or a duration out of its bounds, exits 2 having run nothing, instead of
 * quietly meaning the default (a typo in cron's `PLATCTL_KILL_GRACE=3O` must not become 30 s unnoticed, nor `1e9` an
 * unbounded wait for a child to stop). Unset or empty means the default.
 */
import { parseRequestTimeout } from '../cloud/env.js';

type Env = Readonly<Record<string, string | undefined>>;

interface SecondsSetting {
  readonly min: number;
  readonly max: number;
  /** What 0 means when it is allowed below `min` (the still-running lines: off). */
  readonly zero?: string;
}

/** The duration settings besides PLATCTL_REQUEST_TIMEOUT (which cloud/env.ts reads, as its clients need it). */
const SECONDS: Readonly<Record<'PLATCTL_PROGRESS_INTERVAL' | 'PLATCTL_KILL_GRACE', SecondsSetting>> = {
  PLATCTL_PROGRESS_INTERVAL: { min: 0.01, max: 3600, zero: 'to turn the still-running lines off' },
  PLATCTL_KILL_GRACE: { min: 0, max: 3600 },
};

type SecondsName = keyof typeof SECONDS;

/** The setting in ms; undefined when unset (the caller's default); an error naming the bounds when not understood. */
function parseSeconds(name: SecondsName, value: string | undefined): { ms: number | undefined } | { error: string } {
  if (value === undefined || value.trim() === '') return { ms: undefined };
  const { min, max, zero } = SECONDS[name];
  const seconds = Number(value);
  if (Number.isFinite(seconds) && ((seconds >= min && seconds <= max) || (zero !== undefined && seconds === 0))) {
    return { ms: Math.round(seconds * 1000) };
  }
  return {
    error: `${name}="${value}" is not a number of seconds between ${min} and ${max}${zero ? ` (or 0 ${zero})` : ''}`,
  };
}

/** `name` in ms, or `fallback` when unset. The command line refused a bad value before any verb ran. */
export function secondsSetting(env: Env, name: SecondsName, fallback: number): number {
  const parsed = parseSeconds(name, env[name]);
  return 'ms' in parsed && parsed.ms !== undefined ? parsed.ms : fallback;
}

/** Every duration setting platctl does not understand, each as one line saying what is wrong. */
export function envSettingErrors(env: Env): string[] {
  const errors: string[] = [];
  const timeout = parseRequestTimeout(env.PLATCTL_REQUEST_TIMEOUT);
  if ('error' in timeout) errors.push(`${timeout.error}; unset it for the default (30s)`);
  for (const name of Object.keys(SECONDS) as SecondsName[]) {
    const parsed = parseSeconds(name, env[name]);
    if ('error' in parsed) errors.push(`${parsed.error}; unset it for the default (30s)`);
  }
  return errors;
}
