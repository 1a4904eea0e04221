import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { STATE_FILE, parseState } from '../../engine/state.js';
import { tempDir } from '../unit/engine/helpers.js';
import { REPO_ROOT } from './engine-helpers.js';

/**
 * Writes a state file, then a larger one under a file size limit (prlimit), in a separate process running the
 * built StateStore. A short write (a full disk does the same) is reported by writev as a byte count, not an error.
 */
const WRITER = `
const { StateStore, STATE_FILE } = await import(process.argv[1]);
const root = process.argv[2];
const units = {};
for (let i = 0; i < 40; i += 1) units['p/u' + i] = { status: 'pending', attempts: 0, wave: 0, dependencies: [] };
const store = new StateStore(root, {
  version: 1, run_id: 'r1', command: 'bootstrap',
  args: { env: [], unit: [], with_deps: false, parallelism: 4, fail_fast: false },
  started_at: 'x', updated_at: 'x', status: 'running', graph_fingerprint: 'f', platctl_version: 't',
  resumes: 0, known_durations_ms: {}, units,
});
await store.flush();
for (let i = 0; i < 40; i += 1) store.patchUnit('p/u' + i, { status: 'failed', error: 'e'.repeat(200) });
try {
  await store.flush();
  console.log('second write: ok');
} catch (error) {
  console.log('second write: ' + error.message);
}
`;

describe('the state file on a full disk', () => {
  it('keeps the last whole state when a write comes up short, and says so', async () => {
    const root = await tempDir('platctl-state-');
    const result = await execa(
      'prlimit',
      [
        '--fsize=8192',
        'node',
        '--input-type=module',
        '-e',
        WRITER,
        join(REPO_ROOT, 'dist', 'engine', 'state.js'),
        root,
      ],
      { reject: false },
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/second write: .*8192 of \d+ bytes/);
    const loaded = parseState(await readFile(join(root, STATE_FILE), 'utf8'));
    expect(loaded.type).toBe('ok');
    if (loaded.type !== 'ok') return;
    expect(Object.values(loaded.state.units).every((u) => u.status === 'pending')).toBe(true);
    // No temp file left behind.
    expect(await readdir(root)).toEqual([STATE_FILE]);
  });
});

const STRACE = (await execa('strace', ['-V'], { reject: false }).catch(() => ({ exitCode: 1 }))).exitCode === 0;

describe.skipIf(!STRACE)('the state file after a power loss (needs strace)', () => {
  it('fsyncs the file, renames it into place, then fsyncs the directory so the rename itself is durable', async () => {
    const root = await tempDir('platctl-state-');
    const trace = join(root, '..', `${root.split('/').pop() ?? 'x'}.strace`);
    const result = await execa(
      'strace',
      [
        '-f',
        '-qq',
        '-e',
        'trace=openat,rename,renameat,renameat2,fsync,fdatasync',
        '-o',
        trace,
        'node',
        '--input-type=module',
        '-e',
        WRITER,
        join(REPO_ROOT, 'dist', 'engine', 'state.js'),
        root,
      ],
      { reject: false },
    );
    expect(result.stdout).toContain('second write: ok');
    // Syscalls of all threads, in order: "pid name(args) = result".
    const calls = (await readFile(trace, 'utf8')).split('\n').map((line) => line.replace(/^\d+\s+/, ''));
    await rm(trace, { force: true });
    const renamed = calls.findIndex((c) =>
      /^rename(at2?)?\(.*\.platctl-state\.json\.tmp-\w+", .*\.platctl-state\.json"/.test(c),
    );
    expect(renamed).toBeGreaterThan(0);
    // The temp file was fsynced before the rename ...
    const tempFd = calls
      .slice(0, renamed)
      .map((c) => /^openat\(.*\.platctl-state\.json\.tmp-\w+", O_WRONLY.*= (\d+)$/.exec(c)?.[1])
      .filter(Boolean)
      .pop();
    expect(calls.slice(0, renamed).some((c) => c === `fsync(${tempFd}) = 0` || c.startsWith(`fsync(${tempFd})`))).toBe(
      true,
    );
    // ... and the directory after it.
    const after = calls.slice(renamed + 1);
    const dirOpen = after.findIndex((c) => c.startsWith(`openat(AT_FDCWD, "${root}", O_RDONLY`));
    expect(dirOpen).toBeGreaterThanOrEqual(0);
    const dirFd = /= (\d+)$/.exec(after[dirOpen] ?? '')?.[1];
    expect(after.slice(dirOpen + 1).some((c) => c.startsWith(`fsync(${dirFd})`))).toBe(true);
  });
});
