/**
 * What `down` remembers and where: the park record (the sizes, objects and states `up` restores) and the step
 * journal of the last `down`/`up` (for `--resume`, `platctl status` and ETAs).
 *
 * Locally both live in `.platctl-park/<env>.json`, written atomically (temp file, fsync, rename). The record is
 * also shared by every runner in a store the CLI picks ({@link RecordPlaces}): `<key_prefix>/park/<env>.json` in the
 * state bucket with `state.backend: s3`, else `s3://<aws.state_bucket>/platctl/park/<env>.json` when the environment
 * has one. A first record is written with `If-None-Match: *` and later ones with `If-Match` on the ETag read, so two
 * runners can never both write a first record.
 */
import { mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CloudFailureReason, CloudResult } from '../cloud/result.js';
import { failure, ok } from '../cloud/result.js';
import { writeFileAtomic } from '../config/atomic-write.js';
import type { ObjectStore, StoreResult } from '../engine/object-store.js';
import { checkParkFile, checkRecord, repairHint } from './record-schema.js';
import type { ParkFile, ParkRecord } from './record-types.js';

export const PARK_DIR = '.platctl-park';
export const PARK_RECORD_VERSION = 1;

export type { Operation, ParkFile, ParkOp, ParkRecord, StepRecord, StepStatus } from './record-types.js';

export function parkFilePath(root: string, env: string): string {
  return join(root, PARK_DIR, `${env}.json`);
}

export type LoadedParkFile =
  | { readonly type: 'missing' }
  | { readonly type: 'ok'; readonly file: ParkFile }
  | { readonly type: 'invalid'; readonly message: string; readonly hint: string };

/**
 * The park file of `env`, checked in full ({@link checkParkFile}): one that cannot be read or is not understood is
 * `invalid`, with what is wrong and how to repair it, never treated as missing. `cluster`, when known, is the one its
 * record must name.
 */
export async function loadParkFile(root: string, env: string, cluster?: string): Promise<LoadedParkFile> {
  const path = parkFilePath(root, env);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { type: 'missing' };
    return {
      type: 'invalid',
      message: `cannot read ${path}: ${(error as Error).message}`,
      hint: 'fix its permissions (it holds the journal and, without a shared store, the park record)',
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { type: 'invalid', message: `${path} is not valid JSON`, hint: repairHint(path, 'local', env) };
  }
  const checked = checkParkFile(parsed, path, { env, cluster });
  return checked.ok
    ? { type: 'ok', file: checked.value }
    : { type: 'invalid', message: checked.message, hint: checked.hint };
}

/**
 * A park file of `env` moved aside (`<env>.json.damaged`, or any `<env>.json.<suffix>` but platctl's own temp files)
 * while `<env>.json` is missing: without a shared store that file was the record, so the park state is unknown until
 * it is repaired and moved back or `down --restore-size` records the sizes again. Undefined when there is none.
 */
export async function movedAside(root: string, env: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = await readdir(join(root, PARK_DIR));
  } catch {
    return undefined;
  }
  if (names.includes(`${env}.json`)) return undefined;
  const aside = names.filter((name) => name.startsWith(`${env}.json.`) && !name.startsWith(`${env}.json.tmp-`)).sort();
  return aside[0] === undefined ? undefined : join(root, PARK_DIR, aside[0]);
}

/** Why the park state of `env` is unknown when its only record was moved aside to `aside`. */
export function asideRefusal(root: string, env: string, aside: string): { message: string; hint: string } {
  const path = parkFilePath(root, env);
  return {
    message: `${path} is missing and ${aside} is there: ${env}'s only park record was moved aside`,
    hint:
      `repair it and move it back (mv ${aside} ${path}), or record the sizes again with platctl down --env ${env} ` +
      `--restore-size GROUP=MIN/MAX/DESIRED (once per node group); until then whether ${env} is parked is unknown`,
  };
}

/** Every environment with a park file under `root`. */
export async function parkFileEnvs(root: string): Promise<string[]> {
  try {
    return (await readdir(join(root, PARK_DIR)))
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -'.json'.length))
      .sort();
  } catch {
    return [];
  }
}

/** Writes the file atomically: a crash leaves the old file or the new one, never half of one. */
export async function saveParkFile(root: string, file: ParkFile): Promise<void> {
  const dir = join(root, PARK_DIR);
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(parkFilePath(root, file.env), `${JSON.stringify(file, null, 2)}\n`);
}

/**
 * Saves the journal part of `file` (the last operation and the durations) over the file on disk, keeping the record
 * mirror as {@link RecordStore.mirror} last wrote it.
 */
export async function saveJournal(root: string, file: ParkFile): Promise<void> {
  const current = await loadParkFile(root, file.env);
  // A file platctl does not understand is never overwritten (the run refused it before its first step).
  if (current.type === 'invalid') return;
  const base: ParkFile =
    current.type === 'ok' ? current.file : { version: PARK_RECORD_VERSION, env: file.env, durations_ms: {} };
  const next: ParkFile = { ...base, durations_ms: file.durations_ms };
  if (file.last) next.last = file.last;
  await saveParkFile(root, next);
}

/** The key of an environment's record in the store that shares it. */
export function recordKey(env: string): string {
  return `park/${env}.json`;
}

/** Where an environment's record is shared, chosen from `.platctl.yaml` by park/stores.ts (docs/park.md, docs/state.md). */
export interface RecordPlaces {
  /** The store that shares the record (at {@link recordKey}); undefined: local only. */
  readonly shared?: ObjectStore | undefined;
  /**
   * Where an earlier configuration shared it (the environment's `aws.state_bucket` before `state.backend: s3`):
   * read when `shared` has no record yet, never written; the record found there is copied to `shared`.
   */
  readonly previous?: ObjectStore | undefined;
  /**
   * Asked before every write to `shared`: false once the run lost its environment lock (fenced). Given only to a run
   * that holds the lock: a store without it (status, bootstrap's guard) reads and never migrates.
   */
  readonly mayWrite?: (() => Promise<boolean>) | undefined;
  /** Told when a record was copied from `previous` to `shared`. */
  readonly onMoved?: ((from: string, to: string) => void) | undefined;
}

/** How a write ended: `conflict` when another runner wrote first, `fenced` when this run may no longer write. */
export type RecordWrite = 'written' | 'conflict' | 'fenced';

/** Where an environment's record is read and written: the shared store (when configured) and the local file. */
export class RecordStore {
  readonly #root: string;
  readonly #env: string;
  readonly #places: RecordPlaces;
  /** The cluster the record must name, when known (environments.<env>.cluster.name). */
  readonly #cluster: string | undefined;
  /** The ETag of the shared object last read, for the next conditional write. */
  #etag: string | undefined;
  /** Where the last read found its record, when that was not {@link location} (the previous place, not moved). */
  #answeredAt: string | undefined;

  constructor(root: string, env: string, places: RecordPlaces = {}, cluster?: string) {
    this.#root = root;
    this.#env = env;
    this.#places = places;
    this.#cluster = cluster;
  }

  /** Whether the record is shared (in S3): then the local file only mirrors it and keeps the journal. */
  get shared(): boolean {
    return this.#places.shared !== undefined;
  }

  get location(): string {
    const { shared } = this.#places;
    return shared ? shared.location(recordKey(this.#env)) : parkFilePath(this.#root, this.#env);
  }

  /** Where the last {@link read} found the record: {@link location}, or the previous place when it was not moved. */
  get answeredFrom(): string {
    return this.#answeredAt ?? this.location;
  }

  /**
   * Where the only record of this environment was moved aside ({@link movedAside}), when it is not shared and has no
   * record file: for the readers that must not take that for "not parked" (status, bootstrap's guard).
   */
  async aside(): Promise<string | undefined> {
    return this.#places.shared ? undefined : movedAside(this.#root, this.#env);
  }

  /** The current record (the shared one when configured, else local), or undefined. */
  async read(): Promise<CloudResult<ParkRecord | undefined>> {
    const { shared, previous } = this.#places;
    this.#answeredAt = undefined;
    if (!shared) {
      const local = await loadParkFile(this.#root, this.#env, this.#cluster);
      if (local.type === 'invalid') return failure('error', local.message, local.hint);
      return ok(local.type === 'ok' ? local.file.record : undefined);
    }
    const got = await readShared(shared, this.#env, this.#cluster);
    if (!got.ok) return got;
    this.#etag = got.value?.etag;
    if (got.value || !previous) return ok(got.value?.record);
    const old = await readShared(previous, this.#env, this.#cluster);
    if (!old.ok || !old.value) return old.ok ? ok(undefined) : old;
    return this.#moveFromPrevious(shared, previous, old.value.record);
  }

  /** Copies the record found at its previous place to the shared store, when this run may write. */
  async #moveFromPrevious(
    shared: ObjectStore,
    previous: ObjectStore,
    record: ParkRecord,
  ): Promise<CloudResult<ParkRecord | undefined>> {
    const { mayWrite, onMoved } = this.#places;
    if (!mayWrite || !(await mayWrite())) {
      this.#answeredAt = previous.location(recordKey(this.#env));
      return ok(record);
    }
    const put = await shared.put(recordKey(this.#env), recordText(record), { ifNoneMatch: true });
    if (!put.ok) return toCloud(put);
    if (put.value.type === 'conflict') {
      // Another runner moved (or wrote) it first: its copy is the record.
      const again = await readShared(shared, this.#env, this.#cluster);
      if (!again.ok) return again;
      this.#etag = again.value?.etag;
      return ok(again.value?.record);
    }
    this.#etag = put.value.etag;
    onMoved?.(previous.location(recordKey(this.#env)), this.location);
    return ok(record);
  }

  /**
   * Writes `record` where the one read was: a first record only if there is none yet, a replacement only if nobody
   * changed it since. `conflict` when another runner got there first.
   */
  async write(record: ParkRecord, first: boolean): Promise<CloudResult<RecordWrite>> {
    const { shared, mayWrite } = this.#places;
    if (shared) {
      if (mayWrite && !(await mayWrite())) return ok('fenced');
      const condition = first || this.#etag === undefined ? { ifNoneMatch: true as const } : { ifMatch: this.#etag };
      const put = await shared.put(recordKey(this.#env), recordText(record), condition);
      if (!put.ok) return toCloud(put);
      if (put.value.type === 'conflict') return ok('conflict');
      this.#etag = put.value.etag;
    }
    await this.mirror(record);
    return ok('written');
  }

  /**
   * Removes the record where it is (the shared object and the one at its previous place, then the local file with
   * its journal), after a teardown of the environment; returns the locations that held one. Nothing there is a
   * success. Each object is deleted only as read (`If-Match`): a record rewritten meanwhile is left.
   */
  async clear(): Promise<CloudResult<string[]>> {
    // A local file platctl does not understand (a newer platctl's, a damaged one) is never removed unread: refused
    // before anything else is.
    const local = await loadParkFile(this.#root, this.#env);
    if (local.type === 'invalid') return failure('error', `${local.message}; it was not removed`, local.hint);
    const removed: string[] = [];
    for (const store of [this.#places.shared, this.#places.previous]) {
      if (!store) continue;
      const key = recordKey(this.#env);
      const current = await store.get(key);
      if (!current.ok) return toCloud(current);
      if (!current.value) continue;
      const deleted = await store.remove(key, current.value.etag);
      if (!deleted.ok) return toCloud(deleted);
      if (deleted.value === 'conflict') {
        return failure(
          'error',
          `${store.location(key)} changed while platctl removed it`,
          'look at it, then remove it by hand',
        );
      }
      removed.push(store.location(key));
    }
    const path = parkFilePath(this.#root, this.#env);
    if (local.type !== 'missing') {
      try {
        await rm(path, { force: true });
      } catch (error) {
        return failure('error', `cannot remove ${path}: ${(error as Error).message}`, 'remove it by hand');
      }
      removed.push(path);
    }
    return ok(removed);
  }

  /** Copies `record` into the local file. */
  async mirror(record: ParkRecord): Promise<void> {
    const local = await loadParkFile(this.#root, this.#env);
    // A file platctl does not understand is never overwritten (the run refused it before its first step).
    if (local.type === 'invalid') return;
    const file: ParkFile =
      local.type === 'ok' ? local.file : { version: PARK_RECORD_VERSION, env: this.#env, durations_ms: {} };
    file.record = record;
    file.record_location = this.location;
    await saveParkFile(this.#root, file);
  }
}

function recordText(record: ParkRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** A store failure as a cloud failure (the store is S3, whose failures are cloud failures). */
function toCloud(result: Extract<StoreResult<unknown>, { ok: false }>): CloudResult<never> {
  return failure(result.reason as CloudFailureReason, result.message, result.hint);
}

/** The record in `store`, with its ETag; undefined when there is none. */
async function readShared(
  store: ObjectStore,
  env: string,
  cluster: string | undefined,
): Promise<CloudResult<{ record: ParkRecord; etag: string } | undefined>> {
  const got = await store.get(recordKey(env));
  if (!got.ok) return toCloud(got);
  if (!got.value) return ok(undefined);
  const where = store.location(recordKey(env));
  let parsed: unknown;
  try {
    parsed = JSON.parse(got.value.body);
  } catch {
    return failure('error', `${where} is not valid JSON`, repairHint(where, 'shared', env));
  }
  const checked = checkRecord(parsed, where, { env, cluster }, 'shared');
  if (!checked.ok) return failure('error', checked.message, checked.hint);
  return ok({ record: checked.value, etag: got.value.etag });
}
