/**
 * Parsed HCL files for one discovery run: each file is read and parsed once per run however many units include or
 * read it, and parses are kept across runs in `.platctl-cache/` keyed by the content's hash, so an unchanged
 * repository is not parsed again.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceLocation } from '../engine/graph.js';
import { HclParserPool, PARSER_ID } from './hcl2json.js';
import type { ParseOutcome } from './hcl2json.js';
import { outline } from './hcl/index.js';

/** A file as discovery sees it: its text (for positions) and what the parser made of it. */
export interface ParsedFile {
  readonly path: string;
  readonly content: string;
  /** SHA-256 of the content (base64url): the cache key. */
  readonly hash: string;
  readonly outcome: ParseOutcome;
}

/** Where a top-level block and its attributes are written (hcl2json keeps no positions). */
export interface BlockPosition {
  readonly type: string;
  readonly labels: readonly string[];
  readonly line: number;
  readonly column: number;
  /** Attribute name to [line, column]. */
  readonly attributes: Readonly<Record<string, readonly [number, number]>>;
}

type CachedOutcome =
  | { ok: true; json: Record<string, unknown>; positions?: BlockPosition[] }
  | { ok: false; message: string; line: number; column?: number | undefined };

interface CacheFile {
  readonly parser: string;
  readonly platctl: string;
  readonly entries: Record<string, CachedOutcome>;
}

export interface ParsedFilesOptions {
  /** Directory for the on-disk cache; false: no cache. */
  readonly cacheDir: string | false;
  /** Part of the cache key: a new platctl version starts a new cache. */
  readonly version: string;
  readonly pool?: HclParserPool;
}

export class ParsedFiles {
  readonly #files = new Map<string, ParsedFile>();
  readonly #missing = new Set<string>();
  /** Files read and hashed but not (yet) given their parse. */
  readonly #read = new Map<string, { content: string; hash: string }>();
  readonly #options: ParsedFilesOptions;
  #pool: HclParserPool | undefined;
  #cache: Map<string, CachedOutcome> | undefined;
  #cacheDirty = false;
  readonly #usedHashes = new Set<string>();
  /** Files parsed by the parser in this run (not served from the cache). */
  parsedCount = 0;

  constructor(options: ParsedFilesOptions) {
    this.#options = options;
    this.#pool = options.pool;
  }

  get(path: string): ParsedFile | undefined {
    return this.#files.get(path);
  }

  has(path: string): boolean {
    return this.#files.has(path) || this.#missing.has(path);
  }

  /** True when `ensure` found the file missing or unreadable. */
  isMissing(path: string): boolean {
    return this.#missing.has(path);
  }

  /** The content hash of a file read in this run; null when it was missing; undefined when not read yet. */
  hashOf(path: string): string | null | undefined {
    const known = this.#files.get(path)?.hash ?? this.#read.get(path)?.hash;
    if (known !== undefined) return known;
    return this.#missing.has(path) ? null : undefined;
  }

  /**
   * Reads every path not read yet in this run and, unless `parse` is false, gives each its parse (from the cache,
   * or from the parser). Reading without parsing is enough to check that cached units are still valid, and skips
   * loading the parse cache when nothing needs evaluating.
   */
  async ensure(paths: Iterable<string>, options: { parse?: boolean } = {}): Promise<void> {
    const wanted = [...new Set(paths)].filter((p) => !this.has(p));
    if (wanted.length === 0) return;
    const unread = wanted.filter((p) => !this.#read.has(p));
    const texts = await readAll(unread);
    texts.forEach((text, i) => {
      if (text === undefined) {
        this.#missing.add(unread[i] ?? '');
        return;
      }
      const hash = createHash('sha256').update(text.content).digest('base64url');
      this.#usedHashes.add(hash);
      this.#read.set(text.path, { content: text.content, hash });
    });
    if (options.parse === false) return;
    const cache = await this.#loadCache();
    const toParse: { path: string; content: string; hash: string }[] = [];
    for (const path of wanted) {
      const text = this.#read.get(path);
      if (!text) continue;
      const cached = cache.get(text.hash);
      if (cached) this.#files.set(path, { path, ...text, outcome: fromCache(cached, path) });
      else toParse.push({ path, ...text });
    }
    if (toParse.length === 0) return;
    // Identical contents (units that only include a shared file are common) are parsed once.
    const byHash = new Map<string, { path: string; content: string }>();
    for (const t of toParse) if (!byHash.has(t.hash)) byHash.set(t.hash, t);
    this.#pool ??= new HclParserPool(byHash.size < 64 ? 1 : undefined);
    const outcomes = await this.#pool.parseAll([...byHash.values()].map((t) => ({ file: t.path, content: t.content })));
    this.parsedCount += byHash.size;
    for (const [hash, first] of byHash) {
      const outcome = outcomes.get(first.path);
      if (outcome) cache.set(hash, toCache(outcome));
    }
    this.#cacheDirty = true;
    for (const t of toParse) {
      const entry = cache.get(t.hash);
      if (!entry) continue;
      this.#files.set(t.path, { path: t.path, content: t.content, hash: t.hash, outcome: fromCache(entry, t.path) });
    }
  }

  /**
   * Positions of the file's top-level blocks and their attributes, from a structural scan of its text; computed once
   * per content and kept in the cache with the parse.
   */
  positions(file: ParsedFile): readonly BlockPosition[] {
    const entry = this.#cache?.get(file.hash);
    if (entry?.ok && entry.positions) return entry.positions;
    const positions: BlockPosition[] = outline(file.content).map((block) => {
      const attributes: Record<string, [number, number]> = {};
      for (const attr of block.attributes) attributes[attr.name] ??= [attr.line, attr.column];
      return { type: block.type, labels: [...block.labels], line: block.line, column: block.column, attributes };
    });
    if (entry?.ok) {
      entry.positions = positions;
      this.#cacheDirty = true;
    }
    return positions;
  }

  async #loadCache(): Promise<Map<string, CachedOutcome>> {
    if (this.#cache) return this.#cache;
    this.#cache = new Map();
    if (this.#options.cacheDir === false) return this.#cache;
    try {
      const raw = JSON.parse(await readFile(this.#cachePath(), 'utf8')) as CacheFile;
      if (raw.parser === PARSER_ID && raw.platctl === this.#options.version) {
        for (const [hash, entry] of Object.entries(raw.entries)) this.#cache.set(hash, entry);
      }
    } catch {
      // No cache yet, or an unreadable one: it is only a cache.
    }
    return this.#cache;
  }

  #cachePath(): string {
    return join(this.#options.cacheDir || '.', 'hcl-parse.json');
  }

  /**
   * Writes the cache when this run parsed something new or stopped using entries, keeping only the entries this
   * run used (so the file does not grow forever). Atomic: a temp file renamed into place.
   */
  async save(): Promise<void> {
    const dir = this.#options.cacheDir;
    const cache = this.#cache;
    if (dir === false || !cache) return;
    const stale = [...cache.keys()].some((h) => !this.#usedHashes.has(h));
    if (!this.#cacheDirty && !stale) return;
    const entries: Record<string, CachedOutcome> = {};
    for (const hash of this.#usedHashes) {
      const entry = cache.get(hash);
      if (entry) entries[hash] = entry;
    }
    const body: CacheFile = { parser: PARSER_ID, platctl: this.#options.version, entries };
    try {
      await mkdir(dir, { recursive: true });
      const tmp = `${this.#cachePath()}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(tmp, JSON.stringify(body));
      await rename(tmp, this.#cachePath());
    } catch {
      // A read-only checkout still discovers; it just parses again next time.
    }
  }

  async close(): Promise<void> {
    await this.#pool?.close();
    this.#pool = undefined;
  }
}

/** Files read per slice before yielding to the event loop. */
const READ_SLICE = 256;

/**
 * Reads files synchronously in slices, yielding between slices: for thousands of small files this is several times
 * faster than one promise per file through the thread pool, and no slice blocks the event loop for long.
 */
async function readAll(paths: readonly string[]): Promise<({ path: string; content: string } | undefined)[]> {
  const out: ({ path: string; content: string } | undefined)[] = [];
  for (let i = 0; i < paths.length; i += READ_SLICE) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const path of paths.slice(i, i + READ_SLICE)) {
      try {
        out.push({ path, content: readFileSync(path, 'utf8') });
      } catch {
        out.push(undefined);
      }
    }
  }
  return out;
}

function toCache(outcome: ParseOutcome): CachedOutcome {
  if (outcome.ok) return { ok: true, json: outcome.json };
  return { ok: false, message: outcome.message, line: outcome.location.line, column: outcome.location.column };
}

function fromCache(entry: CachedOutcome, file: string): ParseOutcome {
  if (entry.ok) return { ok: true, json: entry.json };
  const location: SourceLocation =
    entry.column === undefined ? { file, line: entry.line } : { file, line: entry.line, column: entry.column };
  return { ok: false, message: entry.message, location };
}
