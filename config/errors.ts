/**
 * Errors a user can make in `.platctl.yaml`, as data: what is wrong, which key, where (file:line:column), and what
 * to do. Loading reports every error it finds, so a user fixes the file in one pass.
 */
import path from 'node:path';
import type { SourceLocation } from './location.js';

/** Why a configuration was refused; kebab-case so JSON consumers can switch on it. */
export type ConfigErrorReason =
  /** No `.platctl.yaml` upward from the working directory, or `--config` names nothing. */
  | 'not-found'
  /** The file exists but could not be read. */
  | 'unreadable'
  /** The YAML parser rejected the text (including duplicate keys and unresolved aliases). */
  | 'yaml-syntax'
  /** A key the schema does not know, usually a typo. */
  | 'unknown-key'
  /** A required key is absent. */
  | 'missing-key'
  /** A value of the wrong YAML type (a number where a string belongs, ...). */
  | 'invalid-type'
  /** A value of the right type that the schema refuses (a bad duration, region, URL, ...). */
  | 'invalid-value'
  /** A map key the schema refuses (an environment name or unit id of the wrong form). */
  | 'invalid-key'
  /** A placeholder such as REPLACE_ME or <account-id> left in the file. */
  | 'placeholder'
  /** A reference to an environment that `environments` does not declare. */
  | 'unknown-environment'
  /** An environment dir that is absolute, outside the root, missing or not a directory. */
  | 'bad-env-dir'
  /** Two environments whose dirs are the same or nested. */
  | 'overlapping-env-dirs'
  /** Two list entries with the same `id`. */
  | 'duplicate-id';

/** One problem in the configuration. */
export interface ConfigError {
  readonly reason: ConfigErrorReason;
  /** One sentence: what is wrong. */
  readonly message: string;
  /** The key concerned, dotted (`environments.platform.aws.account_id`, `hooks[1].units[0]`); empty for the file. */
  readonly keyPath: string;
  /**
   * Where: the offending key or value. Absent only for `not-found`, when there is no file to point into; file-level
   * problems (`unreadable`) point at line 1.
   */
  readonly location?: SourceLocation;
  /** What to do about it. */
  readonly hint?: string;
}

/** A path into the configuration: map keys and sequence indexes. */
export type KeyPath = readonly (string | number)[];

const PLAIN_KEY_RE = /^[A-Za-z0-9_/-]+$/;

/**
 * Renders a key path for people: `environments.platform.aws.account_id`, `hooks[0].units[1]`; keys holding dots or
 * spaces are quoted (`environments["prod.eu"].dir`) so the path stays unambiguous.
 */
export function formatKeyPath(keyPath: KeyPath): string {
  let out = '';
  for (const part of keyPath) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (PLAIN_KEY_RE.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

/**
 * One error for people, as `<file>:<line>:<col>: error: <message> (at <keyPath>)` and an indented `hint:` line.
 * The file is shown relative to `cwd` when it lies below it, so terminals and editors can open it.
 */
export function formatConfigError(error: ConfigError, cwd?: string): string {
  const where = error.location ? `${formatLocation(error.location, cwd)}: ` : '';
  const at = error.keyPath === '' ? '' : ` (at ${error.keyPath})`;
  const hint = error.hint === undefined ? '' : `\n  hint: ${error.hint}`;
  return `${where}error: ${error.message}${at}${hint}`;
}

/** Every error, one block each, in file order; ends with a newline. */
export function formatConfigErrors(errors: readonly ConfigError[], cwd?: string): string {
  return errors.map((error) => `${formatConfigError(error, cwd)}\n`).join('');
}

/** `file:line:col`, the file relative to `cwd` when it lies below it, so terminals and editors can open it. */
export function formatLocation(location: SourceLocation, cwd: string | undefined): string {
  let file = location.file;
  if (cwd !== undefined && path.isAbsolute(file)) {
    const relative = path.relative(cwd, file);
    if (relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)) file = relative;
  }
  return location.column === undefined ? `${file}:${location.line}` : `${file}:${location.line}:${location.column}`;
}

/** Sorts errors by file, line and column; errors without a location come first (they concern the whole file). */
export function sortConfigErrors(errors: readonly ConfigError[]): ConfigError[] {
  return [...errors].sort((a, b) => {
    if (!a.location || !b.location) return (a.location ? 1 : 0) - (b.location ? 1 : 0);
    return (
      a.location.file.localeCompare(b.location.file) ||
      a.location.line - b.location.line ||
      (a.location.column ?? 0) - (b.location.column ?? 0)
    );
  });
}

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions), so `unit_timout` is 1 away from
 * `unit_timeout` and `evnironments` 1 away from `environments`.
 */
export function editDistance(a: string, b: string): number {
  return boundedDistance(a, b, a.length + b.length);
}

/** Rows reused by boundedDistance (grown when a longer string comes). */
let rows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * The edit distance of two strings (as editDistance: adjacent transpositions count one) when it is at most
 * `max`, else `max + 1`. The shared prefix and suffix are cut off first, only cells within `max` of the diagonal are
 * computed, and the work stops at the first row whose every cell exceeds `max`: most pairs of paths are settled in
 * a few rows.
 */
export function boundedDistance(a: string, b: string, max: number): number {
  let start = 0;
  while (start < a.length && start < b.length && a.charCodeAt(start) === b.charCodeAt(start)) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA -= 1;
    endB -= 1;
  }
  const n = endA - start;
  const m = endB - start;
  if (Math.abs(n - m) > max) return max + 1;
  if (n === 0 || m === 0) return Math.max(n, m);
  const over = max + 1;
  // Three rows: two back (for transpositions), one back, and the current one.
  if (rows[0].length <= m) rows = [new Int32Array(m + 1), new Int32Array(m + 1), new Int32Array(m + 1)];
  let [older, prev, row] = rows;
  older.fill(over, 0, m + 1);
  for (let j = 0; j <= m; j += 1) prev[j] = j <= max ? j : over;
  for (let i = 1; i <= n; i += 1) {
    const from = Math.max(1, i - max);
    const to = Math.min(m, i + max);
    row.fill(over, 0, m + 1);
    row[0] = i <= max ? i : over;
    let rowMin = row[0] ?? over;
    const ca = a.charCodeAt(start + i - 1);
    for (let j = from; j <= to; j += 1) {
      const cb = b.charCodeAt(start + j - 1);
      let best = Math.min((prev[j] ?? over) + 1, (row[j - 1] ?? over) + 1, (prev[j - 1] ?? over) + (ca === cb ? 0 : 1));
      if (i > 1 && j > 1 && ca === b.charCodeAt(start + j - 2) && a.charCodeAt(start + i - 2) === cb) {
        best = Math.min(best, (older[j - 2] ?? over) + 1);
      }
      row[j] = Math.min(best, over);
      if (best < rowMin) rowMin = best;
    }
    if (rowMin > max) return over;
    [older, prev, row] = [prev, row, older];
  }
  return Math.min(prev[m] ?? over, over);
}

/**
 * The closest candidate to a mistyped word, if one is close enough to be a plausible typo: within a third of the
 * word's length (at least 1, at most 3 edits), ignoring case. Failing that, a candidate the word abbreviates or
 * extends (`min_free` -> `min_free_ips`), when the shared part is at least 4 characters. Ties go to the earlier
 * candidate. `lowered`: the candidates lower-cased, in the same order, for a caller that asks many questions of one
 * list (discover's PathSuggester falls back to this for whole-path typos).
 */
export function didYouMean(
  word: string,
  candidates: readonly string[] | Iterable<string>,
  lowered?: readonly string[],
): string | undefined {
  const lower = word.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  let prefixMatch: string | undefined;
  const list: readonly string[] = Array.isArray(candidates) ? candidates : [...candidates];
  for (let i = 0; i < list.length; i += 1) {
    const candidate = list[i] ?? '';
    if (candidate === word) continue;
    const other = lowered?.[i] ?? candidate.toLowerCase();
    // Only candidates of about the word's length can be within the limit; the bounded distance stops early.
    if (Math.abs(other.length - lower.length) <= limit) {
      const distance = boundedDistance(lower, other, limit);
      if (distance <= limit && distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    const shorter = Math.min(lower.length, other.length);
    if (prefixMatch === undefined && shorter >= 4 && (other.startsWith(lower) || lower.startsWith(other))) {
      prefixMatch = candidate;
    }
  }
  return best ?? prefixMatch;
}

/**
 * The first `--env` that names no environment of the configuration at `path`, said with a did-you-mean and the
 * known ones; undefined when every one exists.
 */
export function unknownEnvMessage(
  envs: readonly string[],
  envNames: readonly string[],
  path: string,
): string | undefined {
  const unknown = envs.find((env) => !envNames.includes(env));
  if (unknown === undefined) return undefined;
  const suggestion = didYouMean(unknown, envNames);
  return (
    `platctl: --env ${unknown}: no such environment in ${path}` +
    `${suggestion ? `; did you mean ${suggestion}?` : ''} (known: ${envNames.join(', ')})\n`
  );
}

/** The first of `envs` that names no environment of the configuration at `path`, with the known ones (history, report). */
export function noEnvironmentMessage(
  envs: readonly string[],
  environments: Readonly<Record<string, unknown>>,
  path: string,
): string | undefined {
  const unknown = envs.find((env) => !(env in environments));
  return unknown === undefined
    ? undefined
    : `platctl: no environment ${unknown} in ${path} (known: ${Object.keys(environments).join(', ')})\n`;
}
