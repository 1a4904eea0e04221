/**
 * platctl's own environment variables that hold a number of seconds (engine/env-settings.ts), read in one place and checked before any verb
 * runs: a value platctl does not understand, or a duration out of its bounds, exits 2 having run nothing, instead of
 * quietly meaning the default (a typo in cron's `PLATCTL_KILL_GRACE=3O` must not become 30 s unnoticed, nor `1e9` an
 * unbounded wait for a child to stop). Unset or empty means the default.
 */
import { parseRequestTimeout } from '../cloud/env.js';
import { secondsSettingErrors } from '../engine/env-settings.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Every duration setting platctl does not understand, each as one line saying what is wrong. */
export function envSettingErrors(env: Env): string[] {
  const errors: string[] = [];
  const timeout = parseRequestTimeout(env.PLATCTL_REQUEST_TIMEOUT);
  if ('error' in timeout) errors.push(`${timeout.error}; unset it for the default (30s)`);
  return [...errors, ...secondsSettingErrors(env)];
}
