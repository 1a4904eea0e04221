/** `platctl config`: its grammar (options, rules, examples); its code is cli/config.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';

export const CONFIG_GRAMMAR = defineGrammar({
  name: 'config',
  describe: 'The configuration file: print its JSON Schema (schema) or validate it (check)',
  globals: ['json'],
  options: {},
  actions: {
    schema: { describe: 'Print the JSON Schema of .platctl.yaml (for editors)' },
    check: { describe: 'Validate the configuration, including the environment directories' },
  },
  examples: [
    ['platctl config schema > .platctl.schema.json', 'Write the schema for an editor'],
    ['platctl config check', 'Validate the nearest .platctl.yaml'],
  ],
});
