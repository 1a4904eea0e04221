/**
 * platctl's command-line grammar: options are declared as data (`OptionSpecs`), and a command line is checked against
 * them in full before anything runs. An unknown verb, action or option, a misspelt choice, a flag without its value,
 * a number that is not a whole number: each is a `ParseError` with a did-you-mean, and no verb handler ever sees
 * a command line that was not fully understood.
 *
 * Grammar: `platctl [global options] <verb> [action] [options]`. Options may come before or after the verb and
 * positionals; `--name value` and `--name=value`; `--no-name` for a boolean; a repeatable option is given once per
 * value (`--env a --env b`); `--` ends the options. Short options: `-h` (help) and `-V` (version) only.
 *
 * Pure: no `process`, no I/O, and no imports beyond the did-you-mean, so `platctl --help` and `--version` stay fast.
 */
import { didYouMean } from '../config/errors.js';

export interface BooleanOption {
  readonly type: 'boolean';
  readonly describe: string;
  readonly default?: boolean;
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

/** Options every verb accepts. `help` and `version` are handled by `cli/main.ts` and never reach a verb. */
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
  help: { type: 'boolean', describe: 'Show help (platctl <verb> --help: the verb and its options)' },
  version: { type: 'boolean', describe: "Print platctl's version" },
} as const satisfies OptionSpecs;

/**
 * Global options a verb must declare to take (`VerbGrammar.globals`): a verb that has no machine output or no
 * environment selection refuses them, rather than silently printing text to a script or acting on every
 * environment. The others (`--config`, `--color`, `--verbose`, `--help`, `--version`) mean the same for every verb.
 */
export const SELECTIVE_GLOBALS = ['env', 'json'] as const;
export type SelectiveGlobal = (typeof SELECTIVE_GLOBALS)[number];

/** Short spellings: only these two, so a stray `-x` is an error rather than a guess. */
const SHORT: Readonly<Record<string, string>> = { h: 'help', V: 'version' };

/** An action of a verb with subcommands (`config check`, `kubeconfig token`). */
export interface ActionSpec {
  readonly describe: string;
  /** Which of the verb's options this action takes; the others are refused with it. Default: none. */
  readonly accepts?: readonly string[];
}

/** What the parser needs to know about one verb. */
export interface VerbGrammar {
  readonly name: string;
  readonly options: OptionSpecs;
  readonly actions?: Readonly<Record<string, ActionSpec>>;
  /** The action when none is named (`platctl kubeconfig` writes); without it an action is required. */
  readonly defaultAction?: string;
  /** Rules between options (`--force` needs `--resume`), checked with the rest: a message, or undefined. */
  readonly check?: (args: ParsedArgs) => string | undefined;
  /** Which of `--env`/`--json` the verb honours; the others are refused. Default: neither. */
  readonly globals?: readonly SelectiveGlobal[];
}

export type ParsedValue = boolean | string | number | string[] | undefined;
export type ParsedArgs = Record<string, ParsedValue> & { action?: string };

export interface ParseError {
  readonly message: string;
  /** Where to read more, e.g. `platctl graph --help`. */
  readonly hint: string;
}

export type FindVerbResult =
  | { readonly type: 'none'; readonly help: boolean; readonly version: boolean; readonly errors: ParseError[] }
  | { readonly type: 'verb'; readonly name: string; readonly index: number }
  | { readonly type: 'unknown-verb'; readonly errors: ParseError[] };

function topHint(verbs: readonly string[]): string {
  return `platctl --help lists the verbs (${verbs.join(', ')}) and the global options`;
}

interface Token {
  readonly kind: 'option';
  /** As typed: `--dry-rn`, `--no-color`, `-h`. */
  readonly raw: string;
  /** The option it names after `--no-` and short spellings are resolved; undefined when unknown. */
  readonly name: string | undefined;
  readonly negated: boolean;
  readonly value: string | undefined;
}
type Item = Token | { readonly kind: 'positional'; readonly value: string; readonly at: number };

/** Splits `argv` into options (with their values, taken per `specs`) and positionals. */
function tokenize(argv: readonly string[], specs: OptionSpecs): Item[] {
  const items: Item[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      argv.slice(i + 1).forEach((rest, j) => items.push({ kind: 'positional', value: rest, at: i + 1 + j }));
      break;
    }
    if (/^-[^-]$/.test(arg)) {
      items.push({ kind: 'option', raw: arg, name: SHORT[arg.slice(1)], negated: false, value: undefined });
      continue;
    }
    if (!arg.startsWith('--')) {
      items.push({ kind: 'positional', value: arg, at: i });
      continue;
    }
    const eq = arg.indexOf('=');
    const rawName = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    const raw = `--${rawName}`;
    const direct = specs[rawName];
    if (direct !== undefined) {
      let value = inline;
      if (value === undefined && direct.type !== 'boolean' && isValue(argv[i + 1])) {
        value = argv[i + 1];
        i += 1;
      }
      items.push({ kind: 'option', raw, name: rawName, negated: false, value });
      continue;
    }
    const positive = rawName.startsWith('no-') ? rawName.slice(3) : undefined;
    const negatable = positive !== undefined && specs[positive]?.type === 'boolean';
    items.push({ kind: 'option', raw, name: negatable ? positive : undefined, negated: negatable, value: inline });
  }
  return items;
}

/** A word that can be an option's value: anything but another option (a negative number is a value). */
function isValue(word: string | undefined): word is string {
  return word !== undefined && (!word.startsWith('-') || /^-\d/.test(word) || word === '-');
}

/** Every way of writing the options in `specs`, for did-you-mean. */
function spellings(specs: OptionSpecs): string[] {
  return Object.entries(specs).flatMap(([name, spec]) =>
    spec.type === 'boolean' && name !== 'help' && name !== 'version' ? [`--${name}`, `--no-${name}`] : [`--${name}`],
  );
}

function unknownOption(raw: string, candidates: readonly string[], where: string, hint: string): ParseError {
  const suggestion = raw.startsWith('--') ? didYouMean(raw, candidates) : undefined;
  return {
    message: `unknown option ${raw}${where}${suggestion ? `; did you mean ${suggestion}?` : ''}`,
    hint,
  };
}

/**
 * Finds the verb: the first word that is not an option or a global option's value. Only the global options are
 * known at this point, so an unknown option before the verb is reported here.
 */
export function findVerb(argv: readonly string[], verbs: readonly string[]): FindVerbResult {
  const errors: ParseError[] = [];
  let help = false;
  let version = false;
  for (const item of tokenize(argv, GLOBAL_OPTIONS)) {
    if (item.kind === 'positional') {
      if (verbs.includes(item.value)) return { type: 'verb', name: item.value, index: item.at };
      const suggestion = didYouMean(item.value, verbs);
      errors.push({
        message: `unknown verb ${JSON.stringify(item.value)}${suggestion ? `; did you mean ${suggestion}?` : ''}`,
        hint: topHint(verbs),
      });
      return { type: 'unknown-verb', errors };
    }
    if (item.name === 'help') help = true;
    else if (item.name === 'version') version = true;
    else if (item.name === undefined) {
      errors.push(unknownOption(item.raw, spellings(GLOBAL_OPTIONS), '', topHint(verbs)));
    }
  }
  if (!help && !version && errors.length === 0) {
    errors.push({ message: 'name a verb', hint: topHint(verbs) });
  }
  return { type: 'none', help, version, errors };
}

export type ParseResult =
  | { readonly type: 'ok'; readonly args: ParsedArgs }
  | { readonly type: 'help'; readonly action: string | undefined }
  | { readonly type: 'version' }
  | { readonly type: 'error'; readonly errors: readonly ParseError[] };

/**
 * Parses the whole command line of one verb (`argv` without the verb word at `verbIndex`): global and verb options,
 * the action, values, choices and whole numbers, then the verb's own rules between options. All errors are
 * returned, not just the first.
 */
export function parseVerb(argv: readonly string[], verbIndex: number, grammar: VerbGrammar): ParseResult {
  const specs: OptionSpecs = { ...GLOBAL_OPTIONS, ...grammar.options };
  // Before and after the verb separately: an option just before the verb never takes the verb as its value.
  const items = [...tokenize(argv.slice(0, verbIndex), specs), ...tokenize(argv.slice(verbIndex + 1), specs)];
  const hint = `platctl ${grammar.name} --help lists its options`;
  const errors: ParseError[] = [];
  const args: ParsedArgs = {};
  const given = new Map<string, string>();
  let help = false;
  let version = false;

  const positionals: string[] = [];
  for (const item of items) {
    if (item.kind === 'positional') {
      positionals.push(item.value);
      continue;
    }
    if (item.name === 'help') help = true;
    else if (item.name === 'version') version = true;
    else if (item.name === undefined)
      errors.push(unknownOption(item.raw, spellings(specs), ` for ${grammar.name}`, hint));
    else applyOption(item, item.name, specs[item.name]!, { args, given, errors, hint });
  }

  const { action, named } = parseAction(positionals, grammar, hint, errors);
  if (help) return { type: 'help', action: named ? action : undefined };
  if (version) return { type: 'version' };
  if (action !== undefined) {
    args.action = action;
    const accepted = new Set(grammar.actions?.[action]?.accepts ?? []);
    for (const name of given.keys()) {
      if (name in grammar.options && !accepted.has(name)) {
        errors.push({
          message: `--${name} does not apply to platctl ${grammar.name} ${action}`,
          hint: `platctl ${grammar.name} ${action} --help lists its options`,
        });
      }
    }
  }
  for (const name of SELECTIVE_GLOBALS) {
    if (given.has(name) && !(grammar.globals ?? []).includes(name)) {
      errors.push({ message: `--${name} does not apply to platctl ${grammar.name}${GLOBAL_REFUSAL[name]}`, hint });
    }
  }
  for (const [name, spec] of Object.entries(specs)) {
    if (args[name] === undefined && 'default' in spec) args[name] = spec.default;
  }
  if (errors.length === 0) {
    const rule = grammar.check?.(args);
    if (rule !== undefined) errors.push({ message: rule, hint });
  }
  return errors.length > 0 ? { type: 'error', errors } : { type: 'ok', args };
}

const GLOBAL_REFUSAL: Readonly<Record<SelectiveGlobal, string>> = {
  env: ': it does not select environments',
  json: ': it has no JSON output',
};

interface Collected {
  readonly args: ParsedArgs;
  /** Each option given, with its value as typed (for "given twice" and options an action does not take). */
  readonly given: Map<string, string>;
  readonly errors: ParseError[];
  readonly hint: string;
}

/** Records one option: its checked value, appended for a repeatable option, refused when given twice. */
function applyOption(token: Token, name: string, spec: OptionSpec, into: Collected): void {
  const { args, given, errors, hint } = into;
  const parsed = parseValue(token, spec, hint);
  const previous = given.get(name);
  given.set(name, token.value ?? token.raw);
  if ('message' in parsed) {
    errors.push(parsed);
  } else if (spec.type === 'string' && spec.repeatable === true) {
    args[name] = [...((args[name] as string[] | undefined) ?? []), String(parsed.value)];
  } else if (previous !== undefined && spec.type !== 'boolean') {
    errors.push({ message: `${token.raw} is given twice (${previous} and ${token.value ?? ''}); give it once`, hint });
  } else {
    args[name] = parsed.value;
  }
}

/**
 * The action named by the first positional (or the default one; `named` says which); any other positional is an
 * error.
 */
function parseAction(
  positionals: readonly string[],
  grammar: VerbGrammar,
  hint: string,
  errors: ParseError[],
): { action: string | undefined; named: boolean } {
  const actions = grammar.actions === undefined ? [] : Object.keys(grammar.actions);
  const rest = [...positionals];
  let action: string | undefined;
  if (actions.length > 0) {
    const first = rest.shift();
    if (first === undefined) {
      action = grammar.defaultAction;
      if (action === undefined) {
        errors.push({ message: `platctl ${grammar.name} needs an action: ${actions.join(' or ')}`, hint });
      }
    } else if (actions.includes(first)) {
      action = first;
    } else {
      const suggestion = didYouMean(first, actions);
      errors.push({
        message:
          `unknown action ${JSON.stringify(first)} for platctl ${grammar.name}` +
          `${suggestion ? `; did you mean ${suggestion}?` : ''} (actions: ${actions.join(', ')})`,
        hint,
      });
    }
  }
  for (const word of rest) {
    errors.push({
      message: `unexpected argument ${JSON.stringify(word)}: platctl ${grammar.name} takes ${actions.length > 0 ? 'one action and ' : ''}options only`,
      hint,
    });
  }
  return { action, named: action !== undefined && action === positionals[0] };
}

/** Checks one option's value against its declaration. */
function parseValue(token: Token, spec: OptionSpec, hint: string): { value: ParsedValue } | ParseError {
  const { raw, value } = token;
  switch (spec.type) {
    case 'boolean':
      if (value === undefined) return { value: !token.negated };
      if (!token.negated && (value === 'true' || value === 'false')) return { value: value === 'true' };
      return { message: `${raw} is a flag and takes no value (got ${JSON.stringify(value)})`, hint };
    case 'string':
      if (value === undefined || value === '') return { message: `${raw} needs a value: ${raw} ${spec.value}`, hint };
      return { value };
    case 'integer': {
      const wanted = `a whole number of at least ${spec.min}`;
      if (value === undefined || value === '') return { message: `${raw} needs a value: ${wanted}`, hint };
      const n = /^[+-]?\d+$/.test(value.trim()) ? Number(value) : NaN;
      if (!Number.isSafeInteger(n) || n < spec.min) {
        return { message: `${raw} ${JSON.stringify(value)}: give ${wanted}`, hint };
      }
      return { value: n };
    }
    case 'choice': {
      const choices = spec.choices.join(', ');
      if (value === undefined || value === '') return { message: `${raw} needs a value, one of: ${choices}`, hint };
      if (spec.choices.includes(value)) return { value };
      const suggestion = didYouMean(value, spec.choices);
      return {
        message: `${raw} ${JSON.stringify(value)} is not one of ${choices}${suggestion ? `; did you mean ${suggestion}?` : ''}`,
        hint,
      };
    }
  }
}
