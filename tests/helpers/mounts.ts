/**
 * Real disk conditions for tests: a tiny tmpfs fills up (ENOSPC), a read-only bind mount refuses writes (EROFS) or
 * shows a directory at a second path. All need the right to mount (root in the test container); `mountsAvailable` says whether this machine grants it, and
 * tests that need it are skipped, saying why, where it does not.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { tempDir } from '../unit/engine/helpers.js';

const mounted: string[] = [];

async function mount(args: readonly string[]): Promise<boolean> {
  const result = await execa('mount', args, { reject: false, timeout: 10_000 });
  return result.exitCode === 0;
}

/** True when this process may mount a tmpfs (checked once, on a scratch directory). */
export async function mountsAvailable(): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  const dir = await tempDir('platctl-mount-probe-');
  if (!(await mount(['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]))) return false;
  await execa('umount', [dir], { reject: false });
  return true;
}

/** Mounts a tmpfs of `sizeKb` KiB on `dir` (created if needed): writes beyond that fail with ENOSPC. */
export async function mountTmpfs(dir: string, sizeKb: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  if (!(await mount(['-t', 'tmpfs', '-o', `size=${sizeKb}k`, 'tmpfs', dir]))) throw new Error(`cannot mount ${dir}`);
  mounted.push(dir);
}

/** Makes `dir` read-only in place (a read-only bind mount of itself): every write under it fails with EROFS. */
export async function mountReadOnly(dir: string): Promise<void> {
  if (!(await mount(['--bind', dir, dir]))) throw new Error(`cannot bind-mount ${dir}`);
  mounted.push(dir);
  if (!(await mount(['-o', 'remount,ro,bind', dir]))) throw new Error(`cannot remount ${dir} read-only`);
}

/**
 * Shows `source` at `target` (created if needed) through a read-only bind mount: another path to the same files, so a
 * process may reach them without entering `source`'s parents. Read-only, so removing `target`'s tree can never delete
 * what `source` holds.
 */
export async function mountReadOnlyAt(source: string, target: string): Promise<void> {
  await mkdir(target, { recursive: true });
  if (!(await mount(['--bind', source, target]))) throw new Error(`cannot bind-mount ${source} on ${target}`);
  mounted.push(target);
  if (!(await mount(['-o', 'remount,ro,bind', target]))) throw new Error(`cannot remount ${target} read-only`);
}

/** Fills the file system holding `dir` until a write fails with ENOSPC. */
export async function fillDisk(dir: string): Promise<void> {
  const chunk = Buffer.alloc(4096, 0x61);
  for (let i = 0; ; i += 1) {
    try {
      await writeFile(join(dir, `.filler-${i}`), chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return;
      throw error;
    }
  }
}

/** Unmounts everything this module mounted, newest first (call from afterAll/afterEach). */
export async function unmountAll(): Promise<void> {
  for (const dir of mounted.splice(0).reverse()) {
    await execa('umount', ['-l', dir], { reject: false, timeout: 10_000 });
  }
}
