/**
 * `platctl teardown`: destroy the selected units in reverse dependency order (dependents first), never touching the
 * floor (`units.<id>.teardown_skip` and everything it depends on). It asks for confirmation unless `--yes`, and
 * without a terminal to ask on it refuses unless `--yes`.
 */
import { createInterface } from 'node:readline';
import type { Paint } from '../engine/reporters/paint.js';
import { renderTeardownConfirm } from '../engine/reporters/plan.js';
import type { ConfirmRequest } from '../engine/run.js';
import type { WalkVerbArgs } from './commands/shared.js';
import type { MetricsSink } from '../engine/metrics-sink.js';
import type { RunTracer } from '../engine/tracing.js';
import { unattendedTeardown } from '../engine/walk-request.js';
import { withMetrics } from './metrics.js';
import { withTracing } from './tracing.js';
import { runWalkVerb } from './walk-verb.js';
import { clearParkRecordsAfterTeardown } from './park-status.js';
import type { CliIo, GlobalOptions } from './verb.js';
import { defineVerb } from './verb.js';
import { TEARDOWN_GRAMMAR } from './commands/teardown.js';

/**
 * Shows what will be destroyed on `output` (engine/reporters/plan.ts words it) and reads the answer from `input`;
 * only `yes` confirms (a destroy is not something a stray Enter or `y` should start).
 */
export async function confirmTeardown(
  request: ConfirmRequest,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  paint: Paint,
  signal?: AbortSignal,
): Promise<boolean> {
  output.write(renderTeardownConfirm(request, paint));
  if (request.toRun.length === 0) return true;
  if (signal?.aborted) return false;
  const rl = createInterface({ input, output, terminal: false });
  // Ctrl-C at the prompt (the first signal aborts, it does not kill) is a "no".
  const onAbort = (): void => rl.close();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const answer = await new Promise<string | undefined>((resolve) => {
      rl.question('Type "yes" to destroy: ', resolve);
      rl.once('close', () => resolve(undefined));
    });
    return answer?.trim() === 'yes';
  } finally {
    signal?.removeEventListener('abort', onAbort);
    rl.close();
  }
}

/** Asks on the terminal, then lets go of stdin: a paused TTY stream would still keep platctl alive. */
async function confirmOnTerminal(request: ConfirmRequest, io: CliIo, paint: Paint): Promise<boolean> {
  try {
    return await confirmTeardown(request, process.stdin, io.stderr, paint, io.signal);
  } finally {
    process.stdin.pause();
    process.stdin.unref();
  }
}

export const teardownVerb = defineVerb(TEARDOWN_GRAMMAR, (args, io) =>
  withTracing('teardown', args, io, (tracer) =>
    withMetrics('teardown', args, io, (metrics) => runTeardown(args, io, metrics, tracer)),
  ),
);

function runTeardown(
  args: WalkVerbArgs & GlobalOptions,
  io: CliIo,
  metrics: MetricsSink,
  tracer: RunTracer,
): Promise<number> {
  return runWalkVerb('teardown', args, io, {
    metrics,
    tracer,
    // Nothing of an environment torn down as a whole is parked any more.
    completed: (state, { root, config, discovery }, out) =>
      clearParkRecordsAfterTeardown(root, config, discovery.graph, state, io, out),
    precheck: () => unattendedTeardown(args, process.stdin.isTTY === true),
    ...(args.yes
      ? {}
      : {
          confirm: (request: ConfirmRequest, paint: Paint) => confirmOnTerminal(request, io, paint),
        }),
  });
}
