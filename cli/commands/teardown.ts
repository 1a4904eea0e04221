/** `platctl teardown`: its grammar (options, rules, examples); its code is cli/teardown.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';
import { WALK_CONFLICTS, checkWalkArgs, walkImplies, walkVerbOptions } from './shared.js';

export const TEARDOWN_GRAMMAR = defineGrammar({
  name: 'teardown',
  describe: 'Destroy units in reverse dependency order, sparing the floor (teardown_skip); asks first unless --yes',
  globals: ['env', 'json'],
  options: walkVerbOptions('teardown'),
  conflicts: WALK_CONFLICTS,
  implies: walkImplies('teardown'),
  check: (args) => checkWalkArgs('teardown', args),
  examples: [
    ['platctl teardown --dry-run', 'the waves, in the order they would be destroyed'],
    ['platctl teardown --env preprod', 'destroy one environment (asks first)'],
    ['platctl teardown --yes --fail-fast', 'unattended, stopping at the first failure'],
  ],
});
