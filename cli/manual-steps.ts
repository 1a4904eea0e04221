/**
 * The terminal side of the manual-steps preflight (hooks/manual-steps.ts; the checks run in
 * hooks/manual-step-checks.ts): the question asked on the terminal, and who answered it.
 */
import { createInterface } from 'node:readline';
import type { Paint } from '../engine/reporters/paint.js';
import type { ManualStep } from '../hooks/manual-steps.js';
import { manualStepQuestion } from '../hooks/manual-steps.js';
import type { CliIo } from './verb.js';

/** Asks on the terminal (stderr) whether a step is done; only y/yes counts. Absent when stdin is not a terminal. */
export function terminalAsk(io: CliIo, paint: Paint) {
  if (!process.stdin.isTTY) return undefined;
  return async (step: ManualStep, failedCheck: string | undefined): Promise<boolean> => {
    io.stderr.write(manualStepQuestion(step, failedCheck, paint));
    const rl = createInterface({ input: process.stdin, output: io.stderr, terminal: false });
    const onAbort = (): void => rl.close();
    io.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const answer = await new Promise<string | undefined>((resolve) => {
        rl.question('Done? [y/N] ', resolve);
        rl.once('close', () => resolve(undefined));
      });
      return /^(y|yes)$/i.test(answer?.trim() ?? '');
    } finally {
      io.signal.removeEventListener('abort', onAbort);
      rl.close();
      process.stdin.pause();
      process.stdin.unref();
    }
  };
}
