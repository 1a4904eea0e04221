/**
 * Three command lines answered without yargs, because they are run far more often than typed: `platctl --version`
 * (scripts, bug reports); `platctl kubeconfig token --env E [--config FILE]`, which kubectl runs before every
 * command through the kubeconfig's exec plugin; and `platctl --get-yargs-completions ...`, which the completion
 * script (`platctl completion`, yargs' own) runs on every Tab. Loading yargs costs more than any of them needs.
 *
 * Only exactly these shapes: anything else (a typo, another option, `--env` twice) goes to yargs, which understands
 * the whole command line or refuses it; so a command line never runs here that yargs would not run the same way.
 */
import type { ParseOutcome } from './parse.js';
import { completions } from './complete.js';
import { platctlVersion } from './version.js';
import type { VerbEntry } from './verbs.js';
import { tokenArgs } from './token-fast.js';

/** The outcome for `argv` when it is one of the fast command lines, else undefined (yargs reads it). */
export function fastPath(argv: readonly string[], verbs: readonly VerbEntry[], cwd: string): ParseOutcome | undefined {
  if (argv[0] === '--get-yargs-completions') {
    // The script passes every word of the line, `platctl` first.
    const words = completions(argv.slice(2), verbs, cwd);
    return { type: 'output', text: words.length > 0 ? `${words.join('\n')}\n` : '' };
  }
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    return { type: 'output', text: `${platctlVersion()}\n` };
  }
  const token = tokenArgs(argv);
  const entry = verbs.find((v) => v.name === 'kubeconfig');
  if (token === undefined || entry === undefined) return undefined;
  return {
    type: 'run',
    entry,
    args: { action: 'token', env: [token.env], ...(token.config === undefined ? {} : { config: token.config }) },
  };
}
