/**
 * Every verb platctl knows, in the order `platctl --help` lists them.
 *
 * Adding a verb is one entry here: its grammar (`cli/commands/<verb>.ts`: name, one-line description, options,
 * rules; light, loaded for every command line and for completion) and a `load` that imports its code
 * (`cli/<verb>.ts`, exporting a `defineVerb(grammar, run)`). The import is dynamic on purpose: a verb's code (and the
 * AWS SDK, the Kubernetes client, the HCL parser it pulls in) is loaded only when that verb runs, so `platctl --help`,
 * `--version`, completion and every other verb start fast. Keep this file free of static imports of verb code.
 */
import type { CommandVerb, OptionSpecs, VerbGrammar } from '../config/command-line/grammar.js';
import type { Verb } from './verb.js';
import { GRAPH_GRAMMAR } from './commands/graph.js';
import { BOOTSTRAP_GRAMMAR } from './commands/bootstrap.js';
import { TEARDOWN_GRAMMAR } from './commands/teardown.js';
import { LOCKDOWN_GRAMMAR } from './commands/lockdown.js';
import { STATUS_GRAMMAR } from './commands/status.js';
import { HISTORY_GRAMMAR } from './commands/history.js';
import { REPORT_GRAMMAR } from './commands/report.js';
import { VALIDATE_GRAMMAR } from './commands/validate.js';
import { KUBECONFIG_GRAMMAR } from './commands/kubeconfig.js';
import { ACCESS_GRAMMAR } from './commands/access.js';
import { DOWN_GRAMMAR } from './commands/down.js';
import { UP_GRAMMAR } from './commands/up.js';
import { STATE_GRAMMAR } from './commands/state.js';
import { CONFIG_GRAMMAR } from './commands/config.js';

/** A verb as the command line knows it (name, one line for `--help`, grammar), and how to load its code. */
export interface VerbEntry extends CommandVerb {
  readonly load: () => Promise<Verb>;
}

/** A verb's entry; its grammar typed loosely here (the parser checks arguments against it). */
function entry<O extends OptionSpecs, A extends string>(
  grammar: VerbGrammar<O, A>,
  load: () => Promise<Verb>,
): VerbEntry {
  return { name: grammar.name, describe: grammar.describe, grammar: grammar as unknown as VerbGrammar, load };
}

export const VERBS: readonly VerbEntry[] = [
  entry(GRAPH_GRAMMAR, async () => (await import('./graph.js')).graphVerb),
  entry(BOOTSTRAP_GRAMMAR, async () => (await import('./bootstrap.js')).bootstrapVerb),
  entry(TEARDOWN_GRAMMAR, async () => (await import('./teardown.js')).teardownVerb),
  entry(LOCKDOWN_GRAMMAR, async () => (await import('./lockdown.js')).lockdownVerb),
  entry(STATUS_GRAMMAR, async () => (await import('./status.js')).statusVerb),
  entry(HISTORY_GRAMMAR, async () => (await import('./history.js')).historyVerb),
  entry(REPORT_GRAMMAR, async () => (await import('./report.js')).reportVerb),
  entry(VALIDATE_GRAMMAR, async () => (await import('./validate.js')).validateVerb),
  entry(KUBECONFIG_GRAMMAR, async () => (await import('./kubeconfig.js')).kubeconfigVerb),
  entry(ACCESS_GRAMMAR, async () => (await import('./access.js')).accessVerb),
  entry(DOWN_GRAMMAR, async () => (await import('./down.js')).downVerb),
  entry(UP_GRAMMAR, async () => (await import('./up.js')).upVerb),
  entry(STATE_GRAMMAR, async () => (await import('./state.js')).stateVerb),
  entry(CONFIG_GRAMMAR, async () => (await import('./config.js')).configVerb),
];
