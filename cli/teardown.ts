/**
 * `platctl teardown`: destroy the selected units in reverse dependency order (dependents first), never touching the
 * floor (`units.<id>.teardown_skip` and everything it depends on). It asks for confirmation unless `--yes`, and
 * without a terminal to ask on it refuses unless `--yes`.
 */
import { createInterface } from 'node:readline';
import type { Paint } from '../engine/reporters/paint.js';
import type { ConfirmRequest } from '../engine/run.js';
import { runWalkVerb, walkVerbOptions } from './bootstrap.js';
import type { WalkVerbArgs } from './bootstrap.js';
import { defineVerb } from './verb.js';

/** Units listed by name in the prompt before "and N more". */
const LISTED = 15;

/**
 * Shows what will be destroyed on `output` and reads the answer from `input`; only `yes` confirms (a destroy is not
 * something a stray Enter or `y` should start).
 */
export async function confirmTeardown(
  request: ConfirmRequest,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  paint: Paint,
): Promise<boolean> {
  const listed = request.toRun.slice(0, LISTED).map((id) => `  - ${id}\n`);
  const more = request.toRun.length > LISTED ? [`  … and ${request.toRun.length - LISTED} more\n`] : [];
  const what = request.resuming ? `Resuming teardown ${request.resuming}: ` : '';
  output.write(
    `${what}${paint.red(paint.bold(`this destroys ${request.toRun.length} unit${request.toRun.length === 1 ? '' : 's'}`))} in ${request.envs.join(', ') || '(none)'}, dependents first:\n` +
      `${listed.join('')}${more.join('')}` +
      (request.kept.length > 0 ? `Kept (teardown floor, never destroyed): ${request.kept.join(', ')}\n` : ''),
  );
  if (request.toRun.length === 0) return true;
  const rl = createInterface({ input, output, terminal: false });
  try {
    const answer = await new Promise<string | undefined>((resolve) => {
      rl.question('Type "yes" to destroy: ', resolve);
      rl.once('close', () => resolve(undefined));
    });
    return answer?.trim() === 'yes';
  } finally {
    rl.close();
  }
}

export const teardownVerb = defineVerb<WalkVerbArgs>({
  command: 'teardown',
  describe: 'Destroy units in reverse dependency order, sparing the floor (teardown_skip); asks first unless --yes',
  builder: (y) => walkVerbOptions(y, 'teardown'),
  run: (args, io) =>
    runWalkVerb('teardown', args, io, {
      precheck: () =>
        args.yes || process.stdin.isTTY
          ? undefined
          : 'teardown destroys infrastructure and there is no terminal to confirm on; pass --yes to run it unattended',
      ...(args.yes
        ? {}
        : {
            confirm: (request: ConfirmRequest, paint: Paint) =>
              confirmTeardown(request, process.stdin, io.stderr, paint),
          }),
    }),
});
