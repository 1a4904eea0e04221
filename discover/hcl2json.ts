/**
 * The one module that knows the HCL parser: `@cdktf/hcl2json` (a WASM build of tmccombs/hcl2json). Swapping it for
 * the community fork `@cdktn/hcl2json` is the one line in `PARSER_MODULE`.
 *
 * Parsing runs in worker threads: one parse is about a millisecond of uninterrupted WASM, and thousands of them in
 * a row would freeze the event loop (no live view, no Ctrl-C). Files are parsed in batches: each file's body is
 * wrapped in a block of its own (`__f0 { ... }`) and a batch is one parser call, which costs about a third of one
 * call per file. A batch that fails, or whose top level is not exactly the wrapper blocks (an unbalanced brace in one
 * file could swallow the next), is parsed again file by file, so every error names its own file and line.
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

const BATCH_SIZE = 16;

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
 * calls its exported parse function directly, passing the JSON text back as it came: no promise per call, and no
 * copying of parsed objects between threads. Otherwise it goes through the package's public `parse`.
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

/** A small pool of parser workers; `close()` ends them. */
export class HclParserPool {
  readonly #workers: Worker[] = [];
  readonly #idle: Worker[] = [];
  readonly #waiting: ((worker: Worker) => void)[] = [];
  #size: number;
  #nextId = 0;

  constructor(size = Math.max(1, Math.min(4, availableParallelism()))) {
    this.#size = size;
  }

  /**
   * Starts workers now, so the parser's WASM loads (about a quarter of a second per worker) while discovery still
   * scans and reads; a pool otherwise starts workers on first use. `count` caps how many (default: the pool's size).
   */
  warm(count = this.#size): void {
    while (this.#workers.length < Math.min(count, this.#size)) this.#release(this.#spawn());
  }

  /** How many workers are running. */
  get running(): number {
    return this.#workers.length;
  }

  /** Lowers how many workers the pool may start (those running stay): a few files are not worth a second one. */
  limit(size: number): void {
    this.#size = Math.max(1, Math.min(this.#size, size));
  }

  /** Parses every file; the result maps each request's `file` to its outcome. */
  async parseAll(requests: readonly ParseRequest[]): Promise<Map<string, ParseOutcome>> {
    const out = new Map<string, ParseOutcome>();
    const batches: ParseRequest[][] = [];
    for (let i = 0; i < requests.length; i += BATCH_SIZE) batches.push(requests.slice(i, i + BATCH_SIZE));
    await Promise.all(
      batches.map(async (batch) => {
        for (const [file, outcome] of await this.#parseBatch(batch)) out.set(file, outcome);
      }),
    );
    return out;
  }

  async #parseBatch(batch: readonly ParseRequest[]): Promise<Map<string, ParseOutcome>> {
    const out = new Map<string, ParseOutcome>();
    if (batch.length > 1) {
      const content = batch.map((r, i) => `${WRAP_PREFIX}${i} {\n${r.content}\n}\n`).join('');
      const [result] = await this.#run([{ name: 'batch.hcl', content }]);
      if (result?.ok && isWholeBatch(result.json, batch.length)) {
        batch.forEach((r, i) => {
          const body = (result.json[`${WRAP_PREFIX}${i}`] as Record<string, unknown>[])[0] ?? {};
          out.set(r.file, { ok: true, json: body });
        });
        return out;
      }
    }
    const results = await this.#run(batch.map((r) => ({ name: r.file, content: r.content })));
    batch.forEach((r, i) => {
      const result = results[i];
      if (result?.ok) out.set(r.file, { ok: true, json: result.json });
      else out.set(r.file, parseErrorOutcome(r.file, result?.message ?? 'the parser returned nothing'));
    });
    return out;
  }

  async #run(tasks: WorkerTask[]): Promise<WorkerResult[]> {
    const raw = await this.#post(tasks);
    return raw.map((result) => {
      if (!result.ok) return result;
      try {
        return { ok: true, json: JSON.parse(result.json) as Record<string, unknown> };
      } catch {
        return { ok: false, message: 'the parser returned malformed JSON' };
      }
    });
  }

  async #post(tasks: WorkerTask[]): Promise<RawResult[]> {
    const worker = await this.#acquire();
    const id = this.#nextId++;
    try {
      return await new Promise<RawResult[]>((resolve, reject) => {
        const onMessage = (message: { id: number; results: RawResult[] }): void => {
          if (message.id !== id) return;
          worker.off('message', onMessage);
          worker.off('error', onError);
          resolve(message.results);
        };
        const onError = (error: Error): void => {
          worker.off('message', onMessage);
          reject(error);
        };
        worker.on('message', onMessage);
        worker.once('error', onError);
        worker.postMessage({ id, tasks });
      });
    } finally {
      this.#release(worker);
    }
  }

  async #acquire(): Promise<Worker> {
    const idle = this.#idle.pop();
    if (idle) return idle;
    if (this.#workers.length < this.#size) return this.#spawn();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ...findParser(), tieringBudget: WASM_TIERING_BUDGET },
    });
    worker.unref();
    this.#workers.push(worker);
    return worker;
  }

  #release(worker: Worker): void {
    const next = this.#waiting.shift();
    if (next) next(worker);
    else this.#idle.push(worker);
  }

  async close(): Promise<void> {
    const workers = this.#workers.splice(0);
    this.#idle.length = 0;
    await Promise.all(workers.map((w) => w.terminate()));
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
