/** `platctl state pull`'s write (engine/state-pull.ts): the replaced file kept as a backup, nothing kept when absent. */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STATE_FILE } from '../../../engine/state.js';
import type { RunState } from '../../../engine/state.js';
import { replaceLocalState } from '../../../engine/state-pull.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'platctl-pull-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));
const state = { run_id: 'r2' } as unknown as RunState;

describe('replaceLocalState', () => {
  it('writes the state; no backup when there was no file', async () => {
    expect(await replaceLocalState(dir, state, 0)).toEqual({ ok: true, kept: undefined });
    expect(await readFile(join(dir, STATE_FILE), 'utf8')).toBe('{"run_id":"r2"}\n');
    expect(await readdir(dir)).toEqual([STATE_FILE]);
  });

  it('keeps the file it replaces, whatever it held', async () => {
    await writeFile(join(dir, STATE_FILE), 'not json');
    const replaced = await replaceLocalState(dir, state, Date.UTC(2026, 0, 1));
    expect(replaced.ok && replaced.kept).toMatch(/^\.platctl-state\.json\.bak-/);
    if (!replaced.ok || replaced.kept === undefined) throw new Error('kept');
    expect(await readFile(join(dir, replaced.kept), 'utf8')).toBe('not json');
    expect(await readFile(join(dir, STATE_FILE), 'utf8')).toBe('{"run_id":"r2"}\n');
  });

  it('a directory it cannot write in: refused, nothing changed', async () => {
    const replaced = await replaceLocalState(join(dir, 'missing'), state, 0);
    expect(replaced.ok).toBe(false);
  });
});
