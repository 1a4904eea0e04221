/**
 * `platctl down`: park environments' compute (the nightly cost lever). Its flags, lock, prompt and rendering are
 * shared with `platctl up` (cli/park-verb.ts); the sequences themselves are in park/.
 */
import { parkOptions, runParkVerb } from './park-verb.js';
import { withMetrics } from './metrics.js';
import { withTracing } from './tracing.js';
import { defineVerb } from './verb.js';

export const downVerb = defineVerb({
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
  run: (args, io) =>
    withTracing('down', args, io, (tracer) =>
      withMetrics('down', args, io, (metrics) => runParkVerb('down', args, io, metrics, tracer)),
    ),
});
