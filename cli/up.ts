/**
 * `platctl up`: bring parked environments back from their park record, and judge the result by pod readiness.
 * Shares its flags, lock, rendering and exit codes with `platctl down` (cli/park-verb.ts).
 */
import { parkOptions, runParkVerb } from './park-verb.js';
import { withMetrics } from './metrics.js';
import { withTracing } from './tracing.js';
import { defineVerb } from './verb.js';

export const upVerb = defineVerb({
  globals: ['env', 'json'],
  options: parkOptions('up'),
  examples: [
    ['platctl up --env platform --dry-run', 'what up would restore, from the record'],
    ['platctl up', 'every environment with a park: entry'],
    ['platctl up --resume', 'finish an up that failed or was killed'],
  ],
  run: (args, io) =>
    withTracing('up', args, io, (tracer) =>
      withMetrics('up', args, io, (metrics) => runParkVerb('up', args, io, metrics, tracer)),
    ),
});
