/**
 * What a walk (`bootstrap`, `teardown`) shows: the live reporter it picks for the terminal it has, and where the
 * closing words go (engine/reporters/outcome.ts words them, engine/walk-request.ts the command that resumes) and the
 * exit code for each way a run ends.
 */
import { explainOutcome } from '../discover/problem-text.js';
import type { Reporter } from '../engine/events.js';
import { combineReporters } from '../engine/events.js';
import { JsonReporter } from '../engine/reporters/json.js';
import type { Paint } from '../engine/reporters/paint.js';
import { PlainReporter } from '../engine/reporters/plain.js';
import type { RunTrack } from '../engine/reporters/outcome.js';
import { renderRunEnd } from '../engine/reporters/outcome.js';
import { TtyReporter } from '../engine/reporters/tty.js';
import type { RunResult } from '../engine/run.js';
import type { RunState } from '../engine/state.js';
import type { RunCommand } from '../engine/unit-status.js';
import { resumeCommand } from '../engine/walk-request.js';
import type { WalkVerbArgs } from './commands/shared.js';
import { exitCodeForSignal, interruptedOr } from './signals.js';
import { isLiveTerminal, plainHeartbeat } from './terminal.js';
import type { CliIo, GlobalOptions } from './verb.js';
import { EXIT } from './verb.js';

const droppingErrors = new WeakSet<object>();

export function dropWriteErrors(stream: NodeJS.WritableStream): void {
  if (droppingErrors.has(stream)) return;
  droppingErrors.add(stream);
  stream.on('error', () => undefined);
}

export function makeReporter(args: GlobalOptions, io: CliIo, paint: Paint): Reporter {
  const now = (): number => Date.now();
  if (args.json) {
    const json = new JsonReporter(io.stdout);
    return isLiveTerminal(io.stderr) ? combineReporters(json, new TtyReporter(io.stderr, paint, { now })) : json;
  }
  if (isLiveTerminal(io.stdout)) return new TtyReporter(io.stdout, paint, { now });
  return new PlainReporter(io.stdout, paint, { heartbeat: plainHeartbeat(io) });
}

/**
 * Says how the run ended (engine/reporters/outcome.ts words it) and returns its exit code (`completed` runs the
 * verb's completion step, whose code then replaces 0). Human words go to `human` (stderr under `--json`, so stdout
 * stays one JSON stream).
 */
export async function reportOutcome(
  result: RunResult,
  context: {
    readonly command: RunCommand;
    readonly args: WalkVerbArgs & GlobalOptions;
    readonly io: CliIo;
    readonly paint: Paint;
    readonly human: NodeJS.WritableStream;
    readonly track: RunTrack;
    readonly completed?: (state: Readonly<RunState>) => Promise<number | undefined>;
  },
): Promise<number> {
  const { command, args, io, paint, human, track } = context;
  if (result.type === 'invalid' || result.type === 'refused') {
    io.stderr.write(explainOutcome(result.type === 'refused' ? 'refused: ' : '', result));
    return result.type === 'refused' ? EXIT.refused : EXIT.usage;
  }
  const text = renderRunEnd(result, { command, paint, track, resumeCommand: resumeCommand(command, args) });
  if (text.human !== undefined) human.write(text.human);
  if (text.stderr !== undefined) io.stderr.write(text.stderr);
  if (result.type === 'cancelled') return interruptedOr(io.signal, EXIT.refused);
  if (result.fenced !== undefined) return EXIT.refused;
  if (result.status === 'completed') return (await context.completed?.(result.state)) ?? EXIT.ok;
  if (result.status === 'interrupted') return exitCodeForSignal(io.signal.reason);
  return EXIT.failed;
}
