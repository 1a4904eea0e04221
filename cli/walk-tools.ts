/**
 * The process side of a run of units (engine/run-io.ts decides with it): this process's streams, environment and
 * signal, its colour, whether a stream is a live terminal, the signal handlers, this process on this machine for the
 * lock and its unit process groups, as the ports `RunIo`. Shared by `bootstrap`, `teardown`, `lockdown` and `up`.
 */
import { explainOutcome } from '../discover/problem-text.js';
import type { PlatctlConfig } from '../config/schema.js';
import { procMachine } from '../engine/lock.js';
import { makePaint } from '../engine/reporters/paint.js';
import type { RunIo } from '../engine/run-io.js';
import { readyOrRefused } from '../engine/run-io.js';
import type { ToolsReady } from '../engine/tools.js';
import { childGroups, exitCodeForSignal, handleInterruptions, thisProcess } from './signals.js';
import { isLiveTerminal, plainHeartbeat } from './terminal.js';
import type { CliIo } from './verb.js';

export { killGraceMs } from '../engine/run-io.js';

/** What a run of units is given from this process (engine/run-io.ts). */
export function runIo(io: CliIo): RunIo {
  return {
    ...io,
    paint: makePaint(io.color),
    live: isLiveTerminal,
    heartbeat: plainHeartbeat(io),
    explain: explainOutcome,
    signalExit: exitCodeForSignal,
    interruptible: handleInterruptions,
    machine: () => procMachine(thisProcess()),
    groups: childGroups,
  };
}

/** The tools every apply needs (engine/tools.ts), or the refusal said on stderr and its exit code. */
export function prepareTools(
  command: string,
  root: string,
  config: PlatctlConfig,
  configPath: string,
  io: CliIo,
): Promise<ToolsReady | { ok: false; exitCode: number }> {
  return readyOrRefused(command, { root, config, configPath }, { ...io, explain: explainOutcome });
}
