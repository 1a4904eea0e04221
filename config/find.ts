/**
 * Finding `.platctl.yaml`: `--config FILE`, else the nearest one upward from the working directory. Apart from
 * `load.ts` so a verb that only needs the file's location (`platctl status`) does not load the YAML parser and the
 * schema.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { ConfigError } from './errors.js';

/** The file name searched for. */
export const CONFIG_FILE_NAME = '.platctl.yaml';

export type FindConfigResult = { ok: true; path: string } | { ok: false; error: ConfigError };

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

async function isDirectory(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The configuration file to use: `explicit` (resolved against `cwd`) when given, else `.platctl.yaml` in `cwd` or
 * the nearest directory above it.
 */
export async function findConfig(cwd: string, explicit?: string): Promise<FindConfigResult> {
  const start = path.resolve(cwd);
  if (explicit !== undefined) {
    const file = path.resolve(start, explicit);
    if (await isFile(file)) return { ok: true, path: file };
    const directory = await isDirectory(file);
    return {
      ok: false,
      error: {
        reason: 'not-found',
        message: directory
          ? `--config ${explicit}: ${file} is a directory`
          : `--config ${explicit}: ${file} does not exist`,
        keyPath: '',
        hint: directory
          ? `pass the file itself: --config ${path.join(explicit, CONFIG_FILE_NAME)}`
          : `check the path; a relative one is resolved against ${start}`,
      },
    };
  }
  let dir = start;
  let misnamed: string | undefined;
  for (;;) {
    const candidate = path.join(dir, CONFIG_FILE_NAME);
    if (await isFile(candidate)) return { ok: true, path: candidate };
    misnamed ??= (await isFile(path.join(dir, '.platctl.yml'))) ? path.join(dir, '.platctl.yml') : undefined;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return {
    ok: false,
    error: {
      reason: 'not-found',
      message: `no ${CONFIG_FILE_NAME} in ${start} or any directory above it (searched up to ${dir})`,
      keyPath: '',
      hint:
        misnamed !== undefined
          ? `found ${misnamed}: rename it to ${CONFIG_FILE_NAME}, or pass --config ${misnamed}`
          : `create ${CONFIG_FILE_NAME} at the repository root (start from platctl's .platctl.example.yaml; ` +
            `docs/configuration.md describes every key), or pass --config FILE`,
    },
  };
}
