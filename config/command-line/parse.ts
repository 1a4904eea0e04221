/**
 * platctl's command line, read by yargs: one `.command()` per verb, built from the verb's grammar (`grammar.ts`;
 * the caller gives the verbs, each grammar declared in `cli/commands/<verb>.ts`) by `verbBuilder`; strict about
 * verbs, actions and options; `choices`, `.conflicts()` and `.implies()` from the grammar; `--no-x` for every flag.
 * yargs writes the help (`--help`, `platctl help <verb>`), the version and the completion script.
 *
 * The whole command line is understood here before any verb's code is loaded: an unknown verb, action or option,
 * a flag without its value, a count that is not a whole number >= 1, a rule between options: each is refused with
 * platctl's wording (a did-you-mean where one helps), and the caller (`cli/main.ts`) exits 2 having run nothing.
 * yargs reports the first problem it finds; `fromYargs` turns its message into platctl's.
 */
import type { Argv, Options } from 'yargs';
import { didYouMean } from '../errors.js';
import type { CommandVerb, OptionSpec, OptionSpecs, ParsedArgs, ParsedValue, VerbGrammar } from './grammar.js';
import { GLOBAL_OPTIONS, GLOBAL_REFUSAL, GLOBAL_VALUES, SELECTIVE_GLOBALS } from './grammar.js';
import { yargs } from './yargs.js';

export interface ParseError {
  readonly message: string;
  /** Where to read more, e.g. `platctl graph --help`. */
  readonly hint: string;
}

export type ParseOutcome<V extends CommandVerb = CommandVerb> =
  | { readonly type: 'run'; readonly entry: V; readonly args: ParsedArgs }
  /** Help, the version, the completion script or completions: printed, nothing run. */
  | { readonly type: 'output'; readonly text: string }
  | { readonly type: 'error'; readonly errors: readonly ParseError[] };

export interface ParseSettings {
  readonly version: string;
  /** Columns for the help. */
  readonly width: number;
}

/** A problem yargs or a grammar rule found: thrown from yargs' fail handler, caught by `parseCommandLine`. */
class UsageError extends Error {}

/** `help bootstrap` is `bootstrap --help`; `help` alone is `--help`. */
function helpWord(argv: readonly string[]): readonly string[] {
  if (argv[0] !== 'help') return argv;
  return [...argv.slice(1), '--help'];
}

/** The yargs option for one declared option. Counts are strings to yargs and checked by `checkValues`. */
function yargsOption(spec: OptionSpec): Options {
  switch (spec.type) {
    case 'boolean':
      return {
        type: 'boolean',
        describe: spec.describe,
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      };
    case 'string':
      return { type: 'string', requiresArg: true, describe: spec.describe };
    case 'integer':
      return { type: 'string', requiresArg: true, describe: spec.describe };
    case 'choice':
      return {
        type: 'string',
        requiresArg: true,
        choices: [...spec.choices],
        describe: spec.describe,
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      };
  }
}

/**
 * The yargs options of one declared option. A negation-only flag `no-x` is parsed by yargs as `x` (hidden, with its
 * aliases), and shown in the help under its own name.
 */
function yargsOptionsOf(name: string, spec: OptionSpec): [string, Options][] {
  if (spec.type !== 'boolean' || !name.startsWith('no-')) return [[name, yargsOption(spec)]];
  const aliases = spec.aliases ?? [];
  const also = aliases.length > 0 ? ` (also ${aliases.map((a) => `--${a}`).join(', ')})` : '';
  return [
    [name, { type: 'boolean', describe: `${spec.describe}${also}` }],
    [name.slice(3), { type: 'boolean', hidden: true, alias: aliases.map((a) => a.slice(3)) }],
  ];
}

/** The key yargs parses an option under: a negation-only flag `no-x` is `x`. */
function yargsKey(name: string, spec: OptionSpec): string {
  return spec.type === 'boolean' && name.startsWith('no-') ? name.slice(3) : name;
}

function yargsOptions(specs: OptionSpecs): Record<string, Options> {
  return Object.fromEntries(Object.entries(specs).flatMap(([name, spec]) => yargsOptionsOf(name, spec)));
}

/** The command of one verb: its options, its action, its rules and examples, from its grammar. */
function verbBuilder(grammar: VerbGrammar): (y: Argv) => Argv {
  return (y) => {
    let built = y.options(yargsOptions(grammar.options));
    if (grammar.actions !== undefined) {
      const actions = Object.entries(grammar.actions);
      built = built.positional('action', {
        type: 'string',
        choices: actions.map(([name]) => name),
        describe: actions
          .map(([name, spec]) => `${name}: ${spec.describe}${name === grammar.defaultAction ? ' (default)' : ''}`)
          .join('; '),
        ...(grammar.defaultAction !== undefined ? { default: grammar.defaultAction } : {}),
      });
    }
    // --env and --json are global, but shown only by the verbs that take them (the others refuse them).
    for (const name of SELECTIVE_GLOBALS) if (!(grammar.globals ?? []).includes(name)) built = built.hide(name);
    for (const [a, b] of grammar.conflicts ?? []) built = built.conflicts(a, b);
    for (const [a, b] of grammar.implies ?? []) built = built.implies(a, b);
    for (const [command, what] of grammar.examples ?? []) built = built.example(command, what);
    return built;
  };
}

function commandWord(grammar: VerbGrammar): string {
  if (grammar.actions === undefined) return grammar.name;
  return grammar.defaultAction === undefined ? `${grammar.name} <action>` : `${grammar.name} [action]`;
}

/** The verb the command line names: the first word that is not an option or a global option's value. */
export function verbOf<V extends CommandVerb>(argv: readonly string[], verbs: readonly V[]): V | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i] ?? '';
    if (word === '--') return undefined;
    if (GLOBAL_VALUES.has(word)) i += 1;
    else if (!word.startsWith('-')) return verbs.find((v) => v.name === word);
  }
  return undefined;
}

/** The first word that is not an option or a global option's value (the word where a verb should be). */
function firstWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i] ?? '';
    if (GLOBAL_VALUES.has(word)) i += 1;
    else if (!word.startsWith('-')) return word;
  }
  return undefined;
}

/** Every way of writing the options of `specs`, for did-you-mean. */
function spellings(specs: OptionSpecs): string[] {
  return Object.entries(specs)
    .flatMap(([name, spec]) => {
      if (spec.type !== 'boolean') return [`--${name}`];
      if (name.startsWith('no-')) return [`--${name}`, ...(spec.aliases ?? []).map((a) => `--${a}`)];
      return [`--${name}`, `--no-${name}`];
    })
    .concat(['--help', '--version']);
}

function hintFor(verb: CommandVerb | undefined, verbs: readonly CommandVerb[]): string {
  return verb === undefined
    ? `platctl --help lists the verbs (${verbs.map((v) => v.name).join(', ')}) and the global options`
    : `platctl ${verb.name} --help lists its options`;
}

/** platctl's wording for what yargs refused (yargs' messages are its English ones: the version is pinned). */
function fromYargs(
  message: string,
  argv: readonly string[],
  verb: CommandVerb | undefined,
  verbs: readonly CommandVerb[],
): string {
  const specs: OptionSpecs = { ...GLOBAL_OPTIONS, ...(verb?.grammar.options ?? {}) };
  const grammar = verb?.grammar;
  const unknown = /^Unknown (?:commands?|arguments?): (.*)$/s.exec(message)?.[1]?.split(', ')[0];
  if (unknown !== undefined || /^Did you mean /.test(message) || /^name a verb$/.test(message)) {
    // yargs names an unknown option by its key (`dry-rn`) once it is inside a verb: as typed, it is `--dry-rn`.
    const typed = (w: string) => argv.some((a) => a === `--${w}` || a.startsWith(`--${w}=`));
    const word =
      unknown !== undefined && !unknown.startsWith('-') && typed(unknown)
        ? `--${unknown}`
        : (unknown ?? firstWord(argv));
    if (word === undefined) return 'name a verb';
    if (word.startsWith('-')) {
      const raw = word.split('=')[0] ?? word;
      if (verb !== undefined && spellings(verb.grammar.options).includes(raw)) {
        return `${raw} is an option of ${verb.name}: give it after the verb (platctl ${verb.name} ${raw} ...)`;
      }
      const suggestion = raw.startsWith('--') ? didYouMean(raw, spellings(specs)) : undefined;
      return `unknown option ${raw}${verb ? ` for ${verb.name}` : ''}${suggestion ? `; did you mean ${suggestion}?` : ''}`;
    }
    if (verb === undefined) {
      const suggestion = didYouMean(
        word,
        verbs.map((v) => v.name),
      );
      return `unknown verb ${JSON.stringify(word)}${suggestion ? `; did you mean ${suggestion}?` : ''}`;
    }
    return unexpected(word, verb.grammar);
  }
  const missingValue = /^Not enough arguments following: (\S+)/.exec(message)?.[1];
  if (missingValue !== undefined) {
    const spec = specs[missingValue];
    if (spec?.type === 'choice') return `--${missingValue} needs a value, one of: ${spec.choices.join(', ')}`;
    if (spec?.type === 'integer') return `--${missingValue} needs a value: a whole number of at least ${spec.min}`;
    return `--${missingValue} needs a value${spec?.type === 'string' ? `: --${missingValue} ${spec.value}` : ''}`;
  }
  const invalid = /Argument: (\S+), Given: "(.*)", Choices: (.*)$/s.exec(message);
  if (invalid !== null) {
    const [, name = '', given = '', choicesText = ''] = invalid;
    const choices = [...choicesText.matchAll(/"([^"]*)"/g)].map((m) => m[1] ?? '');
    const suggestion = didYouMean(given, choices);
    const dym = suggestion ? `; did you mean ${suggestion}?` : '';
    if (name === 'action' && grammar !== undefined) {
      return `unknown action ${JSON.stringify(given)} for platctl ${grammar.name}${dym} (actions: ${choices.join(', ')})`;
    }
    return `--${name} ${JSON.stringify(given)} is not one of ${choices.join(', ')}${dym}`;
  }
  if (/^Not enough non-option arguments/.test(message) && grammar?.actions !== undefined) {
    return `platctl ${grammar.name} needs an action: ${Object.keys(grammar.actions).join(' or ')}`;
  }
  const conflict = /^Arguments (\S+) and (\S+) are mutually exclusive/.exec(message);
  if (conflict !== null) {
    const rule = grammar?.conflicts?.find(
      ([a, b]) => (a === conflict[1] && b === conflict[2]) || (a === conflict[2] && b === conflict[1]),
    );
    if (rule !== undefined) return rule[2];
  }
  const implied = /(?:Missing dependent arguments|Implications failed):\s+(\S+) -> (\S+)/.exec(message);
  if (implied !== null) {
    const rule = grammar?.implies?.find(([a, b]) => a === implied[1] && b === implied[2]);
    if (rule !== undefined) return rule[2];
  }
  return message;
}

function unexpected(word: string, grammar: VerbGrammar): string {
  const actions = grammar.actions === undefined ? 0 : Object.keys(grammar.actions).length;
  return `unexpected argument ${JSON.stringify(word)}: platctl ${grammar.name} takes ${actions > 0 ? 'one action and ' : ''}options only`;
}

/**
 * Every option of `words` (before `--`) the verb does not know, with a did-you-mean. yargs reports one problem, not
 * always the option (`kubeconfig --outptu kube.yaml`: the file), and lets a verb's optional action swallow an unknown
 * option (`kubeconfig --outut`), so the words are checked as typed.
 */
function unknownOptions(words: readonly string[], grammar: VerbGrammar): string[] {
  const known = new Set([...spellings({ ...GLOBAL_OPTIONS, ...grammar.options }), '-h', '-V']);
  const errors: string[] = [];
  for (const word of words.slice(0, words.includes('--') ? words.indexOf('--') : undefined)) {
    const raw = word.split('=')[0] ?? word;
    if (!raw.startsWith('-') || known.has(raw) || /^-\d/.test(raw) || raw === '-') continue;
    const suggestion = raw.startsWith('--') ? didYouMean(raw, [...known]) : undefined;
    errors.push(`unknown option ${raw} for ${grammar.name}${suggestion ? `; did you mean ${suggestion}?` : ''}`);
  }
  return errors;
}

/** The checks after yargs: values, given-twice, `--env`/`--json` where the verb ignores them, actions, rules. */
function checkArgs(
  parsed: Record<string, unknown>,
  words: readonly string[],
  grammar: VerbGrammar,
): { args: ParsedArgs; errors: string[] } {
  const args: ParsedArgs = {};
  const specs: OptionSpecs = { ...GLOBAL_OPTIONS, ...grammar.options };
  const options = words.slice(0, words.includes('--') ? words.indexOf('--') : undefined);
  const unknown = unknownOptions(options, grammar);
  if (unknown.length > 0) return { args, errors: unknown };
  const errors = [...flagValueErrors(options, specs), ...readValues(parsed, specs, grammar, args)];
  for (const name of SELECTIVE_GLOBALS) {
    if (args[name] !== undefined && !(grammar.globals ?? []).includes(name)) {
      errors.push(`--${name} does not apply to platctl ${grammar.name}${GLOBAL_REFUSAL[name]}`);
    }
  }
  const extra = ((parsed._ as unknown[]) ?? []).map(String).slice(1);
  for (const word of extra) errors.push(unexpected(word, grammar));
  if (grammar.actions !== undefined) {
    const action = typeof parsed.action === 'string' ? parsed.action : (grammar.defaultAction ?? '');
    args.action = action;
    const accepted = new Set(grammar.actions[action]?.accepts ?? []);
    for (const name of Object.keys(grammar.options)) {
      if (args[name] !== undefined && !accepted.has(name)) {
        errors.push(`--${name} does not apply to platctl ${grammar.name} ${action}`);
      }
    }
  }
  if (errors.length === 0) {
    const rule = grammar.check?.(args as never);
    if (rule !== undefined) errors.push(rule);
  }
  return { args, errors };
}

/** yargs reads `--flag=yes` as false: a flag takes no value but true or false. */
function flagValueErrors(options: readonly string[], specs: OptionSpecs): string[] {
  const errors: string[] = [];
  for (const word of options) {
    const flag = /^--([^=]+)=(.*)$/.exec(word);
    if (flag !== null && specs[flag[1] ?? '']?.type === 'boolean' && !['true', 'false'].includes(flag[2] ?? '')) {
      errors.push(`--${flag[1]} is a flag and takes no value (got ${JSON.stringify(flag[2])})`);
    }
  }
  return errors;
}

/** Each declared option's value from yargs, checked and typed into `args`; the problems found, in order. */
function readValues(
  parsed: Record<string, unknown>,
  specs: OptionSpecs,
  grammar: VerbGrammar,
  args: ParsedArgs,
): string[] {
  const errors: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    let value = parsed[yargsKey(name, spec)] as ParsedValue | boolean[] | undefined;
    if (value === undefined) continue;
    // yargs reads `--no-unit` as unit=false: only flags have a --no- form.
    if (spec.type !== 'boolean' && (value === false || (Array.isArray(value) && value.some((v) => v === false)))) {
      errors.push(`unknown option --no-${name} for ${grammar.name}; did you mean --${name}?`);
      continue;
    }
    if (spec.type !== 'boolean' && (value === '' || (Array.isArray(value) && value.some((v) => v === '')))) {
      errors.push(
        spec.type === 'integer'
          ? `--${name} needs a value: a whole number of at least ${spec.min}`
          : `--${name} needs a value${spec.type === 'string' ? `: --${name} ${spec.value}` : ''}`,
      );
      continue;
    }
    if (Array.isArray(value) && !(spec.type === 'string' && spec.repeatable === true)) {
      if (spec.type !== 'boolean') {
        errors.push(`--${name} is given twice (${value.map(String).join(' and ')}); give it once`);
        continue;
      }
      value = value[value.length - 1];
    }
    const problem = typedValue(name, spec, value as ParsedValue, args);
    if (problem !== undefined) errors.push(problem);
  }
  return errors;
}

/** One option's value, typed by its spec into `args`; or what is wrong with it. */
function typedValue(name: string, spec: OptionSpec, value: ParsedValue, args: ParsedArgs): string | undefined {
  switch (spec.type) {
    case 'boolean':
      if (!name.startsWith('no-')) args[name] = value;
      else if (value === true) return `unknown option --${yargsKey(name, spec)}; did you mean --${name}?`;
      else args[name] = true;
      return undefined;
    case 'string':
      if (spec.repeatable === true) args[name] = (Array.isArray(value) ? value : [value]).map(String);
      else if (value === '') return `--${name} needs a value: --${name} ${spec.value}`;
      else args[name] = String(value);
      return undefined;
    case 'integer': {
      const text = String(value);
      const n = /^[+-]?\d+$/.test(text.trim()) ? Number(text) : NaN;
      if (!Number.isSafeInteger(n) || n < spec.min)
        return `--${name} ${JSON.stringify(text)}: give a whole number of at least ${spec.min}`;
      args[name] = n;
      return undefined;
    }
    case 'choice':
      args[name] = String(value);
      return undefined;
  }
}

/** The yargs parser for platctl: every verb a command, the global options, help, version and completion. */
function platctlYargs<V extends CommandVerb>(
  verbs: readonly V[],
  settings: ParseSettings,
  onVerb: (entry: V, argv: Record<string, unknown>) => void,
): Argv {
  let parser = yargs()
    .scriptName('platctl')
    .usage('Usage: platctl [global options] <verb> [action] [options]\n\nOrchestrate a Terragrunt-built platform.')
    .parserConfiguration({
      'camel-case-expansion': false,
      // An unknown option is reported as one: it never takes the next word (a verb) as its value.
      'unknown-options-as-args': true,
      'strip-aliased': true,
    })
    .options(yargsOptions(GLOBAL_OPTIONS))
    .group(Object.keys(GLOBAL_OPTIONS), 'Global options:')
    .strict()
    .strictCommands()
    .strictOptions()
    .recommendCommands()
    .demandCommand(1, 'name a verb')
    .help('help')
    .alias('help', 'h')
    .version('version', "Print platctl's version", settings.version)
    .alias('version', 'V')
    .wrap(settings.width)
    .exitProcess(false)
    .epilogue(
      'Exit codes: 0 ok, 1 a unit or check failed, 2 usage or configuration, 3 refused, 4 parked (status), 70 a bug, 130/143 interrupted (README.md).',
    )
    .fail((message: string | undefined, error: Error | undefined) => {
      throw new UsageError(message ?? error?.message ?? 'not understood');
    });
  for (const entry of verbs) {
    parser = parser.command({
      command: commandWord(entry.grammar),
      describe: entry.describe,
      builder: verbBuilder(entry.grammar),
      handler: (argv: Record<string, unknown>) => onVerb(entry, argv),
    });
  }
  parser = parser.command({
    command: 'help [verb]',
    describe: 'The help of platctl or of one verb (platctl help bootstrap is platctl bootstrap --help)',
    handler: () => undefined,
  });
  // The script's requests (`--get-yargs-completions`) are answered by complete.ts, without yargs (fast-path.ts).
  return parser.completion('completion', 'Print the bash/zsh completion script (README: shell completion)');
}

/** Reads the whole command line (`argv` without node and script): what to run, what to print, or what is wrong. */
export function parseCommandLine<V extends CommandVerb>(
  argv: readonly string[],
  verbs: readonly V[],
  settings: ParseSettings,
): ParseOutcome<V> {
  const words = helpWord(argv);
  const verb = verbOf(words, verbs);
  let selected: { entry: V; argv: Record<string, unknown> } | undefined;
  let output = '';
  try {
    const parser = platctlYargs(verbs, settings, (entry, parsed) => {
      selected = { entry, argv: parsed };
    });
    void parser.parse([...words], {}, (_error: Error | undefined, _argv: unknown, text: string) => {
      output = text;
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const unknown = verb === undefined ? [] : unknownOptions(words, verb.grammar);
    if (unknown.length > 0)
      return { type: 'error', errors: unknown.map((message) => ({ message, hint: hintFor(verb, verbs) })) };
    return {
      type: 'error',
      errors: [{ message: fromYargs(error.message, words, verb, verbs), hint: hintFor(verb, verbs) }],
    };
  }
  if (selected === undefined) return { type: 'output', text: output === '' ? '' : `${output.replace(/\n*$/, '')}\n` };
  const { args, errors } = checkArgs(selected.argv, words, selected.entry.grammar);
  if (errors.length > 0) {
    return { type: 'error', errors: errors.map((message) => ({ message, hint: hintFor(selected!.entry, verbs) })) };
  }
  return { type: 'run', entry: selected.entry, args };
}
