/**
 * Evaluated units kept across runs (`.platctl-cache/units.json`), so an unchanged repository is not evaluated
 * again. Each entry records every input its evaluation read through the host: the content hash of each file parsed
 * or read, each existence check, each environment variable, each glob and git root. An entry is reused only when
 * every one of those reads gives the same answer now, so a changed include, a new `env.hcl` that
 * find_in_parent_folders would now find, or a different `get_env` value each force a fresh evaluation.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EvaluationHost, FileSource, UnitConfig } from './unit-config.js';
import type { BlockPosition, ParsedFile } from './parsed-files.js';
import { contentHash } from './parsed-files.js';
import { childPath } from './scan.js';
import { writeFileAtomic } from '../config/atomic-write.js';

/**
 * What an evaluation asked and was answered, each as a flat list of question, answer, question, answer... Flat
 * lists, not objects keyed by path: objects with thousands of distinct keys made reading the cache (JSON.parse)
 * and collecting its garbage about twice as slow.
 */
export interface UnitInputs {
  /** Parsed files: path, content hash (null when the file was missing). */
  readonly files: readonly (string | null)[];
  /** Existence checks: path, 'file' | 'dir' | null. */
  readonly kinds: readonly (string | null)[];
  /** find_in_parent_folders searches: `<dir>\0<probe>...`, what they found (null: nothing). */
  readonly finds: readonly (string | null)[];
  /** Environment variables: name, value (null: unset). */
  readonly env: readonly (string | null)[];
  /** Files read as text (file(), templatefile()): path, content hash. */
  readonly texts: readonly (string | null)[];
  /** Globs: `<dir>\0<pattern>`, the matches. */
  readonly globs: readonly (string | string[])[];
  /** Git roots: directory, root (null: none). */
  readonly repoRoots: readonly (string | null)[];
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
  /** Unit file, entry, unit file, entry... */
  readonly units: readonly (string | CachedUnit)[];
}

function textHash(text: string | undefined): string | null {
  return text === undefined ? null : contentHash(text);
}

const NO_ANSWERS: readonly never[] = Object.freeze([]);

/**
 * The answers as one flat list, exactly as long as it needs to be. A cold run keeps seven of these per unit until
 * the cache is written: grown by `push`, each had room for 17 entries, and together they were the largest thing
 * such a run kept alive (4.6 MB of 36 MB at 5,000 units), all of it copied by every scavenge of the young heap.
 */
function flat<T>(answers: ReadonlyMap<string, T> | undefined): readonly (string | T)[] {
  if (!answers || answers.size === 0) return NO_ANSWERS;
  const out = new Array<string | T>(answers.size * 2);
  let at = 0;
  for (const [question, answer] of answers) {
    out[at++] = question;
    out[at++] = answer;
  }
  return out;
}

/** Each question and answer of a flat list. */
function* pairs<T>(list: readonly (string | T)[]): Generator<[string, T]> {
  for (let i = 0; i + 1 < list.length; i += 2) yield [list[i] as string, list[i + 1] as T];
}

/** The searches of a findLog as UnitInputs records them: `<dir>\0<probe>...`, what was found (null: nothing). */
function findQuestions(log: readonly (string | readonly string[] | undefined)[]): Map<string, string | null> {
  const finds = new Map<string, string | null>();
  for (let i = 0; i + 2 < log.length; i += 3) {
    const dir = log[i] as string;
    const probes = log[i + 1] as readonly string[];
    const found = log[i + 2] as string | undefined;
    finds.set(probes.length === 1 ? `${dir}\u0000${probes[0]}` : [dir, ...probes].join('\u0000'), found ?? null);
  }
  return finds;
}

/**
 * A host that answers like `base` and writes down every question asked and the answer given; `inputs()` gives what
 * was written down.
 */
export function recordingHost(base: EvaluationHost): { host: EvaluationHost; inputs: () => UnitInputs } {
  const host = new RecordingHost(base);
  return { host, inputs: () => host.inputs() };
}

/**
 * The recording host of one unit's evaluation, and its view of the parsed files: methods rather than a dozen
 * closures per unit. The maps few units need (text, globs, git roots) are made on first use.
 */
class RecordingHost implements EvaluationHost, FileSource {
  readonly remoteState: boolean;
  readonly #base: EvaluationHost;
  readonly #files = new Map<string, string | null>();
  readonly #kinds = new Map<string, 'file' | 'dir' | null>();
  /** find_in_parent_folders searches, in order: directory, probes, what was found. */
  readonly #findLog: (string | readonly string[] | undefined)[] = [];
  readonly #envRead = new Map<string, string | null>();
  #env: Readonly<Record<string, string | undefined>> | undefined;
  #texts: Map<string, string | null> | undefined;
  #globs: Map<string, string[]> | undefined;
  #repoRoots: Map<string, string | null> | undefined;

  constructor(base: EvaluationHost) {
    this.#base = base;
    this.remoteState = base.remoteState;
  }

  get files(): FileSource {
    return this;
  }

  get env(): Readonly<Record<string, string | undefined>> {
    const envRead = this.#envRead;
    const base = this.#base;
    this.#env ??= new Proxy(base.env, {
      get: (_target, key) => {
        if (typeof key !== 'string') return undefined;
        const value = base.env[key];
        envRead.set(key, value ?? null);
        return value;
      },
    });
    return this.#env;
  }

  has(path: string): boolean {
    return this.#base.files.has(path);
  }

  get(path: string): ParsedFile | undefined {
    const file = this.#base.files.get(path);
    this.#files.set(path, file?.hash ?? null);
    return file;
  }

  hashOf(path: string): string | null | undefined {
    return this.#base.files.hashOf(path);
  }

  positions(file: ParsedFile): readonly BlockPosition[] {
    return this.#base.files.positions(file);
  }

  kind(path: string): 'file' | 'dir' | undefined {
    const kind = this.#base.kind(path);
    this.#kinds.set(path, kind ?? null);
    return kind;
  }

  kindOf(dir: string, name: string): 'file' | 'dir' | undefined {
    const kind = this.#base.kindOf(dir, name);
    this.#kinds.set(childPath(dir, name), kind ?? null);
    return kind;
  }

  findUp(dir: string, probes: readonly string[]): string | undefined {
    const found = this.#base.findUp(dir, probes);
    // Keyed when inputs() are asked for: building the key for every call was a visible share of a unit's
    // evaluation (each unit searches for its root file once or twice).
    this.#findLog.push(dir, probes, found);
    return found;
  }

  repoRoot(dir: string): string | undefined {
    const root = this.#base.repoRoot(dir);
    (this.#repoRoots ??= new Map()).set(dir, root ?? null);
    return root;
  }

  readText(path: string): string | undefined {
    const text = this.#base.readText(path);
    (this.#texts ??= new Map()).set(path, textHash(text));
    return text;
  }

  glob(pattern: string, dir: string): string[] {
    const found = this.#base.glob(pattern, dir);
    (this.#globs ??= new Map()).set(`${dir}\u0000${pattern}`, [...found]);
    return found;
  }

  inputs(): UnitInputs {
    return {
      files: flat(this.#files),
      kinds: flat(this.#kinds),
      finds: flat(findQuestions(this.#findLog)),
      env: flat(this.#envRead),
      texts: flat(this.#texts),
      globs: flat(this.#globs),
      repoRoots: flat(this.#repoRoots),
    };
  }
}

/** Every file path an entry depends on, so they can all be read (and hashed) in one batch before checking. */
export function recordedFiles(entry: CachedUnit): string[] {
  return [...pairs(entry.inputs.files)].map(([path]) => path);
}

/** True when every recorded read gives the same answer now. */
export function stillValid(entry: CachedUnit, host: EvaluationHost): boolean {
  const { files, kinds, finds, env, repoRoots, texts, globs } = entry.inputs;
  // Indexed loops: this runs for every cached unit of a warm run.
  for (let i = 0; i + 1 < files.length; i += 2)
    if (host.files.hashOf(files[i] as string) !== files[i + 1]) return false;
  for (let i = 0; i + 1 < kinds.length; i += 2)
    if ((host.kind(kinds[i] as string) ?? null) !== kinds[i + 1]) return false;
  for (let i = 0; i + 1 < finds.length; i += 2) {
    const [dir = '', ...probes] = (finds[i] as string).split('\u0000');
    if ((host.findUp(dir, probes) ?? null) !== finds[i + 1]) return false;
  }
  for (let i = 0; i + 1 < env.length; i += 2) if ((host.env[env[i] as string] ?? null) !== env[i + 1]) return false;
  for (let i = 0; i + 1 < repoRoots.length; i += 2) {
    if ((host.repoRoot(repoRoots[i] as string) ?? null) !== repoRoots[i + 1]) return false;
  }
  for (let i = 0; i + 1 < texts.length; i += 2) {
    if (textHash(host.readText(texts[i] as string)) !== texts[i + 1]) return false;
  }
  for (const [key, found] of pairs<string[]>(globs)) {
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
  #stored = new Map<string, CachedUnit>();
  readonly #next = new Map<string, CachedUnit>();
  #changed = false;

  /** `key` names everything that invalidates all entries at once (platctl and parser versions). */
  constructor(dir: string | false, key: string) {
    this.#dir = dir;
    this.#key = key;
  }

  async load(): Promise<void> {
    if (this.#dir === false) return;
    try {
      // Checked by structure, not by the schema library: the cache is keyed by the platctl version, code hash and
      // parser this build wrote, always safe to delete, and anything that does not match (or throws) is a miss that
      // evaluates the units afresh. Loading zod here would cost the warm path the very start-up the cache exists to
      // save.
      const raw = JSON.parse(await readFile(join(this.#dir, 'units.json'), 'utf8')) as CacheFile;
      if (raw.key === this.#key && Array.isArray(raw.units)) this.#stored = new Map(pairs<CachedUnit>(raw.units));
    } catch {
      // No cache yet, or an unreadable one: it is only a cache.
    }
  }

  /** True when no stored entry can be reused (no cache, another platctl or parser): every unit evaluates afresh. */
  get empty(): boolean {
    return this.#stored.size === 0;
  }

  /** The stored entry for a unit file, when it was made for the same id and mode. */
  candidate(configFile: string, id: string, mode: string): CachedUnit | undefined {
    const entry = this.#stored.get(configFile);
    return entry && entry.id === id && entry.mode === mode ? entry : undefined;
  }

  /** Keeps an entry for the next run (a reused one, or a fresh evaluation). */
  keep(configFile: string, entry: CachedUnit, fresh: boolean): void {
    this.#next.set(configFile, entry);
    if (fresh) this.#changed = true;
  }

  async save(): Promise<void> {
    if (this.#dir === false) return;
    const dropped = [...this.#stored.keys()].some((file) => !this.#next.has(file));
    if (!this.#changed && !dropped) return;
    const body: CacheFile = { key: this.#key, units: flat(this.#next) };
    try {
      await mkdir(this.#dir, { recursive: true });
      await writeFileAtomic(join(this.#dir, 'units.json'), JSON.stringify(body), { fsync: false });
    } catch {
      // A read-only checkout still discovers; it just evaluates again next time.
    }
  }
}
