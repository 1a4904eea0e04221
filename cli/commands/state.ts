/** `platctl state`: its grammar (options, rules, examples); its code is cli/state.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';
/** engine/state.ts's STATE_FILE, spelt out: importing it would load the state's schema (and zod) for every command line. */
const STATE_FILE = '.platctl-state.json';

export const STATE_GRAMMAR = defineGrammar({
  name: 'state',
  describe: 'Move the run state between this checkout and the shared backend by hand (pull, push)',
  // Neither --env nor --json: it moves one state file, whole.
  globals: [],
  options: {},
  actions: {
    pull: { describe: `Copy the newest run from the shared backend into ${STATE_FILE} (the local one is kept aside)` },
    push: { describe: `Upload ${STATE_FILE} to the shared backend (unless a newer run of its verb is there)` },
  },
  examples: [
    ['platctl state pull', 'the shared last run, into this checkout'],
    ['platctl state push', "this checkout's last run, into the bucket"],
  ],
});
