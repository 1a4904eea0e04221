import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATE_FILE, parseState } from '../../engine/state.js';
import { gone } from '../process/helpers.js';
import { sandbox, until } from './engine-helpers.js';

/** A small deterministic generator, so a failing moment can be replayed from the seed in the message. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe('kill -9 of platctl', () => {
  it('at 20 random moments always leaves a parseable state file and a resume that completes', async () => {
    const box = await sandbox();
    const next = random(20260129);
    let killedMidWalk = 0;
    for (let round = 0; round < 20; round += 1) {
      const sleep = 40 + Math.floor(next() * 120);
      await box.control({}, { sleep_ms: sleep });
      // Odd rounds count from the start of the process (start-up, discovery, lock, first write); even rounds from
      // the first state write, so that half the moments fall inside the walk whatever the machine's speed.
      const fromWalk = round % 2 === 0;
      const killAfter = Math.floor(next() * (fromWalk ? 900 : 1500));
      const moment = `round ${round}: units take ${sleep} ms, kill -9 ${killAfter} ms after ${fromWalk ? 'the walk started' : 'spawn'}`;
      const child = box.start(['bootstrap', '--parallelism', '2']);
      if (fromWalk) {
        await until(
          async () =>
            (await readFile(join(box.root, STATE_FILE), 'utf8').catch(() => '')).includes('"status":"running"'),
          20_000,
          'the walk',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, killAfter));
      child.kill('SIGKILL');
      await child;

      // Whatever moment it died at, the state file is either absent (died before the first write) or whole.
      const files = await readdir(box.root);
      let resumable = false;
      if (files.includes(STATE_FILE)) {
        const loaded = parseState(await readFile(join(box.root, STATE_FILE), 'utf8'));
        expect(loaded.type, moment).toBe('ok');
        resumable = loaded.type === 'ok' && loaded.state.command === 'bootstrap';
        if (loaded.type === 'ok' && loaded.state.status === 'running') killedMidWalk += 1;
      }

      await box.control({}, { sleep_ms: 0 });
      const resumed = await box.run(resumable ? ['bootstrap', '--resume', '--parallelism', '4'] : ['bootstrap']);
      expect(resumed.exitCode, `${moment}\n${resumed.stdout}\n${resumed.stderr}`).toBe(0);
      const state = await box.state();
      expect(state.status, moment).toBe('completed');
      expect(
        Object.values(state.units).every((u) => u.status === 'completed'),
        moment,
      ).toBe(true);
    }
    expect(killedMidWalk).toBeGreaterThanOrEqual(10);
    // Units a killed platctl left behind were stopped by the next run (or finished): none is still alive.
    for (const call of await box.calls()) expect(await gone(call.pid, 5000), `pid ${call.pid}`).toBe(true);
  }, 240_000);
});
