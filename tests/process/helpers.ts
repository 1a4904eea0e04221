/** Helpers for tests that start real processes: fixture paths, a real process registry, and liveness checks. */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processAlive } from '../../cli/signals.js';
import { ProcessGroups, isZombie } from '../../engine/processes.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'engine');
export const SCRIPTS = join(FIXTURES, 'scripts');
export const FAKE_TERRAGRUNT = join(FIXTURES, 'fake-terragrunt.mjs');

export function realGroups(): ProcessGroups {
  return new ProcessGroups((pid, signal) => process.kill(pid, signal));
}

/** True once `pid` is gone (zombies are reaped by init shortly after their parent dies), false after `ms`. */
export async function gone(pid: number, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!processAlive(pid) || (await isZombie(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

/** Reads a pid a fixture script wrote, waiting for the file to appear. */
export async function readPid(path: string, ms = 5000): Promise<number> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const text = (await readFile(path, 'utf8')).trim();
      if (text !== '') return Number(text);
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no pid in ${path}`);
}

/** The environment fixture scripts run with: enough to find sh, sleep and node. */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', ...extra };
}
