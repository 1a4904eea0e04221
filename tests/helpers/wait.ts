/** Waiting on conditions, not clocks: a test says what it waits for, and a slow machine only makes it wait longer. */

/** Waits until `check` holds, polling every 25 ms; throws naming `what` after `ms` (a bound, never the assertion). */
export async function until(check: () => Promise<boolean> | boolean, ms = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
