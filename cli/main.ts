/**
 * The command line: global options, verb dispatch, colour and signal policy. This file and the verb modules are the
 * only code that reads `process.argv`/`process.env` or decides an exit code.
 */
import yargs from 'yargs';
import type { CommandModule } from 'yargs';
import type { CliIo, GlobalOptions } from './verb.js';
import { EXIT } from './verb.js';
import { VERBS } from './verbs.js';
import { platctlVersion } from './version.js';

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
}

/** Runs platctl with `argv` (without node and script) and returns the exit code. */
export async function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const signal = options.signal ?? new AbortController().signal;
  let exitCode: number = EXIT.ok;
  let failure: string | undefined;

  let parser = yargs()
    .scriptName('platctl')
    .usage('$0 <verb> [options]\n\nOrchestrate a Terragrunt-built AWS platform.')
    .option('config', { type: 'string', describe: 'Path to .platctl.yaml (default: search upward from the cwd)' })
    .option('env', { type: 'string', array: true, describe: 'Only this environment (repeatable)' })
    .option('json', { type: 'boolean', describe: 'Machine output on stdout; human text on stderr' })
    .option('color', { type: 'boolean', describe: 'Colour output (--no-color turns it off; NO_COLOR too)' })
    .option('verbose', { type: 'boolean', describe: 'More detail' })
    .strict()
    .demandCommand(1, 'Name a verb: see platctl --help')
    .recommendCommands()
    .help()
    .version(platctlVersion())
    .wrap(Math.min(120, (stdout as { columns?: number }).columns ?? 100))
    .exitProcess(false)
    .fail((message, error) => {
      if (error) throw error;
      failure = message;
    });

  for (const verb of VERBS) {
    const module: CommandModule<GlobalOptions, GlobalOptions> = {
      command: verb.command,
      describe: verb.describe,
      builder: (y) => verb.builder(y),
      handler: async (args) => {
        const isTTY = Boolean((args.json ? stderr : stdout).isTTY);
        const io: CliIo = { stdout, stderr, env, cwd, signal, color: colorEnabled(env, isTTY, args.color) };
        exitCode = await verb.run(args, io);
      },
    };
    parser = parser.command(module);
  }

  // --help/--version print and stop; yargs hands their text to the parse callback instead of printing it.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    stdout.write(`${platctlVersion()}\n`);
    return EXIT.ok;
  }
  let helpText = '';
  try {
    await parser.parseAsync([...argv], {}, (_err, _argv, output) => {
      helpText = output;
    });
  } catch (error) {
    stderr.write(`platctl: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.usage;
  }
  if (failure !== undefined) {
    if (helpText) stderr.write(`${helpText}\n`);
    else stderr.write(`platctl: ${failure}\n`);
    return EXIT.usage;
  }
  if (helpText) stdout.write(`${helpText}\n`);
  return exitCode;
}
