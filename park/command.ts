/**
 * What a `down`/`up` command line means before anything runs (the environments it parks, the sizes it records), and
 * what its outcomes mean after (how the command ended, what to run next). Pure: the CLI reads the arguments, prints
 * the errors as usage errors and turns an ending into its exit code.
 */
import type { NodeGroupSize } from '../cloud/park-aws.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { EnvOutcome, ParkOp } from '../engine/events.js';
import { PREFLIGHT } from '../engine/events.js';
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
