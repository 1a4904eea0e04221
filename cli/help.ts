/**
 * `platctl --help` and `platctl <verb> [action] --help`, rendered from the registry and the verbs' option
 * declarations. The top-level help needs no verb module, so it costs no more than `--version`.
 */
import type { OptionSpec, OptionSpecs } from './args.js';
import { GLOBAL_OPTIONS, SELECTIVE_GLOBALS } from './args.js';
import type { Verb } from './verb.js';
import type { VerbEntry } from './verbs.js';

const INTRO = 'Orchestrate a Terragrunt-built AWS platform.';

/** `--name VALUE`, `--name a|b|c`, `-h, --help`. */
function optionLabel(name: string, spec: OptionSpec): string {
  const short = name === 'help' ? '-h, ' : name === 'version' ? '-V, ' : '';
  switch (spec.type) {
    case 'boolean':
      return `${short}--${name}`;
    case 'string':
    case 'integer':
      return `--${name} ${spec.value}`;
    case 'choice':
      return `--${name} ${spec.choices.join('|')}`;
  }
}

function optionText(spec: OptionSpec): string {
  const notes: string[] = [];
  if (spec.type === 'string' && spec.repeatable === true && !spec.describe.includes('repeatable')) {
    notes.push('repeatable');
  }
  if ('default' in spec && spec.default !== undefined && spec.default !== false) notes.push(`default: ${spec.default}`);
  return notes.length > 0 ? `${spec.describe} (${notes.join(', ')})` : spec.describe;
}

/** Two columns; the right one wraps at `width`. */
function table(rows: readonly (readonly [string, string])[], width: number): string[] {
  const left = Math.min(34, Math.max(...rows.map(([l]) => l.length)) + 2);
  const room = Math.max(30, width - left - 2);
  const lines: string[] = [];
  for (const [label, text] of rows) {
    const wrapped = wrap(text, room);
    const first = label.length + 2 > left ? [`  ${label}`, ''] : [`  ${label.padEnd(left)}`];
    if (first.length === 2) lines.push(first[0]!);
    wrapped.forEach((part, i) => {
      const lead = i === 0 && first.length === 1 ? first[0]! : ' '.repeat(left + 2);
      lines.push(`${lead}${part}`.trimEnd());
    });
  }
  return lines;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines;
}

function optionRows(specs: OptionSpecs, only?: ReadonlySet<string>): [string, string][] {
  return Object.entries(specs)
    .filter(([name]) => only === undefined || only.has(name))
    .map(([name, spec]) => [optionLabel(name, spec), optionText(spec)]);
}

export function topHelp(verbs: readonly VerbEntry[], width: number): string {
  return [
    'Usage: platctl <verb> [options]',
    '',
    INTRO,
    '',
    'Verbs:',
    ...table(
      verbs.map((v) => [v.name, v.describe]),
      width,
    ),
    '',
    'Global options (--env and --json only where a verb says so in its own --help):',
    ...table(optionRows(GLOBAL_OPTIONS), width),
    '',
    'Run platctl <verb> --help for what a verb does and its options.',
    '',
  ].join('\n');
}

/** The global options `verb` takes: all but the selective ones (`--env`, `--json`) it does not declare. */
function globalsOf(verb: Verb): OptionSpecs {
  const refused = new Set<string>(SELECTIVE_GLOBALS.filter((name) => !(verb.globals ?? []).includes(name)));
  return Object.fromEntries(Object.entries(GLOBAL_OPTIONS).filter(([name]) => !refused.has(name)));
}

export function verbHelp(entry: VerbEntry, verb: Verb, action: string | undefined, width: number): string {
  const actions = verb.actions ? Object.entries(verb.actions) : [];
  const actionWord =
    actions.length === 0
      ? ''
      : verb.defaultAction === undefined
        ? ' <action>'
        : ` [${actions.map(([a]) => a).join('|')}]`;
  const only = action !== undefined ? new Set(verb.actions?.[action]?.accepts ?? []) : undefined;
  const usage =
    action !== undefined ? `platctl ${entry.name} ${action} [options]` : `platctl ${entry.name}${actionWord} [options]`;
  const describe = action !== undefined ? (verb.actions?.[action]?.describe ?? entry.describe) : entry.describe;
  const own = optionRows(verb.options, only);
  const lines = [`Usage: ${usage}`, '', ...wrap(describe, width), ''];
  if (action === undefined && actions.length > 0) {
    const rows = actions.map(([name, spec]): [string, string] => [
      name,
      `${spec.describe}${name === verb.defaultAction ? ' (default)' : ''}`,
    ]);
    lines.push('Actions:', ...table(rows, width), '');
  }
  if (own.length > 0) lines.push('Options:', ...table(own, width), '');
  lines.push('Global options:', ...table(optionRows(globalsOf(verb)), width), '');
  const actionOf = (cmd: string): string | undefined => {
    const word = cmd.split(' ')[2];
    return word !== undefined && verb.actions?.[word] !== undefined ? word : verb.defaultAction;
  };
  const examples = (verb.examples ?? []).filter(([cmd]) => action === undefined || actionOf(cmd) === action);
  if (examples.length > 0) {
    lines.push('Examples:', ...examples.flatMap(([cmd, what]) => [`  # ${what}`, `  ${cmd}`]), '');
  }
  return lines.join('\n');
}
