/**
 * Every verb platctl knows, in the order `platctl --help` lists them.
 *
 * Adding a verb is one entry here: its name, the one-line description `platctl --help` shows, and a `load` that
 * imports its module (`cli/<verb>.ts`, exporting a `defineVerb({ options, run, ... })`). The import is dynamic on
 * purpose: a verb's code (and the AWS SDK, the Kubernetes client, the HCL parser it pulls in) is loaded only when
 * that verb runs, so `platctl --help`, `--version` and every other verb start fast. Keep this file free of static
 * imports of verb modules.
 */
import type { Verb } from './verb.js';

export interface VerbEntry {
  readonly name: string;
  /** One line, for `platctl --help` and the top of `platctl <verb> --help`. */
  readonly describe: string;
  readonly load: () => Promise<Verb>;
}

export const VERBS: readonly VerbEntry[] = [
  {
    name: 'graph',
    describe: 'Show the discovered unit graph and its waves',
    load: async () => (await import('./graph.js')).graphVerb,
  },
  {
    name: 'bootstrap',
    describe: 'Apply every unit in dependency order, in parallel where the graph allows; --resume after a failure',
    load: async () => (await import('./bootstrap.js')).bootstrapVerb,
  },
  {
    name: 'teardown',
    describe: 'Destroy units in reverse dependency order, sparing the floor (teardown_skip); asks first unless --yes',
    load: async () => (await import('./teardown.js')).teardownVerb,
  },
  {
    name: 'lockdown',
    describe: 'Apply the lockdown steps on their own; --undo unlocks them in reverse; --dry-run prints the applies',
    load: async () => (await import('./lockdown.js')).lockdownVerb,
  },
  {
    name: 'status',
    describe:
      "The last bootstrap/teardown run and the park state: each unit's status, duration, error and log; exit 0 if all is well, 4 if parked",
    load: async () => (await import('./status.js')).statusVerb,
  },
  {
    name: 'history',
    describe:
      'Past bootstrap/teardown runs from the shared state (state.backend s3): verb, who, when, result, duration',
    load: async () => (await import('./history.js')).historyVerb,
  },
  {
    name: 'report',
    describe:
      'Draw a run as one self-contained HTML page (timeline, critical path, parallelism, history); --park for down/up',
    load: async () => (await import('./report.js')).reportVerb,
  },
  {
    name: 'validate',
    describe: 'Health probe: credentials, deployer role and state bucket first, then every unit and endpoint',
    load: async () => (await import('./validate.js')).validateVerb,
  },
  {
    name: 'kubeconfig',
    describe: 'Write kubeconfig contexts for the clusters (kubectl gets EKS tokens from platctl, no aws CLI)',
    load: async () => (await import('./kubeconfig.js')).kubeconfigVerb,
  },
  {
    name: 'access',
    describe: 'Reconcile EKS access entries with access.<env>.principals (list, --prune, --dry-run)',
    load: async () => (await import('./access.js')).accessVerb,
  },
  {
    name: 'down',
    describe: 'Park environments: scale compute to zero, record first, verify through AWS (from cron)',
    load: async () => (await import('./down.js')).downVerb,
  },
  {
    name: 'up',
    describe: 'Unpark environments from their park record; done when the pods are ready',
    load: async () => (await import('./up.js')).upVerb,
  },
  {
    name: 'state',
    describe: 'Move the run state between this checkout and the shared backend by hand (pull, push)',
    load: async () => (await import('./state.js')).stateVerb,
  },
  {
    name: 'config',
    describe: 'The configuration file: print its JSON Schema (schema) or validate it (check)',
    load: async () => (await import('./config.js')).configVerb,
  },
];
