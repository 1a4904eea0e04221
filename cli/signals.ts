/**
 * Signal handling, installed once by `bin/platctl.js` (only the CLI touches `process`).
 *
 * - Verbs that stop gracefully (bootstrap, teardown) call `handleInterruptions()`. For them the first SIGINT/SIGTERM
 *   aborts the `AbortSignal` `main()` hands to verbs (its reason is the signal name): start nothing new, forward
 *   SIGINT to running units, wait for them, save state. The second signal SIGKILLs every unit process group now; a
 *   third exits at once.
 * - Any other verb keeps Node's default: the first signal kills the unit process groups (if any) and exits
 *   128 + the signal number.
 * - On exit, whatever unit process group is still registered is killed: no child outlives platctl.
 */
import { hostname } from 'node:os';
import type { LockEnvironment } from '../engine/lock.js';
import { ProcessGroups } from '../engine/processes.js';

/** Every unit process group platctl starts, so they can be killed on a second signal and at exit. */
export const childGroups = new ProcessGroups((pid, signal) => process.kill(pid, signal));

// SIGHUP: a closed terminal is an interruption too, so the run still saves its state.
const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
type HandledSignal = keyof typeof SIGNAL_NUMBERS;

let interruptible = false;

/** True when process `pid` exists on this host (EPERM: it exists but is someone else's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This process on this host, as the locks see a holder: its pid, the host's name, and how to tell a pid lives. */
export function thisProcess(): Pick<LockEnvironment, 'pid' | 'host' | 'isAlive'> {
  return { pid: process.pid, host: hostname(), isAlive: processAlive };
}

/** Declares that the running verb watches `io.signal` and stops gracefully on the first signal. */
export function handleInterruptions(): void {
  interruptible = true;
}

/** The exit code for a run stopped by a signal (the `AbortSignal`'s reason): 130 for SIGINT, 143 for SIGTERM. */
export function exitCodeForSignal(reason: unknown): number {
  const known = typeof reason === 'string' && reason in SIGNAL_NUMBERS ? (reason as HandledSignal) : 'SIGINT';
  return 128 + SIGNAL_NUMBERS[known];
}

/** The exit code of a verb that stopped early: its signal's when one stopped it (`signal` aborted), else `otherwise`. */
export function interruptedOr(signal: AbortSignal, otherwise: number): number {
  return signal.aborted ? exitCodeForSignal(signal.reason) : otherwise;
}

export interface SignalHandling {
  /** Aborted on the first SIGINT/SIGTERM of an interruptible verb; the reason is the signal name. */
  readonly signal: AbortSignal;
  /** Removes the handlers. */
  readonly dispose: () => void;
}

/** Installs SIGINT/SIGTERM/SIGHUP/exit handlers on `target` (the process). */
export function installSignalHandlers(target: NodeJS.Process = process): SignalHandling {
  const controller = new AbortController();
  let received = 0;
  const onSignal = (name: HandledSignal): void => {
    received += 1;
    if (received === 1 && interruptible) {
      controller.abort(name);
      return;
    }
    childGroups.signalAll('SIGKILL');
    if (!interruptible || received >= 3) target.exit(128 + SIGNAL_NUMBERS[name]);
  };
  const onInt = (): void => onSignal('SIGINT');
  const onTerm = (): void => onSignal('SIGTERM');
  const onHup = (): void => onSignal('SIGHUP');
  const onExit = (): void => {
    childGroups.signalAll('SIGKILL');
  };
  target.on('SIGINT', onInt);
  target.on('SIGTERM', onTerm);
  target.on('SIGHUP', onHup);
  target.on('exit', onExit);
  return {
    signal: controller.signal,
    dispose: () => {
      target.off('SIGINT', onInt);
      target.off('SIGTERM', onTerm);
      target.off('SIGHUP', onHup);
      target.off('exit', onExit);
    },
  };
}
