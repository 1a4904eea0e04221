/**
 * A verb's grammar: its options, actions, rules between options and examples, declared as data (one per verb, in
 * `cli/commands/<verb>.ts`) and read by `parse.ts` for parsing, help and completion before the verb's code is loaded.
 */
import type { ActionSpec, ArgsOf, GlobalOptions, OptionSpecs, SelectiveGlobal } from './options.js';

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

/** A verb as the command line knows it: its name, its one line for `--help`, its grammar (its code is the caller's). */
export interface CommandVerb {
  readonly name: string;
  readonly describe: string;
  readonly grammar: VerbGrammar;
}

/** Declares a verb's grammar (in `cli/commands/<verb>.ts`), keeping its option and action types for `defineVerb`. */
export function defineGrammar<const O extends OptionSpecs, const A extends string = never>(
  grammar: VerbGrammar<O, A>,
): VerbGrammar<O, A> {
  return grammar;
}
