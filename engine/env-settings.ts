/**
 * platctl's own settings that hold a number of seconds (`PLATCTL_PROGRESS_INTERVAL`, `PLATCTL_KILL_GRACE`), parsed
 * from the values the CLI read from the process environment (passed as a plain record): unset or empty means the
 * caller's default, and a value not understood is an error naming the bounds (the CLI refuses it before any verb runs).
 */
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

/** Every seconds setting in `env` platctl does not understand, each as one line saying what is wrong. */
export function secondsSettingErrors(env: Env): string[] {
  return (Object.keys(SECONDS) as SecondsName[]).flatMap((name) => {
    const parsed = parseSeconds(name, env[name]);
    return 'error' in parsed ? [`${parsed.error}; unset it for the default (30s)`] : [];
  });
}
