/**
 * Where each environment's park record lives (docs/park.md, docs/state.md), decided from `.platctl.yaml`: the shared
 * store of `state.backend: s3`, the environment's `aws.state_bucket` of an earlier configuration, else the local file.
 * The CLI builds the state bucket (it reads the process environment) and passes it in.
 */
import type { EnvVars } from '../cloud/env.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { ObjectStore } from '../engine/object-store.js';
import { RecordStore } from './record.js';

/**
 * Where the park record of an environment is shared (docs/park.md): with the s3 backend, `<key_prefix>/park/<env>.json`
 * in the state bucket, and the environment's `aws.state_bucket` (`s3://<bucket>/platctl/park/<env>.json`) is where an
 * earlier configuration kept it, read once to move it; with the local backend, that environment bucket, if any.
 */
export function parkRecordPlaces(
  state: ObjectStore | undefined,
  envBucket: ObjectStore | undefined,
): { readonly shared?: ObjectStore; readonly previous?: ObjectStore } {
  if (!state) return envBucket ? { shared: envBucket } : {};
  // The same object when state.bucket is the environment's bucket and key_prefix the default: nothing to move.
  const same = envBucket !== undefined && envBucket.location('park/') === state.location('park/');
  return envBucket && !same ? { shared: state, previous: envBucket } : { shared: state };
}

/** What a read-only record store is built from: the configuration, the process environment's values, the state bucket. */
export interface RecordStoreSource {
  readonly root: string;
  readonly config: PlatctlConfig;
  readonly vars: EnvVars;
  /** The bucket of `state.backend: s3` (undefined with the local backend); asked only for an environment with a park entry. */
  readonly state: () => Promise<ObjectStore | undefined>;
}

/**
 * The record store of `env`, read-only (it takes no lock, so it never moves a record): shared where `down` shares it
 * (docs/park.md), else local.
 */
export async function readOnlyRecordStore(source: RecordStoreSource, env: string): Promise<RecordStore> {
  const { root, config, vars } = source;
  const settings = config.environments[env];
  if (!settings || !config.park[env]) return new RecordStore(root, env, {}, settings?.cluster?.name);
  const cluster = settings.cluster?.name;
  const state = await source.state();
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
