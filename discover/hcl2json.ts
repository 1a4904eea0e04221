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

const PARSER_MODULE = '@cdktf/hcl2json';
/** Bumped when the parser or the batch format changes, so stale cache entries are ignored. */
export const PARSER_ID = `${PARSER_MODULE}@0.21.0/1`;

/** What the parser made of one file: its JSON form, or the parser's error. */
export type ParseOutcome =
  | { readonly ok: true; readonly json: Record<string, unknown> }
  | { readonly ok: false; readonly message: string; readonly location: SourceLocation };

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
  /** Jobs posted to it and not answered yet. */
  readonly inFlight: Map<number, Job>;
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

/** A small pool of parser workers; `close()` ends them. */
export class HclParserPool {
  readonly #workers: PooledWorker[] = [];
  /** Jobs not posted to a worker yet, urgent ones first. */
  readonly #queue: Job[] = [];
  readonly #size: number;
  #nextId = 0;

  /**
   * `size`: at most this many workers. By default one per core but one, at most four: discovery evaluates units on
   * the main thread while the workers parse.
   */
  constructor(size = Math.max(1, Math.min(4, availableParallelism() - 1))) {
    this.#size = size;
  }

  /**
   * Starts workers now, so the parser's WASM loads (about a tenth of a second per worker) while discovery still
   * scans and reads; a pool otherwise starts workers as jobs arrive, another only when those running are full. `count` caps how many (default: the pool's
   * size).
   */
  warm(count = this.#size): void {
    while (this.#workers.length < Math.min(count, this.#size)) this.#spawn();
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
   * the batch holding its file is parsed, so the first files can be used while the rest still parse.
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

  async #parseBatch(batch: readonly ParseRequest[], urgent: boolean): Promise<Map<string, ParseOutcome>> {
    const out = new Map<string, ParseOutcome>();
    if (batch.length > 1) {
      const content = batch.map((r, i) => `${WRAP_PREFIX}${i} {\n${r.content}\n}\n`).join('');
      const [result] = await this.#run([{ name: 'batch.hcl', content }], urgent);
      if (result?.ok && isWholeBatch(result.json, batch.length)) {
        batch.forEach((r, i) => {
          const body = (result.json[`${WRAP_PREFIX}${i}`] as Record<string, unknown>[])[0] ?? {};
          out.set(r.file, { ok: true, json: body });
        });
        return out;
      }
    }
    // File by file, and urgently: by now something may be waiting for one of these.
    const results = await this.#run(
      batch.map((r) => ({ name: r.file, content: r.content })),
      true,
    );
    batch.forEach((r, i) => {
      const result = results[i];
      if (result?.ok) out.set(r.file, { ok: true, json: result.json });
      else out.set(r.file, parseErrorOutcome(r.file, result?.message ?? 'the parser returned nothing'));
    });
    return out;
  }

  async #run(tasks: WorkerTask[], urgent: boolean): Promise<WorkerResult[]> {
    const raw = await new Promise<RawResult[]>((resolve, reject) => {
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
    while (this.#queue.length > 0) {
      let target: PooledWorker | undefined;
      for (const w of this.#workers) if (!target || w.inFlight.size < target.inFlight.size) target = w;
      if ((!target || target.inFlight.size >= JOBS_PER_WORKER) && this.#workers.length < this.#size) {
        target = this.#spawn();
      }
      if (!target || target.inFlight.size >= JOBS_PER_WORKER) return;
      const job = this.#queue.shift() as Job;
      target.inFlight.set(job.id, job);
      target.worker.postMessage({ id: job.id, tasks: job.tasks });
    }
  }

  #spawn(): PooledWorker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ...findParser(), tieringBudget: WASM_TIERING_BUDGET },
    });
    worker.unref();
    const pooled: PooledWorker = { worker, inFlight: new Map() };
    worker.on('message', (message: { id: number; results: RawResult[] }) => {
      const job = pooled.inFlight.get(message.id);
      pooled.inFlight.delete(message.id);
      job?.resolve(message.results);
      this.#dispatch();
    });
    worker.on('error', (error: Error) => {
      // A parser that crashed fails the jobs it held; later jobs go to a new worker.
      this.#workers.splice(this.#workers.indexOf(pooled), 1);
      for (const job of pooled.inFlight.values()) job.reject(error);
      pooled.inFlight.clear();
      this.#dispatch();
    });
    this.#workers.push(pooled);
    return pooled;
  }

  /** Ends the workers; parses still queued or running fail. */
  async close(): Promise<void> {
    const workers = this.#workers.splice(0);
    const closed = new Error('the parser pool was closed');
    for (const job of this.#queue.splice(0)) job.reject(closed);
    for (const w of workers) for (const job of w.inFlight.values()) job.reject(closed);
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }
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

/**
 * hcl2json reports `parse config: [FILE:LINE,COL-ENDCOL: summary; detail]` (several diagnostics separated by
 * `, `); keep the first diagnostic's position and its text.
 */
export function parseErrorOutcome(file: string, raw: string): ParseOutcome {
  const inner = raw.replace(/^parse config:\s*\[/, '').replace(/\]\s*$/, '');
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
