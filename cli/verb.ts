/**
 * The contract between `cli/main.ts` and each verb: a verb's grammar (`VerbGrammar`: options, actions, rules between
 * options, examples) lives in its light command module `cli/commands/<verb>.ts`, which yargs reads for parsing, help
 * and completion; its `run` lives in `cli/<verb>.ts`, loaded only when the command line was understood in full and
 * names that verb. `run` gets the parsed arguments and an injected `CliIo`, and returns the process exit code.
 * Only `cli/` touches `process`.
 */
import type { ActionSpec, ArgsOf, OptionSpecs, ParsedArgs, SelectiveGlobal } from './options.js';

export { EXIT } from '../config/exit-codes.js';

/** Options every verb accepts (declared in `GLOBAL_OPTIONS`). */
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

/** A verb's parsed arguments: its options, the global ones, and its action when it has actions. */
export type VerbArgs<O extends OptionSpecs, A extends string = never> = ArgsOf<O> &
  GlobalOptions &
  ([A] extends [never] ? unknown : { action: A });

/** Two options of a verb and what to say when a command line breaks their rule. */
export type OptionRule = readonly [option: string, other: string, message: string];

/** What yargs needs to know about one verb, without loading the verb's code. */
export interface VerbGrammar<O extends OptionSpecs = OptionSpecs, A extends string = string> {
  readonly name: string;
  /** One line, for `platctl --help` and the top of `platctl <verb> --help`. */
  readonly describe: string;
  readonly options: O;
  readonly actions?: Readonly<Record<A, ActionSpec>>;
  /** The action when none is named (`platctl kubeconfig` writes); without it an action is required. */
  readonly defaultAction?: NoInfer<A>;
  /** Which of the global `--env`/`--json` this verb honours; the others are refused. Default: neither. */
  readonly globals?: readonly SelectiveGlobal[];
  /** Options that exclude each other (yargs `.conflicts()`), with what to say; neither may have a default (yargs counts it as given). */
  readonly conflicts?: readonly OptionRule[];
  /** An option that needs another (yargs `.implies()`), with what to say. */
  readonly implies?: readonly OptionRule[];
  /** Any other rule between options, checked while parsing (before anything runs): a message, or undefined. */
  check?(args: VerbArgs<O, A>): string | undefined;
  /** `[command line, what it does]`, shown by `platctl <verb> --help`. */
  readonly examples?: readonly (readonly [string, string])[];
}

/** A verb's code as `cli/main.ts` runs it (arguments untyped: they come from the parser, checked against its grammar). */
export interface Verb {
  readonly run: (args: ParsedArgs, io: CliIo) => Promise<number>;
}

/** Declares a verb's grammar (in `cli/commands/<verb>.ts`), keeping its option and action types for `defineVerb`. */
export function defineGrammar<const O extends OptionSpecs, const A extends string = never>(
  grammar: VerbGrammar<O, A>,
): VerbGrammar<O, A> {
  return grammar;
}

/** Declares a verb's code; the parser guarantees `run` only ever sees arguments that match `grammar`. */
export function defineVerb<O extends OptionSpecs, A extends string>(
  _grammar: VerbGrammar<O, A>,
  run: (args: VerbArgs<O, A>, io: CliIo) => Promise<number>,
): Verb {
  return { run: run as unknown as Verb['run'] };
}
