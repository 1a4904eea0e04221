/**
 * `platctl up`: bring parked environments back from their park record, and judge the result by pod readiness.
 * Shares its flags, lock, rendering and exit codes with `platctl down` (cli/down.ts).
 */
import { parkOptions, runParkVerb } from './down.js';
import type { ParkArgs } from './down.js';
import { defineVerb } from './verb.js';

export const upVerb = defineVerb<ParkArgs>({
  command: 'up',
  describe: 'Unpark environments: restore the recorded node-group sizes, bastion, Karpenter; wait until pods are ready',
  builder: (y) =>
    parkOptions(y, 'up')
      .example('$0 up --env platform --dry-run', 'what up would restore, from the record')
      .example('$0 up', 'every environment with a park: entry')
      .example('$0 up --resume', 'finish an up that failed or was killed'),
  run: (args, io) => runParkVerb('up', args, io),
});
