/**
 * Evaluated units kept across runs (`.platctl-cache/units.json`), so an unchanged repository is not evaluated
 * again. Each entry records every input its evaluation read through the host: the content hash of each file parsed
 * or read, each existence check, each environment variable, each glob and git root. An entry is reused only when
 * every one of those reads gives the same answer now, so a changed include, a new `env.hcl` that
 * find_in_parent_folders would now find, or a different `get_env` value each force a fresh evaluation.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EvaluationHost, UnitConfig } from './unit-config.js';

export interface UnitInputs {
  /** Parsed files: path to content hash, null when the file was missing. */
  readonly files: Record<string, string | null>;
  readonly kinds: Record<string, 'file' | 'dir' | null>;
  /** find_in_parent_folders searches, `<dir>\0<probe>...`, to what they found. */
  readonly finds: Record<string, string | null>;
  readonly env: Record<string, string | null>;
  /** Files read as text (file(), templatefile()): path to content hash. */
  readonly texts: Record<string, string | null>;
  /** `<dir>\0<pattern>` to the matches. */
  readonly globs: Record<string, string[]>;
  readonly repoRoots: Record<string, string | null>;
}

export interface CachedUnit {
  readonly id: string;
  /** Options that change evaluation (remote_state on or off). */
  readonly mode: string;
  readonly inputs: UnitInputs;
  readonly config: UnitConfig;
}

interface CacheFile {
  readonly key: string;
  readonly units: Record<string, CachedUnit>;
}

function textHash(text: string | undefined): string | null {
  return text === undefined ? null : createHash('sha256').update(text).digest('base64url');
}

/** A host that answers like `base` and writes down every question asked and the answer given. */
export function recordingHost(base: EvaluationHost): { host: EvaluationHost; inputs: UnitInputs } {
  const inputs: UnitInputs = { files: {}, kinds: {}, finds: {}, env: {}, texts: {}, globs: {}, repoRoots: {} };
  const env = new Proxy(base.env, {
    get: (target, key) => {
      if (typeof key !== 'string') return undefined;
      const value = target[key];
      inputs.env[key] = value ?? null;
      return value;
    },
  });
  const host: EvaluationHost = {
    remoteState: base.remoteState,
    env,
    files: {
      has: (path) => base.files.has(path),
      get: (path) => {
        const file = base.files.get(path);
        inputs.files[path] = file?.hash ?? null;
        return file;
      },
      hashOf: (path) => base.files.hashOf(path),
      positions: (file) => base.files.positions(file),
    },
    kind: (path) => {
      const kind = base.kind(path);
      inputs.kinds[path] = kind ?? null;
      return kind;
    },
    findUp: (dir, probes) => {
      const found = base.findUp(dir, probes);
      inputs.finds[[dir, ...probes].join('\u0000')] = found ?? null;
      return found;
    },
    repoRoot: (dir) => {
      const root = base.repoRoot(dir);
      inputs.repoRoots[dir] = root ?? null;
      return root;
    },
    readText: (path) => {
      const text = base.readText(path);
      inputs.texts[path] = textHash(text);
      return text;
    },
    glob: (pattern, dir) => {
      const found = base.glob(pattern, dir);
      inputs.globs[`${dir}\u0000${pattern}`] = [...found];
      return found;
    },
  };
  return { host, inputs };
}

/** Every file path an entry depends on, so they can all be read (and hashed) in one batch before checking. */
export function recordedFiles(entry: CachedUnit): string[] {
  return Object.keys(entry.inputs.files);
}

/** True when every recorded read gives the same answer now. */
export function stillValid(entry: CachedUnit, host: EvaluationHost): boolean {
  const { inputs } = entry;
  for (const [path, hash] of Object.entries(inputs.files)) {
    if (host.files.hashOf(path) !== hash) return false;
  }
  for (const [path, kind] of Object.entries(inputs.kinds)) if ((host.kind(path) ?? null) !== kind) return false;
  for (const [key, found] of Object.entries(inputs.finds)) {
    const [dir = '', ...probes] = key.split('\u0000');
    if ((host.findUp(dir, probes) ?? null) !== found) return false;
  }
  for (const [name, value] of Object.entries(inputs.env)) if ((host.env[name] ?? null) !== value) return false;
  for (const [dir, root] of Object.entries(inputs.repoRoots)) if ((host.repoRoot(dir) ?? null) !== root) return false;
  for (const [path, hash] of Object.entries(inputs.texts)) if (textHash(host.readText(path)) !== hash) return false;
  for (const [key, found] of Object.entries(inputs.globs)) {
    const [dir = '', pattern = ''] = key.split('\u0000');
    const now = host.glob(pattern, dir);
    if (now.length !== found.length || now.some((p, i) => p !== found[i])) return false;
  }
  return true;
}

/** The on-disk store of evaluated units. */
export class UnitCache {
  readonly #dir: string | false;
  readonly #key: string;
  #stored: Record<string, CachedUnit> = {};
  readonly #next: Record<string, CachedUnit> = {};
  #changed = false;

  /** `key` names everything that invalidates all entries at once (platctl and parser versions). */
  constructor(dir: string | false, key: string) {
    this.#dir = dir;
    this.#key = key;
  }

  async load(): Promise<void> {
    if (this.#dir === false) return;
    try {
      const raw = JSON.parse(await readFile(join(this.#dir, 'units.json'), 'utf8')) as CacheFile;
      if (raw.key === this.#key) this.#stored = raw.units;
    } catch {
      // No cache yet, or an unreadable one: it is only a cache.
    }
  }

  /** True when no stored entry can be reused (no cache, another platctl or parser): every unit evaluates afresh. */
  get empty(): boolean {
    return Object.keys(this.#stored).length === 0;
  }

  /** The stored entry for a unit file, when it was made for the same id and mode. */
  candidate(configFile: string, id: string, mode: string): CachedUnit | undefined {
    const entry = this.#stored[configFile];
    return entry && entry.id === id && entry.mode === mode ? entry : undefined;
  }

  /** Keeps an entry for the next run (a reused one, or a fresh evaluation). */
  keep(configFile: string, entry: CachedUnit, fresh: boolean): void {
    this.#next[configFile] = entry;
    if (fresh) this.#changed = true;
  }

  async save(): Promise<void> {
    if (this.#dir === false) return;
    const dropped = Object.keys(this.#stored).some((file) => !(file in this.#next));
    if (!this.#changed && !dropped) return;
    const body: CacheFile = { key: this.#key, units: this.#next };
    try {
      await mkdir(this.#dir, { recursive: true });
      const target = join(this.#dir, 'units.json');
      const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(tmp, JSON.stringify(body));
      await rename(tmp, target);
    } catch {
      // A read-only checkout still discovers; it just evaluates again next time.
    }
  }
}
