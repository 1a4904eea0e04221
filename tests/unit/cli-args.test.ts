import { describe, expect, it } from 'vitest';
import { findVerb, parseVerb } from '../../cli/args.js';
import type { ParseResult, VerbGrammar } from '../../cli/args.js';

const VERBS = ['graph', 'bootstrap', 'teardown', 'kubeconfig'];

const WALK: VerbGrammar = {
  name: 'bootstrap',
  globals: ['env', 'json'],
  options: {
    'dry-run': { type: 'boolean', describe: 'd' },
    unit: { type: 'string', value: 'ID', repeatable: true, describe: 'u' },
    parallelism: { type: 'integer', value: 'N', min: 1, describe: 'p' },
    format: { type: 'choice', choices: ['text', 'json'], default: 'text', describe: 'f' },
    reverse: { type: 'boolean', default: false, describe: 'r' },
  },
  check: (args) => (args.reverse === true && args['dry-run'] === true ? '--reverse and --dry-run disagree' : undefined),
};

const KUBE: VerbGrammar = {
  name: 'kubeconfig',
  globals: ['env'],
  options: { output: { type: 'string', value: 'FILE', describe: 'o' } },
  actions: { write: { describe: 'w', accepts: ['output'] }, token: { describe: 't' } },
  defaultAction: 'write',
};

const CONFIG: VerbGrammar = {
  name: 'config',
  globals: ['json'],
  options: {},
  actions: { schema: { describe: 's' }, check: { describe: 'c' } },
};

/** Parses a whole command line the way cli/main.ts does. */
function parse(argv: string[], grammar: VerbGrammar): ParseResult {
  const found = findVerb(argv, [...VERBS, grammar.name]);
  if (found.type !== 'verb') throw new Error(`no verb in ${argv.join(' ')}: ${JSON.stringify(found)}`);
  return parseVerb(argv, found.index, grammar);
}

function ok(argv: string[], grammar: VerbGrammar = WALK): Record<string, unknown> {
  const result = parse(argv, grammar);
  if (result.type !== 'ok') throw new Error(`expected ok for ${argv.join(' ')}: ${JSON.stringify(result)}`);
  return result.args;
}

function errors(argv: string[], grammar: VerbGrammar = WALK): string[] {
  const result = parse(argv, grammar);
  if (result.type !== 'error') throw new Error(`expected errors for ${argv.join(' ')}: ${JSON.stringify(result)}`);
  return result.errors.map((e) => e.message);
}

describe('findVerb', () => {
  it('finds the verb after global options and their values', () => {
    expect(findVerb(['--config', 'x.yaml', '--env', 'dev', 'graph', '--json'], VERBS)).toEqual({
      type: 'verb',
      name: 'graph',
      index: 4,
    });
    expect(findVerb(['--config=graph', 'teardown'], VERBS)).toMatchObject({ name: 'teardown', index: 1 });
  });

  it('refuses an unknown verb with a did-you-mean', () => {
    const found = findVerb(['bootsrap', '--dry-run'], VERBS);
    expect(found).toMatchObject({ type: 'unknown-verb' });
    expect(found.type === 'unknown-verb' && found.errors[0]?.message).toBe(
      'unknown verb "bootsrap"; did you mean bootstrap?',
    );
  });

  it('answers --help and --version without a verb, and asks for a verb otherwise', () => {
    expect(findVerb(['--help'], VERBS)).toMatchObject({ type: 'none', help: true, version: false });
    expect(findVerb(['-V'], VERBS)).toMatchObject({ type: 'none', help: false, version: true });
    const none = findVerb([], VERBS);
    expect(none.type === 'none' && none.errors.map((e) => e.message)).toEqual(['name a verb']);
    const typo = findVerb(['--verison'], VERBS);
    expect(typo.type === 'none' && typo.errors.map((e) => e.message)).toEqual([
      'unknown option --verison; did you mean --version?',
    ]);
  });
});

describe('parseVerb', () => {
  it('parses flags, values, repeats, negations and defaults, before and after the verb', () => {
    expect(
      ok([
        '--json',
        'bootstrap',
        '--dry-run',
        '--unit',
        'a',
        '--unit=b',
        '--parallelism=3',
        '--no-color',
        '--env',
        'e',
      ]),
    ).toEqual({
      json: true,
      'dry-run': true,
      unit: ['a', 'b'],
      parallelism: 3,
      color: false,
      env: ['e'],
      format: 'text',
      reverse: false,
    });
    expect(ok(['bootstrap', '--dry-run=false', '--format', 'json'])).toMatchObject({
      'dry-run': false,
      format: 'json',
    });
  });

  it('refuses an unknown option with a did-you-mean, among global and verb options', () => {
    expect(errors(['bootstrap', '--dry-rn'])).toEqual([
      'unknown option --dry-rn for bootstrap; did you mean --dry-run?',
    ]);
    expect(errors(['bootstrap', '--jsn'])).toEqual(['unknown option --jsn for bootstrap; did you mean --json?']);
    expect(errors(['bootstrap', '--no-colr'])).toEqual([
      'unknown option --no-colr for bootstrap; did you mean --no-color?',
    ]);
    expect(errors(['bootstrap', '--frobnicate'])).toEqual(['unknown option --frobnicate for bootstrap']);
    expect(errors(['bootstrap', '-x'])).toEqual(['unknown option -x for bootstrap']);
    // Only flags have a --no- form.
    expect(errors(['bootstrap', '--no-unit'])).toEqual([
      'unknown option --no-unit for bootstrap; did you mean --unit?',
    ]);
  });

  it('refuses a value option without its value, at the end or before another option', () => {
    expect(errors(['bootstrap', '--parallelism'])).toEqual([
      '--parallelism needs a value: a whole number of at least 1',
    ]);
    expect(errors(['bootstrap', '--parallelism', '--dry-run'])).toEqual([
      '--parallelism needs a value: a whole number of at least 1',
    ]);
    expect(errors(['bootstrap', '--unit', '--dry-run'])).toEqual(['--unit needs a value: --unit ID']);
    expect(errors(['bootstrap', '--unit='])).toEqual(['--unit needs a value: --unit ID']);
    expect(errors(['bootstrap', '--format'])).toEqual(['--format needs a value, one of: text, json']);
    // An option just before the verb never takes the verb as its value.
    expect(errors(['--parallelism', 'bootstrap'])).toEqual([
      '--parallelism needs a value: a whole number of at least 1',
    ]);
  });

  it('accepts only whole numbers at or above the minimum', () => {
    for (const bad of ['abc', '1.5', '0', '-2', '', '1e3', '0x10', '99999999999999999999']) {
      expect(errors(['bootstrap', `--parallelism=${bad}`])).toEqual([
        bad === ''
          ? '--parallelism needs a value: a whole number of at least 1'
          : `--parallelism ${JSON.stringify(bad)}: give a whole number of at least 1`,
      ]);
    }
    expect(errors(['bootstrap', '--parallelism', '-2'])).toEqual([
      '--parallelism "-2": give a whole number of at least 1',
    ]);
    expect(ok(['bootstrap', '--parallelism', '12'])).toMatchObject({ parallelism: 12 });
  });

  it('refuses a value for a flag, a choice that is not one, and a single option given twice', () => {
    expect(errors(['bootstrap', '--dry-run=yes'])).toEqual(['--dry-run is a flag and takes no value (got "yes")']);
    expect(errors(['bootstrap', '--format', 'jsn'])).toEqual([
      '--format "jsn" is not one of text, json; did you mean json?',
    ]);
    expect(errors(['bootstrap', '--parallelism', '2', '--parallelism', '3'])).toEqual([
      '--parallelism is given twice (2 and 3); give it once',
    ]);
    expect(ok(['bootstrap', '--dry-run', '--dry-run'])).toMatchObject({ 'dry-run': true });
  });

  it('refuses words that are not an action, including everything after --', () => {
    expect(errors(['bootstrap', 'now'])).toEqual(['unexpected argument "now": platctl bootstrap takes options only']);
    expect(errors(['bootstrap', '--', '--dry-run'])).toEqual([
      'unexpected argument "--dry-run": platctl bootstrap takes options only',
    ]);
  });

  it('reports every error at once', () => {
    expect(errors(['bootstrap', '--dry-rn', '--parallelism', 'x', 'extra'])).toHaveLength(3);
  });

  it('refuses --env and --json where the verb does not declare them', () => {
    expect(errors(['config', 'check', '--env', 'a'], CONFIG)).toEqual([
      '--env does not apply to platctl config: it does not select environments',
    ]);
    expect(errors(['kubeconfig', '--json', '--no-color', '--verbose'], KUBE)).toEqual([
      '--json does not apply to platctl kubeconfig: it has no JSON output',
    ]);
  });

  it("checks the verb's rules between options only when everything else parsed", () => {
    expect(errors(['bootstrap', '--reverse', '--dry-run'])).toEqual(['--reverse and --dry-run disagree']);
    expect(errors(['bootstrap', '--reverse', '--dry-run', '--frob'])).toEqual(['unknown option --frob for bootstrap']);
  });

  it('parses actions: named, default, unknown, missing, and options an action does not take', () => {
    expect(ok(['kubeconfig', 'token', '--env', 'a'], KUBE)).toMatchObject({ action: 'token', env: ['a'] });
    expect(ok(['kubeconfig', '--output', 'f'], KUBE)).toMatchObject({ action: 'write', output: 'f' });
    expect(errors(['kubeconfig', 'tokn'], KUBE)).toEqual([
      'unknown action "tokn" for platctl kubeconfig; did you mean token? (actions: write, token)',
    ]);
    expect(errors(['kubeconfig', 'token', '--output', 'f'], KUBE)).toEqual([
      '--output does not apply to platctl kubeconfig token',
    ]);
    expect(errors(['kubeconfig', 'token', 'more'], KUBE)).toEqual([
      'unexpected argument "more": platctl kubeconfig takes one action and options only',
    ]);
    expect(errors(['config'], CONFIG)).toEqual(['platctl config needs an action: schema or check']);
    expect(ok(['config', 'check', '--json'], CONFIG)).toMatchObject({ action: 'check', json: true });
  });

  it('answers --help (with the action only when one was named) and --version even with other words', () => {
    expect(parse(['kubeconfig', '--help'], KUBE)).toEqual({ type: 'help', action: undefined });
    expect(parse(['kubeconfig', 'token', '-h'], KUBE)).toEqual({ type: 'help', action: 'token' });
    expect(parse(['bootstrap', '--parallelism', 'x', '--help'], WALK)).toEqual({ type: 'help', action: undefined });
    expect(parse(['bootstrap', '--version'], WALK)).toEqual({ type: 'version' });
  });
});
