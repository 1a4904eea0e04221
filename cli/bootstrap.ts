/**
 * `platctl bootstrap`: apply every selected unit in dependency order, as parallel as the graph allows, resumable
 * after a failure or an interruption. Its flags are `teardown`'s too, worded for each; both are wired by
 * `runWalkVerb` (cli/walk-verb.ts) and run by engine/walk-command.ts.
 */
import { withMetrics } from './metrics.js';
import { withTracing } from './tracing.js';
import { defineVerb } from './verb.js';
import { BOOTSTRAP_GRAMMAR } from './commands/bootstrap.js';
import { runWalkVerb } from './walk-verb.js';

export type { WalkVerbArgs } from './commands/shared.js';

export const bootstrapVerb = defineVerb(BOOTSTRAP_GRAMMAR, (args, io) =>
  withTracing('bootstrap', args, io, (tracer) =>
    withMetrics('bootstrap', args, io, (metrics) => runWalkVerb('bootstrap', args, io, { metrics, tracer })),
  ),
);
