/**
 * `platctl down`: park environments' compute (the nightly cost lever). Its flags, lock, prompt and rendering are
 * shared with `platctl up` (cli/park-verb.ts); the sequences themselves are in park/.
 */
import { runParkVerb } from './park-verb.js';
import { withMetrics } from './metrics.js';
import { withTracing } from './tracing.js';
import { defineVerb } from './verb.js';
import { DOWN_GRAMMAR } from './commands/down.js';

export const downVerb = defineVerb(DOWN_GRAMMAR, (args, io) =>
  withTracing('down', args, io, (tracer) =>
    withMetrics('down', args, io, (metrics) => runParkVerb('down', args, io, metrics, tracer)),
  ),
);
