/** `platctl access`: its grammar (options, rules, examples); its code is cli/access.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';
import type { OptionSpecs } from '../../config/command-line/grammar.js';

export const ACCESS_OPTIONS = {
  prune: {
    type: 'boolean',
    describe: 'Also delete entries platctl made that config no longer lists, and policies it no longer gives',
  },
  'dry-run': { type: 'boolean', describe: 'Print the changes without making them' },
} as const satisfies OptionSpecs;

export const ACCESS_GRAMMAR = defineGrammar({
  name: 'access',
  describe: 'Reconcile EKS access entries with access.<env>.principals (list, --prune, --dry-run)',
  globals: ['env', 'json'],
  options: ACCESS_OPTIONS,
  actions: {
    reconcile: {
      describe: 'Create and associate what config lists (the default)',
      accepts: ['prune', 'dry-run'],
    },
    list: { describe: 'Show the entries of every cluster' },
  },
  defaultAction: 'reconcile',
  examples: [
    ['platctl access --dry-run', 'what would change, per environment'],
    ['platctl access --env platform --prune', 'make platform match config exactly (entries platctl made)'],
    ['platctl access list --json', 'every entry of every cluster, machine-readable'],
  ],
});
