/**
 * The park rules other verbs obey: bootstrap does not run over a parked environment (nor over one whose record
 * cannot be read), and a teardown that destroyed an environment as a whole removes its park record. The CLI builds
 * each environment's record store (shared or local, from `.platctl.yaml`) and passes it in as `storeFor`; it words
 * what a teardown's clear did and picks the exit code.
 */
import type { Graph, UnitId } from '../engine/graph.js';
import type { RunState } from '../engine/state.js';
import type { RecordStore } from './record.js';
import { asideRefusal } from './record.js';
import { parkFiles } from './status.js';

/** The record store of one environment, as the CLI builds it (read-only: it takes no lock). */
export type StoreFor<S> = (env: string) => Promise<S>;

/** The flags of a bootstrap that decide which environments it touches. */
export interface BootstrapScope {
  readonly env?: readonly string[] | undefined;
  readonly unit?: readonly string[] | undefined;
  readonly resume?: boolean | undefined;
}

/**
 * The environments a bootstrap touches: those of `--env`, else those of the `--unit`s, else every configured one.
 * `--resume` continues the whole interrupted run, whatever else is passed, so it touches every configured one.
 */
export function bootstrapEnvs(scope: BootstrapScope, configured: readonly string[]): string[] {
  const fromUnits = (scope.unit ?? []).map((unit) => unit.split('/')[0] ?? unit);
  const touched =
    !scope.resume && (scope.env ?? []).length > 0
      ? (scope.env ?? [])
      : !scope.resume && fromUnits.length > 0
        ? fromUnits
        : configured;
  return [...new Set(touched)];
}

/**
 * Why bootstrap must not run over `envs`: one is parked (applying it would fight the park, and its node groups'
 * Terraform sizes would bring the compute back behind the record's back), or its record cannot be read (the shared
 * record is the truth where there is one: another runner may have parked or brought the environment back; an only
 * record moved aside leaves it unknown). Undefined when bootstrap may run. The first environment that refuses wins.
 */
export async function parkedRefusal(
  root: string,
  envs: readonly string[],
  storeFor: StoreFor<Pick<RecordStore, 'read' | 'aside'>>,
): Promise<string | undefined> {
  for (const env of [...new Set(envs)]) {
    const store = await storeFor(env);
    const record = await store.read();
    if (!record.ok) {
      return (
        `cannot tell whether ${env} is parked: ${record.message}\n` +
        `  hint: ${record.hint ? `${record.hint}; ` : 'fix the access to it, '}or pass --force to bootstrap without this check`
      );
    }
    const first = record.value;
    const aside = first === undefined ? await store.aside() : undefined;
    if (aside !== undefined) {
      const why = asideRefusal(root, env, aside);
      return `cannot tell whether ${env} is parked: ${why.message}\n  hint: ${why.hint}; or pass --force to bootstrap without this check`;
    }
    if (first?.status !== 'parked') continue;
    return (
      `${first.env} is parked since ${first.parked_at} (by ${first.parked_by.user}@${first.parked_by.host}); ` +
      `run \`platctl up --env ${first.env}\` first, or pass --force to bootstrap it parked`
    );
  }
  return undefined;
}

/** What {@link clearParkAfterTeardown} did. */
export interface ParkClears {
  /** Each environment whose record was cleared, in the graph's order, with the places that held one (maybe none). */
  readonly cleared: readonly { readonly env: string; readonly removed: readonly string[] }[];
  /** The environment whose record could not be removed (those after it were not tried), and where it lives. */
  readonly failed?: {
    readonly env: string;
    readonly message: string;
    readonly hint?: string | undefined;
    readonly location: string;
  };
}

/**
 * After a completed teardown: the park record of each environment the teardown destroyed as a whole (every unit of
 * it completed, or kept as the floor) is removed, shared and local, since nothing of it is parked any more. Only an
 * environment with park settings (`parkConfigured`) or a local park file can have one. Stops at the first record
 * that cannot be removed (the teardown itself succeeded).
 */
export async function clearParkAfterTeardown(
  root: string,
  graph: Graph,
  state: Pick<RunState, 'units'>,
  parkConfigured: (env: string) => boolean,
  storeFor: StoreFor<Pick<RecordStore, 'clear' | 'location'>>,
): Promise<ParkClears> {
  const byEnv = new Map<string, UnitId[]>();
  for (const node of graph.nodes.values()) byEnv.set(node.env, [...(byEnv.get(node.env) ?? []), node.id]);
  const withFile = new Set((await parkFiles(root)).files.map((f) => f.env));
  const cleared: { env: string; removed: string[] }[] = [];
  for (const [env, units] of byEnv) {
    if (!parkConfigured(env) && !withFile.has(env)) continue;
    const destroyed = units.every((id) => {
      const unit = state.units[id];
      return unit !== undefined && (unit.status === 'completed' || unit.kept === true);
    });
    if (!destroyed) continue;
    const store = await storeFor(env);
    const result = await store.clear();
    if (!result.ok) {
      return { cleared, failed: { env, message: result.message, hint: result.hint, location: store.location } };
    }
    cleared.push({ env, removed: result.value });
  }
  return { cleared };
}

/**
 * What a teardown says of the records it cleared: a line per environment that had one (`removed`, maybe empty), and
 * why one could not be removed (`failure`, the teardown itself succeeded) with what to do, ending in a newline.
 */
export function teardownClearLines(clears: ParkClears): { removed: string; failure?: string } {
  const removed = clears.cleared
    .filter((c) => c.removed.length > 0)
    .map(({ env, removed }) => `Park record of ${env} removed: ${removed.join(', ')}\n`)
    .join('');
  if (!clears.failed) return { removed };
  const { env, message, hint, location } = clears.failed;
  const failure =
    `teardown of ${env} completed, but its park record could not be removed: ${message}\n` +
    `  hint: ${hint ? `${hint}; then ` : ''}delete ${location} and ` +
    `.platctl-park/${env}.json by hand, or platctl status and bootstrap will still see ${env} as parked\n`;
  return { removed, failure };
}
