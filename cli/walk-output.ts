/**
 * What a walk (`bootstrap`, `teardown`) shows: the live reporter it picks for the terminal it has, the command lines
 * it prints (as typed, and the one that resumes it), and the closing words and exit code for each way a run ends.
 */
import { explainOutcome } from '../discover/problem-text.js';
import type { Reporter } from '../engine/events.js';
import { combineReporters } from '../engine/events.js';
import type { UnitId } from '../engine/graph.js';
import { formatCommandLine } from '../engine/logs.js';
import { JsonReporter } from '../engine/reporters/json.js';
import type { Paint } from '../engine/reporters/paint.js';
import type { HeartbeatOptions } from '../engine/reporters/lines.js';
import { DEFAULT_HEARTBEAT_MS } from '../engine/reporters/lines.js';
import { secondsSetting } from './env-settings.js';
import { PlainReporter } from '../engine/reporters/plain.js';
import { renderSummary } from '../engine/reporters/summary.js';
import { TtyReporter } from '../engine/reporters/tty.js';
import type { RunResult } from '../engine/run.js';
import type { RunState } from '../engine/state.js';
import type { RunCommand } from '../engine/unit-status.js';
import type { WalkVerbArgs } from './commands/shared.js';
import { exitCodeForSignal } from './signals.js';
import type { CliIo, GlobalOptions } from './verb.js';
import { EXIT } from './verb.js';

/**
 * A live view needs a terminal with a size: a pseudo-terminal of 0 rows (some CI runners, `script` without a
 * terminal) would show nothing, so it gets the plain lines instead.
 */
export function isLiveTerminal(stream: CliIo['stdout']): boolean {
  return stream.isTTY === true && ((stream as { rows?: number }).rows ?? 0) > 0;
}

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

/** The still-running lines of a non-terminal: every PLATCTL_PROGRESS_INTERVAL seconds (30 by default). */
export function plainHeartbeat(io: CliIo): HeartbeatOptions {
  return { everyMs: secondsSetting(io.env, 'PLATCTL_PROGRESS_INTERVAL', DEFAULT_HEARTBEAT_MS), now: () => Date.now() };
}

/** The options that shape a run, in the order a person would type them. */
function sharedFlags(args: WalkVerbArgs & GlobalOptions): string[] {
  const out: string[] = [];
  if (args.config !== undefined) out.push('--config', args.config);
  if (args.parallelism !== undefined) out.push('--parallelism', String(args.parallelism));
  if (args['fail-fast']) out.push('--fail-fast');
  if (args.yes) out.push('--yes');
  if (args['allow-unresolved']) out.push('--allow-unresolved');
  if (args.lockdown) out.push('--lockdown');
  if (args['rollback-on-failure'] === true) out.push('--rollback-on-failure');
  if (args['no-rollback'] === true || args['rollback-on-failure'] === false) out.push('--no-rollback');
  return out;
}

/** The command line as typed (for the lock file). */
export function invocation(command: RunCommand, args: WalkVerbArgs & GlobalOptions): string {
  const selection = [
    ...(args.env ?? []).flatMap((e) => ['--env', e]),
    ...(args.unit ?? []).flatMap((u) => ['--unit', u]),
    ...(args['with-deps'] ? ['--with-deps'] : []),
  ];
  const resume = [...(args.resume ? ['--resume'] : []), ...(args.force ? ['--force'] : [])];
  return formatCommandLine(['platctl', command, ...resume, ...selection, ...sharedFlags(args)]);
}

/** The exact command that continues this run: the selection is in the state; `--env` says which run it is. */
export function resumeCommand(command: RunCommand, args: WalkVerbArgs & GlobalOptions): string {
  const envs = (args.env ?? []).flatMap((e) => ['--env', e]);
  return formatCommandLine(['platctl', command, '--resume', ...envs, ...sharedFlags(args)]);
}

/** What the run's events told about it, for the summary: each failed unit's last lines and the run's duration. */
export interface RunTrack {
  readonly failureLines: Map<UnitId, readonly string[]>;
  durationMs?: number;
}

/** One line of problem text with its details and hint, as every refusal prints it. */
/**
 * Says how the run ended and returns its exit code (`completed` runs the verb's completion step, whose code then
 * replaces 0). Human words go to `human` (stderr under `--json`, so stdout stays one JSON stream).
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
  switch (result.type) {
    case 'invalid':
      io.stderr.write(explainOutcome('', result));
      return EXIT.usage;
    case 'refused':
      io.stderr.write(explainOutcome('refused: ', result));
      return EXIT.refused;
    case 'cancelled':
      io.stderr.write(`platctl: ${command} cancelled; nothing was changed\n`);
      return io.signal.aborted ? exitCodeForSignal(io.signal.reason) : EXIT.refused;
    case 'finished': {
      human.write(
        renderSummary({
          state: result.state,
          lastLines: track.failureLines,
          paint,
          resumeCommand: resumeCommand(command, args),
          ...(track.durationMs === undefined ? {} : { durationMs: track.durationMs }),
          problems: result.problems,
        }),
      );
      if (result.fenced !== undefined) {
        io.stderr.write(
          `platctl: refused: ${result.fenced}; no unit was started after that, the running ones finished, and the ` +
            `local state has everything.\n  hint: once no other run holds the lock, continue with ` +
            `${resumeCommand(command, args)}\n`,
        );
        return EXIT.refused;
      }
      if (result.status === 'completed') return (await context.completed?.(result.state)) ?? EXIT.ok;
      if (result.status === 'interrupted') return exitCodeForSignal(io.signal.reason);
      return EXIT.failed;
    }
  }
}
