import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileAtomicSync } from '../../config/atomic-write.js';
import { fillDisk, mountTmpfs, mountsAvailable, unmountAll } from '../helpers/mounts.js';
import { tempDir } from '../helpers/temp.js';

afterAll(unmountAll);

describe('writeFileAtomic', () => {
  it('writes a string or a list of buffers whole, with the mode asked for, and leaves no temp file', async () => {
    const dir = await tempDir();
    const file = join(dir, 'state.json');
    await writeFileAtomic(file, [Buffer.from('{"a":'), Buffer.from('1}\n')], { mode: 0o600 });
    expect(await readFile(file, 'utf8')).toBe('{"a":1}\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await writeFileAtomic(file, 'second\n', { fsync: false });
    expect(await readFile(file, 'utf8')).toBe('second\n');
    writeFileAtomicSync(file, 'third\n');
    expect(await readFile(file, 'utf8')).toBe('third\n');
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('throws the file system error when the directory is missing, and creates nothing', async () => {
    const dir = await tempDir();
    await expect(writeFileAtomic(join(dir, 'no', 'such.json'), 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(() => writeFileAtomicSync(join(dir, 'no', 'such.json'), 'x')).toThrow(/ENOENT/);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe.skipIf(!(await mountsAvailable()))('writeFileAtomic on a full disk (needs the right to mount)', () => {
  it('keeps the old file byte for byte and leaves no temp file (async and sync)', async () => {
    const dir = await tempDir();
    await mountTmpfs(dir, 64);
    const file = join(dir, 'state.json');
    await writeFile(file, 'old and whole\n');
    await fillDisk(dir);
    const big = 'x'.repeat(256 * 1024);
    await expect(writeFileAtomic(file, big)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(() => writeFileAtomicSync(file, big)).toThrow(/ENOSPC/);
    expect(await readFile(file, 'utf8')).toBe('old and whole\n');
    expect((await readdir(dir)).filter((name) => name.includes('.tmp-'))).toEqual([]);
  });
});
