/**
 * `platctl bootstrap`: apply every selected unit in dependency order, as parallel as the graph allows, resumable
 * after a failure or an interruption. Its flags are `teardown`'s too, worded for each; the run itself is
 * `runWalkVerb` (cli/walk-verb.ts) and the flags cli/walk-args.ts, which both share.
 */
import { withMetrics } from './metrics.js';
import { withTracing } from './tracing.js';
import { defineVerb } from './verb.js';
import { checkWalkArgs, walkVerbOptions } from './walk-args.js';
import { runWalkVerb } from './walk-verb.js';

export const bootstrapVerb = defineVerb({
  globals: ['env', 'json'],
  options: walkVerbOptions('bootstrap'),
  check: (args) => checkWalkArgs('bootstrap', args),
  examples: [
    ['platctl bootstrap --dry-run', 'the waves, in the order they would apply'],
    ['platctl bootstrap --unit platform/eks --with-deps', 'platform/eks and everything it needs'],
    ['platctl bootstrap --resume', 'continue after a failure or an interruption'],
  ],
  run: (args, io) =>
    withTracing('bootstrap', args, io, (tracer) =>
      withMetrics('bootstrap', args, io, (metrics) => runWalkVerb('bootstrap', args, io, { metrics, tracer })),
    ),
});
