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
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * cols + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The closest candidate to a mistyped word, if one is close enough to be a plausible typo: within a third of the
 * word's length (at least 1, at most 3 edits), ignoring case. Failing that, a candidate the word abbreviates or
 * extends (`min_free` -> `min_free_ips`), when the shared part is at least 4 characters. Ties go to the earlier
 * candidate.
 */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  let prefixMatch: string | undefined;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const other = candidate.toLowerCase();
    const distance = editDistance(lower, other);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
    const shorter = Math.min(lower.length, other.length);
    if (prefixMatch === undefined && shorter >= 4 && (other.startsWith(lower) || lower.startsWith(other))) {
      prefixMatch = candidate;
    }
  }
  return best ?? prefixMatch;
}
