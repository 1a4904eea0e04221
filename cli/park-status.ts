/**
 * The park section of `platctl status` (the rest of status is in cli/status.ts, which calls this), and the wiring of
 * the park rules (park/rules.ts) into bootstrap and teardown: each environment's record store, built from
 * `.platctl.yaml`, and the words printed.
 */
import type { EnvVars } from '../cloud/env.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { Graph } from '../engine/graph.js';
import type { RunState } from '../engine/state.js';
import { RecordStore } from '../park/record.js';
import type { BootstrapScope } from '../park/rules.js';
import { bootstrapEnvs, clearParkAfterTeardown, parkedRefusal } from '../park/rules.js';
import type { ParkView } from '../park/status.js';
import { readParkViews } from '../park/status.js';
import { parkRecordPlaces, stateStore } from './shared-state.js';
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
export { parkStatusJson } from '../park/status.js';

/**
 * The record store of `env`, read-only (it takes no lock, so it never moves a record): shared where `down` shares it
 * (docs/park.md), else local.
 */
async function recordStore(root: string, config: PlatctlConfig, env: string, vars: EnvVars): Promise<RecordStore> {
  const settings = config.environments[env];
  if (!settings || !config.park[env]) return new RecordStore(root, env, {}, settings?.cluster?.name);
  const cluster = settings.cluster?.name;
  const state = await stateStore(config.state, { env: vars });
  const bucket = settings.aws?.state_bucket;
  if (bucket === undefined) return new RecordStore(root, env, parkRecordPlaces(state, undefined), cluster);
  // Loaded only here: status and an unparked bootstrap without a bucket never pay for the AWS modules.
  const [{ createEnvCloud }, { createParkAws }] = await Promise.all([
    import('../cloud/environment.js'),
    import('../cloud/park-aws.js'),
  ]);
  const cloud = createEnvCloud({ envName: env, settings, env: vars, maxAttempts: 3 });
  const envBucket = createParkAws(cloud, vars, settings.cluster?.name ?? env).stateBucketRecords(bucket);
  return new RecordStore(root, env, parkRecordPlaces(state, envBucket), cluster);
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
  const { cleared, failed } = await clearParkAfterTeardown(root, graph, state, parkConfigured, storeFor);
  for (const { env, removed } of cleared) {
    if (removed.length > 0) out.write(`Park record of ${env} removed: ${removed.join(', ')}\n`);
  }
  if (!failed) return undefined;
  const { env, message, hint, location } = failed;
  io.stderr.write(
    `platctl: teardown of ${env} completed, but its park record could not be removed: ${message}\n` +
      `  hint: ${hint ? `${hint}; then ` : ''}delete ${location} and ` +
      `.platctl-park/${env}.json by hand, or platctl status and bootstrap will still see ${env} as parked\n`,
  );
  return EXIT.failed;
}
