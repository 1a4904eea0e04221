/**
 * A verb's grammar, declared as data: its options (these types), actions, rules between options and examples, one
 * per verb in `cli/commands/<verb>.ts`. `parse.ts` turns them into yargs commands (types, choices, repeatable values,
 * whole numbers) for parsing, help and completion before the verb's code is loaded, and a verb's `run` sees
 * arguments typed from the same declaration (`ArgsOf`, `VerbArgs`). Also platctl's global options, which every
 * verb's arguments include and the parser, the completion and the fast path treat apart.
 *
 * No imports: command modules load this for every command line and for shell completion.
 */
export interface BooleanOption {
  readonly type: 'boolean';
  readonly describe: string;
  readonly default?: boolean;
  /**
   * Other names of the same flag. An option named `no-x` is a negation only (`--no-rollback`): yargs sees `x`, and
   * `--x` on its own is refused; its aliases are `no-` names too (`--no-clean-on-failure`).
   */
  readonly aliases?: readonly string[];
}
export interface StringOption {
  readonly type: 'string';
  readonly describe: string;
  /** The value's name in help text (`--config FILE`). */
  readonly value: string;
  /** Given once per value (`--unit a --unit b`); parsed as a list. */
  readonly repeatable?: boolean;
}
export interface IntegerOption {
  readonly type: 'integer';
  readonly describe: string;
  readonly value: string;
  /** The smallest value that means something (1 for a count of things run at once). */
  readonly min: number;
}
export interface ChoiceOption {
  readonly type: 'choice';
  readonly describe: string;
  readonly choices: readonly string[];
  readonly default?: string;
}
export type OptionSpec = BooleanOption | StringOption | IntegerOption | ChoiceOption;
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The parsed value of one option, as a verb sees it. */
export type OptionValue<S> = S extends { type: 'boolean'; default: boolean }
  ? boolean
  : S extends { type: 'boolean' }
    ? boolean | undefined
    : S extends { type: 'string'; repeatable: true }
      ? string[] | undefined
      : S extends { type: 'string' }
        ? string | undefined
        : S extends { type: 'integer' }
          ? number | undefined
          : S extends { type: 'choice'; choices: readonly (infer C)[]; default: string }
            ? C
            : S extends { type: 'choice'; choices: readonly (infer C)[] }
              ? C | undefined
              : never;

/** The parsed options of a verb: one property per declared option (undefined when not given and no default). */
export type ArgsOf<O extends OptionSpecs> = { -readonly [K in keyof O]: OptionValue<O[K]> };

/** Options every verb accepts, before or after the verb (`--help` and `--version` are yargs' own). */
export const GLOBAL_OPTIONS = {
  config: {
    type: 'string',
    value: 'FILE',
    describe: 'Path to .platctl.yaml (default: search upward from the working directory)',
  },
  env: { type: 'string', value: 'ENV', repeatable: true, describe: 'Only this environment (repeatable)' },
  json: { type: 'boolean', describe: 'Machine output on stdout; human text on stderr' },
  color: { type: 'boolean', describe: 'Colour output; --no-color (or NO_COLOR) turns it off' },
  verbose: { type: 'boolean', describe: 'More detail' },
} as const satisfies OptionSpecs;

/**
 * Global options a verb must declare to take (`VerbGrammar.globals`): a verb that has no machine output or no
 * environment selection refuses them, rather than silently printing text to a script or acting on every
 * environment. The others (`--config`, `--color`, `--verbose`, `--help`, `--version`) mean the same for every verb.
 */
export const SELECTIVE_GLOBALS = ['env', 'json'] as const;
export type SelectiveGlobal = (typeof SELECTIVE_GLOBALS)[number];

/** Why a verb that does not declare a selective global refuses it. */
export const GLOBAL_REFUSAL: Readonly<Record<SelectiveGlobal, string>> = {
  env: ': it does not select environments',
  json: ': it has no JSON output',
};

/** The global options every verb's arguments include (declared in `GLOBAL_OPTIONS`). */
export type GlobalOptions = Partial<ArgsOf<typeof GLOBAL_OPTIONS>>;

/** The global options that take a value (`--config FILE`, `--env ENV`): the word after them is not a verb. */
export const GLOBAL_VALUES: ReadonlySet<string> = new Set(
  Object.entries(GLOBAL_OPTIONS).flatMap(([name, spec]) => (spec.type === 'boolean' ? [] : [`--${name}`])),
);

/** An action of a verb with subcommands (`config check`, `kubeconfig token`). */
export interface ActionSpec {
  readonly describe: string;
  /** Which of the verb's options this action takes; the others are refused with it. Default: none. */
  readonly accepts?: readonly string[];
}

export type ParsedValue = boolean | string | number | string[] | undefined;
export type ParsedArgs = Record<string, ParsedValue> & { action?: string };

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
