/** `platctl lockdown`: its grammar (options, rules, examples); its code is cli/lockdown.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';

export const LOCKDOWN_GRAMMAR = defineGrammar({
  name: 'lockdown',
  describe: 'Apply the lockdown steps on their own; --undo unlocks them in reverse; --dry-run prints the applies',
  options: {
    undo: { type: 'boolean', describe: 'Unlock: the steps in reverse order with their unlock_args' },
    'dry-run': { type: 'boolean', describe: 'Print every step and its exact command line, run nothing' },
  },
  // The steps name their own environment (lockdown.env), so --env would select nothing.
  globals: ['json'],
  examples: [
    ['platctl lockdown --dry-run', 'each lockdown step and the exact terragrunt command it runs'],
    ['platctl lockdown', 'lock down now (bootstrap does it after a complete run)'],
    ['platctl lockdown --undo', 'unlock, the steps in reverse (teardown does it first)'],
  ],
});
