/**
 * One temp dir for the whole test run (`npm test`, `npm run test:e2e`). Every test, and every process a test starts
 * (platctl, moto, the fake terragrunt), inherits TMPDIR pointing into it, so whatever any of them leaves behind is
 * removed with it when the run ends. Leftovers are counted and named first: a test that forgets to clean up shows
 * here, while the machine's temp dir stays clean either way.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'platctl-tests-'));
  // Traversable like the temp dir it stands in for (each test's own directories stay 0700): the EACCES test runs
  // platctl as `nobody` in a directory below it.
  chmodSync(dir, 0o755);
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    let left: string[] = [];
    try {
      left = readdirSync(dir);
    } catch {
      return;
    }
    if (left.length > 0) {
      const shown = left.slice(0, 10).join(', ');
      console.warn(
        `tests left ${left.length} entries in their temp dir (removed now): ${shown}${left.length > 10 ? ', ...' : ''}`,
      );
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}
