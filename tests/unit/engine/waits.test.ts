import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../engine/waits.js';
import { abortableSleep } from '../../../engine/timers.js';
import { poll } from '../../../engine/waits.js';

/** A clock whose sleeps advance time at once: a 10-minute wait costs nothing. */
function fakeClock(onSleep?: (ms: number) => void): Clock & { slept: number[] } {
  let now = 1_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: (ms, signal) => {
      if (signal.aborted) return Promise.resolve();
      slept.push(ms);
      now += ms;
      onSleep?.(ms);
      return Promise.resolve();
    },
  };
}

describe('poll', () => {
  it('looks until done, sleeping the interval between looks', async () => {
    const clock = fakeClock();
    let looks = 0;
    const outcome = await poll({
      clock,
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      intervalMs: 5_000,
      check: () => Promise.resolve({ done: ++looks === 3, value: looks }),
    });
    expect(outcome).toEqual({ type: 'done', value: 3, waitedMs: 10_000 });
    expect(clock.slept).toEqual([5_000, 5_000]);
  });

  it('gives up at its deadline with the last answer, cutting the last sleep there', async () => {
    const clock = fakeClock();
    const outcome = await poll({
      clock,
      signal: new AbortController().signal,
      timeoutMs: 12_000,
      intervalMs: 5_000,
      check: () => Promise.resolve({ done: false, value: 'still 2 pods' }),
    });
    expect(outcome).toEqual({ type: 'timeout', last: 'still 2 pods', waitedMs: 12_000 });
    expect(clock.slept).toEqual([5_000, 5_000, 2_000]);
  });

  it('stops at the abort: no look after it, and none at all when already aborted', async () => {
    const controller = new AbortController();
    const clock = fakeClock(() => controller.abort('SIGINT'));
    let looks = 0;
    const check = () => Promise.resolve({ done: false, value: ++looks });
    const outcome = await poll({ clock, signal: controller.signal, timeoutMs: 600_000, intervalMs: 5_000, check });
    expect(outcome).toEqual({ type: 'aborted', last: 1, waitedMs: 5_000 });
    expect(looks).toBe(1);
    const again = await poll({ clock, signal: controller.signal, timeoutMs: 600_000, intervalMs: 5_000, check });
    expect(again).toMatchObject({ type: 'aborted', last: undefined });
    expect(looks).toBe(1);
  });

  it('returns a failed look as is', async () => {
    const outcome = await poll({
      clock: fakeClock(),
      signal: new AbortController().signal,
      timeoutMs: 1_000,
      intervalMs: 100,
      check: () => Promise.resolve({ failure: 'forbidden' }),
    });
    expect(outcome).toEqual({ type: 'failed', failure: 'forbidden', waitedMs: 0 });
  });
});

describe('abortableSleep', () => {
  it('ends at once when the signal aborts, however long the sleep (past the 24.8-day timer limit too)', async () => {
    const controller = new AbortController();
    const slept = abortableSleep(40 * 24 * 3_600_000, controller.signal);
    let ended = false;
    void slept.then(() => (ended = true));
    await Promise.resolve();
    expect(ended).toBe(false);
    controller.abort('SIGINT');
    await slept;
    expect(ended).toBe(true);
  });
});
