/**
 * The built CLI on disks that refuse writes, each condition real: a read-only bind mount (EROFS), a tmpfs that fills
 * up while units run (ENOSPC), and a directory the user may not write (EACCES, by running platctl as `nobody`: root
 * ignores permissions). Every case must name the file and the cause, never tear the state, leave no temp or lock file
 * behind, and, mid-run, still print the summary and the resume command.
 */
import { chmod, cp, readFile, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../engine/lock.js';
import { STATE_FILE, parseState } from '../../engine/state.js';
import { fillDisk, mountReadOnly, mountTmpfs, mountsAvailable, unmountAll } from '../helpers/mounts.js';
import { PLATCTL, printedResumeArgs, sandbox, until } from './engine-helpers.js';

const MOUNTS = await mountsAvailable();
const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];
/**
 * Running as `nobody` needs root (to switch user), setpriv, and a clone that `nobody` may read: a clone under a 0700
 * home or a `mktemp -d` directory is not, and node would only say "Cannot find module". Asked of the real process.
 */
async function nobodyCanRunPlatctl(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'not root: cannot run platctl as nobody';
  const probe = await execa('setpriv', [...NOBODY, 'node', PLATCTL, '--version'], {
    reject: false,
    stdin: 'ignore',
  }).catch((error: unknown) => ({ exitCode: 1, stderr: String(error) }));
  if (probe.exitCode === 0) return undefined;
  const cause = probe.stderr.split('\n').find((line) => /Error/.test(line)) ?? probe.stderr.split('\n')[0] ?? '';
  return `nobody cannot run ${PLATCTL} from this clone (its directories are not readable by other users): ${cause}`;
}
const NOBODY_SKIP = await nobodyCanRunPlatctl();
const AS_NOBODY = NOBODY_SKIP === undefined;
if (NOBODY_SKIP !== undefined) console.warn(`skipping the EACCES test: ${NOBODY_SKIP}`);
afterAll(unmountAll);

/** Files a run must never leave behind: state temp files, lock temp files, the lock itself. */
async function leftovers(root: string): Promise<string[]> {
  return (await readdir(root)).filter((n) => n.includes('.tmp-') || n.startsWith(LOCK_FILE));
}

describe.skipIf(!MOUNTS)('platctl on a disk that refuses writes (needs the right to mount)', () => {
  it('a read-only checkout (EROFS): refuses with exit 3, naming the lock file and the cause; nothing runs', async () => {
    const box = await sandbox();
    await mountReadOnly(box.root);
    const result = await box.run(['bootstrap']);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toBe(
      `platctl: refused: cannot create ${join(box.root, LOCK_FILE)}: the file system is read-only (EROFS); ` +
        `run platctl from a writable checkout; nothing was run`,
    );
    expect(await box.calls()).toEqual([]);
  });

  it('a disk that fills up mid-run (ENOSPC, tmpfs): stops, prints the summary and the resume, state whole', async () => {
    const box = await sandbox();
    // Put the repository on a small tmpfs of its own.
    const copy = `${box.root}.copy`;
    await cp(box.root, copy, { recursive: true });
    await mountTmpfs(box.root, 512);
    await cp(copy, box.root, { recursive: true });
    await box.control({}, { sleep_ms: 1500 });
    const child = box.start(['bootstrap']);
    await until(async () => (await box.calls()).length > 0, 15_000, 'a unit to start');
    await fillDisk(box.root);
    const result = await child;
    const statePath = join(box.root, STATE_FILE);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(
      `warning: cannot write ${statePath}: no space is left on the device (ENOSPC); free some space on that disk`,
    );
    expect(printedResumeArgs(result.stdout)).toEqual(['bootstrap', '--resume']);
    // The last whole state is on disk; nothing is left behind.
    expect(parseState(await readFile(statePath, 'utf8')).type).toBe('ok');
    expect(await leftovers(box.root)).toEqual([]);
    // With room again, the printed resume finishes the run.
    for (const name of await readdir(box.root)) if (name.startsWith('.filler-')) await rm(join(box.root, name));
    await box.control({}, {});
    const resumed = await box.run(printedResumeArgs(result.stdout));
    expect(resumed.exitCode).toBe(0);
    expect((await box.state()).status).toBe('completed');
  }, 60_000);
});

describe.skipIf(!AS_NOBODY)('platctl in a directory it may not write (needs root, to run as nobody)', () => {
  it('EACCES: refuses with exit 3, naming the lock file and the cause; nothing runs', async () => {
    const box = await sandbox();
    // The sandbox is root's; nobody may read it (to discover units) but not write it.
    await chmod(dirname(box.root), 0o755);
    const result = await execa('setpriv', [...NOBODY, 'node', PLATCTL, 'bootstrap'], {
      cwd: box.root,
      env: box.env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    expect(result.stderr).toBe(
      `platctl: refused: cannot create ${join(box.root, LOCK_FILE)}: permission is denied (EACCES); ` +
        `run platctl as a user who may write there; nothing was run`,
    );
    expect(result.exitCode).toBe(3);
    expect(await box.calls()).toEqual([]);
  });
});
