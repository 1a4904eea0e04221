/**
 * The run state in the shared backend (docs/state.md), beside the local files that stay as a cache:
 *
 *   <prefix>/runs/<run_id>/state.json    the whole state (what `.platctl-state.json` holds), on every coalesced flush
 *   <prefix>/runs/<run_id>/summary.json  verb, who, when, result, duration: what `platctl history` lists
 *   <prefix>/runs/<run_id>/logs/<file>   each unit's log, uploaded when the unit ends
 *   <prefix>/latest/<verb>.json          the summary of the newest run of that verb: where status and --resume start
 *
 * Every write goes through the run's environment locks first ({@link EnvLocks.ensureFresh}): a fenced run writes
 * nothing. Uploads run in the background, one at a time and coalesced, so the walk never waits for S3; `close()`
 * waits for the last one.
 */
import { readFile } from 'node:fs/promises';
import * as z from '../config/zod.js';
import { join } from 'node:path';
import { hostname, userInfo } from 'node:os';
import type { Failure, Result } from '../config/result.js';
import { failure, ok } from '../config/result.js';
import { EXIT } from '../config/exit-codes.js';
import type { EnvLocks } from './env-lock.js';
import type { ObjectStore, StoreResult } from './object-store.js';
import type { LoadedState, RunState, RunStatus } from './state.js';
import { parseState } from './state.js';
import type { RunCommand, UnitStatus } from './unit-status.js';

export const SUMMARY_VERSION = 1;
const VERBS: readonly RunCommand[] = ['bootstrap', 'teardown'];

export const runStateKey = (runId: string): string => `runs/${runId}/state.json`;
export const runSummaryKey = (runId: string): string => `runs/${runId}/summary.json`;
export const runLogKey = (runId: string, file: string): string => `runs/${runId}/logs/${file}`;
export const latestKey = (verb: RunCommand): string => `latest/${verb}.json`;

/** `runs/<run_id>/summary.json` and `latest/<verb>.json`. */
export interface RunSummary {
  readonly version: typeof SUMMARY_VERSION;
  readonly run_id: string;
  readonly command: RunCommand;
  readonly envs: readonly string[];
  readonly by: { readonly user: string; readonly host: string };
  readonly started_at: string;
  readonly updated_at: string;
  readonly ended_at?: string;
  readonly status: RunStatus;
  readonly duration_ms?: number;
  readonly counts: Partial<Record<UnitStatus, number>>;
  readonly resumes: number;
  readonly stopped_because?: string;
  /** The `--env` the run was started with (empty: the checkout's default selection); older summaries lack it. */
  readonly selection_env?: readonly string[];
}

/** Who runs, for summaries. */
export interface RunAuthor {
  readonly user: string;
  readonly host: string;
}

export function summarize(state: RunState, envs: readonly string[], by: RunAuthor): RunSummary {
  const counts: Partial<Record<UnitStatus, number>> = {};
  for (const unit of Object.values(state.units)) counts[unit.status] = (counts[unit.status] ?? 0) + 1;
  const ended = state.ended_at === undefined ? undefined : Date.parse(state.ended_at) - Date.parse(state.started_at);
  return {
    version: SUMMARY_VERSION,
    run_id: state.run_id,
    command: state.command,
    envs: [...envs],
    by,
    started_at: state.started_at,
    updated_at: state.updated_at,
    ...(state.ended_at === undefined ? {} : { ended_at: state.ended_at }),
    status: state.status,
    ...(ended === undefined || Number.isNaN(ended) ? {} : { duration_ms: Math.max(0, ended) }),
    counts,
    resumes: state.resumes,
    ...(state.stopped_because === undefined ? {} : { stopped_because: state.stopped_because }),
    selection_env: [...state.args.env].sort(),
  };
}

const text = z.string();
const count = z.number().int().min(0);
const summarySchema = z.looseObject({
  version: z.literal(SUMMARY_VERSION),
  run_id: text.min(1),
  command: z.enum(VERBS),
  envs: z.array(text),
  by: z.looseObject({ user: text, host: text }),
  started_at: text,
  updated_at: text,
  ended_at: text.optional(),
  status: z.enum(['running', 'completed', 'failed', 'interrupted']),
  duration_ms: z.number().min(0).optional(),
  counts: z.record(text, count),
  resumes: count,
  stopped_because: text.optional(),
  selection_env: z.array(text).optional(),
});

/** A summary object's text, checked field by field; undefined when it is not one this platctl reads. */
export function parseSummary(body: string): RunSummary | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return undefined;
  }
  const parsed = summarySchema.safeParse(raw);
  return parsed.success ? (parsed.data as RunSummary) : undefined;
}

/** The environments a state's units belong to (`<env>/<path>` ids). */
export function envsOf(state: Pick<RunState, 'units'>): string[] {
  return [...new Set(Object.keys(state.units).map((id) => id.slice(0, id.indexOf('/'))))].sort();
}

export type RemoteState =
  | { readonly type: 'missing' }
  | { readonly type: 'ok'; readonly state: RunState; readonly summary: RunSummary }
  | { readonly type: 'invalid'; readonly message: string };

/** One run's state from the bucket. */
export async function loadRemoteRun(store: ObjectStore, runId: string): Promise<StoreResult<RemoteState>> {
  const [stateObject, summaryObject] = await Promise.all([
    store.get(runStateKey(runId)),
    store.get(runSummaryKey(runId)),
  ]);
  if (!stateObject.ok) return stateObject;
  if (!summaryObject.ok) return summaryObject;
  if (stateObject.value === undefined) return { ok: true, value: { type: 'missing' } };
  const loaded: LoadedState = parseState(stateObject.value.body, store.location(runStateKey(runId)));
  if (loaded.type !== 'ok') {
    return { ok: true, value: { type: 'invalid', message: loaded.type === 'invalid' ? loaded.message : '' } };
  }
  const summary =
    (summaryObject.value && parseSummary(summaryObject.value.body)) ??
    summarize(loaded.state, envsOf(loaded.state), { user: '(unknown)', host: '(unknown)' });
  return { ok: true, value: { type: 'ok', state: loaded.state, summary } };
}

/** The newest run of any verb (`latest/<verb>.json`, newest `updated_at`), or of `verb`. */
export async function loadRemoteLatest(store: ObjectStore, verb?: RunCommand): Promise<StoreResult<RemoteState>> {
  const pointers = await Promise.all((verb ? [verb] : VERBS).map((v) => store.get(latestKey(v))));
  const summaries: RunSummary[] = [];
  for (const [i, pointer] of pointers.entries()) {
    if (!pointer.ok) return pointer;
    if (pointer.value === undefined) continue;
    const summary = parseSummary(pointer.value.body);
    if (!summary) {
      const key = latestKey((verb ? [verb] : VERBS)[i] ?? 'bootstrap');
      return { ok: true, value: { type: 'invalid', message: `${store.location(key)} is not a platctl run summary` } };
    }
    summaries.push(summary);
  }
  const newest = summaries.sort((a, b) => b.updated_at.localeCompare(a.updated_at))[0];
  if (!newest) return { ok: true, value: { type: 'missing' } };
  return loadRemoteRun(store, newest.run_id);
}

/** A run in the history: its summary, or one rebuilt from its state (`rebuilt` says why). */
export type ListedRun = RunSummary & {
  /** Set when `summary.json` is missing or damaged and this summary was rebuilt from the run's whole `state.json`. */
  readonly rebuilt?: string;
};

/** A run whose summary and state are both unreadable: named, never hidden. */
export interface DamagedRun {
  readonly run_id: string;
  readonly message: string;
  readonly hint: string;
}

/**
 * Past runs, newest first, at most `limit`, only those touching `env` when given. Run ids sort by their start to the
 * second, then by a random suffix: runs started in the same second are read together and put in the order of their
 * `started_at` (then id), so the newest comes first even then (`--resume` takes the first of its selection).
 *
 * A run whose `summary.json` is missing or damaged is rebuilt from its `state.json` when that is whole (`rebuilt`
 * says so; the run's author is then unknown); when the state is unreadable too, the run is listed in `damaged`.
 */
export async function listRuns(
  store: ObjectStore,
  options: { readonly env?: string | undefined; readonly limit: number },
): Promise<StoreResult<{ runs: ListedRun[]; damaged: DamagedRun[] }>> {
  const listed = await store.list('runs/');
  if (!listed.ok) return listed;
  const ids = [...listed.value.folders].sort().reverse();
  const second = (id: string): string => id.split('-', 1)[0] ?? id;
  const out: ListedRun[] = [];
  const damaged: DamagedRun[] = [];
  const BATCH = 16;
  // Read until `limit` runs are found and the next id starts in another second than the last one read.
  let i = 0;
  while (
    i < ids.length &&
    (out.length < options.limit || (i > 0 && second(ids[i] as string) === second(ids[i - 1] as string)))
  ) {
    const batch = ids.slice(i, i + BATCH);
    i += batch.length;
    const got = await Promise.all(batch.map((id) => readListedRun(store, id)));
    for (const run of got) {
      if (!run.ok) return run;
      if (run.value.type === 'damaged') {
        damaged.push(run.value.run);
        continue;
      }
      if (options.env !== undefined && !run.value.run.envs.includes(options.env)) continue;
      out.push(run.value.run);
    }
  }
  const newestFirst = out.sort(
    (a, b) => b.started_at.localeCompare(a.started_at) || (a.run_id < b.run_id ? 1 : a.run_id > b.run_id ? -1 : 0),
  );
  return { ok: true, value: { runs: newestFirst.slice(0, options.limit), damaged } };
}

/** One run's summary; rebuilt from its state when the summary is missing or damaged; or why neither can be read. */
async function readListedRun(
  store: ObjectStore,
  runId: string,
): Promise<StoreResult<{ type: 'ok'; run: ListedRun } | { type: 'damaged'; run: DamagedRun }>> {
  const object = await store.get(runSummaryKey(runId));
  if (!object.ok) return object;
  const summary = object.value && parseSummary(object.value.body);
  if (summary) return { ok: true, value: { type: 'ok', run: summary } };
  const summaryAt = store.location(runSummaryKey(runId));
  const why =
    object.value === undefined ? `${summaryAt} is missing` : `${summaryAt} is not a platctl run summary (damaged)`;
  const stateObject = await store.get(runStateKey(runId));
  if (!stateObject.ok) return stateObject;
  const loaded: LoadedState =
    stateObject.value === undefined
      ? { type: 'missing' }
      : parseState(stateObject.value.body, store.location(runStateKey(runId)));
  if (loaded.type === 'ok') {
    const rebuilt = summarize(loaded.state, envsOf(loaded.state), { user: '(unknown)', host: '(unknown)' });
    return { ok: true, value: { type: 'ok', run: { ...rebuilt, rebuilt: `${why}; rebuilt from its state.json` } } };
  }
  const stateWhy = loaded.type === 'missing' ? `${store.location(runStateKey(runId))} is missing` : loaded.message;
  return {
    ok: true,
    value: {
      type: 'damaged',
      run: {
        run_id: runId,
        message: `run ${runId} cannot be read: ${why}, and ${stateWhy}`,
        hint:
          `if another checkout has this run in its .platctl-state.json, platctl state push from there restores it; ` +
          `otherwise delete ${store.location(`runs/${runId}/`)}`,
      },
    },
  };
}

/** How many of the newest runs `--resume` looks through for one of its selection. */
export const RESUME_SEARCH = 50;

/**
 * The newest run (of either verb) started with the `--env` selection `envs` (empty: without `--env`), among the
 * {@link RESUME_SEARCH} newest; `newer` are the runs of other selections started after it (or all of them, when none
 * matches), for the message.
 */
export async function findResumable(
  store: ObjectStore,
  envs: readonly string[],
): Promise<StoreResult<{ match: RunSummary | undefined; newer: RunSummary[] }>> {
  const runs = await listRuns(store, { limit: RESUME_SEARCH });
  if (!runs.ok) return runs;
  const wanted = sameSet(envs);
  const newer: RunSummary[] = [];
  for (const summary of runs.value.runs) {
    let selection = summary.selection_env;
    if (selection === undefined) {
      const run = await loadRemoteRun(store, summary.run_id);
      if (!run.ok) return run;
      selection = run.value.type === 'ok' ? run.value.state.args.env : undefined;
    }
    if (selection !== undefined && sameSet(selection) === wanted) return { ok: true, value: { match: summary, newer } };
    newer.push(summary);
  }
  return { ok: true, value: { match: undefined, newer } };
}

function sameSet(values: readonly string[]): string {
  return [...new Set(values)].sort().join('\n');
}

/** One line naming a run: id, verb, environments, who, when, result. */
export function describeRun(summary: RunSummary): string {
  const envs = summary.envs.length > 0 ? summary.envs.join(', ') : '(none)';
  const selection =
    (summary.selection_env ?? []).length > 0 ? ` (--env ${summary.selection_env?.join(' --env ')})` : '';
  return (
    `run ${summary.run_id}: ${summary.command} of ${envs}${selection} by ${summary.by.user}@${summary.by.host}, ` +
    `started ${summary.started_at}, ${summary.status}`
  );
}

/**
 * Uploads a state written before the shared backend was configured (the first s3 run of a repository, or
 * `platctl state push`): its state, summary and, unless a newer run of its verb is there, the latest pointer.
 */
export async function uploadState(
  store: ObjectStore,
  state: RunState,
  by: RunAuthor,
): Promise<StoreResult<'uploaded' | 'exists'>> {
  const summary = summarize(state, envsOf(state), by);
  const text = `${JSON.stringify(state)}\n`;
  const put = await store.put(runStateKey(state.run_id), text, { always: true });
  if (!put.ok) return put;
  const summaryPut = await store.put(runSummaryKey(state.run_id), `${JSON.stringify(summary, null, 2)}\n`, {
    always: true,
  });
  if (!summaryPut.ok) return summaryPut;
  const current = await store.get(latestKey(state.command));
  if (!current.ok) return current;
  const newer = current.value && parseSummary(current.value.body);
  if (newer && newer.run_id !== state.run_id && newer.updated_at > state.updated_at) {
    return { ok: true, value: 'exists' };
  }
  const condition = current.value ? { ifMatch: current.value.etag } : { ifNoneMatch: true as const };
  const pointer = await store.put(latestKey(state.command), `${JSON.stringify(summary, null, 2)}\n`, condition);
  if (!pointer.ok) return pointer;
  return { ok: true, value: pointer.value.type === 'written' ? 'uploaded' : 'exists' };
}

/** Uploads a run's state, summary, pointer and logs while (and only while) it holds its environment locks. */
export class RunPublisher {
  readonly #store: ObjectStore;
  readonly #locks: EnvLocks;
  readonly #root: string;
  readonly #by: RunAuthor;
  readonly #envs: readonly string[];
  readonly #queue: (() => Promise<void>)[] = [];
  #pendingText: string | undefined;
  #draining: Promise<void> | undefined;
  readonly #problems = new Set<string>();
  #skipped = false;
  /**
   * The ETag this publisher last wrote to each of the run's own keys (its state and summary), or null when it found
   * none there. Those writes are conditional on it: a holder paused between its lock check and its upload (a stopped
   * process, a suspended laptop) cannot overwrite what the run's new holder wrote meanwhile.
   */
  readonly #etags = new Map<string, string | null>();
  /** The run's own key another writer changed under this publisher: it writes nothing more. */
  #superseded: string | undefined;

  constructor(options: { store: ObjectStore; locks: EnvLocks; root: string; by: RunAuthor; envs: readonly string[] }) {
    this.#store = options.store;
    this.#locks = options.locks;
    this.#root = options.root;
    this.#by = options.by;
    this.#envs = options.envs;
  }

  /** The state file was written: upload this version (a later one replaces it if this one has not left yet). */
  stateWritten(buffers: readonly Uint8Array[]): void {
    // The bytes are a snapshot: the store keeps changing its live state while the upload waits.
    this.#pendingText = Buffer.concat(buffers).toString('utf8');
    this.#kick();
  }

  /** A unit ended: upload its log (`log` is relative to the repository root). */
  unitLogClosed(runId: string, log: string): void {
    if (log === '') return;
    this.#queue.push(async () => {
      const body = await readFile(join(this.#root, log)).catch(() => undefined);
      if (body === undefined) return;
      await this.#write(runLogKey(runId, log.split('/').pop() ?? log), body);
    });
    this.#kick();
  }

  /** Waits for every upload; returns what could not be uploaded. */
  async close(): Promise<string[]> {
    while (this.#draining) await this.#draining;
    if (this.#superseded !== undefined) {
      this.#problems.add(
        `${this.#store.location(this.#superseded)} was written by another run since this one last wrote it (the run ` +
          `was taken over): nothing more was written there; the local files have it all`,
      );
    } else if (this.#skipped && this.#locks.fenceReason !== undefined) {
      this.#problems.add(
        `nothing more was written to ${this.#store.location('')} after the lock was lost; the local files have it all`,
      );
    }
    return [...this.#problems];
  }

  #kick(): void {
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
    });
  }

  async #drain(): Promise<void> {
    for (;;) {
      const job = this.#queue.shift();
      if (job) {
        await job();
        continue;
      }
      const text = this.#pendingText;
      if (text === undefined) return;
      this.#pendingText = undefined;
      const state = JSON.parse(text) as RunState;
      const summary = `${JSON.stringify(summarize(state, this.#envs, this.#by), null, 2)}\n`;
      if (!(await this.#writeOwn(runStateKey(state.run_id), text))) continue;
      if (!(await this.#writeOwn(runSummaryKey(state.run_id), summary))) continue;
      await this.#write(latestKey(state.command), summary);
    }
  }

  async #write(key: string, body: string | Uint8Array): Promise<boolean> {
    if (!(await this.#mayWrite())) return false;
    const put = await this.#store.put(key, body, { always: true });
    if (!put.ok) {
      this.#problems.add(`cannot upload to the shared state: ${put.message}`);
      return false;
    }
    return true;
  }

  /** A write to one of the run's own keys, only over what this publisher saw there (see #etags). */
  async #writeOwn(key: string, body: string): Promise<boolean> {
    if (!(await this.#mayWrite())) return false;
    let seen = this.#etags.get(key);
    if (seen === undefined) {
      const current = await this.#store.get(key);
      if (!current.ok) {
        this.#problems.add(`cannot upload to the shared state: ${current.message}`);
        return false;
      }
      seen = current.value?.etag ?? null;
    }
    const put = await this.#store.put(key, body, seen === null ? { ifNoneMatch: true } : { ifMatch: seen });
    if (!put.ok) {
      // Whether it landed is unknown: the next write looks again.
      this.#etags.delete(key);
      this.#problems.add(`cannot upload to the shared state: ${put.message}`);
      return false;
    }
    if (put.value.type === 'conflict') {
      this.#superseded = key;
      return false;
    }
    this.#etags.set(key, put.value.etag);
    return true;
  }

  async #mayWrite(): Promise<boolean> {
    if (this.#superseded !== undefined) return false;
    if (!(await this.#locks.ensureFresh())) {
      this.#skipped = true;
      return false;
    }
    return true;
  }
}

/**
 * The shared run state in the bucket: the latest run, or `run`, as a loaded state (an unparsable record is a state to
 * report, not a failure). `unreadable`: the bucket cannot be read; `no-such-run`: `run` is not in it.
 */
export async function readSharedRun(
  store: ObjectStore,
  run: string | undefined,
): Promise<Result<LoadedState, Failure<'unreadable' | 'no-such-run'>>> {
  const remote = run === undefined ? await loadRemoteLatest(store) : await loadRemoteRun(store, run);
  if (!remote.ok) return failure('unreadable', `cannot read the shared run state: ${remote.message}`, remote.hint);
  if (remote.value.type === 'missing' && run !== undefined) {
    return failure('no-such-run', `no run ${run} in ${store.location('runs/')}; platctl history lists the runs`);
  }
  return ok(
    remote.value.type === 'ok'
      ? { type: 'ok', state: remote.value.state }
      : remote.value.type === 'missing'
        ? { type: 'missing' }
        : { type: 'invalid', reason: 'unparsable', message: remote.value.message },
  );
}

/**
 * The shared run state for a verb (status, report): the latest run, or `run`. A bucket that cannot be read is refused
 * (exit 3), an unknown `run` is a usage error (exit 2), both said on `stderr`.
 */
export async function sharedRunOrExit(
  store: ObjectStore,
  run: string | undefined,
  stderr: NodeJS.WritableStream,
): Promise<{ type: 'ok'; loaded: LoadedState } | { type: 'error'; exitCode: number }> {
  const loaded = await readSharedRun(store, run);
  if (loaded.ok) return { type: 'ok', loaded: loaded.value };
  stderr.write(`platctl: ${loaded.message}\n${loaded.hint ? `  hint: ${loaded.hint}\n` : ''}`);
  return { type: 'error', exitCode: loaded.reason === 'unreadable' ? EXIT.refused : EXIT.usage };
}

/**
 * Who runs, as runs, locks and `history` name them: `USER` (or `LOGNAME`, `USERNAME`, from the process environment
 * the CLI passes), else the operating system's account (a cron job or a container often sets no `USER`), and this
 * host.
 */
export function runAuthor(env: Readonly<Record<string, string | undefined>>): RunAuthor {
  return { user: env.USER || env.LOGNAME || env.USERNAME || osUser(), host: hostname() };
}

function osUser(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    // No passwd entry for the uid (a container run with an arbitrary uid).
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}
