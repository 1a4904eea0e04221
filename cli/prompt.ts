/**
 * The one way platctl asks a question on the terminal (teardown's and down's confirmations, bootstrap's manual steps).
 * The words and what counts as a yes are the layers' (engine/reporters/plan.ts, park/command.ts, hooks/manual-steps.ts);
 * this reads one line. Ctrl-C at the prompt (the first signal aborts, it does not kill) and a closed input answer
 * undefined, which no question takes for a yes.
 */
import { createInterface } from 'node:readline';
import type { CliIo } from './verb.js';

/** Writes `question` on `output` and reads one line from `input`; undefined when the input closed or `signal` aborted. */
export async function askLine(
  question: string,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const rl = createInterface({ input, output, terminal: false });
  const onAbort = (): void => rl.close();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await new Promise<string | undefined>((resolve) => {
      rl.question(question, resolve);
      rl.once('close', () => resolve(undefined));
    });
  } finally {
    signal?.removeEventListener('abort', onAbort);
    rl.close();
  }
}

/** Lets go of stdin after a question: a paused TTY stream would still keep platctl alive. */
export function releaseStdin(): void {
  process.stdin.pause();
  process.stdin.unref();
}

/** Asks on this process's terminal: read from stdin, the question on stderr (stdout may be a pipe or `--json`). */
export async function askOnTerminal(
  question: string,
  io: Pick<CliIo, 'stderr' | 'signal'>,
): Promise<string | undefined> {
  try {
    return await askLine(question, process.stdin, io.stderr, io.signal);
  } finally {
    releaseStdin();
  }
}
