import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, abortableSleep, setTimer, timerDelay } from '../../../engine/timers.js';

const HOURS_600 = 600 * 3_600_000;

describe('timers: every delay is one Node can keep', () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => {
    warnings.push(warning.name);
  };
  afterEach(() => {
    process.off('warning', onWarning);
    warnings.length = 0;
  });

  it('holds a delay past 2^31-1 ms at that limit, and refuses one that is not a number', () => {
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
    expect(timerDelay(HOURS_600)).toBe(MAX_TIMER_MS);
    expect(timerDelay(Infinity)).toBe(MAX_TIMER_MS);
    expect(timerDelay(1500)).toBe(1500);
    expect(timerDelay(-5)).toBe(0);
    // NaN would make Node fire after 1 ms: a computed NaN is a bug, said as one.
    expect(() => timerDelay(Number.NaN)).toThrow(/not a number of milliseconds/);
  });

  it('a 600h timer does not overflow (no TimeoutOverflowWarning, not fired)', async () => {
    process.on('warning', onWarning);
    let fired = false;
    const timer = setTimer(() => {
      fired = true;
    }, HOURS_600);
    // Node reports the overflow, and fires the timer, on the next turns of the loop.
    await new Promise((resolve) => setTimeout(resolve, 20));
    clearTimeout(timer);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
    expect(fired).toBe(false);
  });

  it('abortableSleep of 600h waits until the abort, then resolves', async () => {
    process.on('warning', onWarning);
    const controller = new AbortController();
    let done = false;
    const sleeping = abortableSleep(HOURS_600, controller.signal).then(() => {
      done = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(false);
    controller.abort();
    await sleeping;
    expect(done).toBe(true);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });
});
