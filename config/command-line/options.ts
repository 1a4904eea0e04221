/**
 * Options declared as data: each verb's grammar (`grammar.ts`, written in `cli/commands/<verb>.ts`) declares its
 * options with these types, `parse.ts` turns them into yargs options (types, choices, repeatable values, whole
 * numbers), and a verb's `run` sees arguments typed from the same declaration (`ArgsOf`). Also platctl's global
 * options, which every verb's arguments include and the parser, the completion and the fast path treat apart.
 *
 * No runtime imports: command modules are loaded for every command line and for shell completion.
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
