/**
 * Scratch directories that remove themselves. Every directory made here is removed after the test file that made it
 * (one `afterAll` per file: vitest evaluates this module once per test file), whether its tests passed or not, so
 * `npm test` leaves nothing in the temp dir. `tests/global-setup.ts` is the second line: it gives the whole run a
 * temp dir of its own and removes it, with anything a test or a child process forgot, at the end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made = new Set<string>();

afterAll(async () => {
  const dirs = [...made];
  made.clear();
  // force: a test may have removed it already; a mount left on it (tests/helpers/mounts.ts unmounts first) is skipped.
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined)));
});

/** A new, empty directory under the temp dir, removed after this test file. */
export async function tempDir(prefix = 'platctl-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Registers a directory made elsewhere (e.g. by a helper that must stay synchronous) for the same removal. */
export function removeAfterFile(dir: string): string {
  made.add(dir);
  return dir;
}
