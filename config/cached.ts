/**
 * `loadConfig` with a cache: a `.platctl.yaml` already validated is not parsed and validated again while its text is
 * unchanged. Parsing the YAML and running the zod schema cost more than starting Node, so every verb that discovers
 * the graph (a warm `platctl graph` most of all) paid that on each run for a file that rarely changes.
 *
 * The cache (`.platctl-cache/config.json` beside the file) holds the validated configuration and where each of its
 * keys is written (what `locate` answers), under a key made of the file's path and exact text, platctl's version and
 * a stamp of the configuration code (code-stamp.ts). Never stale: any change to the text, the version or the code is a miss, and the
 * filesystem checks (environment dirs exist) run on every load, hit or miss. Anything short of a clean hit (an
 * unreadable or corrupt cache, a missing environment dir) goes the full way, so every error reads exactly as
 * `loadConfig` words it. The cache is best effort: a read-only repository only loses the speed-up.
 *
 * This module imports neither the YAML parser nor zod: a hit loads neither.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KeyPath } from './errors.js';
import { codeFiles, codeStamp } from './code-stamp.js';
import { findConfig } from './find.js';
import type { ConfigResult, LoadConfigOptions, LoadedConfig } from './load.js';
import type { SourceLocation } from './location.js';
import type { PlatctlConfig } from './schema.js';
import { writeFileAtomic } from './atomic-write.js';

export const CONFIG_CACHE_FILE = 'config.json';
/** Bumped whenever what the cache holds changes. */
const FORMAT = 1;

interface CacheFile {
  readonly key: string;
  readonly config: PlatctlConfig;
  /** `locate` answers: JSON of the key path to its location, for every key path of `config` the file spells out. */
  readonly locations: Record<string, SourceLocation>;
}

let codeStampMemo: string | undefined;

/** A stamp of the configuration code (this directory's files), so another build never trusts the cache. */
export function configCodeStamp(): string {
  return (codeStampMemo ??= codeStamp(codeFiles(path.dirname(fileURLToPath(import.meta.url)))));
}

function cacheKey(file: string, text: string, version: string): string {
  return createHash('sha256')
    .update(JSON.stringify([FORMAT, version, configCodeStamp(), file]))
    .update('\0')
    .update(text)
    .digest('base64url');
}

/** Every key path of a plain value (object keys, array indices), the root excluded. */
function keyPaths(value: unknown, prefix: KeyPath = []): KeyPath[] {
  if (value === null || typeof value !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i): [number, unknown] => [i, v])
    : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...keyPaths(child, [...prefix, key])]);
}

/** What `loaded.locate` answers for every key path of its configuration (those a default filled are absent). */
export function locationTable(loaded: LoadedConfig): Record<string, SourceLocation> {
  const table: Record<string, SourceLocation> = {};
  for (const keyPath of keyPaths(loaded.config)) {
    const location = loaded.locate(keyPath);
    if (location !== undefined) table[JSON.stringify(keyPath)] = location;
  }
  return table;
}

/** The environment dirs all exist as directories (what `checkConfigFilesystem` reports on, without its words). */
async function envDirsExist(root: string, config: PlatctlConfig): Promise<boolean> {
  for (const settings of Object.values(config.environments)) {
    try {
      if (!(await stat(path.resolve(root, settings.dir))).isDirectory()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

async function readCache(file: string, key: string): Promise<CacheFile | undefined> {
  try {
    // Checked by structure, not by the schema library: the cache is keyed by the exact text, version and code stamp
    // this build wrote, always safe to delete, and anything that does not match (or throws) is a miss that validates
    // .platctl.yaml afresh. Loading zod here would cost the warm path the very start-up the cache exists to save.
    const cached = JSON.parse(await readFile(file, 'utf8')) as Partial<CacheFile> | null;
    if (cached?.key !== key || typeof cached.config !== 'object' || typeof cached.locations !== 'object') {
      return undefined;
    }
    return cached as CacheFile;
  } catch {
    return undefined;
  }
}

async function writeCache(file: string, content: CacheFile): Promise<void> {
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, JSON.stringify(content), { fsync: false });
  } catch {
    // Best effort: a read-only repository only loses the speed-up.
  }
}

/**
 * Finds, reads and validates the configuration as `loadConfig` does, reusing the validation of the same text from
 * `<root>/.platctl-cache/config.json`. `version` is platctl's.
 */
export async function loadConfigCached(
  options: LoadConfigOptions & { readonly version: string },
): Promise<ConfigResult> {
  const full = async (): Promise<ConfigResult> => (await import('./load.js')).loadConfig(options);
  if (options.checkFilesystem === false) return full();
  const found = await findConfig(options.cwd, options.path);
  if (!found.ok) return full();
  const file = found.path;
  const root = path.dirname(file);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return full();
  }
  const key = cacheKey(file, text, options.version);
  const cacheFile = path.join(root, '.platctl-cache', CONFIG_CACHE_FILE);
  const cached = await readCache(cacheFile, key);
  if (cached !== undefined && (await envDirsExist(root, cached.config))) {
    const { config, locations } = cached;
    return { ok: true, value: { path: file, root, config, locate: (keyPath) => locations[JSON.stringify(keyPath)] } };
  }

  // Validate the very text the key was made from, so the cache never pairs one text with another's result.
  const { parseConfig, checkConfigFilesystem } = await import('./load.js');
  const parsed = parseConfig(text, file);
  if (!parsed.ok || (await checkConfigFilesystem(parsed.value)).length > 0) return full();
  await writeCache(cacheFile, { key, config: parsed.value.config, locations: locationTable(parsed.value) });
  return parsed;
}
