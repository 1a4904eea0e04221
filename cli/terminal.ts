/**
 * Which output a stream gets, for every verb that prints while it runs (the walk, down/up, lockdown, validate): a live
 * view only on a terminal with a size, and on anything else the still-running lines at their interval. Apart from
 * engine/run-io.ts so that a verb that needs only this (validate) does not load the walk's reporters (~120 ms).
 */
import { secondsSetting } from '../engine/env-settings.js';
import type { HeartbeatOptions } from '../engine/reporters/lines.js';
import { DEFAULT_HEARTBEAT_MS } from '../engine/reporters/lines.js';
import type { CliIo } from './verb.js';

/**
 * A live view needs a terminal with a size: a pseudo-terminal of 0 rows (some CI runners, `script` without a
 * terminal) would show nothing, so it gets the plain lines instead.
 */
export function isLiveTerminal(stream: CliIo['stdout']): boolean {
  return stream.isTTY === true && ((stream as { rows?: number }).rows ?? 0) > 0;
}

/** The still-running lines of a non-terminal: every PLATCTL_PROGRESS_INTERVAL seconds (30 by default). */
export function plainHeartbeat(io: CliIo): HeartbeatOptions {
  return { everyMs: secondsSetting(io.env, 'PLATCTL_PROGRESS_INTERVAL', DEFAULT_HEARTBEAT_MS), now: () => Date.now() };
}
