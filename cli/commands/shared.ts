/**
 * Option groups more than one verb takes (`bootstrap` and `teardown`; `down` and `up`; `--metrics-file`, `--trace`),
 * worded for each verb. Data only: command modules load this for every command line and for completion.
 */
import type { RunCommand } from '../../engine/unit-status.js';
import type { ArgsOf, OptionRule, OptionSpecs } from '../../config/command-line/grammar.js';

type ParkOp = 'down' | 'up';

export const METRICS_OPTION = {
  'metrics-file': {
    type: 'string',
    value: 'PATH',
    describe:
      "At the end, write the run as Prometheus metrics for node_exporter's textfile collector (docs/metrics.md)",
  },
} as const;

export const TRACE_OPTION = {
  trace: {
    type: 'boolean',
    describe:
      'Export an OpenTelemetry trace of the run over OTLP/HTTP (default http://localhost:4318; also on when OTEL_EXPORTER_OTLP_ENDPOINT is set; docs/tracing.md)',
  },
} as const;

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
      aliases: ['no-clean-on-failure'],
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

/** Options of `bootstrap` and `teardown` that exclude each other. */
export const WALK_CONFLICTS: readonly OptionRule[] = [
  ['resume', 'dry-run', '--dry-run prints the whole plan; it does not combine with --resume'],
  [
    'resume',
    'unit',
    '--resume continues a run with its own selection; drop --unit (--env picks which run: docs/state.md)',
  ],
];

/** Options of `bootstrap` and `teardown` that need another (teardown's --force also needs --resume). */
export function walkImplies(command: RunCommand): readonly OptionRule[] {
  const rules: OptionRule[] = [['with-deps', 'unit', '--with-deps needs --unit']];
  // bootstrap --force also overrides the parked-environment guard; teardown's only meaning is with --resume.
  if (command !== 'bootstrap') rules.push(['force', 'resume', '--force only applies to --resume']);
  return rules;
}

/** The rules between walk options yargs cannot say: bootstrap-only flags, and two flags that contradict. */
export function checkWalkArgs(command: RunCommand, args: WalkVerbArgs): string | undefined {
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

/**
 * The options of `down` and `up`. Only `down` asks, but both take `--yes`, so that the cron pair reads the same
 * (`down --yes` at night, `up --yes` in the morning); for `up` it changes nothing.
 */
export function parkOptions(op: ParkOp) {
  const base = {
    'dry-run': { type: 'boolean', describe: 'Show each step and what it would touch as it is now; change nothing' },
    resume: { type: 'boolean', describe: `Continue the last ${op} from its first unfinished step` },
    'break-lock': {
      type: 'boolean',
      describe: 'With state.backend s3: take over an environment lock whose holder stopped renewing it (stale only)',
    },
    ...METRICS_OPTION,
    ...TRACE_OPTION,
  } as const satisfies OptionSpecs;
  return op === 'down'
    ? ({
        ...base,
        yes: { type: 'boolean', describe: 'Do not ask (required without a terminal, e.g. from cron)' },
        'restore-size': {
          type: 'string',
          value: 'GROUP=MIN/MAX/DESIRED',
          repeatable: true,
          describe:
            'The size up restores for a node group already at 0 when no parked record holds it (with one --env)',
        },
      } as const satisfies OptionSpecs)
    : ({
        ...base,
        yes: { type: 'boolean', describe: 'Accepted so the cron pair reads the same as down --yes; up never asks' },
      } as const satisfies OptionSpecs);
}
