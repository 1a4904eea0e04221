/** `platctl graph`: its grammar (options, rules, examples); its code is cli/graph.ts, loaded only to run it. */
import { GRAPH_FORMATS } from '../../discover/graph-format.js';
import { defineGrammar } from '../../config/command-line/grammar.js';

export const GRAPH_GRAMMAR = defineGrammar({
  name: 'graph',
  describe: 'Show the discovered unit graph and its waves',
  globals: ['env', 'json'],
  options: {
    format: { type: 'choice', choices: GRAPH_FORMATS, default: 'text', describe: 'Output format' },
    unit: { type: 'string', value: 'ID', repeatable: true, describe: 'Only this unit and what it needs (repeatable)' },
    reverse: { type: 'boolean', default: false, describe: 'Teardown order: edges turned around' },
    'allow-unresolved': {
      type: 'boolean',
      default: false,
      describe: 'Warn, not fail, on expressions that need a real run (run_cmd, outputs, AWS)',
    },
  },
  examples: [
    ['platctl graph --config examples/platform/.platctl.yaml', 'waves as text'],
    ['platctl graph --format json --env platform', 'machine-readable graph of one environment'],
    ['platctl graph --unit platform/eks --format dot | dot -Tsvg > eks.svg', 'what platform/eks needs'],
  ],
});
