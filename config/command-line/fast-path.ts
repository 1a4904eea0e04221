/**
 * Four command lines answered without yargs, because they are run far more often than typed: `platctl --version`
 * (scripts, bug reports); `platctl kubeconfig token --env E [--config FILE]`, which kubectl runs before every
 * command through the kubeconfig's exec plugin (recognised by the caller: `FastPathPorts.shortcut`);
 * `platctl --get-yargs-completions ...`, which the completion script (`platctl completion`, yargs' own) runs on
 * every Tab; and a verb alone (`platctl status`, which people and monitoring run over and over), which has nothing
 * to parse. Loading and running yargs costs more than any of them needs: about a sixth of `status`'s start-up.
 *
 * Only exactly these shapes: anything else (a typo, another option, `--env` twice) goes to yargs, which understands
 * the whole command line or refuses it; so a command line never runs here that yargs would not run the same way
 * (`cli-fast-path.test.ts` compares the two for every verb).
 */
import type { ParseOutcome } from './parse.js';
import type { CommandVerb, OptionSpecs, ParsedArgs } from './grammar.js';
import { GLOBAL_OPTIONS } from './grammar.js';
import { completions } from './complete.js';

/** What the fast path is given by its caller: platctl's version, and the caller's own fast command line. */
export interface FastPathPorts {
  /** Read only for `--version`; without it `--version` goes to yargs. */
  readonly version?: () => string;
  /** The verb and arguments of a command line the caller recognises exactly (`kubeconfig token --env E`). */
  readonly shortcut?: (argv: readonly string[]) => { readonly verb: string; readonly args: ParsedArgs } | undefined;
}

/** The outcome for `argv` when it is one of the fast command lines, else undefined (yargs reads it). */
export function fastPath<V extends CommandVerb>(
  argv: readonly string[],
  verbs: readonly V[],
  cwd: string,
  ports: FastPathPorts = {},
): ParseOutcome<V> | undefined {
  if (argv[0] === '--get-yargs-completions') {
    // The script passes every word of the line, `platctl` first.
    const words = completions(argv.slice(2), verbs, cwd);
    return { type: 'output', text: words.length > 0 ? `${words.join('\n')}\n` : '' };
  }
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V') && ports.version !== undefined) {
    return { type: 'output', text: `${ports.version()}\n` };
  }
  const bare = bareVerb(argv, verbs);
  if (bare !== undefined) return bare;
  const shortcut = ports.shortcut?.(argv);
  const entry = verbs.find((v) => v.name === shortcut?.verb);
  if (shortcut === undefined || entry === undefined) return undefined;
  return { type: 'run', entry, args: shortcut.args };
}

/**
 * A verb with nothing after it: the arguments yargs and `checkArgs` (parse.ts) give it, which are the options'
 * defaults and the default action. Anything unusual (a verb that needs an action, a default its action does not
 * accept, rules that refuse the bare form) goes to yargs, for its message.
 */
function bareVerb<V extends CommandVerb>(argv: readonly string[], verbs: readonly V[]): ParseOutcome<V> | undefined {
  if (argv.length !== 1) return undefined;
  const entry = verbs.find((v) => v.name === argv[0]);
  if (entry === undefined) return undefined;
  const { grammar } = entry;
  if (grammar.actions !== undefined && grammar.defaultAction === undefined) return undefined;
  const args: ParsedArgs = {};
  const specs: OptionSpecs = { ...GLOBAL_OPTIONS, ...grammar.options };
  for (const [name, spec] of Object.entries(specs)) {
    if ((spec.type !== 'boolean' && spec.type !== 'choice') || spec.default === undefined) continue;
    if (name.startsWith('no-') || name in GLOBAL_OPTIONS) return undefined;
    args[name] = spec.default;
  }
  if (grammar.defaultAction !== undefined) {
    const accepted = new Set<string>(grammar.actions?.[grammar.defaultAction]?.accepts ?? []);
    if (Object.keys(args).some((name) => !accepted.has(name))) return undefined;
    args.action = grammar.defaultAction;
  }
  if (grammar.check?.(args as never) !== undefined) return undefined;
  return { type: 'run', entry, args };
}
