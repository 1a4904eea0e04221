/**
 * Shell completion's answers (`platctl completion` prints yargs' bash/zsh script, which runs
 * `platctl --get-yargs-completions <words>` on each Tab): verbs, actions, options, option choices, environment names
 * for `--env` and unit ids for `--unit`.
 *
 * Fast and offline by design: environment names come from the cached configuration and unit ids from the cached
 * discovery (`.platctl-cache/config.json`, `.platctl-cache/units.json`, written by any earlier run); completion never
 * runs Terragrunt, never evaluates HCL and never touches the network. Without a cache it offers no ids.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CONFIG_FILE_NAME } from '../find.js';
import type { CommandVerb, OptionSpecs } from './grammar.js';
import { GLOBAL_OPTIONS, SELECTIVE_GLOBALS } from './grammar.js';

/** The `.platctl-cache` of the configuration the command line names (`--config`) or the one above `cwd`. */
function cacheDir(words: readonly string[], cwd: string): string | undefined {
  const at = words.indexOf('--config');
  const given = at >= 0 ? words[at + 1] : words.find((w) => w.startsWith('--config='))?.slice('--config='.length);
  if (given !== undefined && given !== '') return join(dirname(resolve(cwd, given)), '.platctl-cache');
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (statSync(join(dir, CONFIG_FILE_NAME), { throwIfNoEntry: false })?.isFile()) return join(dir, '.platctl-cache');
    if (dirname(dir) === dir) return undefined;
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Environment names of the cached configuration. */
function envNames(dir: string): string[] {
  const cached = readJson(join(dir, 'config.json')) as { config?: { environments?: object } } | undefined;
  return Object.keys(cached?.config?.environments ?? {});
}

/** Unit ids of the cached discovery (its entries are `[path, { id, ... }]` pairs, flattened). */
function unitIds(dir: string): string[] {
  const cached = readJson(join(dir, 'units.json')) as { units?: unknown[] } | undefined;
  const ids = (cached?.units ?? []).flatMap((item) =>
    typeof item === 'object' && item !== null && typeof (item as { id?: unknown }).id === 'string'
      ? [(item as { id: string }).id]
      : [],
  );
  return [...new Set(ids)].sort();
}

function optionWords(specs: OptionSpecs): string[] {
  return Object.entries(specs).flatMap(([name, spec]) => {
    if (spec.type !== 'boolean') return [`--${name}`];
    if (name.startsWith('no-')) return [`--${name}`, ...(spec.aliases ?? []).map((a) => `--${a}`)];
    return [`--${name}`];
  });
}

/** The words to offer for `typed` (the words after `platctl`, the last one being completed). */
export function completions(typed: readonly string[], verbs: readonly CommandVerb[], cwd: string): string[] {
  const current = typed[typed.length - 1] ?? '';
  const before = typed.slice(0, -1);
  const previous = before[before.length - 1];
  const verb = before.map((w) => verbs.find((v) => v.name === w)).find((v) => v !== undefined);
  const specs: OptionSpecs = { ...GLOBAL_OPTIONS, ...(verb?.grammar.options ?? {}) };
  const pick = (words: readonly string[]) => words.filter((w) => w.startsWith(current));
  const valueOf = previous?.startsWith('--') ? specs[previous.slice(2)] : undefined;
  if (previous === '--env' || previous === '--unit') {
    const dir = cacheDir(typed, cwd);
    if (dir === undefined) return [];
    return pick(previous === '--env' ? envNames(dir) : unitIds(dir));
  }
  if (valueOf?.type === 'choice') return pick(valueOf.choices);
  if (valueOf !== undefined && valueOf.type !== 'boolean') return [];
  if (verb === undefined) {
    if (current.startsWith('-')) return pick([...optionWords(GLOBAL_OPTIONS), '--help', '--version']);
    return pick([...verbs.map((v) => v.name), 'help', 'completion']);
  }
  const actions = verb.grammar.actions === undefined ? [] : Object.keys(verb.grammar.actions);
  const actionTyped = before.some((w) => actions.includes(w));
  if (!current.startsWith('-') && actions.length > 0 && !actionTyped) return pick(actions);
  if (!current.startsWith('-')) return [];
  const refused = SELECTIVE_GLOBALS.filter((g) => !(verb.grammar.globals ?? []).includes(g)).map((g) => `--${g}`);
  const words = optionWords(specs).filter((w) => !refused.includes(w));
  return pick([...words, '--help']);
}
