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

/**
 * Makes writes to `stream` after its reader went away harmless: they are dropped. That is every write error of the
 * process's own output: EPIPE (a pipe's reader closed it), EIO (the terminal was hung up: SIGHUP then stops the run
 * gracefully), ERR_STREAM_DESTROYED. Output is the one thing platctl can do without; state and journal are files.
 */
export function tolerateClosedPipe(stream: NodeJS.WritableStream): void {
  stream.on('error', () => undefined);
}
