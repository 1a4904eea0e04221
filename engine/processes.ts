/**
 * The registry of process groups platctl started. Every unit runs detached in its own process group (so a Ctrl-C in
 * the terminal reaches platctl only, and platctl decides what the units get), which means nothing kills them for us:
 * this registry is how the CLI kills survivors on a second signal and when platctl exits.
 *
 * The registry never touches `process` itself: the CLI injects how to send a signal.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export type Signal = 'SIGINT' | 'SIGTERM' | 'SIGKILL';

/** Sends `signal` to `pid` (negative: a process group); throws like `process.kill` (ESRCH when it is gone). */
export type KillFunction = (pid: number, signal: Signal | 0) => void;

export class ProcessGroups {
  readonly #kill: KillFunction;
  readonly #groups = new Set<number>();

  constructor(kill: KillFunction) {
    this.#kill = kill;
  }

  /** Remembers a process group (its leader's pid) until `forget`. */
  add(pgid: number): void {
    this.#groups.add(pgid);
  }

  forget(pgid: number): void {
    this.#groups.delete(pgid);
  }

  /** Groups still registered. */
  get size(): number {
    return this.#groups.size;
  }

  /** Signals every process in the group; false when the group no longer exists. */
  signal(pgid: number, signal: Signal): boolean {
    try {
      this.#kill(-pgid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** True while any process of the group lives. */
  alive(pgid: number): boolean {
    try {
      this.#kill(-pgid, 0);
      return true;
    } catch (error) {
      // EPERM: it exists but belongs to someone else; still alive.
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }

  /** Signals every registered group (second Ctrl-C, platctl exiting). Synchronous: usable in an `exit` handler. */
  signalAll(signal: Signal): number {
    let reached = 0;
    for (const pgid of this.#groups) if (this.signal(pgid, signal)) reached += 1;
    return reached;
  }
}

/**
 * True when process `pid` carries `NAME=value` in its environment (Linux `/proc/<pid>/environ`). Used to recognise a
 * unit process a killed platctl left behind before signalling it: a bare pid may have been reused by anything.
 * False when it cannot be read (another OS, another user, gone).
 */
export async function processHasEnv(pid: number, name: string, value: string, procRoot = '/proc'): Promise<boolean> {
  try {
    const environ = await readFile(join(procRoot, String(pid), 'environ'), 'utf8');
    return environ.split('\0').includes(`${name}=${value}`);
  } catch {
    return false;
  }
}

/**
 * The process groups of live processes carrying every `NAME=value` of `env` (Linux `/proc`). Finds a unit process a
 * killed platctl started but never got to record the pid of. Empty where `/proc` cannot be read.
 */
export async function findProcessGroups(env: Readonly<Record<string, string>>, procRoot = '/proc'): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir(procRoot);
  } catch {
    return [];
  }
  const wanted = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  const groups = new Set<number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = (await readFile(join(procRoot, entry, 'environ'), 'utf8')).split('\0');
      if (!wanted.every((pair) => environ.includes(pair))) continue;
      const stat = await readFile(join(procRoot, entry, 'stat'), 'utf8');
      // After the command name: state, ppid, process group.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z' && Number(pgrp) > 0) groups.add(Number(pgrp));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return [...groups].sort((a, b) => a - b);
}

/**
 * True when `pid` has exited but was not reaped yet (Linux `/proc/<pid>/stat` state Z). A unit process a killed
 * platctl left is re-parented to PID 1, and in containers PID 1 does not always reap promptly: signalling it still
 * succeeds, so liveness checks must treat a zombie as gone.
 */
export async function isZombie(pid: number, procRoot = '/proc'): Promise<boolean> {
  try {
    const stat = await readFile(join(procRoot, String(pid), 'stat'), 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}
