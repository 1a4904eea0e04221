/**
 * The contract between `cli/main.ts` and each verb module: a verb declares its options with yargs and runs with
 * parsed arguments and an injected `CliIo`, returning the process exit code. Only `cli/` touches `process`.
 */
import type { Argv } from 'yargs';

/** Exit codes (docs/architecture.md): the only numbers a verb returns. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  refused: 3,
  sigint: 130,
  sigterm: 143,
} as const;

/** Options every verb accepts. */
export interface GlobalOptions {
  config?: string | undefined;
  env?: string[] | undefined;
  json?: boolean | undefined;
  color?: boolean | undefined;
  verbose?: boolean | undefined;
}

/** Where a verb reads and writes: injected so tests drive verbs in-process. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** True when colours may be used on stderr/stdout (NO_COLOR, FORCE_COLOR, --no-color, TTY). */
  readonly color: boolean;
  /** Raised on the first SIGINT/SIGTERM; long-running verbs stop scheduling when it aborts. */
  readonly signal: AbortSignal;
}

export interface Verb<A = object> {
  /** yargs command string, e.g. `graph` or `status`. */
  readonly command: string | readonly string[];
  readonly describe: string;
  readonly builder: (yargs: Argv<GlobalOptions>) => Argv<A & GlobalOptions>;
  readonly run: (args: A & GlobalOptions, io: CliIo) => Promise<number>;
}

/** Helps TypeScript infer `A` from the builder when declaring a verb. */
export function defineVerb<A>(verb: Verb<A>): Verb<A> {
  return verb;
}
