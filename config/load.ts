/**
 * Finding, reading and validating `.platctl.yaml`. Every problem a user can cause comes back as a `ConfigError`
 * value (all of them, in file order), never as an exception.
 *
 * The steps, each usable alone:
 * - `findConfig`: `--config FILE`, else the nearest `.platctl.yaml` upward from the working directory;
 * - `parseConfig`: YAML, schema, placeholders and cross-key checks on text, with no I/O;
 * - `checkConfigFilesystem`: the environment dirs exist and are directories;
 * - `loadConfig`: all of the above.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SourceLocation } from './location.js';
import type { ConfigError, KeyPath } from './errors.js';
import { formatKeyPath, sortConfigErrors } from './errors.js';
import { issuesToErrors } from './issues.js';
import type { PlatctlConfig } from './schema.js';
import { configSchema } from './schema.js';
import { envDirErrors, envDirsOf, placeholderErrors, semanticErrors } from './semantic.js';
import type { ConfigSource } from './source.js';
import { parseConfigSource } from './source.js';

import { findConfig } from './find.js';
export { CONFIG_FILE_NAME, findConfig } from './find.js';
export type { FindConfigResult } from './find.js';

/** A validated configuration and where it came from. */
export interface LoadedConfig {
  /** Absolute path of the file. */
  readonly path: string;
  /** The repository root: the file's directory. Environment dirs, `exclude` globs and state files are below it. */
  readonly root: string;
  readonly config: PlatctlConfig;
  /**
   * Where a key is written, e.g. `locate(['implicit_deps', 'platform/cilium'])` for the line of that entry or
   * `locate(['implicit_deps', 'platform/cilium', 0])` for its first item; undefined when the file does not spell
   * the key out (a default).
   */
  readonly locate: (keyPath: KeyPath) => SourceLocation | undefined;
}

export type ConfigResult = { ok: true; value: LoadedConfig } | { ok: false; errors: ConfigError[] };

export interface LoadConfigOptions {
  /** `--config FILE`, relative to `cwd`; when absent the file is searched upward from `cwd`. */
  readonly path?: string | undefined;
  readonly cwd: string;
  /** Check that environment dirs exist (default true). Off to validate a file away from its repository. */
  readonly checkFilesystem?: boolean;
}

interface Analysis {
  readonly source: ConfigSource;
  readonly errors: ConfigError[];
  readonly config?: PlatctlConfig;
}

function analyse(text: string, file: string): Analysis {
  // A byte order mark is not part of the YAML a user sees.
  const source = parseConfigSource(text.startsWith('\uFEFF') ? text.slice(1) : text, file);
  // Broken YAML makes any further message a guess about what was meant: report the syntax first.
  if (source.errors.length > 0) return { source, errors: source.errors };

  const placeholders = placeholderErrors(source);
  const parsed = configSchema.safeParse(source.data);
  const schema = parsed.success ? [] : issuesToErrors(parsed.error.issues, source, source.data);
  const semantic = semanticErrors(source);

  // One message per key: a placeholder explains a malformed value better than the format error it causes.
  const taken = new Set(placeholders.map((e) => e.keyPath));
  const schemaKept = schema.filter((e) => !taken.has(e.keyPath));
  for (const e of schemaKept) taken.add(e.keyPath);
  const semanticKept = semantic.filter((e) => !taken.has(e.keyPath));

  const errors = [...placeholders, ...schemaKept, ...semanticKept];
  return parsed.success && errors.length === 0 ? { source, errors, config: parsed.data } : { source, errors };
}

function toLoaded(file: string, source: ConfigSource, config: PlatctlConfig): LoadedConfig {
  return {
    path: file,
    root: path.dirname(file),
    config,
    locate: (keyPath) => {
      const { location, exact } = source.locate(keyPath, 'key');
      return exact ? location : undefined;
    },
  };
}

/**
 * Validates configuration text without touching the filesystem: YAML syntax, the schema (unknown keys with a
 * did-you-mean, types, formats), placeholders, and references between keys. `file` is used for positions and to
 * derive `root`; make it absolute.
 */
export function parseConfig(text: string, file: string): ConfigResult {
  const { source, errors, config } = analyse(text, file);
  if (config === undefined) return { ok: false, errors: sortConfigErrors(errors) };
  return { ok: true, value: toLoaded(file, source, config) };
}

/** The filesystem checks of a loaded configuration: every environment dir exists below the root as a directory. */
export async function checkConfigFilesystem(loaded: LoadedConfig): Promise<ConfigError[]> {
  const dirs = Object.entries(loaded.config.environments).map(([env, settings]) => ({
    env,
    dir: settings.dir,
    keyPath: ['environments', env, 'dir'],
  }));
  return envDirErrors(loaded.root, dirs, (keyPath) => loaded.locate(keyPath));
}

/**
 * Finds, reads and validates the configuration, reporting every problem: the file (see `findConfig`), its YAML,
 * its schema, placeholders, cross-key references and (unless `checkFilesystem: false`) the environment dirs.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<ConfigResult> {
  const found = await findConfig(options.cwd, options.path);
  if (!found.ok) return { ok: false, errors: [found.error] };
  const file = found.path;

  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    const code = (cause as { code?: unknown }).code;
    return {
      ok: false,
      errors: [
        {
          reason: 'unreadable',
          message: `cannot read ${file}: ${typeof code === 'string' ? code : String(cause)}`,
          keyPath: '',
          location: { file, line: 1, column: 1 },
          hint: 'check the file permissions',
        },
      ],
    };
  }

  const { source, errors, config } = analyse(text, file);
  const root = path.dirname(file);
  if (options.checkFilesystem !== false && source.errors.length === 0) {
    // Run even when the schema failed, on the dirs as written, so one pass shows every problem.
    const taken = new Set(errors.map((e) => e.keyPath));
    const dirs = envDirsOf(source.data).filter((d) => !taken.has(formatKeyPath(d.keyPath)));
    errors.push(...(await envDirErrors(root, dirs, (keyPath) => source.locate(keyPath, 'value').location)));
  }
  if (config === undefined || errors.length > 0) return { ok: false, errors: sortConfigErrors(errors) };
  return { ok: true, value: toLoaded(file, source, config) };
}
