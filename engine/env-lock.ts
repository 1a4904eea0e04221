/**
 * The per-environment run lock of the shared state backend (docs/state.md): `<prefix>/locks/<env>.json` in the bucket.
 *
 * - Taken with `PutObject If-None-Match: *`: of any number of runs racing for it, S3 lets exactly one create it.
 * - A run locks every environment of its selection one by one in a fixed (sorted) order and never waits: when one is
 *   held it releases what it took and refuses. Two runs with overlapping selections therefore never deadlock, and
 *   never both hold a shared environment.
 * - The holder renews its heartbeat every `heartbeatMs` with `If-Match` on the ETag it last wrote. A lock not
 *   rewritten for more than 3 of its holder's intervals is stale; `--break-lock` takes a stale one over with
 *   `If-Match` on the stale ETag, so a holder that renewed in the meantime wins, and of several breakers one wins.
 * - Staleness trusts no two hosts' clocks: the age of a lock is the bucket's time of the read (`Date`) minus the
 *   bucket's time of the last write (`Last-Modified`), both from the bucket's clock. `heartbeat_at`, written by the
 *   holder's clock, is for people only. The holder measures its own margin on its monotonic clock.
 * - Fencing: a renewal that fails (the lock was taken over, S3 cannot be reached) aborts `fenced`; the run stops
 *   starting units and writes nothing more to the bucket. Before every write to the bucket the run asks
 *   {@link EnvLocks.ensureFresh}: a holder that was paused (suspended laptop, stopped process) past its margin renews
 *   first, and learns it lost the lock instead of writing.
 * - Release is a conditional delete (`If-Match` on our ETag): a run never deletes a lock that is not its own.
 */
import * as z from '../config/zod.js';
import type { ObjectStore, StoreResult, StoredObject } from './object-store.js';
import { setTimer } from './timers.js';

export const LOCK_VERSION = 1;
/** A lock not renewed for this many of its holder's heartbeat intervals is stale. */
export const STALE_AFTER_BEATS = 3;
/**
 * S3 dates have whole seconds: an age read from them may exceed the true age by up to this much, so a lock is judged
 * stale only when its age is over {@link STALE_AFTER_BEATS} intervals plus this.
 */
export const STORE_CLOCK_RESOLUTION_MS = 1000;

/** Who runs: the fields every lock of the run carries. */
export interface LockOwner {
  readonly run_id: string;
  readonly verb: string;
  /** The command line as typed. */
  readonly command: string;
  readonly host: string;
  readonly user: string;
  readonly pid: number;
}

/** `<prefix>/locks/<env>.json`. */
export interface EnvLockRecord extends LockOwner {
  readonly version: typeof LOCK_VERSION;
  readonly env: string;
  readonly started_at: string;
  readonly heartbeat_at: string;
  /** The holder's renewal interval: staleness is judged by the holder's own rhythm. */
  readonly heartbeat_ms: number;
}

export function lockKey(env: string): string {
  return `locks/${env}.json`;
}

export interface EnvLockOptions {
  readonly store: ObjectStore;
  /** The wall clock, for the `started_at` and `heartbeat_at` people read; never for judging staleness. */
  readonly now: () => number;
  /** A monotonic clock in ms (default `performance.now`): the holder's own margin before it must renew. */
  readonly monotonic?: () => number;
  readonly heartbeatMs: number;
}

/** A lock someone else holds, as found. */
export interface FoundLock {
  readonly env: string;
  readonly holder: EnvLockRecord;
  /** How long ago the lock was last written, by the bucket's clock; NaN when the bucket did not say. */
  readonly ageMs: number;
  readonly stale: boolean;
}

export type AcquireResult =
  | { readonly type: 'acquired'; readonly locks: EnvLocks; readonly tookOver: readonly FoundLock[] }
  /** Held by another run (fresh, or stale without `--break-lock`); nothing of this run stays locked. */
  | ({ readonly type: 'held' } & FoundLock)
  | { readonly type: 'unreadable'; readonly env: string; readonly location: string; readonly message: string }
  | { readonly type: 'error'; readonly env: string; readonly message: string; readonly hint?: string };

const text = z.string().min(1);
const lockSchema = z.looseObject({
  version: z.literal(LOCK_VERSION),
  env: text,
  run_id: text,
  verb: text,
  command: z.string(),
  host: z.string(),
  user: z.string(),
  pid: z.number().int(),
  started_at: z.string(),
  heartbeat_at: z.string(),
  heartbeat_ms: z.number().min(1),
});

/** Parses a lock object; undefined when it is not one. */
export function parseLockRecord(body: string): EnvLockRecord | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return undefined;
  }
  const parsed = lockSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Age and staleness of `holder`, from the bucket's own times of the object (`modifiedAt`, `readAt`): the holder's
 * and the reader's clocks play no part, so neither a fast nor a slow clock on either side changes the verdict. When
 * the store gave no times the age is unknown (NaN) and the lock is never judged stale: it is not broken blindly.
 */
export function judgeLock(
  env: string,
  holder: EnvLockRecord,
  times: Pick<StoredObject, 'modifiedAt' | 'readAt'>,
): FoundLock {
  const { modifiedAt, readAt } = times;
  if (modifiedAt === undefined || readAt === undefined) return { env, holder, ageMs: Number.NaN, stale: false };
  const ageMs = Math.max(0, readAt - modifiedAt);
  return { env, holder, ageMs, stale: ageMs > STALE_AFTER_BEATS * holder.heartbeat_ms + STORE_CLOCK_RESOLUTION_MS };
}

/** Reads the lock of `env`: free, held (with age), or unreadable. */
export async function readEnvLock(
  store: ObjectStore,
  env: string,
): Promise<
  StoreResult<
    | { type: 'free' }
    | ({ type: 'held'; etag: string } & FoundLock)
    | { type: 'unreadable'; location: string; message: string }
  >
> {
  const got = await store.get(lockKey(env));
  if (!got.ok) return got;
  if (got.value === undefined) return { ok: true, value: { type: 'free' } };
  const holder = parseLockRecord(got.value.body);
  if (!holder) {
    return {
      ok: true,
      value: { type: 'unreadable', location: store.location(lockKey(env)), message: 'not a platctl lock object' },
    };
  }
  return { ok: true, value: { type: 'held', etag: got.value.etag, ...judgeLock(env, holder, got.value) } };
}

const ATTEMPTS = 8;

/**
 * Locks every environment in `envs` (sorted, each once) for `owner`. With `breakLock`, a stale lock is taken over
 * after `onBreak` was told about it (and only a stale one). Never waits for a held lock.
 */
export async function acquireEnvLocks(
  envs: readonly string[],
  owner: LockOwner,
  options: EnvLockOptions & {
    readonly breakLock: boolean;
    readonly onBreak?: (found: FoundLock) => void;
  },
): Promise<AcquireResult> {
  const { store, now } = options;
  const order = [...new Set(envs)].sort();
  const startedAt = new Date(now()).toISOString();
  // Every lock below is written after this instant: the run's margin counts from it.
  const began = (options.monotonic ?? (() => performance.now()))();
  const taken = new Map<string, Held>();
  const tookOver: FoundLock[] = [];
  const giveBack = async (): Promise<void> => {
    await releaseAll(store, [...taken.values()].reverse());
  };
  for (const env of order) {
    const outcome = await lockOne(env, owner, startedAt, options);
    if (outcome.type !== 'acquired') {
      await giveBack();
      return outcome;
    }
    taken.set(env, outcome.held);
    if (outcome.tookOver) tookOver.push(outcome.tookOver);
  }
  return { type: 'acquired', locks: new EnvLocks([...taken.values()], owner, options, began), tookOver };
}

interface Held {
  readonly env: string;
  record: EnvLockRecord;
  etag: string;
}

async function lockOne(
  env: string,
  owner: LockOwner,
  startedAt: string,
  options: EnvLockOptions & { readonly breakLock: boolean; readonly onBreak?: (found: FoundLock) => void },
): Promise<{ type: 'acquired'; held: Held; tookOver?: FoundLock } | Exclude<AcquireResult, { type: 'acquired' }>> {
  const { store, now, heartbeatMs } = options;
  const key = lockKey(env);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const record: EnvLockRecord = {
      version: LOCK_VERSION,
      env,
      ...owner,
      started_at: startedAt,
      heartbeat_at: new Date(now()).toISOString(),
      heartbeat_ms: heartbeatMs,
    };
    const body = `${JSON.stringify(record, null, 2)}\n`;
    const put = await store.put(key, body, { ifNoneMatch: true });
    if (!put.ok) return lockError(env, put);
    if (put.value.type === 'written') return { type: 'acquired', held: { env, record, etag: put.value.etag } };

    const found = await readEnvLock(store, env);
    if (!found.ok) return lockError(env, found);
    const current = found.value;
    // Released between our write and the read: try again.
    if (current.type === 'free') continue;
    if (current.type === 'unreadable') return { type: 'unreadable', env, ...rest(current) };
    if (!current.stale || !options.breakLock) return { type: 'held', ...foundOf(current) };
    options.onBreak?.(foundOf(current));
    const takeover = await store.put(key, body, { ifMatch: current.etag });
    if (!takeover.ok) return lockError(env, takeover);
    if (takeover.value.type === 'written') {
      return { type: 'acquired', held: { env, record, etag: takeover.value.etag }, tookOver: foundOf(current) };
    }
    // Renewed by its holder, or taken by another breaker, since we read it: look again.
  }
  const last = await readEnvLock(store, env);
  if (last.ok && last.value.type === 'held') return { type: 'held', ...foundOf(last.value) };
  return { type: 'error', env, message: `the lock of environment ${env} kept changing while platctl tried to take it` };
}

function foundOf(found: FoundLock): FoundLock {
  return { env: found.env, holder: found.holder, ageMs: found.ageMs, stale: found.stale };
}

function rest(found: { location: string; message: string }): { location: string; message: string } {
  return { location: found.location, message: found.message };
}

function lockError(
  env: string,
  failed: { message: string; hint?: string },
): Exclude<AcquireResult, { type: 'acquired' }> {
  return {
    type: 'error',
    env,
    message: `cannot lock environment ${env}: ${failed.message}`,
    ...(failed.hint === undefined ? {} : { hint: failed.hint }),
  };
}

/** Deletes each lock if it is still ours; returns what could not be done. */
async function releaseAll(store: ObjectStore, held: readonly Held[]): Promise<string[]> {
  const problems: string[] = [];
  for (const lock of held) {
    const removed = await store.remove(lockKey(lock.env), lock.etag);
    if (!removed.ok) {
      problems.push(
        `cannot release the lock of environment ${lock.env} (${removed.message}); it goes stale ` +
          `${STALE_AFTER_BEATS} heartbeats after its last renewal`,
      );
    } else if (removed.value === 'conflict') {
      problems.push(`the lock of environment ${lock.env} is no longer this run's; left it to its new holder`);
    }
  }
  return problems;
}

/** The locks a run holds: renews them, fences the run when a renewal fails, releases them. */
export class EnvLocks {
  readonly #held: readonly Held[];
  readonly #owner: LockOwner;
  readonly #store: ObjectStore;
  readonly #now: () => number;
  readonly #monotonic: () => number;
  readonly #heartbeatMs: number;
  readonly #fence = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #renewing: Promise<void> | undefined;
  /** When the last successful write of every lock started, on the monotonic clock. */
  #confirmedAt: number;
  #released = false;

  constructor(held: readonly Held[], owner: LockOwner, options: EnvLockOptions, confirmedAt: number) {
    this.#held = held;
    this.#owner = owner;
    this.#store = options.store;
    this.#now = options.now;
    this.#monotonic = options.monotonic ?? (() => performance.now());
    this.#heartbeatMs = options.heartbeatMs;
    this.#confirmedAt = confirmedAt;
  }

  get envs(): string[] {
    return this.#held.map((h) => h.env);
  }

  get owner(): LockOwner {
    return this.#owner;
  }

  /** Aborted when a renewal failed; `reason` is the sentence saying why. */
  get fenced(): AbortSignal {
    return this.#fence.signal;
  }

  get fenceReason(): string | undefined {
    return this.#fence.signal.aborted ? String(this.#fence.signal.reason) : undefined;
  }

  /** Starts renewing every `heartbeatMs`. */
  start(): void {
    if (this.#released || this.#fence.signal.aborted) return;
    this.#timer = setTimer(() => {
      this.#timer = undefined;
      void this.renew().then(() => this.start());
    }, this.#heartbeatMs);
    this.#timer.unref?.();
  }

  /** Renews every lock now (one renewal at a time: two in flight would conflict with each other). */
  renew(): Promise<void> {
    this.#renewing ??= this.#renewAll().finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  async #renewAll(): Promise<void> {
    if (this.#fence.signal.aborted || this.#released) return;
    const startedAt = this.#monotonic();
    const beat = new Date(this.#now()).toISOString();
    for (const lock of this.#held) {
      const record: EnvLockRecord = { ...lock.record, heartbeat_at: beat };
      const put = await this.#store.put(lockKey(lock.env), `${JSON.stringify(record, null, 2)}\n`, {
        ifMatch: lock.etag,
      });
      if (!put.ok) {
        this.#fenceWith(`cannot renew the lock of environment ${lock.env}: ${put.message}`);
        return;
      }
      if (put.value.type === 'conflict') {
        this.#fenceWith(
          `the lock of environment ${lock.env} (${this.#store.location(lockKey(lock.env))}) was taken over by another run`,
        );
        return;
      }
      lock.record = record;
      lock.etag = put.value.etag;
    }
    this.#confirmedAt = startedAt;
  }

  #fenceWith(reason: string): void {
    if (this.#fence.signal.aborted) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#fence.abort(reason);
  }

  /**
   * True when this run may still write to the bucket: not fenced, and its locks confirmed recently enough that no
   * other run can have judged them stale (within 2 of the 3 intervals; past that, it renews first).
   */
  async ensureFresh(): Promise<boolean> {
    if (this.#fence.signal.aborted || this.#released) return false;
    if (this.#monotonic() - this.#confirmedAt >= 2 * this.#heartbeatMs) await this.renew();
    return !this.#fence.signal.aborted;
  }

  /** Stops renewing and deletes each lock that is still ours. Returns problems to show; never throws. */
  async release(): Promise<string[]> {
    if (this.#released) return [];
    this.#released = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#renewing;
    return releaseAll(this.#store, [...this.#held].reverse());
  }
}
