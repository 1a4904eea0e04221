/**
 * The park section of `platctl status` (the rest of status is in cli/status.ts, which calls this), and the wiring of
 * the park rules (park/rules.ts) into bootstrap and teardown: each environment's record store (park/stores.ts) given the
 * state bucket of `.platctl.yaml`, and the streams the rules' words go to.
 */
import type { EnvVars } from '../cloud/env.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { Graph } from '../engine/graph.js';
import type { RunState } from '../engine/state.js';
import type { RecordStore } from '../park/record.js';
import type { BootstrapScope } from '../park/rules.js';
import { bootstrapEnvs, clearParkAfterTeardown, parkedRefusal, teardownClearLines } from '../park/rules.js';
import type { ParkView } from '../park/status.js';
import { readParkViews } from '../park/status.js';
import { readOnlyRecordStore } from '../park/stores.js';
import { stateStore } from './shared-state.js';
import type { CliIo } from './verb.js';
import { EXIT } from './verb.js';

/**
 * The park state of every environment with a park record, shared or local, for status (park/status.ts). `config` is
 * undefined when status did not load `.platctl.yaml`: then only the local files are read, and no AWS code is loaded.
 */
export async function readParkStatus(
  root: string,
  config: PlatctlConfig | undefined,
  vars: EnvVars,
): Promise<ParkView[]> {
  const source = config && {
    envs: Object.keys(config.park),
    storeFor: (env: string) => recordStore(root, config, env, vars),
  };
  return readParkViews(root, source);
}

// Built in park/status.ts; named here too, where status reads the park state.

/** The record store of `env`, read-only (park/stores.ts), with the state bucket of `.platctl.yaml`. */
function recordStore(root: string, config: PlatctlConfig, env: string, vars: EnvVars): Promise<RecordStore> {
  return readOnlyRecordStore({ root, config, vars, state: () => stateStore(config.state, { env: vars }) }, env);
}

/**
 * Why bootstrap must not run (park/rules.ts): an environment it touches is parked, or its record cannot be read
 * where it is shared. Undefined when bootstrap may run.
 */
export async function bootstrapParkRefusal(
  root: string,
  config: PlatctlConfig,
  args: BootstrapScope,
  vars: EnvVars = {},
): Promise<string | undefined> {
  const envs = bootstrapEnvs(args, Object.keys(config.environments));
  return parkedRefusal(root, envs, (env) => recordStore(root, config, env, vars));
}

/**
 * After a completed teardown, removes the park record of each environment it destroyed as a whole
 * (park/rules.ts) and says so. Returns the exit code when a record could not be removed (the teardown itself
 * succeeded), else undefined.
 */
export async function clearParkRecordsAfterTeardown(
  root: string,
  config: PlatctlConfig,
  graph: Graph,
  state: Pick<RunState, 'units'>,
  io: CliIo,
  out: NodeJS.WritableStream,
): Promise<number | undefined> {
  const parkConfigured = (env: string): boolean => config.park[env] !== undefined;
  const storeFor = (env: string): Promise<RecordStore> => recordStore(root, config, env, io.env);
  const cleared = await clearParkAfterTeardown(root, graph, state, parkConfigured, storeFor);
  const { removed, failure } = teardownClearLines(cleared);
  if (removed) out.write(removed);
  if (failure === undefined) return undefined;
  io.stderr.write(`platctl: ${failure}`);
  return EXIT.failed;
}
