/**
 * Finding units on disk, as Terragrunt v1 does (terragrunt-semantics.md §1.1-1.2): a unit is a directory holding a
 * file named exactly `terragrunt.hcl`; a stack is one holding `terragrunt.stack.hcl`. Hidden directories are walked
 * (generated `.terragrunt-stack` units live there); `.git`, `.terraform` and `.terragrunt-cache` are skipped at any
 * depth; symlinked directories are not followed.
 */
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import picomatch from 'picomatch';

export const UNIT_FILE = 'terragrunt.hcl';
export const STACK_FILE = 'terragrunt.stack.hcl';
const SKIPPED_DIRS = new Set(['.git', '.terraform', '.terragrunt-cache']);

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

/** Every unit and stack directory under `dirs`, sorted by path. */
export async function scan(options: ScanOptions): Promise<ScannedDir[]> {
  const isExcluded = options.exclude.length ? picomatch([...options.exclude], { dot: true }) : (): boolean => false;
  const found: ScannedDir[] = [];

  const walk = async (absDir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(absDir, { withFileTypes: true });
    } catch {
      return;
    }
    const dir = toPosix(relative(options.root, absDir));
    let isUnit = false;
    let isStack = false;
    const children: string[] = [];
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) children.push(join(absDir, entry.name));
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        if (entry.name === UNIT_FILE) isUnit = true;
        else if (entry.name === STACK_FILE) isStack = true;
      }
    }
    if ((isUnit || isStack) && !isExcluded(dir) && !isExcluded(`${dir}/${isUnit ? UNIT_FILE : STACK_FILE}`)) {
      found.push({ absDir, dir, isUnit, isStack });
    }
    await Promise.all(children.map(walk));
  };

  await Promise.all(options.dirs.map(walk));
  return found.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
}

export function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
