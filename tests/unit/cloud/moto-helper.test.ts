/**
 * The moto helper must not leave python servers behind. When a vitest worker is terminated (SIGTERM) or killed
 * (SIGKILL, a timeout), no `exit` hook runs; what the server then sees is its stdin pipe closing, because the
 * kernel closes the dead process's end. This test closes that end itself and expects the server to go.
 */
import { describe, expect, it } from 'vitest';
import { answers, freePort, spawnMotoProcess } from '../../helpers/moto.js';

describe('moto helper', () => {
  it('a server whose parent is gone (stdin closed) exits by itself, without a signal', async () => {
    const port = await freePort();
    const child = spawnMotoProcess(port);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      const deadline = Date.now() + 20_000;
      while (!(await answers(`http://127.0.0.1:${port}`))) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      child.stdin?.destroy();
      const outcome = await Promise.race([
        exited,
        new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 5000)),
      ]);
      expect(outcome).toEqual({ code: 0, signal: null });
      expect(await answers(`http://127.0.0.1:${port}`)).toBe(false);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
