/** `platctl history`: its grammar (options, rules, examples); its code is cli/history.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';

export const HISTORY_GRAMMAR = defineGrammar({
  name: 'history',
  describe: 'Past bootstrap/teardown runs from the shared state (state.backend s3): verb, who, when, result, duration',
  globals: ['env', 'json'],
  options: {
    limit: { type: 'integer', value: 'N', min: 1, describe: 'At most this many runs (default 20)' },
  },
  examples: [
    ['platctl history', 'the last 20 runs, newest first'],
    ['platctl history --env platform --limit 5', 'the last 5 runs that touched platform'],
    ['platctl history --json', 'as JSON, one object per run'],
  ],
});
