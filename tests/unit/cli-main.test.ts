/**
 * cli/main.ts with the real verb registry, each verb's `run` replaced by a spy: a command line that is not fully
 * understood never reaches a verb, --help, --version and completion load no verb module, and an exception is a bug
 * (exit 70).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { secondsSetting } from '../../engine/env-settings.js';
import { GLOBAL_OPTIONS } from '../../config/command-line/grammar.js';
import type { VerbGrammar } from '../../config/command-line/grammar.js';
import type { Verb } from '../../cli/verb.js';
import type { VerbEntry } from '../../cli/verbs.js';
import { VERBS } from '../../cli/verbs.js';
import { runCli } from '../helpers/run-cli.js';

interface Spied {
  readonly verbs: VerbEntry[];
  readonly runs: ReturnType<typeof vi.fn>;
  readonly loads: ReturnType<typeof vi.fn>;
}

/** The real registry and option declarations, with every `run` recorded instead of run. */
function spiedRegistry(): Spied {
  const runs = vi.fn(() => Promise.resolve(0));
  const loads = vi.fn();
  const verbs = VERBS.map((entry): VerbEntry => ({
    ...entry,
    load: () => {
      loads(entry.name);
      return Promise.resolve({ run: runs });
    },
  }));
  return { verbs, runs, loads };
}

function run(argv: string[], verbs: readonly VerbEntry[] = VERBS) {
  return runCli(argv, { env: {}, cwd: '/nonexistent', verbs });
}

/** A plausible typo: the option's name with one letter dropped (`--dry-run` -> `--dry-rn`). */
function misspell(name: string): string {
  const at = Math.max(1, Math.floor(name.length / 2));
  return `--${name.slice(0, at)}${name.slice(at + 1)}`;
}

/** Every verb, once per action (the default action as no word), with its options. */
function verbLines(): { entry: VerbEntry; verb: VerbGrammar; words: string[]; options: string[] }[] {
  const out = [];
  for (const entry of VERBS) {
    const verb = entry.grammar;
    const actions = verb.actions ? Object.entries(verb.actions) : [];
    if (actions.length === 0) out.push({ entry, verb, words: [entry.name], options: Object.keys(verb.options) });
    for (const [action, spec] of actions) {
      const words = action === verb.defaultAction ? [entry.name] : [entry.name, action];
      out.push({ entry, verb, words, options: [...(spec.accepts ?? [])] });
    }
  }
  return out;
}

const GLOBALS = Object.keys(GLOBAL_OPTIONS).filter((name) => name !== 'help' && name !== 'version');

describe('platctl refuses a command line it does not fully understand, before any verb runs', () => {
  it('a PLATCTL_REQUEST_TIMEOUT that is not a sane number of seconds exits 2 and the verb never runs', async () => {
    for (const value of ['abc', '0', '-5', '86400', '30s']) {
      const spied = spiedRegistry();
      const result = await runCli(['status'], {
        env: { PLATCTL_REQUEST_TIMEOUT: value },
        cwd: '/nonexistent',
        verbs: spied.verbs,
      });
      expect(result.code, value).toBe(2);
      expect(result.stderr, value).toContain(
        `platctl: PLATCTL_REQUEST_TIMEOUT="${value}" is not a number of seconds between 0.1 and 3600`,
      );
      expect(spied.runs).not.toHaveBeenCalled();
    }
    const fine = spiedRegistry();
    expect((await runCli(['status'], { env: { PLATCTL_REQUEST_TIMEOUT: '2.5' }, verbs: fine.verbs })).code).toBe(0);
    expect(fine.runs).toHaveBeenCalledTimes(1);
  });

  it('a PLATCTL_PROGRESS_INTERVAL or PLATCTL_KILL_GRACE it does not understand exits 2 and the verb never runs', async () => {
    const refused: [string, string, string][] = [
      ['PLATCTL_PROGRESS_INTERVAL', 'soon', 'between 0.01 and 3600 (or 0 to turn the still-running lines off)'],
      ['PLATCTL_PROGRESS_INTERVAL', '7200', 'between 0.01 and 3600'],
      ['PLATCTL_PROGRESS_INTERVAL', '0.001', 'between 0.01 and 3600'],
      ['PLATCTL_KILL_GRACE', '3O', 'between 0 and 3600'],
      ['PLATCTL_KILL_GRACE', '1e9', 'between 0 and 3600'],
      ['PLATCTL_KILL_GRACE', '-1', 'between 0 and 3600'],
    ];
    for (const [name, value, bounds] of refused) {
      const spied = spiedRegistry();
      const result = await runCli(['status'], { env: { [name]: value }, cwd: '/nonexistent', verbs: spied.verbs });
      expect(result.code, `${name}=${value}`).toBe(2);
      expect(result.stderr).toContain(`platctl: ${name}="${value}" is not a number of seconds ${bounds}`);
      expect(result.stderr).toContain('Nothing was run.');
      expect(spied.runs).not.toHaveBeenCalled();
    }
    // Both wrong at once: both are named.
    const both = await runCli(['status'], {
      env: { PLATCTL_KILL_GRACE: 'x', PLATCTL_REQUEST_TIMEOUT: 'y' },
      verbs: spiedRegistry().verbs,
    });
    expect(both.stderr).toMatch(/PLATCTL_REQUEST_TIMEOUT="y"[\s\S]*PLATCTL_KILL_GRACE="x"/);
    for (const env of [{ PLATCTL_PROGRESS_INTERVAL: '0' }, { PLATCTL_KILL_GRACE: '0' }, { PLATCTL_KILL_GRACE: '' }]) {
      const fine = spiedRegistry();
      expect((await runCli(['status'], { env, verbs: fine.verbs })).code).toBe(0);
    }
    expect(secondsSetting({ PLATCTL_PROGRESS_INTERVAL: '0.05' }, 'PLATCTL_PROGRESS_INTERVAL', 30_000)).toBe(50);
    expect(secondsSetting({ PLATCTL_PROGRESS_INTERVAL: '0' }, 'PLATCTL_PROGRESS_INTERVAL', 30_000)).toBe(0);
    expect(secondsSetting({}, 'PLATCTL_KILL_GRACE', 30_000)).toBe(30_000);
    expect(secondsSetting({ PLATCTL_KILL_GRACE: '2' }, 'PLATCTL_KILL_GRACE', 30_000)).toBe(2000);
  });

  it('a misspelt option of every verb (and action) exits 2 with a did-you-mean, and the verb never runs', async () => {
    const { verbs, runs } = spiedRegistry();
    const lines = verbLines();
    expect(lines.map((l) => l.words.join(' '))).toEqual(
      expect.arrayContaining(['graph', 'bootstrap', 'teardown', 'status', 'validate', 'kubeconfig', 'config check']),
    );
    for (const { words, options } of lines) {
      for (const option of [...options, ...GLOBALS]) {
        const typo = misspell(option);
        const result = await run([...words, typo], verbs);
        expect(result.code, `${words.join(' ')} ${typo}`).toBe(2);
        expect(result.stderr, `${words.join(' ')} ${typo}`).toContain(`unknown option ${typo}`);
        expect(result.stderr, `${words.join(' ')} ${typo}`).toMatch(/did you mean --/);
        expect(result.stderr).toContain('Nothing was run.');
        expect(result.stdout).toBe('');
      }
    }
    expect(runs).not.toHaveBeenCalled();
  });

  it('refuses a misspelt verb or action with a did-you-mean, without loading any verb', async () => {
    const { verbs, runs, loads } = spiedRegistry();
    const verb = await run(['bootsrap', '--dry-run'], verbs);
    expect(verb.code).toBe(2);
    expect(verb.stderr).toContain('unknown verb "bootsrap"; did you mean bootstrap?');
    expect(loads).not.toHaveBeenCalled();
    const action = await run(['kubeconfig', 'tokn', '--env', 'platform'], verbs);
    expect(action.code).toBe(2);
    expect(action.stderr).toContain('unknown action "tokn" for platctl kubeconfig; did you mean token?');
    expect(runs).not.toHaveBeenCalled();
  });

  it('refuses bad numbers and missing values', async () => {
    const { verbs, runs } = spiedRegistry();
    for (const [argv, message] of [
      [['bootstrap', '--parallelism', 'abc'], '--parallelism "abc": give a whole number of at least 1'],
      [['teardown', '--yes', '--parallelism', '0'], '--parallelism "0": give a whole number of at least 1'],
      [['bootstrap', '--parallelism'], '--parallelism needs a value'],
      [['bootstrap', '--parallelism', '--dry-run'], '--parallelism needs a value'],
      [['validate', '--concurrency', '2.5'], '--concurrency "2.5": give a whole number of at least 1'],
      [['graph', '--format'], '--format needs a value, one of: text, json, dot, mermaid'],
      [['graph', '--unit'], '--unit needs a value'],
      [['status', '--config'], '--config needs a value'],
      [['kubeconfig', 'token'], 'kubeconfig token needs exactly one --env'],
      [['teardown', '--yes', '--force'], '--force only applies to --resume'],
    ] as const) {
      const result = await run([...argv], verbs);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toContain(message);
    }
    expect(runs).not.toHaveBeenCalled();
  });
});

describe('--env and --json are refused by a verb that would ignore them', () => {
  it('status --env, kubeconfig --json and config schema --env exit 2 and run nothing', async () => {
    const { verbs, runs } = spiedRegistry();
    for (const [argv, message] of [
      [['status', '--env', 'platform'], '--env does not apply to platctl status: it does not select environments'],
      [['kubeconfig', '--json'], '--json does not apply to platctl kubeconfig: it has no JSON output'],
      [['config', 'schema', '--env', 'a'], '--env does not apply to platctl config'],
    ] as const) {
      const result = await run([...argv], verbs);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toContain(message);
      expect(result.stderr).toContain('Nothing was run.');
    }
    expect(runs).not.toHaveBeenCalled();
  });

  it('every verb declares what it honours, and its --help lists only the global options it takes', async () => {
    const { verbs, runs } = spiedRegistry();
    for (const entry of VERBS) {
      const verb = entry.grammar;
      const help = await run([entry.name, '--help'], verbs);
      for (const name of ['env', 'json'] as const) {
        const honoured = (verb.globals ?? []).includes(name);
        expect(help.stdout.includes(`--${name}`), `${entry.name} --help and --${name}`).toBe(
          honoured || name in verb.options,
        );
      }
    }
    const graph = await run(['graph', '--env', 'platform', '--json'], verbs);
    expect(graph.code).toBe(0);
    expect(runs).toHaveBeenCalledTimes(1);
  });
});

describe('help and version', () => {
  it('--help and --version load no verb module', async () => {
    const { verbs, loads } = spiedRegistry();
    const help = await run(['--help'], verbs);
    expect(help.code).toBe(0);
    for (const entry of VERBS) expect(help.stdout).toContain(`  platctl ${entry.name}`);
    const version = await run(['--version'], verbs);
    expect(version).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/), stderr: '' });
    expect((await run(['-V'], verbs)).stdout).toBe(version.stdout);
    expect(loads).not.toHaveBeenCalled();
  });

  it('every verb and action has --help listing its options and examples', async () => {
    const { verbs, runs } = spiedRegistry();
    for (const { entry, verb, words, options } of verbLines()) {
      const help = await run([...words, '--help'], verbs);
      expect(help.code, words.join(' ')).toBe(0);
      expect(help.stdout).toContain(`platctl ${entry.name}`);
      for (const option of options) expect(help.stdout, `${words.join(' ')}: --${option}`).toContain(`--${option}`);
      for (const [command] of verb.examples ?? []) expect(command.startsWith(`platctl ${entry.name}`)).toBe(true);
    }
    expect(runs).not.toHaveBeenCalled();
  });

  it("no verb redeclares a global option, and every action's options exist", () => {
    for (const entry of VERBS) {
      const verb = entry.grammar;
      for (const name of Object.keys(verb.options))
        expect(GLOBAL_OPTIONS, `${entry.name} --${name}`).not.toHaveProperty(name);
      for (const spec of Object.values(verb.actions ?? {})) {
        for (const name of spec.accepts ?? []) expect(verb.options, `${entry.name}: ${name}`).toHaveProperty(name);
      }
      if (verb.defaultAction !== undefined) expect(verb.actions).toHaveProperty(verb.defaultAction);
    }
  });
});

describe('an exception is a bug in platctl: exit 70, the stack, and what to report', () => {
  const throwing = (error: unknown): VerbEntry[] => [
    {
      name: 'explode',
      describe: 'throws',
      grammar: { name: 'explode', describe: 'throws', options: {}, globals: ['json'] },
      load: (): Promise<Verb> => Promise.resolve({ run: () => Promise.reject(error as Error) }),
    },
  ];

  it('a verb that throws', async () => {
    const result = await run(['explode', '--json'], throwing(new TypeError('x is undefined')));
    expect(result.code).toBe(70);
    expect(result.stderr).toContain('platctl: internal error: this is a bug in platctl');
    expect(result.stderr).toContain('TypeError: x is undefined\n    at ');
    expect(result.stderr).toContain('- the command: platctl explode --json');
    expect(result.stderr).toMatch(/platctl \d+\.\d+\.\d+, Node\.js v\d+/);
    expect(result.stdout).toBe('');
  });

  it('a thrown non-Error, and a verb module that fails to load', async () => {
    const value = await run(['explode'], throwing('a string'));
    expect(value.code).toBe(70);
    expect(value.stderr).toContain('a non-Error value was thrown: a string');
    const broken: VerbEntry[] = [
      {
        name: 'broken',
        describe: 'fails to load',
        grammar: { name: 'broken', describe: 'fails to load', options: {} },
        load: () => Promise.reject(new Error('Cannot find module x')),
      },
    ];
    const load = await run(['broken'], broken);
    expect(load.code).toBe(70);
    expect(load.stderr).toContain('Error: Cannot find module x');
  });

  it('an exception outside main (a timer, an unawaited promise) exits 70 with the same report', async () => {
    const mainJs = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js')).href;
    const script =
      `import { exitOnUncaughtBug } from ${JSON.stringify(mainJs)};\n` +
      `exitOnUncaughtBug(['graph', '--format', 'it is']);\n` +
      `Promise.reject(new RangeError('late'));\n`;
    const child = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(child.code).toBe(70);
    expect(child.stderr).toContain('this is a bug in platctl');
    expect(child.stderr).toContain('RangeError: late');
    expect(child.stderr).toContain("- the command: platctl graph --format 'it is'");
  });
});
