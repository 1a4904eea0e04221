import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STATE_FILE } from '../../engine/state.js';
import { sandbox, until } from './engine-helpers.js';

const orphans: number[] = [];
afterEach(() => {
  for (const pid of orphans.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

describe('platctl status of a run whose platctl was killed', () => {
  it('says the run was killed (interrupted), not running, and how to resume; while it lives, "running now"', async () => {
    const box = await sandbox();
    await box.control({}, { sleep_ms: 30_000 });
    const child = box.start(['bootstrap']);
    await until(
      async () => (await readFile(join(box.root, STATE_FILE), 'utf8').catch(() => '')).includes('"status":"running"'),
      15_000,
      'a unit to be recorded running',
    );
    const live = await box.run(['status']);
    expect(live.stdout).toMatch(/^bootstrap \S+: running now \(/);
    expect(live.stdout).not.toContain('Resume with');

    child.kill('SIGKILL');
    await child;
    for (const call of await box.calls()) orphans.push(call.pid);
    const text = await box.run(['status']);
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toMatch(/^bootstrap \S+: interrupted \(/);
    expect(text.stdout).toMatch(/platform\/iam-roles +interrupted/);
    expect(text.stdout).not.toMatch(/\brunning\b/);
    expect(text.stdout).toContain(
      `The run did not end: platctl was killed (pid ${child.pid} on ${hostname()}, which held the lock, is gone: its process is gone).`,
    );
    expect(text.stdout).toContain('Resume with: platctl bootstrap --resume');
    const json = JSON.parse((await box.run(['status', '--json'])).stdout) as {
      run: { status: string; in_progress: boolean; killed?: boolean };
      units: { id: string; status: string }[];
    };
    expect(json.run).toMatchObject({ status: 'interrupted', in_progress: false, killed: true });
    expect(json.units.filter((u) => u.status === 'running')).toEqual([]);
  }, 60_000);
});
