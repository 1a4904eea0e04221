/**
 * The one way platctl sets a timer on a configured or computed duration. Node keeps a timer for at most 2^31-1 ms
 * (24.8 days); past that it warns and fires after 1 ms, so a 600h timeout would end a unit at once and a 600h
 * heartbeat would renew in a tight loop. The configuration bounds every duration far below that limit
 * (config/schema.ts); this is the guard for everything else: a longer delay is held at the limit (a wait that long
 * is "never" for a run), a negative one is 0, and a NaN, which Node also turns into 1 ms, is a bug said as one.
 */

/** The longest delay Node keeps: 2^31-1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms` as a delay Node keeps: held at {@link MAX_TIMER_MS}, at least 0; throws on NaN (a bug in the caller). */
export function timerDelay(ms: number): number {
  if (Number.isNaN(ms)) throw new TypeError('timer delay is not a number of milliseconds (NaN)');
  return Math.min(Math.max(ms, 0), MAX_TIMER_MS);
}

/** `setTimeout` with the delay through {@link timerDelay}. */
export function setTimer(callback: () => void, ms: number): NodeJS.Timeout {
  return setTimeout(callback, timerDelay(ms));
}

/** Waits `ms` (held at the timer limit), or less when `signal` aborts; never rejects. The one sleep of platctl. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted || ms <= 0) return resolve();
    const timer = setTimer(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
