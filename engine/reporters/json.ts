/** `--json`: every event of a run (a walk's, down/up's) as one JSON line on stdout (NDJSON), for CI and scripts. */
import type { Reporter, RunEvent } from '../events.js';

export class JsonReporter implements Reporter {
  readonly #out: NodeJS.WritableStream;

  constructor(out: NodeJS.WritableStream) {
    this.#out = out;
  }

  event(event: RunEvent): void {
    this.#out.write(`${JSON.stringify(event)}\n`);
  }

  close(): void {
    // Lines are written as they come: nothing buffered.
  }
}
