/**
 * The contract between `cli/main.ts` and each verb: a verb's grammar (`VerbGrammar`, config/command-line/grammar.ts:
 * options, actions, rules between options, examples) lives in its light command module `cli/commands/<verb>.ts`,
 * which the command line's reader (config/command-line/) reads for parsing, help and completion; its `run` lives in
 * `cli/<verb>.ts`, loaded only when the command line was understood in full and names that verb. `run` gets the
 * parsed arguments and an injected `CliIo`, and returns the process exit code. Only `cli/` touches `process`.
 */
import type { OptionSpecs, ParsedArgs, VerbArgs, VerbGrammar } from '../config/command-line/grammar.js';

export { EXIT } from '../config/exit-codes.js';
export type { GlobalOptions } from '../config/command-line/grammar.js';

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

/** A verb's code as `cli/main.ts` runs it (arguments untyped: they come from the parser, checked against its grammar). */
export interface Verb {
  readonly run: (args: ParsedArgs, io: CliIo) => Promise<number>;
}

/** Declares a verb's code; the parser guarantees `run` only ever sees arguments that match `grammar`. */
export function defineVerb<O extends OptionSpecs, A extends string>(
  _grammar: VerbGrammar<O, A>,
  run: (args: VerbArgs<O, A>, io: CliIo) => Promise<number>,
): Verb {
  return { run: run as unknown as Verb['run'] };
}
