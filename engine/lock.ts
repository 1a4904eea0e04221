/**
 * `.platctl.lock`: one mutating run per repository. The lock file is created complete or not at all (written to a
 * temp file, then hard-linked into place, which fails if the lock exists), so a reader never sees half a lock.
 *
 * A lock whose holder is gone is taken over with a warning. "Gone" is decided on this host only (a pid from another
 * host means nothing here, so such a lock is never taken over), and a live pid is not enough to keep a lock: pids are
 * reused, so the lock records its holder's start time (Linux `/proc/<pid>/stat`) and the boot id, and a live process
 * that started at another time, or after another boot, is not the holder.
 *
 * Taking over is atomic. Every contender that found the same stale lock races to create one marker file named after
 * that lock's content (`.platctl.lock.takeover-<hash>`, exclusive like the lock itself); only the one that creates it
 * may replace the lock, and only after checking, while holding the marker, that the lock is still the stale one. The
 * replacement is a rename of a complete file over the old one, so the lock never goes missing in between and a run
 * starting from scratch cannot slip in.
 */
import { crypto } from '../config/crypto.js';
import { link, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { FsError } from './fs-errors.js';
import * as z from '../config/zod.js';

export const LOCK_FILE = '.platctl.lock';

/** Who holds the lock. */
export interface LockInfo {
  readonly pid: number;
  readonly host: string;
  /** The command line, e.g. `platctl bootstrap --unit platform/eks`. */
  readonly command: string;
  readonly started_at: string;
  /** The holder's start time as the kernel counts it (`/proc/<pid>/stat` field 22); absent where unknown. */
  readonly pid_start?: string;
  /** The boot the holder ran in (`/proc/sys/kernel/random/boot_id`); absent where unknown. */
  readonly boot_id?: string;
  /** Random, unique per lock: tells two locks of the same process apart. */
  readonly token?: string;
}

/** What platctl can learn about a live process: each field absent when it cannot tell. */
export interface ProcessFacts {
  /** Start time, comparable with `LockInfo.pid_start`. */
  readonly start?: string;
  /** The command line, arguments joined by spaces. */
  readonly command?: string;
  /** Exited, not reaped yet: as good as gone. */
  readonly zombie?: boolean;
}

/** What the lock needs from the machine, injected. */
export interface LockEnvironment {
  readonly pid: number;
  readonly host: string;
  /** True when process `pid` exists on this host. */
  readonly isAlive: (pid: number) => boolean;
  /** This boot's id; without it, a reboot is noticed only through start times. */
  readonly bootId?: string;
  /** Facts about a live process (see `procFacts`); without it, a live pid counts as the holder. */
  readonly inspect?: (pid: number) => Promise<ProcessFacts | undefined>;
}

export type LockResult =
  | { readonly type: 'acquired'; readonly lock: RepoLock; readonly tookOver?: LockInfo }
  | { readonly type: 'held'; readonly holder: LockInfo }
  | { readonly type: 'unreadable'; readonly path: string; readonly message: string; readonly hint?: string }
  /** The lock cannot be created (read-only file system, no space, no permission): `message` says which and why. */
  | { readonly type: 'unwritable'; readonly path: string; readonly message: string };

export class RepoLock {
  readonly #path: string;
  readonly #info: LockInfo;
  #released = false;

  constructor(path: string, info: LockInfo) {
    this.#path = path;
    this.#info = info;
  }

  get info(): LockInfo {
    return this.#info;
  }

  /**
   * Removes the lock if it is still ours. Idempotent. Never throws: a lock that cannot be removed is returned as a
   * sentence to show (the next run will find its holder gone and take it over).
   */
  async release(): Promise<string | undefined> {
    if (this.#released) return undefined;
    this.#released = true;
    const current = await readLock(this.#path);
    if (current.type !== 'ok' || !sameLock(current.info, this.#info)) return undefined;
    try {
      await rm(this.#path, { force: true });
      return undefined;
    } catch (error) {
      return `${new FsError('remove', this.#path, error).message} (the next run will take it over)`;
    }
  }
}

function sameLock(a: LockInfo, b: LockInfo): boolean {
  return a.pid === b.pid && a.host === b.host && a.token === b.token;
}

type ReadLock =
  { type: 'missing' } | { type: 'ok'; info: LockInfo; text: string } | { type: 'unreadable'; message: string };

async function readLock(path: string): Promise<ReadLock> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { type: 'missing' };
    return { type: 'unreadable', message: (error as Error).message };
  }
  const parsed = parseLock(text);
  return typeof parsed === 'string' ? { type: 'unreadable', message: parsed } : { type: 'ok', info: parsed, text };
}

/** What a lock file holds; unknown fields (a newer platctl's) are ignored. Fields of the wrong kind are refused. */
const lockSchema = z.object({
  pid: z.number().int().min(1),
  host: z.string().min(1),
  command: z.string().optional(),
  started_at: z.string().optional(),
  pid_start: z.string().optional(),
  boot_id: z.string().optional(),
  token: z.string().optional(),
});

/** The lock in `text`, or why it is not a platctl lock file. */
function parseLock(text: string): LockInfo | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 'not a platctl lock file (not JSON)';
  }
  const parsed = lockSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    return `not a platctl lock file (${where}${issue.message})`;
  }
  const { pid, host, command, started_at, pid_start, boot_id, token } = parsed.data;
  return {
    pid,
    host,
    command: command ?? '(unknown)',
    started_at: started_at ?? '(unknown)',
    ...(pid_start === undefined ? {} : { pid_start }),
    ...(boot_id === undefined ? {} : { boot_id }),
    ...(token === undefined ? {} : { token }),
  };
}

/** Writes `text` to a fresh temp file next to `path`; on failure removes whatever part of it was written. */
async function writeTemp(path: string, text: string): Promise<string> {
  const temp = `${path}.${crypto().randomBytes(4).toString('hex')}`;
  try {
    await writeFile(temp, text, { flag: 'wx' });
    return temp;
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw new FsError('create', path, error);
  }
}

/** Creates `path` holding `text` if it does not exist: complete or not at all. */
async function createExclusive(path: string, text: string): Promise<boolean> {
  const temp = await writeTemp(path, text);
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new FsError('create', path, error);
  } finally {
    await rm(temp, { force: true }).catch(() => undefined);
  }
}

/** Why a holder cannot still be running, or undefined when it may be. */
async function holderGone(holder: LockInfo, machine: LockEnvironment): Promise<string | undefined> {
  if (holder.host !== machine.host) return undefined;
  // The same pid as ours on this host can only be a dead holder whose pid was reused by us.
  if (holder.pid === machine.pid) return 'its pid is now ours';
  if (holder.boot_id !== undefined && machine.bootId !== undefined && holder.boot_id !== machine.bootId) {
    return 'the machine rebooted since';
  }
  if (!machine.isAlive(holder.pid)) return 'its process is gone';
  const facts = await machine.inspect?.(holder.pid);
  if (facts === undefined) return undefined;
  if (facts.zombie) return 'its process has exited';
  if (holder.pid_start !== undefined) {
    if (facts.start !== undefined && facts.start !== holder.pid_start) {
      return `pid ${holder.pid} now belongs to another process${facts.command ? ` (${facts.command})` : ''}`;
    }
    return undefined;
  }
  // A lock from before start times were recorded: a process that is not platctl cannot be its holder.
  if (facts.command !== undefined && !/platctl/.test(facts.command)) {
    return `pid ${holder.pid} now belongs to another process (${facts.command})`;
  }
  return undefined;
}

/** What `.platctl.lock` says about a run in progress (for `platctl status`). */
export type LockState =
  | { readonly type: 'free' }
  | { readonly type: 'held'; readonly holder: LockInfo }
  /** The holder is gone without releasing it: killed (kill -9, OOM, power loss). */
  | { readonly type: 'stale'; readonly holder: LockInfo; readonly why: string }
  | { readonly type: 'unreadable'; readonly message: string };

export async function inspectLock(root: string, machine: LockEnvironment): Promise<LockState> {
  const current = await readLock(join(root, LOCK_FILE));
  if (current.type === 'missing') return { type: 'free' };
  if (current.type === 'unreadable') return current;
  const why = await holderGone(current.info, machine);
  return why === undefined ? { type: 'held', holder: current.info } : { type: 'stale', holder: current.info, why };
}

/** True when `.platctl.lock` under `root` names a run that may still be going. */
export async function lockHeld(root: string, machine: LockEnvironment): Promise<boolean> {
  return (await inspectLock(root, machine)).type === 'held';
}

type Takeover = { type: 'won' } | { type: 'lost' } | { type: 'stuck'; marker: string; holder?: LockInfo };

/**
 * Replaces the stale lock whose content is `staleText` by `mine`, if this process is the one contender allowed to
 * (see the file comment). 'lost' means another contender took it, or is taking it, or the lock changed.
 */
async function takeOver(path: string, staleText: string, mine: string, machine: LockEnvironment): Promise<Takeover> {
  const marker = `${path}.takeover-${crypto().createHash('sha256').update(staleText).digest('hex').slice(0, 16)}`;
  if (!(await createExclusive(marker, mine))) {
    const other = await readLock(marker);
    if (other.type === 'missing') return { type: 'lost' };
    // A contender that died between creating the marker and removing it (a few microseconds) leaves it behind.
    if (other.type === 'ok' && (await holderGone(other.info, machine)) === undefined) return { type: 'lost' };
    return { type: 'stuck', marker, ...(other.type === 'ok' ? { holder: other.info } : {}) };
  }
  try {
    const current = await readLock(path);
    if (current.type !== 'ok' || current.text !== staleText) return { type: 'lost' };
    const temp = await writeTemp(path, mine);
    try {
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw new FsError('replace', path, error);
    }
    return { type: 'won' };
  } finally {
    await rm(marker, { force: true }).catch(() => undefined);
  }
}

const ATTEMPTS = 40;

/**
 * Temp files older than this were left by a run killed while it wrote its lock (a live one needs microseconds).
 * Compared with file times, so against the real clock, not an injected one.
 */
const STALE_TEMP_MS = 60_000;

/** The lock is ours: clear the temp files killed runs left next to it, then hand it over. */
async function acquired(path: string, info: LockInfo, tookOver?: LockInfo): Promise<LockResult> {
  const pattern = new RegExp(`^${basename(path).replaceAll('.', '\\.')}\\.[0-9a-f]{8}$`);
  const names = await readdir(dirname(path)).catch(() => []);
  for (const name of names.filter((n) => pattern.test(n))) {
    const file = join(dirname(path), name);
    const age = Date.now() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? Date.now());
    if (age > STALE_TEMP_MS) await rm(file, { force: true }).catch(() => undefined);
  }
  return { type: 'acquired', lock: new RepoLock(path, info), ...(tookOver ? { tookOver } : {}) };
}

/** Takes `.platctl.lock` under `root`, or says who holds it. Disk errors are values (`unwritable`). */
export async function acquireLock(
  root: string,
  request: { readonly command: string; readonly startedAt: string },
  machine: LockEnvironment,
): Promise<LockResult> {
  const path = join(root, LOCK_FILE);
  const pidStart = (await machine.inspect?.(machine.pid))?.start;
  const info: LockInfo = {
    pid: machine.pid,
    host: machine.host,
    command: request.command,
    started_at: request.startedAt,
    ...(pidStart === undefined ? {} : { pid_start: pidStart }),
    ...(machine.bootId === undefined ? {} : { boot_id: machine.bootId }),
    token: crypto().randomBytes(8).toString('hex'),
  };
  const text = `${JSON.stringify(info, null, 2)}\n`;
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(5 * attempt, 50)));
      if (await createExclusive(path, text)) return await acquired(path, info);
      const existing = await readLock(path);
      // Released between our attempt and the read: try again.
      if (existing.type === 'missing') continue;
      if (existing.type === 'unreadable') return { type: 'unreadable', path, message: existing.message };
      const holder = existing.info;
      if ((await holderGone(holder, machine)) === undefined) return { type: 'held', holder };
      const taken = await takeOver(path, existing.text, text, machine);
      if (taken.type === 'won') return await acquired(path, info, holder);
      if (taken.type === 'stuck') {
        const who = taken.holder ? ` by pid ${taken.holder.pid} (${taken.holder.command})` : '';
        return {
          type: 'unreadable',
          path,
          message: `a takeover of the stale lock${who} was cut short and left ${taken.marker}`,
          hint: `if no platctl run is in progress, delete ${LOCK_FILE} and ${taken.marker}`,
        };
      }
    }
  } catch (error) {
    if (error instanceof FsError) return { type: 'unwritable', path, message: error.message };
    throw error;
  }
  const last = await readLock(path);
  if (last.type === 'ok') return { type: 'held', holder: last.info };
  return { type: 'unreadable', path, message: 'the lock kept changing while platctl tried to take it' };
}

/**
 * The Linux facts the lock uses, read from `/proc`: the boot id, and per process its start time (field 22 of
 * `/proc/<pid>/stat`, clock ticks since boot), state and command line. Elsewhere every fact is absent and the lock
 * falls back to pid liveness.
 */
export async function procMachine(base: {
  readonly pid: number;
  readonly host: string;
  readonly isAlive: (pid: number) => boolean;
  readonly procRoot?: string;
}): Promise<LockEnvironment> {
  const proc = base.procRoot ?? '/proc';
  const bootId = (await readFile(join(proc, 'sys', 'kernel', 'random', 'boot_id'), 'utf8').catch(() => '')).trim();
  return {
    pid: base.pid,
    host: base.host,
    isAlive: base.isAlive,
    ...(bootId === '' ? {} : { bootId }),
    inspect: (pid) => procFacts(pid, proc),
  };
}

/** Start time, zombie state and command line of `pid` from `/proc`; undefined when it cannot be read. */
export async function procFacts(pid: number, procRoot = '/proc'): Promise<ProcessFacts | undefined> {
  let stat: string;
  try {
    stat = await readFile(join(procRoot, String(pid), 'stat'), 'utf8');
  } catch {
    return undefined;
  }
  // After "pid (comm) ": state is field 3, start time field 22. comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = fields[19];
  const cmdline = await readFile(join(procRoot, String(pid), 'cmdline'), 'utf8').catch(() => '');
  const command = cmdline.split('\0').filter(Boolean).join(' ');
  return {
    ...(start === undefined ? {} : { start }),
    ...(command === '' ? {} : { command }),
    zombie: fields[0] === 'Z',
  };
}

/** Why a run may not start when {@link acquireLock} did not give it the lock: what, who holds it, what to do. */
export interface LockRefusal {
  readonly reason: 'lock-held' | 'lock-unreadable' | 'disk-error';
  readonly message: string;
  readonly details: readonly string[];
  readonly hint?: string;
}

/** The refusal of every verb that takes `.platctl.lock` in `root` on `host` and did not get it. */
export function lockRefusal(
  locked: Exclude<LockResult, { type: 'acquired' }>,
  root: string,
  host: string,
): LockRefusal {
  switch (locked.type) {
    case 'held': {
      const h = locked.holder;
      return {
        reason: 'lock-held',
        message: `another platctl run holds ${LOCK_FILE} in ${root}`,
        details: [`pid ${h.pid} on ${h.host}`, `command: ${h.command}`, `started: ${h.started_at}`],
        hint:
          h.host === host
            ? 'wait for it to finish (platctl status shows its progress)'
            : `it runs on another host; if you are sure it is gone, delete ${LOCK_FILE}`,
      };
    }
    case 'unreadable':
      return {
        reason: 'lock-unreadable',
        message: `${locked.path} exists but cannot be read (${locked.message})`,
        details: [],
        hint: locked.hint ?? 'if no platctl run is in progress, delete it',
      };
    case 'unwritable':
      return { reason: 'disk-error', message: `${locked.message}; nothing was run`, details: [] };
  }
}
