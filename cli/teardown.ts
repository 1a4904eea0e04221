/**
 * `platctl teardown`: destroy the selected units in reverse dependency order (dependents first), never touching the
 * floor (`units.<id>.teardown_skip` and everything it depends on). It asks for confirmation unless `--yes`, and
 * without a terminal to ask on it refuses unless `--yes` (engine/walk-command.ts decides both).
 */
import type { Paint } from '../engine/reporters/paint.js';
import { TEARDOWN_CONFIRM, renderTeardownConfirm } from '../engine/reporters/plan.js';
import type { ConfirmRequest } from '../engine/run.js';
import { withMetrics } from './metrics.js';
import { withTracing } from './tracing.js';
import { runWalkVerb } from './walk-verb.js';
import { askLine, releaseStdin } from './prompt.js';
import { clearParkRecordsAfterTeardown } from './park-status.js';
import { defineVerb } from './verb.js';
import { TEARDOWN_GRAMMAR } from './commands/teardown.js';

/**
 * Shows what will be destroyed on `output` and reads the answer from `input` (engine/reporters/plan.ts words it and
 * says which answer confirms).
 */
export async function confirmTeardown(
  request: ConfirmRequest,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  paint: Paint,
  signal?: AbortSignal,
): Promise<boolean> {
  output.write(renderTeardownConfirm(request, paint));
  if (!TEARDOWN_CONFIRM.needed(request)) return true;
  if (signal?.aborted) return false;
  return TEARDOWN_CONFIRM.confirmed(await askLine(TEARDOWN_CONFIRM.question, input, output, signal));
}

export const teardownVerb = defineVerb(TEARDOWN_GRAMMAR, (args, io) =>
  withTracing('teardown', args, io, (tracer) =>
    withMetrics('teardown', args, io, (metrics) =>
      runWalkVerb('teardown', args, io, {
        metrics,
        tracer,
        // Nothing of an environment torn down as a whole is parked any more.
        completed: (state, { root, config, discovery }, out) =>
          clearParkRecordsAfterTeardown(root, config, discovery.graph, state, io, out),
        // Asked on the terminal (stdin, the question on stderr), then stdin is let go of.
        confirm: (request, paint) =>
          confirmTeardown(request, process.stdin, io.stderr, paint, io.signal).finally(releaseStdin),
      }),
    ),
  ),
);
