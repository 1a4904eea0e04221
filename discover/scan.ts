/**
 * Finding units on disk, as Terragrunt v1 does (docs/discovery.md): a unit is a directory holding a
 * file named exactly `terragrunt.hcl`; a stack is one holding `terragrunt.stack.hcl`. Hidden directories are walked
 * (generated `.terragrunt-stack` units live there); `.git`, `.terraform`, `.terragrunt-cache` and platctl's own
 * `.platctl-cache` and `.platctl-logs` are skipped at any depth; symlinked directories are not followed.
 */
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { createRequire } from 'node:module';
import type Picomatch from 'picomatch';

export const UNIT_FILE = 'terragrunt.hcl';
export const STACK_FILE = 'terragrunt.stack.hcl';
/**
 * Never walked: tool directories that hold no units. Besides Terragrunt's own, platctl's cache and logs (engine/ and
 * cli/ name them; not imported here): platctl writes there on every run, so walking them would change what the walk
 * saw on every run and the discovery snapshot of an environment at the repository root would never answer.
 */
const SKIPPED_DIRS = new Set(['.git', '.terraform', '.terragrunt-cache', '.platctl-cache', '.platctl-logs']);

export interface ScannedDir {
  /** Absolute directory. */
  readonly absDir: string;
  /** Relative to the repository root, posix separators. */
  readonly dir: string;
  readonly isUnit: boolean;
  readonly isStack: boolean;
}

export interface ScanOptions {
  readonly root: string;
  /** Absolute directories to walk. */
  readonly dirs: readonly string[];
  /** Globs relative to the root; a matching directory (or its config file) is never discovered. */
  readonly exclude: readonly string[];
}

export interface ScanResult {
  /** Unit and stack directories, sorted by path. */
  readonly dirs: ScannedDir[];
  /** What the walk saw in every directory it read: entry name to kind. Lets discovery skip most `stat` calls. */
  readonly listings: ReadonlyMap<string, ReadonlyMap<string, 'file' | 'dir' | 'other'>>;
  /** Every directory the walk read or tried to read (one gone since, or unreadable, included). */
  readonly visited: readonly string[];
  /** Directories the walk could not read (permission denied, ...): units below them would be missed. */
  readonly unreadable: readonly { readonly absDir: string; readonly dir: string; readonly error: unknown }[];
}

/** Every unit and stack directory under `dirs`. */
export async function scan(options: ScanOptions): Promise<ScanResult> {
  // picomatch is loaded only for a configuration with exclude globs.
  const isExcluded = options.exclude.length
    ? (createRequire(import.meta.url)('picomatch') as typeof Picomatch)([...options.exclude], { dot: true })
    : (): boolean => false;
  const found: ScannedDir[] = [];
  const listings = new Map<string, Map<string, 'file' | 'dir' | 'other'>>();
  const unreadable: { absDir: string; dir: string; error: unknown }[] = [];
  const visited: string[] = [];

  // Breadth-first with synchronous readdir, yielding every few hundred directories: much faster than a promise
  // per directory, and the event loop still turns.
  // A queue read by index: `shift()` moved the whole array, a third of the walk's own time at 6,000 directories.
  const queue = [...options.dirs];
  for (let head = 0; head < queue.length; head += 1) {
    if (head > 0 && head % 256 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const absDir = queue[head] as string;
    visited.push(absDir);
    let entries;
    try {
      entries = readdirSync(absDir, { withFileTypes: true });
    } catch (error) {
      // Gone since its parent was read (or an environment directory that does not exist): nothing to miss.
      const code = (error as NodeJS.ErrnoException).code;
      const dir = relativePosix(options.root, absDir);
      // One an exclude glob covers would discover nothing anyway.
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && !isExcluded(dir) && !isExcluded(`${dir}/${UNIT_FILE}`)) {
        unreadable.push({ absDir, dir, error });
      }
      continue;
    }
    const dir = relativePosix(options.root, absDir);
    let isUnit = false;
    let isStack = false;
    const listing = new Map<string, 'file' | 'dir' | 'other'>();
    listings.set(absDir, listing);
    for (const entry of entries) {
      // A symlink's target is unknown without a stat: 'other' makes the lookup fall back to one.
      listing.set(entry.name, entry.isDirectory() ? 'dir' : entry.isFile() ? 'file' : 'other');
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) queue.push(childPath(absDir, entry.name));
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        if (entry.name === UNIT_FILE) isUnit = true;
        else if (entry.name === STACK_FILE) isStack = true;
      }
    }
    if ((isUnit || isStack) && !isExcluded(dir) && !isExcluded(`${dir}/${isUnit ? UNIT_FILE : STACK_FILE}`)) {
      found.push({ absDir, dir, isUnit, isStack });
    }
  }

  return {
    dirs: found.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0)),
    listings,
    visited,
    unreadable,
  };
}

/**
 * `join(dir, name)` for a normalised absolute directory and a plain relative name (no empty, `.` or `..` segment),
 * without join's normalising pass: discovery builds hundreds of thousands of such paths, and join's intermediate
 * strings were a fifth of everything a cold run allocated. Anything else goes through join.
 */
export function childPath(dir: string, name: string): string {
  if (sep !== '/' || !isPlainName(name)) return join(dir, name);
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

/** A relative name with no empty, `.` or `..` segment: `childPath` joins it to a directory as it is. */
export function isPlainName(name: string): boolean {
  const segment = (part: string): boolean => part !== '' && part !== '.' && part !== '..';
  return name.includes('/') ? name.split('/').every(segment) : segment(name);
}

/**
 * `toPosix(relative(base, path))` for normalised absolute paths, without relative's two resolves when `path` is
 * `base` or below it (as every scanned directory is below the root); anything else goes through relative.
 */
export function relativePosix(base: string, path: string): string {
  if (sep === '/') {
    if (path === base) return '';
    const prefix = base.endsWith('/') ? base : `${base}/`;
    if (path.startsWith(prefix) && !path.endsWith('/')) return path.slice(prefix.length);
  }
  return toPosix(relative(base, path));
}

export function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
