/**
 * `.platctl-state.json`: one run's state (docs/architecture.md, "State, logs and locks"). Versioned, written
 * atomically (temp file, fsync, rename) so a crash or `kill -9` at any moment leaves either the old or the new file,
 * never a torn one; coalesced so a burst of transitions costs one write.
 *
 * Serialisation is incremental: each unit's JSON is cached until the unit changes, so a write of a 10,000-unit run
 * costs one join, not 10,000 stringify calls.
 */
import { readFile, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FsError } from './fs-errors.js';
import type { UnitId } from './graph.js';
import { compareIds } from './graph.js';
import type { FailureReason, RunCommand, SkipReason, UnitStatus } from './unit-status.js';
import { FAILURE_REASONS } from './unit-status.js';
import { setTimer } from './timers.js';
import { writeFileAtomic } from '../config/atomic-write.js';
import * as z from '../config/zod.js';

export const STATE_FILE = '.platctl-state.json';
export const STATE_VERSION = 1;

/** One unit in the state file. Absent optional fields mean "not applicable yet". */
export interface UnitState {
  status: UnitStatus;
  /** How many times the unit was started in this run (resumes included). */
  attempts: number;
  /** Its wave in the walked graph: the log file prefix. */
  wave: number;
  /** Its dependencies inside the run's selection (forward direction): the resume diff compares them. */
  dependencies: UnitId[];
  /**
   * When its last dependency finished in this attempt (or the attempt began, for a unit with none left): from then
   * until `started_at` it waited for a free slot. Absent in states written before platctl recorded it.
   */
  ready_at?: string;
  started_at?: string;
  ended_at?: string;
  duration_ms?: number;
  exit_code?: number;
  /** One line: why it failed. */
  error?: string;
  reason?: FailureReason;
  /** The failed unit that caused the skip. */
  skipped_because?: UnitId;
  skip_reason?: SkipReason;
  /** The unit's log, relative to the repository root. */
  log?: string;
  /** The process group of the running attempt, so a later run can find a process a killed platctl left. */
  pid?: number;
  /** Teardown floor: counted as done, never destroyed. */
  kept?: boolean;
  /**
   * With status `excluded`: the unit whose `exclude` block (with `exclude_dependencies = true`) left this one out;
   * absent when the unit's own block did.
   */
  excluded_by?: UnitId;
  /** Named hooks that ran for the unit in this run, by `<point>:<hook name>` (`before-unit:crd_two_stage`). */
  hooks?: Record<string, HookRecord>;
  /** An optional unit (`optional:` in .platctl.yaml): its failure skips only its dependents. */
  optional?: boolean;
  /** The run's rollback destroyed it after a failure (it is `pending` again: `--resume` applies it anew). */
  rolled_back?: boolean;
}

/** The narrow rollback of a bootstrap (engine/rollback.ts): armed, then held by a rule, or run. */
export interface RollbackRecord {
  /** `on_failure`: armed (flag or configuration); `refused`: `--no-rollback` overrode `rollback: on_failure`. */
  mode: 'on_failure' | 'refused';
  status: 'armed' | 'held' | 'running' | 'completed' | 'failed' | 'interrupted';
  /** What each unit's Terraform state held before the run (`unknown` counts as standing). */
  probe: Record<UnitId, { result: 'absent' | 'standing' | 'unknown'; detail?: string }>;
  /** With `held`: the rule that kept the platform standing. */
  rule?: string;
  /** One line: what happened and why. */
  message?: string;
  /** The units it destroys, by id. */
  units?: Record<
    UnitId,
    { status: 'pending' | 'running' | 'destroyed' | 'failed' | 'skipped' | 'interrupted'; error?: string; log?: string }
  >;
  /** One line per unit the run applied that the rollback leaves standing, and why. */
  kept?: string[];
}

/** How a named hook went; a resume does not run a `completed` before-unit hook again. */
export interface HookRecord {
  status: 'completed' | 'failed';
  ended_at: string;
  /** One line: what it did, or why it failed. */
  detail?: string;
}

/** The selection and flags a run was started with; `--resume` reuses them. */
export interface RunArgs {
  env: string[];
  unit: string[];
  with_deps: boolean;
  parallelism: number;
  fail_fast: boolean;
}

export type RunStatus = 'running' | 'completed' | 'failed' | 'interrupted';

/** How a manual step was found done before the run: its check passed, or a person said so. */
export interface ManualStepRecord {
  /** `check`: the check passed; `confirmed`: a person answered yes on the terminal; `yes`: `--yes` (no check). */
  how: 'check' | 'confirmed' | 'yes';
  /** Who ran platctl (the login name), for `confirmed` and `yes`. */
  by?: string;
  at: string;
}

/** One lockdown (or unlock) step's progress. */
export interface LockStepRecord {
  status: 'running' | 'completed' | 'failed';
  attempts: number;
  ended_at?: string;
  /** One line: why it failed. */
  error?: string;
  /** The step's log, relative to the repository root. */
  log?: string;
}

/** The lockdown after a bootstrap, or the unlock before a teardown; `bootstrap --resume` continues it. */
export interface LockdownRecord {
  direction: 'lock' | 'unlock';
  status: 'running' | 'completed' | 'failed' | 'skipped';
  /** By step id. */
  steps: Record<string, LockStepRecord>;
}

/** One convergence wait's outcome; `bootstrap --resume` runs again only the waits that have not passed. */
export interface ConvergeWaitRecord {
  status: 'running' | 'passed' | 'failed' | 'interrupted' | 'skipped';
  waited_ms?: number;
  ended_at?: string;
  /** One line: what was not ready when it failed, or why it was skipped. */
  error?: string;
  /** The objects not ready, with their conditions and messages. */
  details?: string[];
}

/** The convergence phase after a bootstrap's walk (before lockdown). */
export interface ConvergeRecord {
  status: 'running' | 'completed' | 'failed' | 'interrupted';
  /** By wait id. */
  waits: Record<string, ConvergeWaitRecord>;
}

/** Run-level records of the phases around the walk. */
export interface PhaseRecords {
  manual_steps?: Record<string, ManualStepRecord>;
  converge?: ConvergeRecord;
  lockdown?: LockdownRecord;
}

export interface RunState {
  version: typeof STATE_VERSION;
  run_id: string;
  command: RunCommand;
  args: RunArgs;
  started_at: string;
  updated_at: string;
  ended_at?: string;
  status: RunStatus;
  /** `fingerprint()` of the selected graph (forward direction). */
  graph_fingerprint: string;
  platctl_version: string;
  /** How many times `--resume` continued this run. */
  resumes: number;
  /** Why the run stopped starting units before the end (its shared lock was lost: docs/state.md). */
  stopped_because?: string;
  /** Last known duration of each unit per verb, carried across runs: the scheduler's weights and the ETA. */
  known_durations_ms: Partial<Record<RunCommand, Record<UnitId, number>>>;
  /**
   * Each unit's known duration for this verb when the run began (before this run's own durations replace them in
   * `known_durations_ms`): what `platctl report` compares each unit with. Absent in states of older platctl.
   */
  history_ms?: Record<UnitId, number>;
  /** Manual steps found done before the run, by step id. */
  manual_steps?: Record<string, ManualStepRecord>;
  converge?: ConvergeRecord;
  lockdown?: LockdownRecord;
  rollback?: RollbackRecord;
  units: Record<UnitId, UnitState>;
}

// The schema library is zod through config/zod.ts (one bundled copy of zod for everything platctl reads from disk or
// the bucket). Objects are loose: a newer platctl may add fields; this one keeps what it knows and still refuses
// other versions (checked before the schema, with its own message).
const count = z.number().int().min(0);
const text = z.string();
const optionalText = text.optional();
/** An object used as a map from string keys to `value`. */
const map = <S extends z.ZodType>(value: S) => z.record(z.string(), value);

const unitStateSchema = z.looseObject({
  status: z.enum(['pending', 'running', 'completed', 'failed', 'skipped', 'interrupted', 'excluded']),
  attempts: count,
  wave: count,
  dependencies: z.array(text),
  ready_at: optionalText,
  started_at: optionalText,
  ended_at: optionalText,
  duration_ms: z.number().min(0).optional(),
  exit_code: z.number().int().optional(),
  error: optionalText,
  reason: z.enum(FAILURE_REASONS).optional(),
  skipped_because: optionalText,
  skip_reason: z.enum(['dependency-failed', 'fail-fast']).optional(),
  log: optionalText,
  pid: z.number().int().min(1).optional(),
  kept: z.boolean().optional(),
  excluded_by: optionalText,
  hooks: map(
    z.looseObject({ status: z.enum(['completed', 'failed']), ended_at: text, detail: optionalText }),
  ).optional(),
  optional: z.boolean().optional(),
  rolled_back: z.boolean().optional(),
});

const durations = map(z.number()).optional();

const runStateSchema = z.looseObject({
  version: z.literal(STATE_VERSION),
  run_id: text.min(1),
  command: z.enum(['bootstrap', 'teardown']),
  args: z.looseObject({
    env: z.array(text),
    unit: z.array(text),
    with_deps: z.boolean(),
    parallelism: z.number().int().min(1),
    fail_fast: z.boolean(),
  }),
  started_at: text,
  updated_at: text,
  ended_at: optionalText,
  status: z.enum(['running', 'completed', 'failed', 'interrupted']),
  graph_fingerprint: text,
  platctl_version: text,
  resumes: count,
  stopped_because: optionalText,
  known_durations_ms: z.looseObject({ bootstrap: durations, teardown: durations }),
  history_ms: durations,
  manual_steps: map(
    z.looseObject({ how: z.enum(['check', 'confirmed', 'yes']), by: optionalText, at: text }),
  ).optional(),
  // Absent in states written before the convergence phase existed: they stay readable.
  converge: z
    .looseObject({
      status: z.enum(['running', 'completed', 'failed', 'interrupted']),
      waits: map(
        z.looseObject({
          status: z.enum(['running', 'passed', 'failed', 'interrupted', 'skipped']),
          waited_ms: z.number().min(0).optional(),
          ended_at: optionalText,
          error: optionalText,
          details: z.array(text).optional(),
        }),
      ),
    })
    .optional(),
  lockdown: z
    .looseObject({
      direction: z.enum(['lock', 'unlock']),
      status: z.enum(['running', 'completed', 'failed', 'skipped']),
      steps: map(
        z.looseObject({
          status: z.enum(['running', 'completed', 'failed']),
          attempts: count,
          ended_at: optionalText,
          error: optionalText,
          log: optionalText,
        }),
      ),
    })
    .optional(),
  rollback: z
    .looseObject({
      mode: z.enum(['on_failure', 'refused']),
      status: z.enum(['armed', 'held', 'running', 'completed', 'failed', 'interrupted']),
      probe: map(z.looseObject({ result: z.enum(['absent', 'standing', 'unknown']), detail: optionalText })),
      rule: optionalText,
      message: optionalText,
      units: map(
        z.looseObject({
          status: z.enum(['pending', 'running', 'destroyed', 'failed', 'skipped', 'interrupted']),
          error: optionalText,
          log: optionalText,
        }),
      ).optional(),
      kept: z.array(text).optional(),
    })
    .optional(),
  units: map(unitStateSchema),
});

export type LoadedState =
  | { readonly type: 'missing' }
  | { readonly type: 'ok'; readonly state: RunState }
  | { readonly type: 'invalid'; readonly reason: 'unparsable' | 'unsupported-version'; readonly message: string };

/** Reads `.platctl-state.json` under `root`. A missing file is not an error; a broken one is a value. */
export async function loadState(root: string): Promise<LoadedState> {
  const path = join(root, STATE_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { type: 'missing' };
    throw error;
  }
  return parseState(text, path);
}

/** Parses state file text (exported for tests and `status`). */
export function parseState(text: string, path: string = STATE_FILE): LoadedState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { type: 'invalid', reason: 'unparsable', message: `${path} is not JSON: ${(error as Error).message}` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    const what = Array.isArray(raw) ? 'an array' : raw === null ? 'null' : `a ${typeof raw}`;
    return {
      type: 'invalid',
      reason: 'unparsable',
      message: `${path} is not a platctl state file: it holds ${what}, not an object with a "version" field`,
    };
  }
  const record = raw as { version?: unknown; platctl_version?: unknown };
  if (!('version' in record)) {
    return {
      type: 'invalid',
      reason: 'unparsable',
      message: `${path} is not a platctl state file: it has no "version" field`,
    };
  }
  const version = record.version;
  if (version !== STATE_VERSION) {
    const newer =
      typeof version === 'number' && version > STATE_VERSION
        ? `, written by a newer platctl${typeof record.platctl_version === 'string' ? ` (${record.platctl_version})` : ''}`
        : '';
    return {
      type: 'invalid',
      reason: 'unsupported-version',
      message: `${path} has version ${JSON.stringify(version)}${newer}; this platctl reads version ${STATE_VERSION}`,
    };
  }
  const parsed = runStateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      type: 'invalid',
      reason: 'unparsable',
      message: `${path} is not a platctl state file (${issue.path.map(String).join('.')}: ${issue.message})`,
    };
  }
  return { type: 'ok', state: parsed.data as RunState };
}

/** `.platctl-state.json.bak-20260129T101500.123Z`: where a state file this platctl cannot read is kept. */
export function backupName(now: number): string {
  return `${STATE_FILE}.bak-${new Date(now).toISOString().replace(/[-:]/g, '')}`;
}

/**
 * Moves a state file this platctl cannot read (corrupt, or from a newer platctl) aside before a new run replaces it,
 * so nothing is lost: a newer platctl can still read it, and a person can still look. Returns the backup's name
 * (relative to `root`), or an `FsError` when it cannot be moved. Call only while holding the repository lock.
 */
export async function backupState(root: string, now: number): Promise<string> {
  const name = backupName(now);
  try {
    await rename(join(root, STATE_FILE), join(root, name));
  } catch (error) {
    throw new FsError(`keep a copy of`, join(root, STATE_FILE), error);
  }
  return name;
}

/**
 * Deletes temp files a killed writer left next to the state file. Call only while holding the repository lock.
 * Best effort: a file that cannot be removed (read-only disk) is harmless, and the next write says what is wrong.
 */
export async function removeStaleTempFiles(root: string): Promise<void> {
  const prefix = `${STATE_FILE}.tmp-`;
  const names = await readdir(root).catch(() => []);
  for (const name of names) {
    if (name.startsWith(prefix)) await rm(join(root, name), { force: true }).catch(() => undefined);
  }
}

export interface StateStoreOptions {
  /** Delay before a scheduled (non-urgent) write; transitions in that window share the write. */
  readonly coalesceMs?: number;
  /**
   * Delay before an urgent write (`flush()`) takes its snapshot, so units started in the same few milliseconds (a
   * burst of completions freeing slots) share one write. Negligible next to a unit's run time.
   */
  readonly flushDelayMs?: number;
  /** fsync before rename (default true): the file survives a power loss, not only a crash. */
  readonly fsync?: boolean;
  /** The clock for `updated_at` (epoch milliseconds). */
  readonly now?: () => number;
  /** Told after each write, with the bytes written (the shared state backend uploads them). */
  readonly onWritten?: (buffers: readonly Uint8Array[]) => void;
}

/** Units per cached chunk of the serialised file. */
const CHUNK = 128;
const SEPARATOR = Buffer.from(',\n');

/**
 * Owns the in-memory state and writes it. Mutate units only through `patchUnit` (it invalidates the unit's cached
 * JSON); change run-level fields through `patchRun`. `flush()` resolves once every change made before the call is on
 * disk; `schedule()` asks for a write within `coalesceMs`.
 *
 * The set of units is fixed at construction. Their JSON is cached per chunk of 128 units as encoded bytes, so a write
 * re-encodes only the chunks that changed and hands the rest to `writev` as they are.
 */
export class StateStore {
  readonly #path: string;
  readonly #state: RunState;
  readonly #order: readonly UnitId[];
  readonly #index = new Map<UnitId, number>();
  readonly #chunks: (Buffer | undefined)[];
  readonly #coalesceMs: number;
  readonly #flushDelayMs: number;
  readonly #fsync: boolean;
  readonly #now: (() => number) | undefined;
  readonly #onWritten: ((buffers: readonly Uint8Array[]) => void) | undefined;
  #dirty = true;
  #inFlight: Promise<void> | undefined;
  /** True while the write in flight has not taken its snapshot yet: callers until then are covered by it. */
  #waiting = false;
  #queued: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writes = 0;

  constructor(root: string, state: RunState, options: StateStoreOptions = {}) {
    this.#path = join(root, STATE_FILE);
    this.#state = state;
    this.#order = Object.keys(state.units).sort(compareIds);
    this.#order.forEach((id, i) => this.#index.set(id, i));
    this.#chunks = new Array<Buffer | undefined>(Math.ceil(this.#order.length / CHUNK)).fill(undefined);
    this.#coalesceMs = options.coalesceMs ?? 100;
    this.#flushDelayMs = options.flushDelayMs ?? 2;
    this.#fsync = options.fsync ?? true;
    this.#now = options.now;
    this.#onWritten = options.onWritten;
  }

  /** The state, read-only: change it through `patchUnit`/`patchRun`. */
  get state(): Readonly<RunState> {
    return this.#state;
  }

  /** Writes done so far (the benchmark reports it). */
  get writes(): number {
    return this.#writes;
  }

  unit(id: UnitId): Readonly<UnitState> | undefined {
    return this.#state.units[id];
  }

  /** Sets fields of a unit; `undefined` values delete the field. */
  patchUnit(id: UnitId, patch: { [K in keyof UnitState]?: UnitState[K] | undefined }): void {
    const unit = this.#state.units[id];
    const index = this.#index.get(id);
    if (!unit || index === undefined) throw new Error(`state: unknown unit ${id}`);
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete (unit as unknown as Record<string, unknown>)[key];
      else (unit as unknown as Record<string, unknown>)[key] = value;
    }
    this.#chunks[Math.floor(index / CHUNK)] = undefined;
    this.#dirty = true;
  }

  /** Sets run-level fields (not `units`). */
  patchRun(patch: Partial<Omit<RunState, 'units' | 'version'>>): void {
    Object.assign(this.#state, patch);
    this.#dirty = true;
  }

  /** Asks for a write soon; transitions until then share it. */
  schedule(): void {
    this.#dirty = true;
    if (this.#timer !== undefined) return;
    this.#timer = setTimer(() => {
      this.#timer = undefined;
      // A failed scheduled write surfaces at the next flush(), which callers await.
      this.flush().catch(() => undefined);
    }, this.#coalesceMs);
  }

  /** Resolves when everything changed before this call is on disk. Concurrent callers share writes. */
  flush(): Promise<void> {
    if (this.#queued) return this.#queued;
    if (this.#inFlight) {
      if (this.#waiting) return this.#inFlight;
      // The write in flight took its snapshot before our changes: exactly one more write follows it.
      this.#queued = this.#inFlight
        .catch(() => undefined)
        .then(() => {
          this.#queued = undefined;
          return this.flush();
        });
      return this.#queued;
    }
    if (!this.#dirty) return Promise.resolve();
    this.#waiting = true;
    const delay = this.#flushDelayMs;
    const snapshotSoon = new Promise<void>((resolve) => (delay > 0 ? setTimer(resolve, delay) : resolve()));
    this.#inFlight = snapshotSoon
      .then(() => {
        this.#waiting = false;
        return this.#write();
      })
      .finally(() => {
        this.#inFlight = undefined;
      });
    return this.#inFlight;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    await this.flush();
  }

  /** The file's text, as the next write would produce it. */
  serialize(): string {
    return Buffer.concat(this.#buffers()).toString('utf8');
  }

  #buffers(): Uint8Array[] {
    const { units: _units, ...run } = this.#state;
    // One unit per line: cheap to produce, and still readable and diffable by people.
    const out: Uint8Array[] = [Buffer.from(`${JSON.stringify(run).slice(0, -1)},"units":{\n`)];
    for (let c = 0; c < this.#chunks.length; c += 1) {
      let chunk = this.#chunks[c];
      if (chunk === undefined) {
        const lines = this.#order
          .slice(c * CHUNK, (c + 1) * CHUNK)
          .map((id) => `${JSON.stringify(id)}:${JSON.stringify(this.#state.units[id])}`);
        chunk = Buffer.from(lines.join(',\n'));
        this.#chunks[c] = chunk;
      }
      if (c > 0) out.push(SEPARATOR);
      out.push(chunk);
    }
    out.push(Buffer.from('\n}}\n'));
    return out;
  }

  async #write(): Promise<void> {
    this.#dirty = false;
    if (this.#now) this.#state.updated_at = new Date(this.#now()).toISOString();
    const buffers = this.#buffers();
    try {
      // Temp file, fsync, rename, then the directory: a crash leaves the last whole state, never a torn one.
      await writeFileAtomic(this.#path, buffers, { fsync: this.#fsync });
    } catch (error) {
      // What was not written must be written next time; the last whole file stays in place, and no temp file is left.
      this.#dirty = true;
      throw new FsError('write', this.#path, error);
    }
    this.#writes += 1;
    this.#onWritten?.(buffers);
  }
}
