import { describe, expect, it } from 'vitest';
/**
 * config/command-line/parse.ts: the whole command line read by yargs, refused with platctl's wording before anything runs.
 */
import { parseCommandLine } from '../../config/command-line/parse.js';
import type { ParseOutcome } from '../../config/command-line/parse.js';
import type { VerbGrammar } from '../../config/command-line/grammar.js';
import type { VerbEntry } from '../../cli/verbs.js';

type Grammar = Omit<VerbGrammar, 'describe' | 'check'> & {
  check?: (args: Record<string, unknown>) => string | undefined;
};

const VERBS = ['graph', 'bootstrap', 'teardown', 'kubeconfig'];

const WALK: Grammar = {
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

const KUBE: Grammar = {
  name: 'kubeconfig',
  globals: ['env'],
  options: { output: { type: 'string', value: 'FILE', describe: 'o' } },
  actions: { write: { describe: 'w', accepts: ['output'] }, token: { describe: 't' } },
  defaultAction: 'write',
};

const CONFIG: Grammar = {
  name: 'config',
  globals: ['json'],
  options: {},
  actions: { schema: { describe: 's' }, check: { describe: 'c' } },
};

const ENTRIES = (grammar: VerbGrammar): VerbEntry[] =>
  [...VERBS.filter((name) => name !== grammar.name).map((name) => ({ name, options: {} })), grammar].map((g) => ({
    name: g.name,
    describe: `${g.name} things`,
    grammar: { describe: `${g.name} things`, ...g },
    load: () => Promise.reject(new Error('not loaded in these tests')),
  }));

/** Parses a whole command line the way cli/main.ts does. */
function parse(argv: string[], grammar: Grammar = WALK): ParseOutcome {
  return parseCommandLine(argv, ENTRIES(grammar as unknown as VerbGrammar), { version: '9.9.9', width: 100 });
}

function ok(argv: string[], grammar: Grammar = WALK): Record<string, unknown> {
  const result = parse(argv, grammar);
  if (result.type !== 'run') throw new Error(`expected ok for ${argv.join(' ')}: ${JSON.stringify(result)}`);
  return result.args;
}

function errors(argv: string[], grammar: Grammar = WALK): string[] {
  const result = parse(argv, grammar);
  if (result.type !== 'error') throw new Error(`expected errors for ${argv.join(' ')}: ${JSON.stringify(result)}`);
  return result.errors.map((e) => e.message);
}

function output(argv: string[], grammar: Grammar = WALK): string {
  const result = parse(argv, grammar);
  if (result.type !== 'output') throw new Error(`expected output for ${argv.join(' ')}: ${JSON.stringify(result)}`);
  return result.text;
}

describe('the verb', () => {
  it('is found after global options and their values', () => {
    expect(ok(['--config', 'x.yaml', '--env', 'dev', 'bootstrap', '--json'])).toMatchObject({
      config: 'x.yaml',
      env: ['dev'],
      json: true,
    });
    expect(ok(['--config=graph', 'bootstrap'])).toMatchObject({ config: 'graph' });
    expect(ok(['--json', 'bootstrap'])).toMatchObject({ json: true });
  });

  it('refuses an unknown verb with a did-you-mean', () => {
    expect(errors(['bootsrap', '--dry-run'])).toEqual(['unknown verb "bootsrap"; did you mean bootstrap?']);
  });

  it('answers --help and --version without a verb, and asks for a verb otherwise', () => {
    expect(output(['--help'])).toContain('Usage: platctl [global options] <verb>');
    expect(output(['-V'])).toBe('9.9.9\n');
    expect(errors([])).toEqual(['name a verb']);
    expect(errors(['--verison'])).toEqual(['unknown option --verison; did you mean --version?']);
  });
});

describe("a verb's command line", () => {
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
    // An option of the verb before the verb is refused (it never takes the verb as its value); global ones are fine.
    expect(errors(['--parallelism', 'bootstrap'])).toEqual([
      '--parallelism is an option of bootstrap: give it after the verb (platctl bootstrap --parallelism ...)',
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

  it('reports the first error yargs finds, and runs nothing', () => {
    expect(errors(['bootstrap', '--dry-rn', '--parallelism', 'x', 'extra'])).toEqual([
      'unknown option --dry-rn for bootstrap; did you mean --dry-run?',
    ]);
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

  it('answers --help and --version even with other words; platctl help VERB is VERB --help', () => {
    expect(output(['kubeconfig', '--help'], KUBE)).toContain('token');
    expect(output(['bootstrap', '--parallelism', 'x', '--help'])).toContain('--parallelism');
    expect(output(['help', 'bootstrap'])).toBe(output(['bootstrap', '--help']));
    expect(output(['help'])).toBe(output(['--help']));
    expect(output(['bootstrap', '--version'])).toBe('9.9.9\n');
  });
});
