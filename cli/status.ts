/**
 * `platctl status [--json]`: the last run's state, per unit (status, duration, last error line, log path) and in
 * counts. Exit 0 only when the last run completed every unit, so scripts can ask "is the platform up?".
 *
 * A state file that says `running` is believed only while the lock's holder lives: a platctl killed by `kill -9`, the
 * OOM killer or a power loss never wrote its end, and its run shows as interrupted (killed), not running.
 */
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { compareIds } from '../engine/graph.js';
import type { LockState } from '../engine/lock.js';
import { inspectLock, procMachine } from '../engine/lock.js';
import { countStatuses, renderStatus } from '../engine/reporters/summary.js';
import { makePaint } from '../engine/reporters/paint.js';
import type { RunState } from '../engine/state.js';
import { STATE_FILE, loadState } from '../engine/state.js';
import { findConfig } from '../config/find.js';
import { formatConfigErrors } from '../config/errors.js';
import { parkStatusJson, printParkStatus } from './park-status.js';
import { processAlive } from './signals.js';
import { EXIT, defineVerb } from './verb.js';

export const statusVerb = defineVerb({
  globals: ['json'],
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
    await printParkStatus(root, args.json === true, io);
    const loaded = await loadState(root);
    if (loaded.type === 'missing') {
      io.stderr.write(`platctl: no run recorded in ${root} (${STATE_FILE} is absent); run platctl bootstrap\n`);
      if (args.json) {
        const park = await parkStatusJson(root);
        io.stdout.write(`${JSON.stringify({ run: null, units: [], counts: null, complete: false, park })}\n`);
      }
      return EXIT.failed;
    }
    if (loaded.type === 'invalid') {
      io.stderr.write(`platctl: ${loaded.message}\n`);
      return EXIT.usage;
    }
    const recorded = loaded.state;
    const lock =
      recorded.status === 'running'
        ? await inspectLock(root, await procMachine({ pid: process.pid, host: hostname(), isAlive: processAlive }))
        : undefined;
    const live = lock?.type === 'held';
    const killed = recorded.status === 'running' && !live ? killedBecause(lock) : undefined;
    const state = killed === undefined ? recorded : asInterrupted(recorded);
    const counts = countStatuses(state);
    // An excluded unit needs nothing: Terragrunt's exclude block leaves it out, and it counts as applied.
    const complete =
      state.status === 'completed' && counts.completed + counts.excluded === Object.keys(state.units).length;
    if (args.json) {
      const { units, ...run } = state;
      io.stdout.write(
        `${JSON.stringify({
          run: { ...run, in_progress: live, ...(killed === undefined ? {} : { killed: true }) },
          units: Object.entries(units)
            .sort((a, b) => compareIds(a[0], b[0]))
            .map(([id, unit]) => ({ id, ...unit })),
          counts,
          complete,
          park: await parkStatusJson(root),
        })}\n`,
      );
    } else {
      io.stdout.write(renderStatus(state, makePaint(io.color), { live }));
      if (killed !== undefined) io.stdout.write(`The run did not end: platctl was killed (${killed}).\n`);
      if (state.status !== 'completed' && !live) {
        const config = args.config === undefined ? '' : ` --config ${found.path}`;
        io.stdout.write(`Resume with: platctl ${state.command} --resume${config}\n`);
      }
    }
    return complete ? EXIT.ok : EXIT.failed;
  },
});

/** Why the platctl of a run recorded `running` is known to be gone. */
function killedBecause(lock: LockState | undefined): string {
  if (lock === undefined || lock.type === 'free') return 'it left no lock behind';
  if (lock.type === 'stale') {
    return `pid ${lock.holder.pid} on ${lock.holder.host}, which held the lock, is gone: ${lock.why}`;
  }
  if (lock.type === 'unreadable') return `its lock cannot be read: ${lock.message}`;
  return 'its lock is held by another run';
}

/** The run as it really ended: interrupted, its running units too. The file itself is left as it is. */
function asInterrupted(state: Readonly<RunState>): RunState {
  const units: RunState['units'] = {};
  for (const [id, unit] of Object.entries(state.units)) {
    units[id] = unit.status === 'running' ? { ...unit, status: 'interrupted' } : unit;
  }
  return { ...state, status: 'interrupted', units };
}
