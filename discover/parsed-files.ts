/**
 * Parsed HCL files for one discovery run: each file is read and parsed once per run however many units include or
 * read it, and parses are kept across runs in `.platctl-cache/` keyed by the content's hash, so an unchanged
 * repository is not parsed again.
 */
import { hash as digest } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceLocation } from '../engine/graph.js';
import { HclParserPool, PARSER_ID } from './hcl2json.js';
import type { ParseOutcome } from './hcl2json.js';
import { tokenize } from './hcl/lexer.js';
import { outline } from './hcl/outline.js';
import { blockPositions, parseHclFile } from './hcl/file-parser.js';
import type { PackedPositions } from './hcl/file-parser.js';
import { MIXED_INCLUDE_FAILURE, labelBareIncludes } from './bare-include.js';
import { hclJsonPositions, isHclJson, parseHclJson } from './hcl-json.js';
import type { BlockPosition } from './hcl-json.js';
import { writeFileAtomic } from '../config/atomic-write.js';

export type { BlockPosition };

/** A file as discovery sees it: its text (for positions) and what the parser made of it. */
export interface ParsedFile {
  readonly path: string;
  readonly content: string;
  /** SHA-256 of the content (base64url): the cache key. */
  readonly hash: string;
  readonly outcome: ParseOutcome;
  /**
   * Why the file never reached the parser: it could not be read (permission denied, ...), it is not UTF-8, which
   * HCL requires, or an expression in it nests deeper than {@link MAX_NESTING} (the parser would panic or hang). The
   * outcome then holds the error, at the file's first line, the first bad byte, or where the nesting passes the limit.
   */
  readonly unusable?: 'unreadable' | 'encoding' | 'nesting';
}

type CachedOutcome =
  | { ok: true; json: Record<string, unknown>; positions?: BlockPosition[] }
  | {
      ok: false;
      message: string;
      line: number;
      column?: number | undefined;
      others?: readonly string[];
      workerFailure?: true;
    };

/**
 * Bumped when what is cached for a content changes (2: the mixed-include fallback; 3: parses from the TypeScript
 * file parser).
 */
const CACHE_FORMAT = 3;

interface CacheFile {
  readonly format?: number;
  readonly parser: string;
  readonly platctl: string;
  readonly entries: Record<string, CachedOutcome>;
}

/** A file read and hashed, waiting for its parse. */
interface PendingParse {
  readonly path: string;
  readonly content: string;
  readonly hash: string;
}

/** How long the fast parser runs on the main thread before it yields to the event loop. */
const FAST_SLICE_MS = 8;
/** How many files the fast parser takes between two looks at the clock. */
const CLOCK_EVERY = 16;

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
  /** Files given to the parser and not back yet: each settles when its file is available. */
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #options: ParsedFilesOptions;
  #pool: HclParserPool | undefined;
  #cache: Map<string, CachedOutcome> | undefined;
  #cacheDirty = false;
  /** Outcomes of this run that must not be cached (the parser crashed or hung on the file). */
  readonly #uncached = new Map<string, CachedOutcome>();
  readonly #usedHashes = new Set<string>();
  /**
   * Positions the fast parser found, by content hash, not yet asked for. Kept from its one pass: every unit with a
   * dependency asks for its file's (the location of `config_path`), and parsing those files again when asked cost a
   * cold run more than keeping every file's.
   */
  readonly #fastPositions = new Map<string, PackedPositions>();
  /** Exceptions inside the fast file parser (bugs), by content hash and by file. */
  readonly #fastParserBugs = new Map<string, Error>();
  readonly #bugsByPath = new Map<string, Error>();
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

  /** Every path read in this run, or found missing: what the run's outcome depends on. */
  seen(): string[] {
    return [...new Set([...this.#files.keys(), ...this.#read.keys(), ...this.#missing])];
  }

  /** True when `ensure` found the file missing (an unreadable one is a file with `unusable` set). */
  isMissing(path: string): boolean {
    return this.#missing.has(path);
  }

  /** True when the parser crashed or hung on the file in this run (its outcome says nothing about its syntax). */
  failedByWorker(path: string): boolean {
    const outcome = this.#files.get(path)?.outcome;
    return outcome?.ok === false && outcome.workerFailure === true;
  }

  /**
   * Files the fast file parser failed on with an exception (a bug in platctl; hcl2json parsed them instead), each
   * with the exception.
   */
  fastParserBugs(): ReadonlyMap<string, Error> {
    return this.#bugsByPath;
  }

  /** The content hash of a file read in this run; null when it was missing; undefined when not read yet. */
  hashOf(path: string): string | null | undefined {
    const known = this.#files.get(path)?.hash ?? this.#read.get(path)?.hash;
    if (known !== undefined) return known;
    return this.#missing.has(path) ? null : undefined;
  }

  /**
   * Reads every path not read yet in this run and, unless `parse` is false, gives each its parse (from the cache,
   * or from the parser) before returning. Reading without parsing is enough to check that cached units are still
   * valid, and skips loading the parse cache when nothing needs evaluating. A file already being parsed (see
   * {@link startParsing}) is waited for; the others are parsed ahead of everything queued.
   */
  async ensure(paths: Iterable<string>, options: { parse?: boolean } = {}): Promise<void> {
    const wanted = await this.#readNew(paths);
    if (options.parse === false) return;
    const rest = wanted.filter((p) => !this.#inFlight.has(p));
    await Promise.all(await this.#parse(rest, true));
    // Files another call was parsing: a file the fast parser declined moves on to the pool, under a new promise.
    for (let waits = this.#waits(wanted); waits.length > 0; waits = this.#waits(wanted)) await Promise.all(waits);
  }

  #waits(paths: readonly string[]): Promise<void>[] {
    return paths.flatMap((p) => this.#inFlight.get(p) ?? []);
  }

  /**
   * Reads the files and starts parsing them, in the order given, without waiting for the parses: each file becomes
   * available (`has`) when its batch is back, and `ensure` waits for one needed sooner. Discovery evaluates units
   * while later ones still parse.
   */
  async startParsing(paths: Iterable<string>): Promise<void> {
    const wanted = await this.#readNew(paths);
    // Not awaited: each file's promise is kept in #inFlight, its failure handled, for whoever needs the file.
    void (await this.#parse(
      wanted.filter((p) => !this.#inFlight.has(p)),
      false,
    ));
  }

  /** The paths not read or parsed yet, read and hashed now (a missing one is remembered as missing). */
  async #readNew(paths: Iterable<string>): Promise<string[]> {
    const wanted = [...new Set(paths)].filter((p) => !this.has(p));
    const unread = wanted.filter((p) => !this.#read.has(p) && !this.#inFlight.has(p));
    const texts = await readAll(unread);
    texts.forEach((text, i) => {
      if (text === undefined) {
        this.#missing.add(unread[i] ?? '');
        return;
      }
      if ('unusable' in text) {
        // Never parsed, never in the parse cache: the outcome is the error itself.
        this.#files.set(text.path, text);
        return;
      }
      const hash = contentHash(text.content);
      this.#usedHashes.add(hash);
      this.#read.set(text.path, { content: text.content, hash });
    });
    return wanted.filter((p) => !this.#missing.has(p));
  }

  /**
   * Gives each read path its parse: from the cache at once, else from the TypeScript file parser, else (when it
   * declines the file) from hcl2json in the worker pool. Returns a promise per file sent to the pool, settled once
   * that file is available.
   */
  async #parse(paths: readonly string[], urgent: boolean): Promise<Promise<void>[]> {
    // Nothing to parse: do not even load the parse cache (a warm run never needs it).
    if (paths.length === 0) return [];
    const cache = await this.#loadCache();
    const toParse: { path: string; content: string; hash: string }[] = [];
    for (const path of paths) {
      const text = this.#read.get(path);
      if (!text) continue;
      if (isHclJson(path)) {
        // HCL's JSON syntax: converted here, in a fraction of the cost of a parser call.
        this.#files.set(path, { path, ...text, outcome: parseHclJson(path, text.content) });
        continue;
      }
      const cached = cache.get(text.hash);
      if (cached) this.#files.set(path, { path, ...text, outcome: fromCache(cached, path) });
      else toParse.push({ path, ...text });
    }
    if (toParse.length === 0) return [];
    // While the fast pass runs, its files are in flight, so a concurrent `ensure` waits rather than parsing them
    // again; a declined file's entry is replaced by its pool promise before the pass settles.
    let finish = (): void => undefined;
    const pass = new Promise<void>((resolve) => (finish = resolve));
    for (const t of toParse) this.#inFlight.set(t.path, pass);
    try {
      const declined = await this.#parseFast(toParse, cache);
      return declined.length === 0 ? [] : this.#parseInPool(declined, cache, urgent);
    } finally {
      for (const t of toParse) if (this.#inFlight.get(t.path) === pass) this.#inFlight.delete(t.path);
      finish();
    }
  }

  /**
   * Parses the files with the TypeScript file parser on this thread, in slices that yield to the event loop (the
   * live view and Ctrl-C keep working). Returns the files it declined, for hcl2json.
   */
  async #parseFast(toParse: readonly PendingParse[], cache: Map<string, CachedOutcome>): Promise<PendingParse[]> {
    const declined: PendingParse[] = [];
    const byHash = new Map<string, CachedOutcome | undefined>();
    let sliceStart = performance.now();
    for (const [i, t] of toParse.entries()) {
      // The clock is read every few files only: in a cold run's profile performance.now() took about 3 µs a call
      // (Node 20 validates its receiver through a wrapper), 15 ms for 5,000 files. A few files take well under 1 ms.
      if (i % CLOCK_EVERY === 0 && performance.now() - sliceStart > FAST_SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      if (!byHash.has(t.hash)) byHash.set(t.hash, this.#parseOneFast(t.content, t.hash, cache));
      const entry = byHash.get(t.hash);
      if (entry)
        this.#files.set(t.path, { path: t.path, content: t.content, hash: t.hash, outcome: fromCache(entry, t.path) });
      else declined.push(t);
      const bug = this.#fastParserBugs.get(t.hash);
      if (bug) this.#bugsByPath.set(t.path, bug);
    }
    return declined;
  }

  /** One content through the fast parser: its cache entry, or undefined when the parser declined it. */
  #parseOneFast(content: string, hash: string, cache: Map<string, CachedOutcome>): CachedOutcome | undefined {
    const result = parseHclFile(content);
    if (!result.ok) {
      if (result.bug) this.#fastParserBugs.set(hash, result.bug);
      return undefined;
    }
    const entry: CachedOutcome = { ok: true, json: result.json };
    // Kept in the cache only once asked for, as positions from a scan are: most files never need theirs.
    this.#fastPositions.set(hash, result.positions);
    this.parsedCount += 1;
    cache.set(hash, entry);
    this.#cacheDirty = true;
    return entry;
  }

  #parseInPool(toParse: readonly PendingParse[], cache: Map<string, CachedOutcome>, urgent: boolean): Promise<void>[] {
    // Identical contents (units that only include a shared file are common) are parsed once.
    const byHash = new Map<string, { path: string; content: string }>();
    for (const t of toParse) if (!byHash.has(t.hash)) byHash.set(t.hash, t);
    this.#pool ??= new HclParserPool();
    const firsts = [...byHash];
    const outcomes = this.#pool.parseEach(
      firsts.map(([, t]) => ({ file: t.path, content: t.content })),
      { urgent },
    );
    const parsed = new Map<string, Promise<void>>();
    firsts.forEach(([hash, text], i) => {
      const outcome = (outcomes[i] as Promise<ParseOutcome>).then((result) =>
        this.#mixedIncludeFallback(result, text.path, text.content),
      );
      parsed.set(
        hash,
        outcome.then((result) => {
          this.parsedCount += 1;
          if ((!result.ok && result.workerFailure) || this.#fastParserBugs.has(hash)) {
            // A parser crash says nothing about the file: kept for this run only, never in the cache. Nor is a file
            // the fast parser failed on cached: the next run meets the bug (and reports it) again until it is fixed.
            this.#uncached.set(hash, toCache(result));
            return;
          }
          cache.set(hash, toCache(result));
          this.#cacheDirty = true;
        }),
      );
    });
    return toParse.map((t) => {
      const done = (parsed.get(t.hash) as Promise<void>).then(() => {
        this.#inFlight.delete(t.path);
        const entry = cache.get(t.hash) ?? this.#uncached.get(t.hash);
        if (entry) this.#files.set(t.path, { ...t, outcome: fromCache(entry, t.path) });
      });
      this.#inFlight.set(t.path, done);
      // ensure() rethrows a failure to whoever needs the file; one nobody waits for is not an unhandled rejection.
      done.catch(() => undefined);
      return done;
    });
  }

  /**
   * hcl2json fails a file that has both a bare and a labelled include; parse it again with the bare one labelled
   * (see bare-include.ts). Any other outcome is kept as it is.
   */
  async #mixedIncludeFallback(result: ParseOutcome, path: string, content: string): Promise<ParseOutcome> {
    if (result.ok || !MIXED_INCLUDE_FAILURE.test(result.message) || !this.#pool) return result;
    const labelled = labelBareIncludes(content);
    if (labelled === undefined) return result;
    const [again] = this.#pool.parseEach([{ file: path, content: labelled }], { urgent: true });
    const outcome = await (again as Promise<ParseOutcome>);
    return outcome.ok ? outcome : result;
  }

  /**
   * Positions of the file's top-level blocks and their attributes: from the fast parser's pass over the file, or
   * else from a structural scan of its text; kept in the cache with the parse once asked for.
   */
  positions(file: ParsedFile): readonly BlockPosition[] {
    if (isHclJson(file.path)) return file.outcome.ok ? hclJsonPositions(file.content, file.outcome.json) : [];
    const entry = this.#cache?.get(file.hash);
    if (entry?.ok && entry.positions) return entry.positions;
    const packed = this.#fastPositions.get(file.hash);
    const positions = packed ? blockPositions(file.content, packed) : scanPositions(file.content);
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
      // Checked by structure, not by the schema library: the cache is keyed by content hash, parser and platctl version
      // this build wrote, always safe to delete, and anything that does not match (or throws) is a miss that parses the
      // files afresh. Loading zod here would cost the warm path the very start-up the cache exists to save.
      const raw = JSON.parse(await readFile(this.#cachePath(), 'utf8')) as CacheFile;
      if (raw.format === CACHE_FORMAT && raw.parser === PARSER_ID && raw.platctl === this.#options.version) {
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
    const body: CacheFile = { format: CACHE_FORMAT, parser: PARSER_ID, platctl: this.#options.version, entries };
    try {
      await mkdir(dir, { recursive: true });
      await writeFileAtomic(this.#cachePath(), JSON.stringify(body), { fsync: false });
    } catch {
      // A read-only checkout still discovers; it just parses again next time.
    }
  }

  async close(): Promise<void> {
    await this.#pool?.close();
    this.#pool = undefined;
  }
}

/** Positions from the tolerant structural scan, for files hcl2json parsed. */
function scanPositions(content: string): BlockPosition[] {
  return outline(content).map((block) => {
    const attributes: Record<string, [number, number]> = {};
    for (const attr of block.attributes) attributes[attr.name] ??= [attr.line, attr.column];
    return { type: block.type, labels: [...block.labels], line: block.line, column: block.column, attributes };
  });
}

/** Files read per slice before yielding to the event loop. */
const READ_SLICE = 256;

/**
 * Reads files synchronously in slices, yielding between slices: for thousands of small files this is several times
 * faster than one promise per file through the thread pool, and no slice blocks the event loop for long.
 */
async function readAll(
  paths: readonly string[],
): Promise<({ path: string; content: string } | ParsedFile | undefined)[]> {
  const out: ({ path: string; content: string } | ParsedFile | undefined)[] = [];
  for (let i = 0; i < paths.length; i += READ_SLICE) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const path of paths.slice(i, i + READ_SLICE)) out.push(readOne(path));
  }
  return out;
}

/** Error codes that mean "there is no such file" rather than "there is one and it cannot be read". */
const ABSENT = new Set(['ENOENT', 'ENOTDIR']);

/**
 * SHA-256 (base64url) of a file's text or bytes: the parse cache's key. The one-shot digest: a Hash object per file
 * cost a cold run about 25 ms more for 5,000 files.
 */
export function contentHash(data: string | Buffer): string {
  return digest('sha256', data, 'base64url');
}

/** Where files are read into: one buffer for the whole process, grown when a file does not fit. */
let readBuffer = Buffer.allocUnsafe(64 * 1024);

/**
 * A file's bytes, in the shared read buffer (valid until the next read): open, read, close, without the `fstat` and
 * the buffer per file of readFileSync (about 20 % less CPU reading 5,000 small files).
 */
function readBytes(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    let length = 0;
    for (;;) {
      if (length === readBuffer.length) {
        const bigger = Buffer.allocUnsafe(readBuffer.length * 2);
        readBuffer.copy(bigger);
        readBuffer = bigger;
      }
      const read = readSync(fd, readBuffer, length, readBuffer.length - length, null);
      if (read === 0) return readBuffer.subarray(0, length);
      length += read;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * One file's text; undefined when it does not exist; a ParsedFile holding the error when it exists but cannot be
 * read, or is not UTF-8 (Node would silently replace the bad bytes, and the parser then accept them).
 */
export function readOne(path: string): { path: string; content: string } | ParsedFile | undefined {
  let bytes: Buffer;
  try {
    bytes = readBytes(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (ABSENT.has(code)) return undefined;
    return {
      path,
      content: '',
      hash: `unreadable:${code}`,
      unusable: 'unreadable',
      outcome: {
        ok: false,
        message: `cannot read ${path}: ${readErrorText(error)}`,
        location: { file: path, line: 1 },
      },
    };
  }
  const content = bytes.toString('utf8');
  const deep = isHclJson(path) ? undefined : tooDeep(content);
  if (deep) {
    return {
      path,
      content,
      hash: contentHash(bytes),
      unusable: 'nesting',
      outcome: {
        ok: false,
        message: `expression nested more than ${MAX_NESTING} levels deep (brackets, calls and \${} together); platctl does not parse it`,
        location: { file: path, ...deep },
      },
    };
  }
  if (isUtf8(bytes)) return { path, content };
  // HCL rejects bytes that are not UTF-8, except inside comments (terragrunt v1.1.3 accepts them there).
  const bad = invalidOutsideComments(content);
  if (bad === undefined) return { path, content };
  return {
    path,
    content,
    hash: contentHash(bytes),
    unusable: 'encoding',
    outcome: {
      ok: false,
      message: 'invalid character encoding: HCL files must be UTF-8 encoded',
      location: { file: path, ...bad },
    },
  };
}

/**
 * How deep an expression may nest: brackets, parentheses (calls included), braces and `${}`/`%{}` sequences each
 * count a level (the strings around a sequence do not). Real configurations stay within a few dozen; the WASM parser panics on
 * deep nesting and hangs on nested interpolations from about 1,000 levels, and the evaluator recurses per level.
 */
export const MAX_NESTING = 256;
const OPENERS = new Set(['(', '[', '{']);
const OPENER = /[([{]/g;
const CLOSERS = new Set([')', ']', '}']);

/**
 * Where the nesting first passes {@link MAX_NESTING} (1-based line and column), or undefined. A file with fewer
 * opening characters than the limit cannot pass it and is not scanned; any other is lexed (the lexer keeps its own
 * stack: no recursion) and its openers and closers counted.
 */
function tooDeep(content: string): { line: number; column: number } | undefined {
  // ( [ {, and the { of every ${ and %{; the pattern finds each (a loop over every character ran interpreted).
  OPENER.lastIndex = 0;
  let openers = 0;
  while (openers <= MAX_NESTING && OPENER.test(content)) openers += 1;
  if (openers <= MAX_NESTING) return undefined;
  let depth = 0;
  for (const token of tokenize(content)) {
    const { type, value } = token;
    if (type === 'interp' || type === 'control' || (type === 'punct' && OPENERS.has(value))) depth += 1;
    else if (type === 'seqend' || (type === 'punct' && CLOSERS.has(value))) depth = Math.max(0, depth - 1);
    if (depth > MAX_NESTING) {
      const before = content.slice(0, token.start);
      return { line: before.split('\n').length, column: token.start - before.lastIndexOf('\n') };
    }
  }
  return undefined;
}

/**
 * Where the first character that stood for bytes that are not UTF-8 (decoded as U+FFFD) sits outside comments, as
 * 1-based line and column; undefined when every one is inside a comment. Comments are what the lexer skips: every
 * other character belongs to a token.
 */
function invalidOutsideComments(content: string): { line: number; column: number } | undefined {
  const tokens = tokenize(content);
  let t = 0;
  for (let i = content.indexOf('\uFFFD'); i >= 0; i = content.indexOf('\uFFFD', i + 1)) {
    while (t < tokens.length && (tokens[t]?.end ?? 0) <= i) t += 1;
    const token = tokens[t];
    if (token && token.start <= i) {
      const before = content.slice(0, i);
      return { line: before.split('\n').length, column: i - before.lastIndexOf('\n') };
    }
  }
  return undefined;
}

/** "permission denied" for EACCES, and the like: what a user reads, without Node's syscall prefix. */
export function readErrorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'EIO':
      return 'input/output error';
    case undefined:
    default:
      return code ?? (error instanceof Error ? error.message : String(error));
  }
}
function toCache(outcome: ParseOutcome): CachedOutcome {
  if (outcome.ok) return { ok: true, json: outcome.json };
  const { message, location, others, workerFailure } = outcome;
  return {
    ok: false,
    message,
    line: location.line,
    column: location.column,
    ...(others ? { others } : {}),
    ...(workerFailure ? { workerFailure } : {}),
  };
}

function fromCache(entry: CachedOutcome, file: string): ParseOutcome {
  if (entry.ok) return { ok: true, json: entry.json };
  const location: SourceLocation =
    entry.column === undefined ? { file, line: entry.line } : { file, line: entry.line, column: entry.column };
  return {
    ok: false,
    message: entry.message,
    location,
    ...(entry.others ? { others: entry.others } : {}),
    ...(entry.workerFailure ? { workerFailure: true as const } : {}),
  };
}
