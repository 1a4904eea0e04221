/**
 * The command line: finding the verb, parsing its whole command line, help, version, colour, and the exit code of
 * a bug. This file and the verb modules are the only code that reads `process.argv`/`process.env` or decides an
 * exit code.
 *
 * Order matters: the command line is understood in full (yargs, `config/command-line/parse.ts`) before a verb's
 * code is loaded, so a typo never runs anything. Only the named verb's code is loaded (`cli/verbs.ts`); `--help`,
 * `--version` and completion load none. Four command lines skip yargs altogether
 * (`config/command-line/fast-path.ts`): `--version`, `kubeconfig token --env E` (kubectl runs it before every
 * command), the completion script's requests and a verb alone (`platctl status`), which has nothing to parse.
 */
import type { ParseError } from '../config/command-line/parse.js';
import type { ParsedArgs } from '../config/command-line/grammar.js';
import { fastPath } from '../config/command-line/fast-path.js';
import { bugReport } from '../engine/reporters/bug.js';
import type { CliIo } from './verb.js';
import { EXIT } from './verb.js';
import type { VerbEntry } from './verbs.js';
import { VERBS } from './verbs.js';
import { tolerateClosedPipe } from './output.js';
import { platctlVersion } from './version.js';
import { tokenArgs } from './token-fast.js';
import { envSettingErrors } from './env-settings.js';

/** Colour is on for a TTY unless NO_COLOR or --no-color; FORCE_COLOR turns it on anywhere. */
export function colorEnabled(
  env: Readonly<Record<string, string | undefined>>,
  isTTY: boolean,
  flag: boolean | undefined,
): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return isTTY;
}

export interface MainOptions {
  readonly stdout?: CliIo['stdout'];
  readonly stderr?: CliIo['stderr'];
  readonly env?: CliIo['env'];
  readonly cwd?: string;
  readonly signal?: AbortSignal;
  /** The verbs to dispatch to (default: `VERBS`); tests inject their own. */
  readonly verbs?: readonly VerbEntry[];
}

/** Prints parse errors, each with its did-you-mean, and where to read more; the exit code is always 2. */
function refuse(errors: readonly ParseError[], stderr: CliIo['stderr']): number {
  for (const error of errors) stderr.write(`platctl: ${error.message}\n`);
  const hints = [...new Set(errors.map((e) => e.hint))];
  stderr.write(`  ${hints.join('; ')}. Nothing was run.\n`);
  return EXIT.usage;
}

/** `kubeconfig token --env E [--config FILE]`, recognised without yargs: kubectl runs it before every command. */
function kubeconfigToken(argv: readonly string[]): { verb: string; args: ParsedArgs } | undefined {
  const token = tokenArgs(argv);
  if (token === undefined) return undefined;
  const config = token.config === undefined ? {} : { config: token.config };
  return { verb: 'kubeconfig', args: { action: 'token', env: [token.env], ...config } };
}

/** The context of a bug report, from this process. */
export function bugContext(argv: readonly string[]): Parameters<typeof bugReport>[1] {
  return { argv, version: platctlVersion(), node: process.version, platform: `${process.platform}/${process.arch}` };
}

/** Runs platctl with `argv` (without node and script) and returns the exit code. */
export async function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  // Once, for the process's own streams: `platctl ... | head -1` is not a bug (cli/output.ts).
  if (stdout === process.stdout) tolerateClosedPipe(stdout);
  if (stderr === process.stderr) tolerateClosedPipe(stderr);
  const verbs = options.verbs ?? VERBS;
  const width = Math.min(120, (stdout as { columns?: number }).columns ?? 100);
  const cwd = options.cwd ?? process.cwd();

  try {
    const parsed =
      fastPath(argv, verbs, cwd, { version: platctlVersion, shortcut: kubeconfigToken }) ??
      (await import('../config/command-line/parse.js')).parseCommandLine(argv, verbs, {
        version: platctlVersion(),
        width,
      });
    switch (parsed.type) {
      case 'error':
        return refuse(parsed.errors, stderr);
      case 'output':
        stdout.write(parsed.text);
        return EXIT.ok;
      case 'run':
        break;
    }
    const verb = await parsed.entry.load();
    const { args } = parsed;
    const env = options.env ?? process.env;
    const settings = envSettingErrors(env);
    if (settings.length > 0) {
      for (const error of settings) stderr.write(`platctl: ${error}.\n`);
      stderr.write('  Nothing was run.\n');
      return EXIT.usage;
    }
    const isTTY = Boolean((args.json === true ? stderr : stdout).isTTY);
    const io: CliIo = {
      stdout,
      stderr,
      env,
      cwd,
      signal: options.signal ?? new AbortController().signal,
      color: colorEnabled(env, isTTY, args.color as boolean | undefined),
    };
    return await verb.run(args, io);
  } catch (error) {
    stderr.write(bugReport(error, bugContext(argv)));
    return EXIT.bug;
  }
}

/**
 * An exception thrown outside `main`'s own try (a stream's error event, a timer, a promise nobody awaited) is a bug
 * too: the same report and exit code, instead of Node's default exit code 1, which would read as "a unit failed".
 */
export function exitOnUncaughtBug(argv: readonly string[]): void {
  process.on('uncaughtException', (error) => {
    process.stderr.write(bugReport(error, bugContext(argv)));
    process.exit(EXIT.bug);
  });
}
