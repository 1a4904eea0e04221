import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunState } from '../../../engine/state.js';
import {
  STATE_FILE,
  StateStore,
  backupState,
  loadState,
  parseState,
  removeStaleTempFiles,
} from '../../../engine/state.js';
import { fillDisk, mountReadOnly, mountTmpfs, mountsAvailable, unmountAll } from '../../helpers/mounts.js';
import { until } from '../../helpers/wait.js';
import { runState, tempDir } from './helpers.js';

const MOUNTS = await mountsAvailable();
afterAll(unmountAll);

function state(units: number): RunState {
  const out: RunState['units'] = {};
  for (let i = 0; i < units; i += 1) {
    out[`p/u${String(i).padStart(4, '0')}`] = { status: 'pending', attempts: 0, wave: 0, dependencies: [] };
  }
  return runState(out);
}

describe('StateStore', () => {
  it('writes JSON that reads back identically, one unit per line, after every kind of change', async () => {
    const root = await tempDir();
    const store = new StateStore(root, state(300), { now: () => Date.UTC(2026, 0, 2) });
    await store.flush();
    // Change units in different cached chunks, then run-level fields.
    store.patchUnit('p/u0000', { status: 'running', attempts: 1, pid: 42 });
    store.patchUnit('p/u0299', {
      status: 'failed',
      error: 'exit code 1: Error: "quoted" \\ and ünïcode',
      exit_code: 1,
    });
    store.patchUnit('p/u0000', { pid: undefined });
    store.patchRun({ status: 'failed' });
    await store.flush();
    const text = await readFile(join(root, STATE_FILE), 'utf8');
    expect(text.split('\n').filter((l) => l.startsWith('"p/u')).length).toBe(300);
    const loaded = await loadState(root);
    expect(loaded.type).toBe('ok');
    if (loaded.type !== 'ok') return;
    expect(loaded.state).toEqual(store.state);
    expect(loaded.state.units['p/u0000']).toEqual({ status: 'running', attempts: 1, wave: 0, dependencies: [] });
    expect(loaded.state.updated_at).toBe('2026-01-02T00:00:00.000Z');
    expect(await readdir(root)).toEqual([STATE_FILE]);
  });

  it('coalesces a burst of flushes into one write, and never reports a change as written before it is', async () => {
    const root = await tempDir();
    // Told after each write while that write is still the one in flight: the hook makes "a change during a write"
    // happen for certain, however fast or slow the machine is.
    let duringWrite: (() => void) | undefined;
    const store = new StateStore(root, state(10), {
      fsync: false,
      onWritten: () => {
        const act = duringWrite;
        duringWrite = undefined;
        act?.();
      },
    });
    const flushes = [];
    for (let i = 0; i < 10; i += 1) {
      store.patchUnit(`p/u000${i}`, { status: 'running' });
      flushes.push(store.flush());
    }
    await Promise.all(flushes);
    expect(store.writes).toBe(1);
    // A change made while a write is in flight gets a write of its own after it.
    let second: Promise<void> | undefined;
    duringWrite = () => {
      store.patchUnit('p/u0002', { status: 'completed' });
      second = store.flush();
    };
    store.patchUnit('p/u0001', { status: 'completed' });
    await store.flush();
    expect(second).toBeDefined();
    const between = await loadState(root);
    expect(between.type === 'ok' && between.state.units['p/u0002']?.status).toBe('running');
    await second;
    const loaded = await loadState(root);
    expect(loaded.type === 'ok' && loaded.state.units['p/u0002']?.status).toBe('completed');
    expect(store.writes).toBe(3);
    // Nothing changed: no write.
    await store.flush();
    expect(store.writes).toBe(3);
  });

  it('writes transitions scheduled within one coalescing window in one write, without a flush', async () => {
    const root = await tempDir();
    const store = new StateStore(root, state(3), { fsync: false, coalesceMs: 20 });
    store.patchUnit('p/u0000', { status: 'completed' });
    store.schedule();
    store.patchUnit('p/u0001', { status: 'completed' });
    store.schedule();
    // However loaded the machine, the timer fires; waiting for it (not for a fixed time) keeps this test honest.
    await until(() => store.writes > 0, 10_000, 'the coalesced write');
    const loaded = await loadState(root);
    expect(loaded.type === 'ok' && loaded.state.units['p/u0001']?.status).toBe('completed');
    expect(store.writes).toBe(1);
    await store.close();
    expect(store.writes).toBe(1);
  });
});

describe('reading a state file', () => {
  it('tells a missing file, a broken one and a foreign version apart', async () => {
    const root = await tempDir();
    expect(await loadState(root)).toEqual({ type: 'missing' });
    expect(parseState('{"version": 1, "units": ')).toMatchObject({ type: 'invalid', reason: 'unparsable' });
    expect(parseState('{"version": 2}')).toMatchObject({
      type: 'invalid',
      reason: 'unsupported-version',
      message: expect.stringContaining('this platctl reads version 1') as unknown,
    });
    expect(parseState('{"version": 1, "run_id": "x"}')).toMatchObject({ type: 'invalid', reason: 'unparsable' });
    expect(parseState('{"version": 3, "platctl_version": "2.4.0"}')).toMatchObject({
      type: 'invalid',
      reason: 'unsupported-version',
      message: `${STATE_FILE} has version 3, written by a newer platctl (2.4.0); this platctl reads version 1`,
    });
    const withExtra = { ...state(1), future_field: true };
    expect(parseState(JSON.stringify(withExtra)).type).toBe('ok');
  });

  it('removes temp files a killed writer left', async () => {
    const root = await tempDir();
    await writeFile(join(root, `${STATE_FILE}.tmp-deadbeef`), '{"half');
    await writeFile(join(root, 'other.txt'), 'keep');
    await removeStaleTempFiles(root);
    expect(await readdir(root)).toEqual(['other.txt']);
  });
});

describe('what a state file that is not one says', () => {
  it.each([
    ['[]', 'it holds an array, not an object with a "version" field'],
    ['null', 'it holds null, not an object with a "version" field'],
    ['"text"', 'it holds a string, not an object with a "version" field'],
    ['{"hello":1}', 'it has no "version" field'],
  ])('%s: %s (never "version undefined")', (text, why) => {
    const loaded = parseState(text);
    expect(loaded).toEqual({
      type: 'invalid',
      reason: 'unparsable',
      message: `${STATE_FILE} is not a platctl state file: ${why}`,
    });
  });

  it('backs up a state file before a new run replaces it, under a name with the time', async () => {
    const root = await tempDir();
    await writeFile(join(root, STATE_FILE), '{"version": 2}');
    const name = await backupState(root, Date.UTC(2026, 0, 29, 10, 15, 0, 123));
    expect(name).toBe(`${STATE_FILE}.bak-20260129T101500.123Z`);
    expect(await readFile(join(root, name), 'utf8')).toBe('{"version": 2}');
    expect(await readdir(root)).toEqual([name]);
  });
});

describe.skipIf(!MOUNTS)('the state file on a disk that refuses writes (needs the right to mount)', () => {
  it('a full tmpfs (ENOSPC): names the file and the cause, keeps the last whole state, leaves no temp file', async () => {
    const root = join(await tempDir(), 'small');
    await mountTmpfs(root, 64);
    const store = new StateStore(root, state(20));
    await store.flush();
    await fillDisk(root);
    store.patchUnit('p/u0001', { status: 'failed', error: 'e'.repeat(5000) });
    await expect(store.flush()).rejects.toThrow(
      new RegExp(
        `^cannot write ${join(root, STATE_FILE)}: (no space is left on the device \\(ENOSPC\\); free some space on that disk|only \\d+ of \\d+ bytes were written \\(is the disk full\\?\\))$`,
      ),
    );
    const loaded = await loadState(root);
    expect(loaded.type === 'ok' && loaded.state.units['p/u0001']?.status).toBe('pending');
    expect((await readdir(root)).filter((name) => name.startsWith(`${STATE_FILE}.tmp-`))).toEqual([]);
    // Once there is room again, the change that did not make it is written.
    for (const name of await readdir(root)) if (name.startsWith('.filler-')) await rm(join(root, name));
    await store.flush();
    const again = await loadState(root);
    expect(again.type === 'ok' && again.state.units['p/u0001']?.status).toBe('failed');
  });

  it('a read-only bind mount (EROFS): names the file and the cause, and keeps the last whole state', async () => {
    const root = await tempDir();
    const store = new StateStore(root, state(3));
    await store.flush();
    await mountReadOnly(root);
    store.patchUnit('p/u0001', { status: 'completed' });
    await expect(store.flush()).rejects.toThrow(
      `cannot write ${join(root, STATE_FILE)}: the file system is read-only (EROFS); run platctl from a writable checkout`,
    );
    expect(await readdir(root)).toEqual([STATE_FILE]);
    expect((await loadState(root)).type).toBe('ok');
  });
});
