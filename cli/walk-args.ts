/**
 * The flags of the walk verbs, `bootstrap` and `teardown` (worded for each), and the rules between them. Lives with
 * the walk (cli/walk-verb.ts runs it), not in either verb, so that no verb imports the other.
 */
import type { RunCommand } from '../engine/unit-status.js';
import type { ArgsOf, OptionSpecs } from './args.js';
import type { GlobalOptions } from './verb.js';
import { METRICS_OPTION } from './metrics.js';
import { TRACE_OPTION } from './tracing.js';

/** The options shared by `bootstrap` and `teardown`, worded for each. */
export function walkVerbOptions(command: RunCommand) {
  const order = command === 'bootstrap' ? 'dependency order' : 'reverse dependency order';
  return {
    'dry-run': { type: 'boolean', describe: `Print the waves in ${order} and stop` },
    resume: { type: 'boolean', describe: `Continue the last ${command}: completed units are not run again` },
    'break-lock': {
      type: 'boolean',
      describe: 'With state.backend s3: take over an environment lock whose holder stopped renewing it (stale only)',
    },
    force: {
      type: 'boolean',
      describe:
        command === 'bootstrap'
          ? 'With --resume: continue even though the graph changed; also: bootstrap a parked environment'
          : 'With --resume: continue even though the graph changed',
    },
    unit: { type: 'string', value: 'ID', repeatable: true, describe: 'Only this unit id (repeatable)' },
    'with-deps': {
      type: 'boolean',
      describe:
        command === 'bootstrap'
          ? 'With --unit: also every unit the selected ones depend on'
          : 'With --unit: also every unit that depends on the selected ones',
    },
    parallelism: { type: 'integer', value: 'N', min: 1, describe: 'Units run at once (default: parallelism.apply, 4)' },
    'fail-fast': { type: 'boolean', describe: 'Start nothing new after the first failure' },
    yes: {
      type: 'boolean',
      describe: command === 'teardown' ? 'Do not ask for confirmation (required without a terminal)' : 'Assume yes',
    },
    lockdown: {
      type: 'boolean',
      describe:
        command === 'bootstrap'
          ? 'With --unit: still run the lockdown phase after the units'
          : 'With --unit: still run the unlock phase before the units',
    },
    recover: {
      type: 'choice',
      choices: ['helm-pending'],
      describe:
        "bootstrap: when a unit fails on a Helm release stuck pending-*, delete that revision's Secret and apply the unit once more (also recover: in .platctl.yaml)",
    },
    'rollback-on-failure': {
      type: 'boolean',
      describe:
        "bootstrap: when a unit's apply fails, destroy in reverse order exactly the units this run created, the failed one included (also rollback: on_failure in .platctl.yaml)",
    },
    'no-rollback': {
      type: 'boolean',
      describe: 'bootstrap: never roll back, even with rollback: on_failure in .platctl.yaml',
    },
    'allow-unresolved': {
      type: 'boolean',
      describe: 'Treat HCL expressions that need a real run as warnings during discovery',
    },
    ...METRICS_OPTION,
    ...TRACE_OPTION,
  } as const satisfies OptionSpecs;
}

/** The parsed flags of `bootstrap` and `teardown`. */
export type WalkVerbArgs = ArgsOf<ReturnType<typeof walkVerbOptions>>;

/** Rules between the flags, checked while parsing: a run never starts on a combination that means nothing. */
export function checkWalkArgs(command: RunCommand, args: WalkVerbArgs & GlobalOptions): string | undefined {
  if (args.resume && args['dry-run']) return '--dry-run prints the whole plan; it does not combine with --resume';
  if (args.resume && (args.unit ?? []).length > 0) {
    return '--resume continues a run with its own selection; drop --unit (--env picks which run: docs/state.md)';
  }
  // bootstrap --force also overrides the parked-environment guard; teardown's only meaning is with --resume.
  if (args.force && !args.resume && command !== 'bootstrap') return '--force only applies to --resume';
  if (args['with-deps'] && (args.unit ?? []).length === 0) return '--with-deps needs --unit';
  if (args.recover !== undefined && command !== 'bootstrap') return '--recover applies to bootstrap (an apply) only';
  const rollbackFlag = args['rollback-on-failure'] !== undefined || args['no-rollback'] !== undefined;
  if (rollbackFlag && command !== 'bootstrap') {
    return '--rollback-on-failure and --no-rollback apply to bootstrap only (teardown destroys already)';
  }
  if (args['rollback-on-failure'] === true && args['no-rollback'] === true) {
    return '--rollback-on-failure and --no-rollback contradict each other; give one';
  }
  return undefined;
}
