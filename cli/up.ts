/**
 * `platctl up`: bring parked environments back from their park record, and judge the result by pod readiness.
 * Shares its flags, lock, rendering and exit codes with `platctl down` (cli/park-verb.ts).
 */
import { runParkVerb } from './park-verb.js';
import { withMetrics } from './metrics.js';
import { withTracing } from './tracing.js';
import { defineVerb } from './verb.js';
import { UP_GRAMMAR } from './commands/up.js';

export const upVerb = defineVerb(UP_GRAMMAR, (args, io) =>
  withTracing('up', args, io, (tracer) =>
    withMetrics('up', args, io, (metrics) => runParkVerb('up', args, io, metrics, tracer)),
  ),
);
