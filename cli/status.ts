/**
 * `platctl status [--json]`: the last run's state, per unit (status, duration, last error line, log path) and in
 * counts. Exit 0 only when the last run completed every unit, so scripts can ask "is the platform up?".
 */
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { compareIds } from '../engine/graph.js';
import { lockHeld } from '../engine/lock.js';
import { countStatuses, renderStatus } from '../engine/reporters/summary.js';
import { makePaint } from '../engine/reporters/paint.js';
import { STATE_FILE, loadState } from '../engine/state.js';
import { findConfig } from '../config/find.js';
import { formatConfigErrors } from '../config/errors.js';
import { processAlive } from './signals.js';
import { EXIT, defineVerb } from './verb.js';

export const statusVerb = defineVerb({
  options: {},
  examples: [
    ['platctl status', 'the last run, unit by unit'],
    ['platctl status --json', 'the same as JSON, for scripts'],
  ],
  run: async (args, io) => {
    const found = await findConfig(io.cwd, args.config);
    if (!found.ok) {
      io.stderr.write(formatConfigErrors([found.error], io.cwd));
      return EXIT.usage;
    }
    const root = dirname(found.path);
    const loaded = await loadState(root);
    if (loaded.type === 'missing') {
      io.stderr.write(`platctl: no run recorded in ${root} (${STATE_FILE} is absent); run platctl bootstrap\n`);
      if (args.json) io.stdout.write(`${JSON.stringify({ run: null, units: [], counts: null, complete: false })}\n`);
      return EXIT.failed;
    }
    if (loaded.type === 'invalid') {
      io.stderr.write(`platctl: ${loaded.message}\n`);
      return EXIT.usage;
    }
    const state = loaded.state;
    const live =
      state.status === 'running' &&
      (await lockHeld(root, { pid: process.pid, host: hostname(), isAlive: processAlive }));
    const counts = countStatuses(state);
    const complete = state.status === 'completed' && counts.completed === Object.keys(state.units).length;
    if (args.json) {
      const { units, ...run } = state;
      io.stdout.write(
        `${JSON.stringify({
          run: { ...run, in_progress: live },
          units: Object.entries(units)
            .sort((a, b) => compareIds(a[0], b[0]))
            .map(([id, unit]) => ({ id, ...unit })),
          counts,
          complete,
        })}\n`,
      );
    } else {
      io.stdout.write(renderStatus(state, makePaint(io.color), { live }));
      if (state.status !== 'completed' && !live) {
        const config = args.config === undefined ? '' : ` --config ${found.path}`;
        io.stdout.write(`Resume with: platctl ${state.command} --resume${config}\n`);
      }
    }
    return complete ? EXIT.ok : EXIT.failed;
  },
});
