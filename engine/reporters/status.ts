/**
 * `platctl status`'s output around the unit table (`summary.ts`'s `renderStatus`): the JSON document, how a killed run
 * and its resume command read, and what is said when no run is recorded. The park state is rendered by park/ and
 * passed in as it is.
 */
import { compareIds } from '../graph.js';
import type { RunView } from '../status-view.js';
import { STATE_FILE } from '../state.js';
import type { Paint } from './paint.js';
import { renderStatus } from './summary.js';

/** `status --json` of a recorded run: the run (with `in_progress`, and `killed` when it was), units by id, counts. */
export function statusJson(view: RunView, park: unknown): string {
  const { units, ...run } = view.state;
  return `${JSON.stringify({
    run: { ...run, in_progress: view.live, ...(view.killed === undefined ? {} : { killed: true }) },
    units: Object.entries(units)
      .sort((a, b) => compareIds(a[0], b[0]))
      .map(([id, unit]) => ({ id, ...unit })),
    counts: view.counts,
    complete: view.complete,
    park,
  })}\n`;
}

/** `status --json` when no run is recorded. */
export function noRunJson(park: unknown): string {
  return `${JSON.stringify({ run: null, units: [], counts: null, complete: false, park })}\n`;
}

/**
 * The run's unit table, how a killed run is known to be gone, and the command that resumes a run that neither
 * completed nor runs now (`configPath`: the `--config` the user named, repeated in it).
 */
export function renderRunStatus(view: RunView, paint: Paint, configPath: string | undefined): string {
  const { state, live, killed } = view;
  let out = renderStatus(state, paint, { live });
  if (killed !== undefined) out += `The run did not end: platctl was killed (${killed}).\n`;
  if (state.status !== 'completed' && !live) {
    const config = configPath === undefined ? '' : ` --config ${configPath}`;
    // --env names which run to resume (the shared backend keeps many: docs/state.md).
    const envs = state.args.env.map((env) => ` --env ${env}`).join('');
    out += `Resume with: platctl ${state.command} --resume${envs}${config}\n`;
  }
  return out;
}

/** Where status looked for a run it did not find: the shared state, or the checkout's state file. */
export function noRunWhere(fromShared: boolean, root: string): string {
  return fromShared ? 'in the shared state (state.bucket)' : `in ${root} (${STATE_FILE} is absent)`;
}

/**
 * No bootstrap or teardown run is recorded `where`: what to run. bootstrap refuses a parked environment, so with
 * `parked` environments the advice is up.
 */
export function noRunMessage(where: string, parked: readonly string[]): string {
  return parked.length > 0
    ? `platctl: no bootstrap or teardown run recorded ${where}; ${parked.join(', ')} ` +
        `${parked.length === 1 ? 'is' : 'are'} parked: platctl up ${parked.map((env) => `--env ${env}`).join(' ')} ` +
        `brings ${parked.length === 1 ? 'it' : 'them'} back\n`
    : `platctl: no run recorded ${where}; run platctl bootstrap\n`;
}
