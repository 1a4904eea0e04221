/**
 * A closed stdout (or stderr) is not a bug. `platctl down --yes | head -1` closes the pipe after one line; every later
 * write then fails with EPIPE, which Node reports as an `error` event, and an unhandled one would end platctl at once
 * with exit 70, its lock and journal left behind. Instead, writes to a closed pipe are dropped and the run goes on to
 * its own end: a `down` finishes (or stops at a step) as it would have, releases its locks and records its journal.
 *
 * Why finish rather than stop: the output only reports progress, and nobody asked platctl to stop (Ctrl-C does
 * that). A park operation stopped by a reader going away would leave the environment half parked (Argo CD paused,
 * nodes cordoned, compute still running) for no reason the operator chose.
 */

/** Error codes that mean the reader of a pipe has gone. */
const CLOSED = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

/**
 * Makes writes to `stream` after its reader went away harmless: they are dropped. Any other write error is still a
 * bug, and is rethrown to the uncaught-exception handler (exit 70).
 */
export function tolerateClosedPipe(stream: NodeJS.WritableStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== undefined && CLOSED.has(error.code)) return;
    throw error;
  });
}
