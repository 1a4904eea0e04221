/**
 * What a `down`/`up` command line means before anything runs (the environments it parks, the sizes it records), and
 * what its outcomes mean after (how the command ended, what to run next). Pure: the CLI reads the arguments, prints
 * the errors as usage errors and turns an ending into its exit code.
 */
import type { NodeGroupSize } from '../cloud/park-aws.js';
import { EXIT } from '../config/exit-codes.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { EnvOutcome, ParkOp } from '../engine/events.js';
import { PREFLIGHT } from '../engine/events.js';
import { formatCommandLine } from '../engine/logs.js';
import type { Paint } from '../engine/reporters/paint.js';
import { parseRestoreSize } from './restore-sizes.js';

/** The environments to park: `asked` (`--env`), else every environment with a `park:` entry. */
export function chooseParkEnvs(
  op: ParkOp,
  config: Pick<PlatctlConfig, 'park' | 'environments'>,
  asked: readonly string[],
): { envs: string[] } | { error: string } {
  const parked = Object.keys(config.park);
  const envs = asked.length > 0 ? [...new Set(asked)] : parked;
  if (envs.length === 0) {
    return {
      error: `no environment has a park: entry in the configuration; add park.<env> (docs/park.md) to use ${op}`,
    };
  }
  for (const env of envs) {
    if (!config.park[env])
      return { error: `--env ${env}: the environment has no park: entry; add park.${env} to use ${op}` };
    const settings = config.environments[env];
    if (!settings?.cluster?.name)
      return { error: `environment ${env} names no cluster: set environments.${env}.cluster.name` };
    if (!settings.aws)
      return { error: `environment ${env} has no aws settings: set environments.${env}.aws (region, profile)` };
  }
  return { envs };
}

/** The options of a `down`/`up` command line that decide what it does and what it says to run next. */
export interface ParkCommandLine {
  readonly env: readonly string[];
  readonly config?: string | undefined;
  readonly dryRun: boolean;
  readonly resume: boolean;
  readonly yes: boolean;
  readonly breakLock: boolean;
  /** `--restore-size`, as given. */
  readonly restoreSize: readonly string[];
}

/** The options together, before the configuration is read: the sizes `--restore-size` records, or a usage error. */
export function checkParkOptions(
  line: ParkCommandLine,
): { sizes?: Record<string, NodeGroupSize> } | { error: string; hint?: string } {
  if (line.resume && line.dryRun) {
    return { error: '--dry-run shows the whole sequence; it does not combine with --resume' };
  }
  const sizes = parseRestoreSizes(line.restoreSize, { resume: line.resume, envCount: line.env.length });
  return 'error' in sizes ? { error: sizes.error, hint: 'platctl down --help lists its options' } : sizes;
}

/** Why `--break-lock` is a usage error with the local backend of the configuration at `configPath`. */
export function breakLockLocalError(configPath: string): string {
  return (
    `--break-lock applies to the shared lock of state.backend s3; ${configPath} uses the ` +
    `local backend (its .platctl.lock is taken over automatically once its holder is gone)`
  );
}

/** `--restore-size GROUP=MIN/MAX/DESIRED` (`given`), each once, for one `--env`, never with `--resume`. */
export function parseRestoreSizes(
  given: readonly string[],
  command: { readonly resume: boolean; readonly envCount: number },
): { sizes?: Record<string, NodeGroupSize> } | { error: string } {
  if (given.length === 0) return {};
  if (command.resume) {
    return { error: '--restore-size records new sizes; it does not combine with --resume (run down without it)' };
  }
  if (command.envCount !== 1) {
    return { error: '--restore-size names node groups of one environment: give exactly one --env' };
  }
  const sizes: Record<string, NodeGroupSize> = {};
  for (const text of given) {
    const parsed = parseRestoreSize(text);
    if ('error' in parsed) return parsed;
    if (sizes[parsed.group]) return { error: `--restore-size ${parsed.group} is given twice; give it once` };
    sizes[parsed.group] = parsed.size;
  }
  return { sizes };
}

/**
 * How a command ended, worst first: a signal stopped it (or it was `aborted`); it lost its environment lock and
 * stopped (a refusal, as when the lock was held at the start); a step failed; an environment was refused; or it did
 * what it was asked.
 */
export type ParkEnding = 'interrupted' | 'fenced' | 'failed' | 'refused' | 'ok';

export function parkEnding(outcomes: readonly EnvOutcome[], aborted: boolean): ParkEnding {
  if (outcomes.some((o) => o.status === 'interrupted') || aborted) return 'interrupted';
  if (outcomes.some((o) => o.status === 'fenced')) return 'fenced';
  if (outcomes.some((o) => o.status === 'failed')) return 'failed';
  if (outcomes.some((o) => o.status === 'refused')) return 'refused';
  return 'ok';
}

/**
 * What to run after a command that stopped: `resume` once a step began (its journal continues it), `repeat` when
 * every stopped environment stopped in the preflight (nothing was changed), undefined when none stopped.
 */
export function parkNext(outcomes: readonly EnvOutcome[]): 'resume' | 'repeat' | undefined {
  const stopped = outcomes.filter((o) => o.status === 'failed' || o.status === 'interrupted' || o.status === 'fenced');
  if (stopped.some((o) => o.failed_step !== PREFLIGHT)) return 'resume';
  return stopped.length > 0 ? 'repeat' : undefined;
}

/**
 * The exit code of a command's ending (README, exit codes): 0, 1 for a failed step, 3 for a refusal; fenced is a
 * refusal too, as a lock held at the start; an interrupted command exits with its signal's code, `signalExit`.
 */
export function parkExitCode(ending: ParkEnding, signalExit: number): number {
  switch (ending) {
    case 'interrupted':
      return signalExit;
    case 'fenced':
    case 'refused':
      return EXIT.refused;
    case 'failed':
      return EXIT.failed;
    case 'ok':
      return EXIT.ok;
  }
}

/** The command line that runs `op` as `line` asked (for the lock's holder, without `--config`; to repeat it, with). */
export function parkInvocation(op: ParkOp, line: ParkCommandLine, withConfig: boolean): string {
  return formatCommandLine([
    'platctl',
    op,
    ...line.env.flatMap((e) => ['--env', e]),
    ...(withConfig && line.config ? ['--config', line.config] : []),
    ...(line.resume ? ['--resume'] : []),
    ...(line.yes ? ['--yes'] : []),
    ...(line.breakLock ? ['--break-lock'] : []),
  ]);
}

/** The line that says what to run after a command that stopped (see {@link parkNext}); undefined when none stopped. */
export function parkNextLine(op: ParkOp, line: ParkCommandLine, outcomes: readonly EnvOutcome[]): string | undefined {
  const next = parkNext(outcomes);
  if (next === 'resume') {
    const resume = formatCommandLine([
      'platctl',
      op,
      '--resume',
      ...(line.config ? ['--config', line.config] : []),
      ...(op === 'down' ? ['--yes'] : []),
    ]);
    return `Resume with: ${resume}\n`;
  }
  if (next === 'repeat') return `Nothing was changed; run it again: ${parkInvocation(op, line, true)}\n`;
  return undefined;
}

/** The last line of `--json`: how the command ended, and each environment's outcome. */
export function parkSummary(op: ParkOp, dryRun: boolean, exitCode: number, outcomes: readonly EnvOutcome[]): object {
  return { type: 'summary', op, dry_run: dryRun, exit_code: exitCode, envs: outcomes };
}

/** down scales clusters to zero: it is confirmed (on a terminal, or by `--yes`) unless it is a dry run. */
export function mustConfirm(op: ParkOp, line: ParkCommandLine): boolean {
  return op === 'down' && !line.dryRun && !line.yes;
}

/** What down says when it must be confirmed: without a terminal, before asking, the question, and when cancelled. */
export const DOWN_CONFIRM = {
  noTerminal:
    'refused: down scales clusters to zero and there is no terminal to confirm on; pass --yes to run it unattended (cron)',
  intro: (paint: Paint, envs: readonly string[]): string =>
    `${paint.bold(`down parks ${envs.join(', ')}`)}: node groups to 0, Karpenter capacity deleted, bastion stopped.\n`,
  question: 'Type "yes" to park: ',
  /** True when `answer` (undefined: the prompt was closed) confirms. */
  confirmed: (answer: string | undefined): boolean => answer?.trim() === 'yes',
  cancelled: 'down cancelled; nothing was changed',
} as const;
