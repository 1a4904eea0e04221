/** `platctl bootstrap`: its grammar (options, rules, examples); its code is cli/bootstrap.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';
import { WALK_CONFLICTS, checkWalkArgs, walkImplies, walkVerbOptions } from './shared.js';

export const BOOTSTRAP_GRAMMAR = defineGrammar({
  name: 'bootstrap',
  describe: 'Apply every unit in dependency order, in parallel where the graph allows; --resume after a failure',
  globals: ['env', 'json'],
  options: walkVerbOptions('bootstrap'),
  conflicts: WALK_CONFLICTS,
  implies: walkImplies('bootstrap'),
  check: (args) => checkWalkArgs('bootstrap', args),
  examples: [
    ['platctl bootstrap --dry-run', 'the waves, in the order they would apply'],
    ['platctl bootstrap --unit platform/eks --with-deps', 'platform/eks and everything it needs'],
    ['platctl bootstrap --resume', 'continue after a failure or an interruption'],
  ],
});
