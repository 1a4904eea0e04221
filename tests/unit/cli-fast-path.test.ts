import { describe, expect, it } from 'vitest';
/**
 * config/command-line/fast-path.ts: the command lines answered without yargs must mean exactly what yargs makes of them. For a verb
 * alone (`platctl status`), every real verb is compared with the yargs parse of the same word.
 */
import { fastPath } from '../../config/command-line/fast-path.js';
import { parseCommandLine } from '../../config/command-line/parse.js';
import type { ParseOutcome } from '../../config/command-line/parse.js';
import type { VerbGrammar } from '../../config/command-line/grammar.js';
import type { VerbEntry } from '../../cli/verbs.js';
import { VERBS } from '../../cli/verbs.js';

const SETTINGS = { version: '9.9.9', width: 100 };

/** The outcome without the entry's loader (a function), for comparing. */
function plain(outcome: ParseOutcome | undefined): unknown {
  if (outcome?.type !== 'run') return outcome;
  return { type: 'run', verb: outcome.entry.name, args: outcome.args };
}

function entryOf(grammar: Omit<VerbGrammar, 'describe'>): VerbEntry[] {
  const full = { describe: 'd', ...grammar } as VerbGrammar;
  return [{ name: full.name, describe: 'd', grammar: full, load: () => Promise.reject(new Error('not loaded')) }];
}

describe('a verb alone', () => {
  it.each(VERBS.map((v) => v.name))('%s: what yargs makes of it, or yargs decides', (name) => {
    const fast = fastPath([name], VERBS, '/nowhere');
    if (fast === undefined) return;
    expect(plain(fast)).toEqual(plain(parseCommandLine([name], VERBS, SETTINGS)));
  });

  it('answers the verbs people run bare, status among them, without yargs', () => {
    const fast = VERBS.filter((v) => fastPath([v.name], VERBS, '/nowhere') !== undefined).map((v) => v.name);
    expect(fast).toEqual(expect.arrayContaining(['status', 'graph', 'bootstrap', 'validate', 'kubeconfig']));
  });

  it("fills in the options' defaults and the default action, as yargs does", () => {
    const verbs = entryOf({
      name: 'graph',
      options: {
        format: { type: 'choice', choices: ['text', 'json'], default: 'text', describe: 'f' },
        reverse: { type: 'boolean', default: false, describe: 'r' },
        output: { type: 'string', value: 'FILE', describe: 'o' },
      },
      actions: { show: { describe: 's', accepts: ['format', 'reverse'] } },
      defaultAction: 'show',
    });
    const fast = fastPath(['graph'], verbs, '/nowhere');
    expect(plain(fast)).toEqual({
      type: 'run',
      verb: 'graph',
      args: { format: 'text', reverse: false, action: 'show' },
    });
    expect(plain(fast)).toEqual(plain(parseCommandLine(['graph'], verbs, SETTINGS)));
  });

  it('leaves to yargs a verb that needs an action, a default its action refuses, and rules that refuse it', () => {
    const needsAction = entryOf({ name: 'config', options: {}, actions: { check: { describe: 'c' } } });
    const refusedDefault = entryOf({
      name: 'kubeconfig',
      options: { format: { type: 'choice', choices: ['a', 'b'], default: 'a', describe: 'f' } },
      actions: { write: { describe: 'w' } },
      defaultAction: 'write',
    });
    const ruled = entryOf({ name: 'access', options: {}, check: () => 'give --env' });
    for (const verbs of [needsAction, refusedDefault, ruled]) {
      expect(fastPath([verbs[0]!.name], verbs, '/nowhere')).toBeUndefined();
      expect(parseCommandLine([verbs[0]!.name], verbs, SETTINGS).type).toBe('error');
    }
  });

  it('leaves anything more than the verb, and a word that is not a verb, to yargs', () => {
    expect(fastPath(['status', '--json'], VERBS, '/nowhere')).toBeUndefined();
    expect(fastPath(['stauts'], VERBS, '/nowhere')).toBeUndefined();
    expect(fastPath(['help'], VERBS, '/nowhere')).toBeUndefined();
  });
});
