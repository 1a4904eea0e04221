/**
 * `--metrics-file`: what a run of `validate`, `down`, `up`, `bootstrap` or `teardown` tells a monitor, as the
 * Prometheus text exposition for node_exporter's textfile collector (README.md, "Metrics for monitoring").
 *
 * The verbs collect their facts into one {@link RunFacts}; {@link renderMetrics} turns them into the text with
 * prom-client's registry (no default or process collectors), which also escapes label values; {@link writeMetricsFile}
 * replaces the file atomically, so the collector never reads half of one. The collector replaces every series of a
 * file on each scrape, so the last success time of a verb and environment that failed this run is carried over from
 * the file being replaced. prom-client is loaded only here, and this module only when `--metrics-file` is given.
 */
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../config/atomic-write.js';
import { number as zNumber } from '../config/zod.js';

export type MetricsVerb = 'validate' | 'down' | 'up' | 'bootstrap' | 'teardown';

/** How a run (or its part in one environment) ended: the `result` label. */
export type RunResultLabel = 'success' | 'failure' | 'refused' | 'error' | 'interrupted' | 'bug';

/** What one run knows by its end; every list may be empty (a refusal knows its environments only). */
export interface RunFacts {
  readonly verb: MetricsVerb;
  readonly exitCode: number;
  /** When the run ended, ms since the epoch (this host's clock). */
  readonly endedAtMs: number;
  /** One per environment the run covered, with its result there and how long it took. */
  readonly envs: readonly { readonly env: string; readonly result: RunResultLabel; readonly durationMs: number }[];
  /** validate: every check, by id (`unit/eks_cluster:platform/eks`); env is '' for a check of no environment. */
  readonly checks?: readonly { readonly env: string; readonly check: string; readonly ok: boolean }[];
  /** validate: the run's wall time, per environment it checked. */
  readonly validateDurationMs?: number;
  /** down/up: whether each environment is parked, where the run knows it. */
  readonly parked?: readonly { readonly env: string; readonly parked: boolean }[];
  /** down/up: each node group's desired size, where the run knows it. */
  readonly nodeGroups?: readonly { readonly env: string; readonly group: string; readonly desired: number }[];
  /** bootstrap/teardown: each unit that ran to an end in this run, with its duration. */
  readonly units?: readonly { readonly env: string; readonly unit: string; readonly durationMs: number }[];
}

/** The `result` label for an exit code (README, exit codes). */
export function resultForExitCode(exitCode: number): RunResultLabel {
  if (exitCode === 0) return 'success';
  if (exitCode === 1) return 'failure';
  if (exitCode === 2) return 'error';
  if (exitCode === 3) return 'refused';
  if (exitCode === 129 || exitCode === 130 || exitCode === 143) return 'interrupted';
  return exitCode === 70 ? 'bug' : 'failure';
}

const LAST_SUCCESS = 'platctl_run_last_success_timestamp_seconds';

/** Every metric: name, help and labels (README.md lists the same). */
const METRICS = {
  checkOk: {
    name: 'platctl_validate_check_ok',
    help: 'Whether a validate check passed (1) or not (0: failed, errored, or skipped) in the last run',
    labelNames: ['env', 'check'],
  },
  validateDuration: {
    name: 'platctl_validate_duration_seconds',
    help: 'Wall time of the last validate run, per environment it checked',
    labelNames: ['env'],
  },
  runDuration: {
    name: 'platctl_run_duration_seconds',
    help: 'Wall time of the last run of a verb in an environment, with how it ended',
    labelNames: ['verb', 'env', 'result'],
  },
  lastSuccess: {
    name: LAST_SUCCESS,
    help: 'When a verb last succeeded in an environment (Unix time; carried over from the previous file)',
    labelNames: ['verb', 'env'],
  },
  parked: {
    name: 'platctl_parked',
    help: 'Whether the environment is parked (1) or not (0), as the last down/up left it',
    labelNames: ['env'],
  },
  nodeGroupDesired: {
    name: 'platctl_nodegroup_desired',
    help: "A node group's desired size as the last down/up left it",
    labelNames: ['env', 'group'],
  },
  unitDuration: {
    name: 'platctl_unit_duration_seconds',
    help: 'How long each unit took in the last bootstrap/teardown run',
    labelNames: ['env', 'unit'],
  },
  exitCode: {
    name: 'platctl_run_exit_code',
    help: 'Exit code of the last run of a verb (0 ok, 1 failed, 2 usage/config, 3 refused, 130/143 interrupted)',
    labelNames: ['verb', 'env'],
  },
} as const;

const seconds = (ms: number): number => Math.max(0, ms) / 1000;

/**
 * The text exposition of `facts`. `previous` is the text of the file this one replaces: the last success time of each
 * environment that did not succeed this run is carried over from it (for this verb only).
 */
export async function renderMetrics(facts: RunFacts, previous?: string): Promise<string> {
  const { Gauge, Registry } = await import('prom-client');
  const registry = new Registry();
  const gauge = <L extends string>(spec: { name: string; help: string; labelNames: readonly L[] }) =>
    new Gauge<L>({ ...spec, registers: [registry] });
  const { verb } = facts;

  const checkOk = gauge(METRICS.checkOk);
  for (const c of facts.checks ?? []) checkOk.set({ env: c.env, check: c.check }, c.ok ? 1 : 0);
  const validateDuration = gauge(METRICS.validateDuration);
  if (facts.validateDurationMs !== undefined) {
    for (const { env } of facts.envs) validateDuration.set({ env }, seconds(facts.validateDurationMs));
  }
  const runDuration = gauge(METRICS.runDuration);
  const exitCode = gauge(METRICS.exitCode);
  const lastSuccess = gauge(METRICS.lastSuccess);
  const carried = previous === undefined ? new Map<string, number>() : lastSuccessTimes(previous, verb);
  for (const { env, result, durationMs } of facts.envs) {
    runDuration.set({ verb, env, result }, seconds(durationMs));
    exitCode.set({ verb, env }, facts.exitCode);
    const success = result === 'success' ? facts.endedAtMs / 1000 : carried.get(env);
    if (success !== undefined) lastSuccess.set({ verb, env }, success);
  }
  const parked = gauge(METRICS.parked);
  for (const p of facts.parked ?? []) parked.set({ env: p.env }, p.parked ? 1 : 0);
  const nodeGroups = gauge(METRICS.nodeGroupDesired);
  for (const g of facts.nodeGroups ?? []) nodeGroups.set({ env: g.env, group: g.group }, g.desired);
  const units = gauge(METRICS.unitDuration);
  for (const u of facts.units ?? []) units.set({ env: u.env, unit: u.unit }, seconds(u.durationMs));

  // A metric with no series would be a bare HELP/TYPE pair: valid, but noise for a reader; leave it out.
  for (const metric of await registry.getMetricsAsJSON()) {
    if (metric.values.length === 0) registry.removeSingleMetric(metric.name);
  }
  return registry.metrics();
}

const SAMPLE = new RegExp(`^${LAST_SUCCESS}\\{(.*)\\}\\s+(\\S+)\\s*$`);
const LABEL = /([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"\s*,?\s*/y;
const timestamp = zNumber().nonnegative().finite();

/** Label values as written: `\\`, `\"` and `\n` escaped. */
function unescapeLabel(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

/**
 * The last success time per environment of `verb` in a file this module wrote. A line it does not understand is
 * ignored: the worst outcome is a missing carried-over value, never a wrong one.
 */
export function lastSuccessTimes(text: string, verb: MetricsVerb): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    const sample = SAMPLE.exec(line);
    if (!sample) continue;
    const labels = new Map<string, string>();
    LABEL.lastIndex = 0;
    const body = sample[1] ?? '';
    let match: RegExpExecArray | null;
    while (LABEL.lastIndex < body.length && (match = LABEL.exec(body)) !== null) {
      labels.set(match[1] ?? '', unescapeLabel(match[2] ?? ''));
    }
    if (LABEL.lastIndex !== body.length && body.length > 0) continue;
    const value = timestamp.safeParse(Number(sample[2]));
    const env = labels.get('env');
    if (labels.get('verb') === verb && env !== undefined && value.success) found.set(env, value.data);
  }
  return found;
}

export type MetricsWriteResult = { readonly ok: true } | { readonly ok: false; readonly message: string };

/**
 * Renders `facts` and replaces `path` with them atomically (temp file beside it, fsync, rename). A failure to write is
 * returned, never thrown: the metrics never change how the run itself ended.
 */
export async function writeMetricsFile(path: string, facts: RunFacts): Promise<MetricsWriteResult> {
  let previous: string | undefined;
  try {
    previous = await readFile(path, 'utf8');
  } catch {
    previous = undefined; // a first run, or a file that cannot be read: nothing to carry over
  }
  const text = await renderMetrics(facts, previous);
  try {
    await writeFileAtomic(path, text, { mode: 0o644 });
    return { ok: true };
  } catch (error) {
    return { ok: false, message: `cannot write the metrics file ${path}: ${(error as Error).message}` };
  }
}
