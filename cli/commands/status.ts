/** `platctl status`: its grammar (options, rules, examples); its code is cli/status.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';

export const STATUS_GRAMMAR = defineGrammar({
  name: 'status',
  describe:
    "The last bootstrap/teardown run and the park state: each unit's status, duration, error and log; exit 0 if all is well, 4 if parked",
  globals: ['json'],
  options: {
    run: {
      type: 'string',
      value: 'RUN_ID',
      describe: 'An earlier run (platctl history lists them); needs state.backend s3 unless it is the last run',
    },
  },
  examples: [
    ['platctl status', 'the last run, unit by unit'],
    ['platctl status --json', 'the same as JSON, for scripts'],
    ['platctl status --run 20260129T101500Z-3fa2c1', 'an earlier run, from the shared state'],
  ],
});
