/**
 * `.platctl.lock`: one mutating run per repository. The lock file is created complete or not at all (written to a
 * temp file, then hard-linked into place, which fails if the lock exists), so a reader never sees half a lock.
 *
 * A lock whose holder is dead on this host is taken over with a warning; a lock from another host is never taken
 * over (its pid means nothing here). Two runs taking over the same dead lock at the same instant could both succeed
 * (unlink + link is not one step); that needs a crash and two starts within microseconds, and is accepted.
 */
import { randomBytes } from 'node:crypto';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const LOCK_FILE = '.platctl.lock';

/** Who holds the lock. */
export interface LockInfo {
  readonly pid: number;
  readonly host: string;
  /** The command line, e.g. `platctl bootstrap --unit platform/eks`. */
  readonly command: string;
  readonly started_at: string;
}

/** What the lock needs from the machine, injected. */
export interface LockEnvironment {
  readonly pid: number;
  readonly host: string;
  /** True when process `pid` exists on this host. */
  readonly isAlive: (pid: number) => boolean;
}

export type LockResult =
  | { readonly type: 'acquired'; readonly lock: RepoLock; readonly tookOver?: LockInfo }
  | { readonly type: 'held'; readonly holder: LockInfo }
  | { readonly type: 'unreadable'; readonly path: string; readonly message: string };

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

  /** Removes the lock if it is still ours. Idempotent. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    const current = await readLock(this.#path);
    if (current.type === 'ok' && current.info.pid === this.#info.pid && current.info.host === this.#info.host) {
      await rm(this.#path, { force: true });
    }
  }
}

type ReadLock = { type: 'missing' } | { type: 'ok'; info: LockInfo } | { type: 'unreadable'; message: string };

async function readLock(path: string): Promise<ReadLock> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { type: 'missing' };
    return { type: 'unreadable', message: (error as Error).message };
  }
  try {
    const raw = JSON.parse(text) as Partial<LockInfo>;
    if (typeof raw.pid === 'number' && typeof raw.host === 'string') {
      return {
        type: 'ok',
        info: {
          pid: raw.pid,
          host: raw.host,
          command: typeof raw.command === 'string' ? raw.command : '(unknown)',
          started_at: typeof raw.started_at === 'string' ? raw.started_at : '(unknown)',
        },
      };
    }
  } catch {
    // fall through
  }
  return { type: 'unreadable', message: 'not a platctl lock file' };
}

async function tryCreate(path: string, info: LockInfo): Promise<boolean> {
  const temp = `${path}.${randomBytes(4).toString('hex')}`;
  await writeFile(temp, `${JSON.stringify(info, null, 2)}\n`);
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * True when the holder's run cannot still be going: it ran on this host and its process is gone. (The same pid as
 * ours on this host can only be a dead holder whose pid was reused by us.) A holder on another host may be alive.
 */
function holderGone(holder: LockInfo, machine: LockEnvironment): boolean {
  return holder.host === machine.host && (holder.pid === machine.pid || !machine.isAlive(holder.pid));
}

/** True when `.platctl.lock` under `root` names a run that may still be going (for `platctl status`). */
export async function lockHeld(root: string, machine: LockEnvironment): Promise<boolean> {
  const current = await readLock(join(root, LOCK_FILE));
  return current.type === 'ok' && !holderGone(current.info, machine);
}

/** Takes `.platctl.lock` under `root`, or says who holds it. */
export async function acquireLock(
  root: string,
  request: { readonly command: string; readonly startedAt: string },
  machine: LockEnvironment,
): Promise<LockResult> {
  const path = join(root, LOCK_FILE);
  const info: LockInfo = {
    pid: machine.pid,
    host: machine.host,
    command: request.command,
    started_at: request.startedAt,
  };
  if (await tryCreate(path, info)) return { type: 'acquired', lock: new RepoLock(path, info) };
  const existing = await readLock(path);
  if (existing.type === 'missing') {
    // Released between our attempt and the read: try once more.
    if (await tryCreate(path, info)) return { type: 'acquired', lock: new RepoLock(path, info) };
    const again = await readLock(path);
    if (again.type === 'ok') return { type: 'held', holder: again.info };
    return { type: 'unreadable', path, message: again.type === 'unreadable' ? again.message : 'lock vanished' };
  }
  if (existing.type === 'unreadable') return { type: 'unreadable', path, message: existing.message };
  const holder = existing.info;
  if (!holderGone(holder, machine)) return { type: 'held', holder };
  await rm(path, { force: true });
  if (await tryCreate(path, info)) return { type: 'acquired', lock: new RepoLock(path, info), tookOver: holder };
  const winner = await readLock(path);
  if (winner.type === 'ok') return { type: 'held', holder: winner.info };
  return { type: 'unreadable', path, message: 'lock changed while taking it over' };
}
