import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE, acquireLock } from '../../../engine/lock.js';
import { tempDir } from './helpers.js';

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
    expect(second).toEqual({
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
});
