/** `platctl down`: its grammar (options, rules, examples); its code is cli/down.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';
import { parkOptions } from './shared.js';

export const DOWN_GRAMMAR = defineGrammar({
  name: 'down',
  describe: 'Park environments: scale compute to zero, record first, verify through AWS (from cron)',
  globals: ['env', 'json'],
  options: parkOptions('down'),
  examples: [
    ['platctl down --env platform --dry-run', 'what down would touch, as it is now'],
    ['platctl down --yes', 'every environment with a park: entry (cron)'],
    ['platctl down --resume --yes', 'finish a down that failed or was killed'],
    [
      'platctl down --env platform --restore-size system=2/4/3 --restore-size workers=1/6/2',
      'groups already at 0 and no record: the sizes up restores (min/max/desired)',
    ],
  ],
});
