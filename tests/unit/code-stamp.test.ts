/**
 * The stamp that keys caches on platctl's own code (config/code-stamp.ts): any rewrite of a code file, even with the
 * same bytes and the old mtime put back, and a file added, removed or replaced by rename, gives another stamp.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { codeFiles, codeStamp } from '../../config/code-stamp.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** Waits until a file written now gets a later ctime than `file` has. */
async function nextTick(dir: string, file: string): Promise<void> {
  for (;;) {
    writeFileSync(join(dir, 'probe.txt'), '');
    if (statSync(join(dir, 'probe.txt')).ctimeMs > statSync(file).ctimeMs) return;
    await sleep(5);
  }
}

describe('codeStamp', () => {
  it('changes with every rewrite, addition, removal and rename of a code file, and with nothing else', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platctl-code-stamp-'));
    temps.push(dir);
    writeFileSync(join(dir, 'a.js'), 'export const a = 1;\n');
    writeFileSync(join(dir, 'b.js'), 'export const b = 2;\n');
    writeFileSync(join(dir, 'b.d.ts'), 'export declare const b: number;\n');
    writeFileSync(join(dir, 'notes.md'), 'not code\n');
    const stamp = () => codeStamp(codeFiles(dir));
    expect(codeFiles(dir)).toEqual([join(dir, 'a.js'), join(dir, 'b.js')]);
    const first = stamp();
    expect(stamp()).toBe(first);
    writeFileSync(join(dir, 'notes.md'), 'still not code\n');
    expect(stamp()).toBe(first);

    // The same bytes written again, with the old mtime put back: only ctime moves.
    const a = join(dir, 'a.js');
    const { atime, mtime } = statSync(a);
    await nextTick(dir, a);
    writeFileSync(a, 'export const a = 1;\n');
    utimesSync(a, atime, mtime);
    const rewritten = stamp();
    expect(rewritten).not.toBe(first);

    // Replaced by rename (another inode), added, removed.
    writeFileSync(join(dir, 'a.new'), 'export const a = 1;\n');
    renameSync(join(dir, 'a.new'), a);
    const renamed = stamp();
    expect(renamed).not.toBe(rewritten);
    writeFileSync(join(dir, 'c.js'), '');
    const added = stamp();
    expect(added).not.toBe(renamed);
    rmSync(join(dir, 'c.js'));
    expect(stamp()).not.toBe(added);
  });

  it('lists the code files of subdirectories too when asked, sorted by their path below the directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'platctl-code-stamp-'));
    temps.push(dir);
    mkdirSync(join(dir, 'hcl', 'deep'), { recursive: true });
    for (const file of ['index.js', 'a.ts', 'a.d.ts', 'hcl/parse.js', 'hcl/deep/x.js', 'hcl/notes.md', 'z.js']) {
      writeFileSync(join(dir, file), '');
    }
    expect(codeFiles(dir)).toEqual(['a.ts', 'index.js', 'z.js'].map((f) => join(dir, f)));
    expect(codeFiles(dir, { recursive: true })).toEqual(
      ['a.ts', 'hcl/deep/x.js', 'hcl/parse.js', 'index.js', 'z.js'].map((f) => join(dir, f)),
    );
  });

  it('counts a missing file as missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'platctl-code-stamp-'));
    temps.push(dir);
    const file = join(dir, 'gone.js');
    const missing = codeStamp([file]);
    writeFileSync(file, '');
    expect(codeStamp([file])).not.toBe(missing);
  });
});
