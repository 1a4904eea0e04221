/**
 * Where `down`/`up` print for people, and how that looks on a non-terminal (cron, CI, `| tee`): each line with the
 * timestamp the walk's plain lines have, and a still-running line while a step (or the wait inside it) runs long.
 */
import { Heartbeat, stampedStream } from '../engine/reporters/lines.js';
import type { ParkOp } from '../park/record.js';
import type { ParkEvent } from '../park/run.js';
import { isLiveTerminal, plainHeartbeat } from './walk-output.js';
import type { CliIo } from './verb.js';

export interface ParkOutput {
  /** Where human lines go: stdout, or stderr under `--json` (stdout is then one JSON stream); stamped on a non-terminal. */
  readonly human: NodeJS.WritableStream;
  /** Wraps the renderer with the still-running lines (a non-terminal, without `--json`). */
  readonly withHeartbeat: (render: (event: ParkEvent) => void) => (event: ParkEvent) => void;
  /** Stops the heartbeat. */
  readonly close: () => void;
}

export function parkOutput(io: CliIo, json: boolean, op: ParkOp): ParkOutput {
  const out = json ? io.stderr : io.stdout;
  if (isLiveTerminal(out)) return { human: out, withHeartbeat: (render) => render, close: () => undefined };
  const human = stampedStream(out, () => Date.now());
  if (json) return { human, withHeartbeat: (render) => render, close: () => undefined };
  const beat = new Heartbeat((line) => out.write(line), plainHeartbeat(io));
  return { human, withHeartbeat: (render) => heartbeatOf(beat, op, render), close: () => beat.close() };
}

/** Feeds `beat` from the events: a step runs from its start to its end (its waits included). */
export function heartbeatOf(
  beat: Heartbeat,
  op: ParkOp,
  render: (event: ParkEvent) => void,
): (event: ParkEvent) => void {
  return (event) => {
    switch (event.type) {
      case 'step-started':
        beat.begin(
          `${event.env}\n${event.step}`,
          `${op} ${event.env}: ${event.step} (${event.title})`,
          Date.parse(event.at),
        );
        break;
      case 'step-completed':
      case 'step-failed':
      case 'step-skipped':
        beat.end(`${event.env}\n${event.step}`);
        break;
      case 'env-finished':
        beat.endAll(`${event.env}\n`);
        break;
      case 'env-started':
      case 'step-planned':
        break;
    }
    render(event);
  };
}
