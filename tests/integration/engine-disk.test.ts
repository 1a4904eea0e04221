/**
 * The built CLI on disks that refuse writes, each condition real: a read-only bind mount (EROFS), a tmpfs that fills
 * up while units run (ENOSPC), and a directory the user may not write (EACCES, by running platctl as `nobody`: root
 * ignores permissions). Every case must name the file and the cause, never tear the state, leave no temp or lock file
 * behind, and, mid-run, still print the summary and the resume command.
 */
import { chmod, cp, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../engine/lock.js';
import { STATE_FILE, parseState } from '../../engine/state.js';
import {
  fillDisk,
  mountReadOnly,
  mountReadOnlyAt,
  mountTmpfs,
  mountsAvailable,
  unmountAll,
} from '../helpers/mounts.js';
import { PLATCTL, REPO_ROOT, printedResumeArgs, sandbox, until } from './engine-helpers.js';

const MOUNTS = await mountsAvailable();
const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];

/** Where `nobody` runs platctl: a directory it may enter, and the clone's root as it sees it from there. */
interface NobodyView {
  readonly dir: string;
  readonly clone: string;
}

/** True when every directory from `/` down to `dir` may be entered by other users (o+x). */
async function othersMayEnter(dir: string): Promise<boolean> {
  for (let at = resolve(dir); ; at = dirname(at)) {
    const mode = await stat(at).then(
      (s) => s.mode,
      () => 0,
    );
    if ((mode & 0o001) === 0) return false;
    if (at === dirname(at)) return true;
  }
}

/**
 * Running as `nobody` needs root (to switch user), setpriv, a directory nobody may enter, and a clone nobody may read.
 * A clone under a 0700 home or a `mktemp -d` directory is not readable by others (node would only say "Cannot find
 * module"), so where this machine may mount, the clone is shown to nobody through a read-only bind mount inside that
 * directory: the test runs wherever the clone lives. Asked of the real process; a string says why it cannot run.
 */
async function nobodyView(): Promise<NobodyView | string> {
  if (process.getuid?.() !== 0) return 'not root: cannot run platctl as nobody';
  let place: string | undefined;
  for (const candidate of [tmpdir(), '/tmp']) {
    if (await othersMayEnter(candidate)) {
      place = candidate;
      break;
    }
  }
  if (place === undefined) return `neither ${tmpdir()} nor /tmp may be entered by other users`;
  const dir = await mkdtemp(join(place, 'platctl-nobody-'));
  await chmod(dir, 0o755);
  afterAll(async () => {
    await unmountAll();
    // Only once nothing is mounted below it (the bind mount is read-only besides): never the clone's own files.
    if (!MOUNTS || (await readdir(join(dir, 'clone')).catch(() => [])).length === 0) {
      await rm(dir, { recursive: true, force: true });
    }
  });
  const clone = MOUNTS ? join(dir, 'clone') : REPO_ROOT;
  if (MOUNTS) await mountReadOnlyAt(REPO_ROOT, clone);
  const probe = await execa('setpriv', [...NOBODY, 'node', join(clone, 'bin', 'platctl.js'), '--version'], {
    reject: false,
    stdin: 'ignore',
  }).catch((error: unknown) => ({ exitCode: 1, stderr: String(error) }));
  if (probe.exitCode === 0) return { dir, clone };
  const cause = probe.stderr.split('\n').find((line) => /Error/.test(line)) ?? probe.stderr.split('\n')[0] ?? '';
  const unreadable = MOUNTS ? '' : ' (its directories are not readable by other users, and this process may not mount)';
  return `nobody cannot run ${PLATCTL} from this clone${unreadable}: ${cause}`;
}
afterAll(unmountAll);
const NOBODY_VIEW = await nobodyView();
const AS_NOBODY = typeof NOBODY_VIEW !== 'string';
if (typeof NOBODY_VIEW === 'string') console.warn(`skipping the EACCES test: ${NOBODY_VIEW}`);

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
    if (typeof NOBODY_VIEW === 'string') throw new Error(NOBODY_VIEW);
    const { dir, clone } = NOBODY_VIEW;
    const box = await sandbox();
    // A copy of the sandbox where nobody may enter: root's, so nobody may read it (to discover units) but not write
    // it. Its paths, and the clone's, as nobody reaches them.
    const base = join(dir, 'box');
    await cp(dirname(box.root), base, { recursive: true });
    await chmod(base, 0o755);
    const root = join(base, 'repo');
    const seen = (value: string): string => value.replaceAll(dirname(box.root), base).replaceAll(REPO_ROOT, clone);
    const env = Object.fromEntries(Object.entries(box.env).map(([key, value]) => [key, seen(value)]));
    const result = await execa('setpriv', [...NOBODY, 'node', join(clone, 'bin', 'platctl.js'), 'bootstrap'], {
      cwd: root,
      env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    expect(result.stderr).toBe(
      `platctl: refused: cannot create ${join(root, LOCK_FILE)}: permission is denied (EACCES); ` +
        `run platctl as a user who may write there; nothing was run`,
    );
    expect(result.exitCode).toBe(3);
    expect(await readFile(join(base, 'calls.ndjson'), 'utf8')).toBe('');
  });
});
