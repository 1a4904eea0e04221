/**
 * Where `down`/`up` print for people, and how that looks on a non-terminal (cron, CI, `| tee`): each line with the
 * timestamp the walk's plain lines have, and a still-running line while a step (or the wait inside it) runs long.
 * What the lines say is engine/reporters/park.ts; this file only picks the streams.
 */
import type { ParkEvent, ParkOp, Reporter } from '../engine/events.js';
import { JsonReporter } from '../engine/reporters/json.js';
import { stampedStream } from '../engine/reporters/lines.js';
import type { Paint } from '../engine/reporters/paint.js';
import { ParkReporter } from '../engine/reporters/park.js';
import { isLiveTerminal, plainHeartbeat } from './terminal.js';
import type { CliIo } from './verb.js';

export interface ParkOutput {
  /** Where human lines go: stdout, or stderr under `--json` (stdout is then one JSON stream); stamped on a non-terminal. */
  readonly human: NodeJS.WritableStream;
  /** Renders an event: NDJSON on stdout with `--json`, else lines on `human` (with still-running lines on a non-terminal). */
  readonly render: (event: ParkEvent) => void;
  /** Stops the heartbeat. */
  readonly close: () => void;
}

export function parkOutput(io: CliIo, json: boolean, op: ParkOp, paint: Paint): ParkOutput {
  const out = json ? io.stderr : io.stdout;
  const live = isLiveTerminal(out);
  const human = live ? out : stampedStream(out, () => Date.now());
  const reporter: Reporter = json
    ? new JsonReporter(io.stdout)
    : new ParkReporter(human, paint, op, live ? undefined : { out, options: plainHeartbeat(io) });
  return { human, render: (event) => reporter.event(event), close: () => reporter.close() };
}
