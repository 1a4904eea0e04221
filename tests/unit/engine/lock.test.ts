import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LOCK_FILE, acquireLock, inspectLock, procFacts, procMachine } from '../../../engine/lock.js';
import { mountReadOnly, mountTmpfs, mountsAvailable, unmountAll } from '../../helpers/mounts.js';
import { tempDir } from './helpers.js';

const MOUNTS = await mountsAvailable();
afterAll(unmountAll);

const request = { command: 'platctl bootstrap', startedAt: '2026-01-01T00:00:00.000Z' };
const machine = (pid: number, alive: readonly number[] = [], host = 'h1') => ({
  pid,
  host,
  isAlive: (p: number) => alive.includes(p),
});

describe('repository lock', () => {
  it('refuses a second holder while the first lives, naming it, and frees on release', async () => {
    const root = await tempDir();
    const first = await acquireLock(root, request, machine(100));
    expect(first.type).toBe('acquired');
    const second = await acquireLock(root, { ...request, command: 'platctl teardown' }, machine(200, [100]));
    expect(second).toMatchObject({
      type: 'held',
      holder: { pid: 100, host: 'h1', command: 'platctl bootstrap', started_at: '2026-01-01T00:00:00.000Z' },
    });
    if (first.type === 'acquired') await first.lock.release();
    expect((await acquireLock(root, request, machine(200))).type).toBe('acquired');
  });

  it('takes over a lock whose holder died on this host, and says so', async () => {
    const root = await tempDir();
    await acquireLock(root, request, machine(100));
    const taken = await acquireLock(root, request, machine(200, []));
    expect(taken).toMatchObject({ type: 'acquired', tookOver: { pid: 100 } });
    expect(JSON.parse(await readFile(join(root, LOCK_FILE), 'utf8'))).toMatchObject({ pid: 200 });
  });

  it('never takes over a lock from another host', async () => {
    const root = await tempDir();
    await acquireLock(root, request, machine(100, [], 'other-host'));
    expect(await acquireLock(root, request, machine(200, []))).toMatchObject({
      type: 'held',
      holder: { host: 'other-host' },
    });
  });

  it('does not remove a lock that is no longer its own', async () => {
    const root = await tempDir();
    const mine = await acquireLock(root, request, machine(100));
    await writeFile(join(root, LOCK_FILE), JSON.stringify({ pid: 300, host: 'h1', command: 'x', started_at: 'y' }));
    if (mine.type === 'acquired') await mine.lock.release();
    expect(JSON.parse(await readFile(join(root, LOCK_FILE), 'utf8'))).toMatchObject({ pid: 300 });
  });

  it('reports a lock file it cannot read instead of guessing', async () => {
    const root = await tempDir();
    await writeFile(join(root, LOCK_FILE), 'garbage');
    expect(await acquireLock(root, request, machine(1))).toMatchObject({ type: 'unreadable' });
  });

  it('refuses a lock file whose fields are of the wrong kind, naming the field, instead of guessing', async () => {
    const root = await tempDir();
    const cases: [Record<string, unknown>, string][] = [
      [{ pid: 1.5, host: 'h1', command: 'x', started_at: 'y' }, 'pid'],
      [{ pid: 7, host: 'h1', command: 'x', started_at: 'y', pid_start: 123 }, 'pid_start'],
      [{ pid: 7, host: 'h1', command: ['x'], started_at: 'y' }, 'command'],
    ];
    for (const [lock, field] of cases) {
      await writeFile(join(root, LOCK_FILE), JSON.stringify(lock));
      expect(await acquireLock(root, request, machine(1)), field).toMatchObject({
        type: 'unreadable',
        message: expect.stringMatching(new RegExp(`^not a platctl lock file \\(${field}: `)) as unknown,
      });
    }
  });
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};
const strangers: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of strangers.splice(0)) child.kill('SIGKILL');
});

/** A live process that has nothing to do with platctl: its pid stands for a pid the kernel gave away again. */
function stranger(): number {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  strangers.push(child);
  return child.pid!;
}

describe('repository lock: temp files', () => {
  it("removes lock temp files a killed run left (older than a minute), not a racing run's fresh one", async () => {
    const root = await tempDir();
    await writeFile(join(root, `${LOCK_FILE}.deadbeef`), '{"pid": 1');
    const old = new Date(Date.now() - 120_000);
    await utimes(join(root, `${LOCK_FILE}.deadbeef`), old, old);
    await writeFile(join(root, `${LOCK_FILE}.0badf00d`), '{"pid": 2');
    expect((await acquireLock(root, request, machine(100))).type).toBe('acquired');
    expect((await readdir(root)).sort()).toEqual([LOCK_FILE, `${LOCK_FILE}.0badf00d`]);
  });
});

describe('repository lock: is the holder really the holder?', () => {
  it('records its start time and the boot id, so a later reader can tell its holder from a reused pid', async () => {
    const root = await tempDir();
    const taken = await acquireLock(root, request, await procMachine({ pid: process.pid, host: 'h1', isAlive: alive }));
    expect(taken.type).toBe('acquired');
    const written = JSON.parse(await readFile(join(root, LOCK_FILE), 'utf8')) as Record<string, unknown>;
    expect(written.pid_start).toBe((await procFacts(process.pid))?.start);
    expect(written.boot_id).toBe((await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim());
    // Still held by us, as a second reader sees it.
    const other = await procMachine({ pid: 1, host: 'h1', isAlive: alive });
    expect(await inspectLock(root, other)).toMatchObject({ type: 'held', holder: { pid: process.pid } });
  });

  it('takes over a lock whose pid now belongs to a live, unrelated process (pid reuse)', async () => {
    const root = await tempDir();
    const pid = stranger();
    const real = await procFacts(pid);
    // The lock's holder started at another time than the process that has its pid now.
    await writeFile(
      join(root, LOCK_FILE),
      JSON.stringify({ pid, host: hostname(), command: 'platctl bootstrap', started_at: 'then', pid_start: '1' }),
    );
    const machine = await procMachine({ pid: process.pid, host: hostname(), isAlive: alive });
    expect(real?.start).not.toBe('1');
    expect(await inspectLock(root, machine)).toMatchObject({
      type: 'stale',
      why: expect.stringContaining(`pid ${pid} now belongs to another process (sleep 60)`) as unknown,
    });
    const taken = await acquireLock(root, request, machine);
    expect(taken).toMatchObject({ type: 'acquired', tookOver: { pid } });
    expect(alive(pid)).toBe(true);
  });

  it('keeps a lock whose live holder started when the lock says', async () => {
    const root = await tempDir();
    const pid = stranger();
    const start = (await procFacts(pid))?.start;
    await writeFile(
      join(root, LOCK_FILE),
      JSON.stringify({ pid, host: hostname(), command: 'platctl bootstrap', started_at: 'then', pid_start: start }),
    );
    const machine = await procMachine({ pid: process.pid, host: hostname(), isAlive: alive });
    expect(await acquireLock(root, request, machine)).toMatchObject({ type: 'held', holder: { pid } });
  });

  it('judges a lock written without a start time by the command line of the live pid', async () => {
    const root = await tempDir();
    const pid = stranger();
    await writeFile(
      join(root, LOCK_FILE),
      JSON.stringify({ pid, host: hostname(), command: 'platctl bootstrap', started_at: 'then' }),
    );
    const machine = await procMachine({ pid: process.pid, host: hostname(), isAlive: alive });
    expect(await acquireLock(root, request, machine)).toMatchObject({ type: 'acquired', tookOver: { pid } });
  });

  it('takes over a lock from before a reboot, whatever now runs under its pid', async () => {
    const root = await tempDir();
    await writeFile(
      join(root, LOCK_FILE),
      JSON.stringify({ pid: 1, host: 'h1', command: 'platctl bootstrap', started_at: 'then', boot_id: 'old-boot' }),
    );
    const machine = { ...machine0(2), bootId: 'new-boot', isAlive: () => true };
    expect(await acquireLock(root, request, machine)).toMatchObject({ type: 'acquired', tookOver: { pid: 1 } });
  });

  it('never takes over a lock whose holder it cannot inspect but is alive', async () => {
    const root = await tempDir();
    await writeFile(
      join(root, LOCK_FILE),
      JSON.stringify({ pid: 7, host: 'h1', command: 'platctl bootstrap', started_at: 'then', pid_start: '99' }),
    );
    const machine = { ...machine0(2), isAlive: () => true, inspect: () => Promise.resolve(undefined) };
    expect(await acquireLock(root, request, machine)).toMatchObject({ type: 'held', holder: { pid: 7 } });
  });

  it('refuses, naming the marker to delete, when a takeover was cut short by a dead contender', async () => {
    const root = await tempDir();
    const stale = JSON.stringify({ pid: 7, host: 'h1', command: 'platctl bootstrap', started_at: 'then' });
    await writeFile(join(root, LOCK_FILE), stale);
    const marker = `${LOCK_FILE}.takeover-${createHash('sha256').update(stale).digest('hex').slice(0, 16)}`;
    await writeFile(join(root, marker), JSON.stringify({ pid: 8, host: 'h1', command: 'x', started_at: 'y' }));
    // Pid 8 (the contender that created the marker) is dead, like the holder pid 7.
    const result = await acquireLock(root, request, machine(9));
    expect(result).toMatchObject({
      type: 'unreadable',
      message: expect.stringContaining('cut short') as unknown,
      hint: `if no platctl run is in progress, delete ${LOCK_FILE} and ${join(root, marker)}`,
    });
  });
});

function machine0(pid: number) {
  return { pid, host: 'h1', isAlive: (_: number) => false };
}

describe.skipIf(!MOUNTS)('repository lock on a disk that refuses writes (needs the right to mount)', () => {
  it('a read-only bind mount (EROFS): says which file and why, and leaves nothing behind', async () => {
    const root = await tempDir();
    await mountReadOnly(root);
    const result = await acquireLock(root, request, machine(100));
    expect(result).toEqual({
      type: 'unwritable',
      path: join(root, LOCK_FILE),
      message: `cannot create ${join(root, LOCK_FILE)}: the file system is read-only (EROFS); run platctl from a writable checkout`,
    });
    expect(await readdir(root)).toEqual([]);
  });

  it('a full tmpfs (ENOSPC): says so, and leaves no .platctl.lock.<hex> temp file', async () => {
    const root = join(await tempDir(), 'full');
    await mountTmpfs(root, 4);
    // One page: a file that fills it; the lock's temp file then cannot get any.
    await writeFile(join(root, 'filler'), Buffer.alloc(4096));
    const result = await acquireLock(root, request, machine(100));
    expect(result).toMatchObject({
      type: 'unwritable',
      message: `cannot create ${join(root, LOCK_FILE)}: no space is left on the device (ENOSPC); free some space on that disk`,
    });
    expect(await readdir(root)).toEqual(['filler']);
  });
});
