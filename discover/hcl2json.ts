/**
 * The one module that knows the HCL parser: `@cdktf/hcl2json` (a WASM build of tmccombs/hcl2json). Swapping it for
 * the community fork `@cdktn/hcl2json` is the one line in `PARSER_MODULE`.
 *
 * Parsing runs in worker threads: a parse is a fraction of a millisecond of uninterrupted WASM, and thousands of
 * them in a row would freeze the event loop (no live view, no Ctrl-C). Files are parsed in batches: each file's body
 * is wrapped in a block of its own (`__f0 { ... }`) and a batch is one parser call, which saves the parser's fixed
 * cost per call. A batch that fails, or whose top level is not exactly the wrapper blocks (an unbalanced brace in
 * one file could swallow the next), is parsed again file by file, so every error names its own file and line.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SourceLocation } from '../engine/graph.js';
import { setTimer } from '../engine/timers.js';

const PARSER_MODULE = '@cdktf/hcl2json';
/** Bumped when the parser or the batch format changes, so stale cache entries are ignored (3: files that end
 * without a newline are parsed alone). */
export const PARSER_ID = `${PARSER_MODULE}@0.21.0/3`;

/** What the parser made of one file: its JSON form, or the parser's error. */
export type ParseOutcome =
  | { readonly ok: true; readonly json: Record<string, unknown> }
  | {
      readonly ok: false;
      /** The parser's first diagnostic (usually the cause; the rest often follow from it). */
      readonly message: string;
      readonly location: SourceLocation;
      /** The file's further diagnostics, `line L, column C: message`, at most MAX_DIAGNOSTICS of them. */
      readonly others?: readonly string[];
      /** The parser crashed or hung on the file: says nothing about its syntax, so it is never cached. */
      readonly workerFailure?: true;
    };

export interface ParseRequest {
  /** Absolute path, used in error messages. */
  readonly file: string;
  readonly content: string;
}

/**
 * Files per parser call. A call costs about 0.14 ms before any parsing; side by side on 5,000 unit files, 48 per
 * call was 6% faster than 16, and 128 slower again. An urgent file waits behind at most JOBS_PER_WORKER batches.
 */
const BATCH_SIZE = 48;

/**
 * V8 compiles the parser's WASM with its baseline compiler, then re-compiles the functions that run most with its
 * optimising one, in background threads that share the cores with parsing. The parser is a large Go program: with
 * V8's default budget (1.8 M) optimising it costs more CPU than it saves over a few thousand files. With this
 * budget only the hottest functions are optimised (bench/discovery measures the difference). The flag is
 * process-wide, but only WASM reads it and the parser is the only WASM platctl runs.
 */
const WASM_TIERING_BUDGET = 300_000_000;
const WRAP_PREFIX = '__platctl_f';

/**
 * The worker's source. It runs as CommonJS (`eval: true`) so the same code works from compiled `dist/` and from
 * TypeScript sources under the test runner; the parser module is resolved here and passed in.
 *
 * With the parser's files (see {@link findParser}) the worker loads the WASM with the package's own Go glue and
 * calls its exported parse function directly, passing the JSON text back as it came: no waiting loop per call, and
 * no copying of parsed objects between threads. Otherwise it goes through the package's public `parse`.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
require('node:v8').setFlagsFromString('--wasm-tiering-budget=' + workerData.tieringBudget);
let parse;
if (workerData.wasmPath) {
  require(workerData.goGlue);
  const wasm = require('node:zlib').gunzipSync(require('node:fs').readFileSync(workerData.wasmPath));
  const go = new globalThis.Go();
  const exported = {};
  globalThis.__parse_terraform_config_wasm__ = exported;
  void go.run(new WebAssembly.Instance(new WebAssembly.Module(wasm), go.importObject));
  parse = (name, content) =>
    new Promise((resolve, reject) =>
      exported.parse(name, content, (error, json) => (error ? reject(new Error(error)) : resolve(json))),
    );
} else {
  const parser = require(workerData.parserPath);
  parse = async (name, content) => JSON.stringify(await parser.parse(name, content));
}
parentPort.postMessage({ ready: true });
parentPort.on('message', async (job) => {
  const results = [];
  for (const task of job.tasks) {
    try {
      results.push({ ok: true, json: await parse(task.name, task.content) });
    } catch (error) {
      results.push({ ok: false, message: String(error && error.message ? error.message : error) });
    }
  }
  parentPort.postMessage({ id: job.id, results });
});
`;

interface WorkerTask {
  readonly name: string;
  readonly content: string;
}
/** From the worker: the parser's JSON text, or its error. */
type RawResult = { ok: true; json: string } | { ok: false; message: string };
type WorkerResult = { ok: true; json: Record<string, unknown> } | { ok: false; message: string };

/** What a worker is started with: where the parser is and, when its files are where expected, its Go glue and WASM. */
export interface ParserFiles {
  readonly parserPath: string;
  readonly goGlue?: string;
  readonly wasmPath?: string;
}

let parserFiles: ParserFiles | undefined;

/** The parser's files. These belong to the pinned package version; when they are not found, workers use its API. */
export function findParser(): ParserFiles {
  if (parserFiles) return parserFiles;
  const require = createRequire(import.meta.url);
  const parserPath = require.resolve(PARSER_MODULE);
  try {
    const goGlue = require.resolve(`${PARSER_MODULE}/wasm/bridge_wasm_exec.js`);
    const wasmPath = join(dirname(require.resolve(`${PARSER_MODULE}/package.json`)), 'main.wasm.gz');
    parserFiles = existsSync(wasmPath) ? { parserPath, goGlue, wasmPath } : { parserPath };
  } catch {
    parserFiles = { parserPath };
  }
  return parserFiles;
}

interface Job {
  readonly id: number;
  readonly tasks: WorkerTask[];
  readonly resolve: (results: RawResult[]) => void;
  readonly reject: (error: Error) => void;
}

interface PooledWorker {
  readonly worker: Worker;
  /** Jobs posted to it and not answered yet, in the order it works through them. */
  readonly inFlight: Map<number, Job>;
  /** Fires when the worker has held jobs for PARSE_TIME_LIMIT_MS without answering one. */
  timer?: NodeJS.Timeout;
  /** Set when the worker has loaded the parser and said so; its jobs' time limit runs from then. */
  ready: boolean;
  /** Set once the pool has given up on the worker (it crashed, exited or stopped answering). */
  dead: boolean;
}

/** `urgent`: something waits for these files now; they go ahead of everything queued. */
export interface ParseOptions {
  readonly urgent?: boolean;
}

/**
 * Jobs posted to a worker ahead of the one it is parsing. Workers are fed from the main thread, which may be busy
 * evaluating; a few jobs in hand keep them parsing meanwhile. Few, because an urgent job waits behind them.
 */
const JOBS_PER_WORKER = 3;

/**
 * How long a worker may hold jobs without answering one before it counts as hung. A batch takes milliseconds and a
 * worker's start about a tenth of a second; this leaves room for a machine loaded many times over, and still ends
 * a parser stuck for good (the WASM parser can deadlock inside its allocator instead of failing).
 */
const PARSE_TIME_LIMIT_MS = 30_000;

/** How long a worker may take to load the parser (about a tenth of a second on an idle machine). */
const START_TIME_LIMIT_MS = 60_000;

/**
 * Workers that may crash, exit or hang in one run before the pool gives up. A file that kills the parser costs one
 * (its batch is then parsed file by file and only the culprit fails); a parser that cannot run at all would
 * otherwise cost a new worker per file.
 */
const MAX_WORKER_FAILURES = 4;

/**
 * Why a parse did not happen: the parser worker crashed, exited or stopped answering while it held the job. Not a
 * syntax error: nothing is known about the file.
 */
export class ParserWorkerFailure extends Error {
  override readonly name = 'ParserWorkerFailure';
}

/** The pool gave up after too many worker failures; discovery cannot continue. */
export class ParserPoolBroken extends Error {
  override readonly name = 'ParserPoolBroken';
}

/**
 * Test seams: a worker's source (to inject a parser that crashes or hangs; it posts `{ ready: true }` once loaded,
 * then answers `{ id, tasks }` with `{ id, results }`) and the time limits.
 */
export interface HclParserPoolSeams {
  readonly workerSource?: string;
  readonly timeLimitMs?: number;
  readonly startLimitMs?: number;
}

/** A small pool of parser workers; `close()` ends them. */
export class HclParserPool {
  readonly #workers: PooledWorker[] = [];
  /** Jobs not posted to a worker yet, urgent ones first. */
  readonly #queue: Job[] = [];
  readonly #size: number;
  readonly #source: string;
  readonly #timeLimitMs: number;
  readonly #startLimitMs: number;
  #nextId = 0;
  #failures = 0;
  #broken: ParserPoolBroken | undefined;

  /**
   * `size`: at most this many workers. By default one per core but one, at most four: discovery evaluates units on
   * the main thread while the workers parse.
   */
  constructor(size = Math.max(1, Math.min(4, availableParallelism() - 1)), seams: HclParserPoolSeams = {}) {
    this.#size = size;
    this.#source = seams.workerSource ?? WORKER_SOURCE;
    this.#timeLimitMs = seams.timeLimitMs ?? PARSE_TIME_LIMIT_MS;
    this.#startLimitMs = seams.startLimitMs ?? START_TIME_LIMIT_MS;
  }

  /**
   * Starts workers now, so the parser's WASM loads (about a tenth of a second per worker) while discovery still
   * scans and reads; a pool otherwise starts workers as jobs arrive, another only when those running are full.
   * `count` caps how many (default: the pool's size).
   */
  warm(count = this.#size): void {
    while (!this.#broken && this.#workers.length < Math.min(count, this.#size)) this.#spawn();
  }

  /** How many workers are running. */
  get running(): number {
    return this.#workers.length;
  }

  /** Parses every file; the result maps each request's `file` to its outcome. */
  async parseAll(requests: readonly ParseRequest[], options: ParseOptions = {}): Promise<Map<string, ParseOutcome>> {
    const outcomes = await Promise.all(this.parseEach(requests, options));
    return new Map(requests.map((r, i) => [r.file, outcomes[i] as ParseOutcome]));
  }

  /**
   * Starts parsing the files, in order, and returns one promise per request (in the same order). Each settles when
   * the batch holding its file is parsed, so the first files can be used while the rest still parse. A file the
   * parser crashed or hung on gets a failed outcome with `workerFailure` set; the promises reject only when the
   * pool is closed or has given up ({@link ParserPoolBroken}).
   */
  parseEach(requests: readonly ParseRequest[], options: ParseOptions = {}): Promise<ParseOutcome>[] {
    const out: Promise<ParseOutcome>[] = [];
    for (let i = 0; i < requests.length; i += BATCH_SIZE) {
      const batch = requests.slice(i, i + BATCH_SIZE);
      const parsed = this.#parseBatch(batch, options.urgent === true);
      for (const r of batch) out.push(parsed.then((outcomes) => outcomes.get(r.file) as ParseOutcome));
    }
    return out;
  }

  async #parseBatch(requests: readonly ParseRequest[], urgent: boolean): Promise<Map<string, ParseOutcome>> {
    // The wrapper puts a newline after each file, which a file that does not end with one would gain: a heredoc
    // closed on its last line parses in a batch and fails alone (as in Terragrunt). Such files are parsed alone.
    const open = (r: ParseRequest): boolean => r.content !== '' && !r.content.endsWith('\n');
    const [alone, together] = await Promise.all([
      this.#parseOneByOne(requests.filter(open)),
      this.#parseTogether(
        requests.filter((r) => !open(r)),
        urgent,
      ),
    ]);
    return new Map([...alone, ...together]);
  }

  /** In one parser call; when that fails, or the batch does not come back whole, file by file. */
  async #parseTogether(batch: readonly ParseRequest[], urgent: boolean): Promise<Map<string, ParseOutcome>> {
    if (batch.length > 1) {
      const content = batch.map((r, i) => `${WRAP_PREFIX}${i} {\n${r.content}\n}\n`).join('');
      const attempt = await this.#run([{ name: 'batch.hcl', content }], urgent).catch(onlyWorkerFailure);
      const result = attempt instanceof ParserWorkerFailure ? undefined : attempt[0];
      if (result?.ok && isWholeBatch(result.json, batch.length)) {
        return new Map(
          batch.map((r, i) => {
            const body = (result.json[`${WRAP_PREFIX}${i}`] as Record<string, unknown>[])[0] ?? {};
            return [r.file, { ok: true, json: body }];
          }),
        );
      }
    }
    return this.#parseOneByOne(batch);
  }

  /**
   * File by file, and urgently: by now something may be waiting for one of these. One job per file, so a file that
   * crashes or hangs the parser fails alone.
   */
  async #parseOneByOne(batch: readonly ParseRequest[]): Promise<Map<string, ParseOutcome>> {
    const out = new Map<string, ParseOutcome>();
    const results = await Promise.all(
      batch.map((r) => this.#run([{ name: r.file, content: r.content }], true).catch(onlyWorkerFailure)),
    );
    batch.forEach((r, i) => {
      const attempt = results[i];
      const result = attempt instanceof ParserWorkerFailure ? undefined : attempt?.[0];
      if (attempt instanceof ParserWorkerFailure) out.set(r.file, workerFailureOutcome(r.file, attempt));
      else if (result?.ok) out.set(r.file, { ok: true, json: result.json });
      else out.set(r.file, parseErrorOutcome(r.file, result?.message ?? 'the parser returned nothing'));
    });
    return out;
  }

  async #run(tasks: WorkerTask[], urgent: boolean): Promise<WorkerResult[]> {
    const raw = await new Promise<RawResult[]>((resolve, reject) => {
      if (this.#broken) {
        reject(this.#broken);
        return;
      }
      const job: Job = { id: this.#nextId++, tasks, resolve, reject };
      if (urgent) this.#queue.unshift(job);
      else this.#queue.push(job);
      this.#dispatch();
    });
    return raw.map((result) => {
      if (!result.ok) return result;
      try {
        return { ok: true, json: JSON.parse(result.json) as Record<string, unknown> };
      } catch {
        return { ok: false, message: 'the parser returned malformed JSON' };
      }
    });
  }

  /** Posts queued jobs to the least busy workers, starting more (up to the pool's size) when all are full. */
  #dispatch(): void {
    while (this.#queue.length > 0 && !this.#broken) {
      let target: PooledWorker | undefined;
      for (const w of this.#workers) if (!target || w.inFlight.size < target.inFlight.size) target = w;
      if ((!target || target.inFlight.size >= JOBS_PER_WORKER) && this.#workers.length < this.#size) {
        target = this.#spawn();
      }
      if (!target || target.inFlight.size >= JOBS_PER_WORKER) return;
      const job = this.#queue.shift() as Job;
      target.inFlight.set(job.id, job);
      if (target.inFlight.size === 1 && target.ready) this.#startTimer(target);
      target.worker.postMessage({ id: job.id, tasks: job.tasks });
    }
  }

  #spawn(): PooledWorker {
    const worker = new Worker(this.#source, {
      eval: true,
      workerData: { ...findParser(), tieringBudget: WASM_TIERING_BUDGET },
    });
    worker.unref();
    const pooled: PooledWorker = { worker, inFlight: new Map(), ready: false, dead: false };
    this.#startTimer(pooled, this.#startLimitMs, 'did not start');
    worker.on('message', (message: { id: number; results: RawResult[] } | { ready: true }) => {
      if ('ready' in message) {
        pooled.ready = true;
        if (pooled.inFlight.size > 0) this.#startTimer(pooled);
        else clearTimeout(pooled.timer);
        return;
      }
      const job = pooled.inFlight.get(message.id);
      pooled.inFlight.delete(message.id);
      if (pooled.inFlight.size > 0) this.#startTimer(pooled);
      else clearTimeout(pooled.timer);
      job?.resolve(message.results);
      this.#dispatch();
    });
    // A worker that throws reports `error` and then `exit`; one that calls process.exit or is killed only `exit`.
    worker.on('error', (error: Error) => this.#fail(pooled, `crashed: ${error.message}`));
    worker.on('exit', (code: number) => this.#fail(pooled, `exited with code ${code}`));
    this.#workers.push(pooled);
    return pooled;
  }

  /**
   * (Re)starts the worker's time limit: it is starting, or has jobs in hand and was just given one or answered one.
   * Not unref'd: while a job is out, this timer is what keeps the process alive to notice a hung parser.
   */
  #startTimer(pooled: PooledWorker, limitMs = this.#timeLimitMs, what = 'did not answer'): void {
    clearTimeout(pooled.timer);
    pooled.timer = setTimer(() => {
      this.#fail(pooled, `${what} within ${limitMs / 1000} s`);
      void pooled.worker.terminate();
    }, limitMs);
  }

  /**
   * Gives up on a worker that crashed, exited or hung. The job it was parsing (the first it holds: a worker answers
   * in order) fails with a {@link ParserWorkerFailure}; the jobs it held behind that one go back to the front of the
   * queue for another worker. After MAX_WORKER_FAILURES the pool is broken and fails everything.
   */
  #fail(pooled: PooledWorker, what: string): void {
    if (pooled.dead) return;
    pooled.dead = true;
    clearTimeout(pooled.timer);
    const index = this.#workers.indexOf(pooled);
    if (index >= 0) this.#workers.splice(index, 1);
    const [culprit, ...innocent] = pooled.inFlight.values();
    pooled.inFlight.clear();
    this.#queue.unshift(...innocent);
    this.#failures += 1;
    const files = culprit ? culprit.tasks.map((t) => t.name).join(', ') : 'nothing';
    const failure = new ParserWorkerFailure(`the HCL parser worker ${what} while parsing ${files}`);
    if (this.#failures >= MAX_WORKER_FAILURES) {
      this.#broken = new ParserPoolBroken(
        `the HCL parser failed ${this.#failures} times in this run, giving up (last: ${failure.message}). ` +
          'This is a bug in platctl or its parser: please report it with the files named.',
      );
      for (const job of this.#queue.splice(0)) job.reject(this.#broken);
      culprit?.reject(this.#broken);
      for (const w of this.#workers.splice(0)) {
        w.dead = true;
        clearTimeout(w.timer);
        for (const job of w.inFlight.values()) job.reject(this.#broken);
        void w.worker.terminate();
      }
      return;
    }
    culprit?.reject(failure);
    this.#dispatch();
  }

  /** Ends the workers; parses still queued or running fail. */
  async close(): Promise<void> {
    const workers = this.#workers.splice(0);
    const closed = new Error('the parser pool was closed');
    for (const job of this.#queue.splice(0)) job.reject(closed);
    for (const w of workers) {
      w.dead = true;
      clearTimeout(w.timer);
      for (const job of w.inFlight.values()) job.reject(closed);
    }
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }
}

/** A worker failure as a value (the caller turns it into an outcome); anything else is rethrown. */
function onlyWorkerFailure(error: unknown): ParserWorkerFailure {
  if (error instanceof ParserWorkerFailure) return error;
  throw error;
}

/** The outcome of a file the parser crashed or hung on. */
function workerFailureOutcome(file: string, failure: ParserWorkerFailure): ParseOutcome {
  return {
    ok: false,
    message: `${failure.message.replace(` while parsing ${file}`, '')} on this file`,
    location: { file, line: 1 },
    workerFailure: true,
  };
}

function isWholeBatch(json: Record<string, unknown>, size: number): boolean {
  const keys = Object.keys(json);
  if (keys.length !== size) return false;
  for (let i = 0; i < size; i += 1) {
    const entry = json[`${WRAP_PREFIX}${i}`];
    if (!Array.isArray(entry) || entry.length !== 1) return false;
  }
  return true;
}

/** Further diagnostics kept per file: random bytes named terragrunt.hcl make hundreds, one per character. */
export const MAX_DIAGNOSTICS = 50;

/**
 * hcl2json reports `parse config: [FILE:LINE,COL-ENDCOL: summary; detail FILE:LINE,COL-ENDCOL: ...]`, every
 * diagnostic of the file in one string. The first becomes the message and location, the next MAX_DIAGNOSTICS the
 * `others`, and the rest a count.
 */
export function parseErrorOutcome(file: string, raw: string): ParseOutcome {
  const inner = raw.replace(/^parse config:\s*\[/, '').replace(/\]\s*$/, '');
  const marker = new RegExp(`(?:^|\\s)${escapeRegExp(file)}:(\\d+),(\\d+)(?:-(?:\\d+,)?\\d+)?:\\s*`, 'g');
  const found = [...inner.matchAll(marker)];
  if (found.length === 0) {
    const match = /^(.*?):(\d+),(\d+)(?:-(?:\d+,)?\d+)?:\s*([\s\S]*)$/.exec(inner);
    if (match) {
      return {
        ok: false,
        message: (match[4] ?? '').trim(),
        location: { file, line: Number(match[2]), column: Number(match[3]) },
      };
    }
    const message = raw.replace(/^convert to HCL:\s*/, '').trim();
    return { ok: false, message, location: { file, line: 1, column: 1 } };
  }
  const diagnostics = found.map((m, i) => ({
    line: Number(m[1]),
    column: Number(m[2]),
    text: inner.slice((m.index ?? 0) + m[0].length, found[i + 1]?.index ?? inner.length).trim(),
  }));
  const [first, ...rest] = diagnostics;
  const location = { file, line: first?.line ?? 1, column: first?.column ?? 1 };
  if (rest.length === 0) return { ok: false, message: first?.text ?? '', location };
  const others = rest.slice(0, MAX_DIAGNOSTICS).map((d) => `line ${d.line}, column ${d.column}: ${d.text}`);
  if (rest.length > MAX_DIAGNOSTICS) {
    others.push(`... and ${(rest.length - MAX_DIAGNOSTICS).toLocaleString('en-US')} more parser errors in this file`);
  }
  return { ok: false, message: first?.text ?? '', location, others };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
