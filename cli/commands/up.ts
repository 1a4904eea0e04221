/** `platctl up`: its grammar (options, rules, examples); its code is cli/up.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';
import { parkOptions } from './shared.js';

export const UP_GRAMMAR = defineGrammar({
  name: 'up',
  describe: 'Unpark environments from their park record; done when the pods are ready',
  globals: ['env', 'json'],
  options: parkOptions('up'),
  examples: [
    ['platctl up --env platform --dry-run', 'what up would restore, from the record'],
    ['platctl up', 'every environment with a park: entry'],
    ['platctl up --resume', 'finish an up that failed or was killed'],
  ],
});
