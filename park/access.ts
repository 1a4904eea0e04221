/**
 * What `runPark` (park/run.ts) reaches each environment through during a `down`/`up`: its AWS clients (one per
 * environment, built on first use by cloud/), where its record is shared, and its cluster. The CLI passes the values
 * it read from the process (its environment variables, the state bucket, the locks it holds, the unit applier).
 */
import type { EnvVars } from '../cloud/env.js';
import { createEnvCloud } from '../cloud/environment.js';
import type { EnvCloud } from '../cloud/environment.js';
import { kubeWriterForEnv } from '../cloud/kube-writer.js';
import type { KubeWriter } from '../cloud/kube-writer.js';
import { createParkAws } from '../cloud/park-aws.js';
import type { CloudResult } from '../cloud/result.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { EnvLocks } from '../engine/env-lock.js';
import type { ObjectStore } from '../engine/object-store.js';
import type { UnitApplier } from './context.js';
import type { EnvAccess } from './run.js';
import { parkRecordPlaces } from './stores.js';

export interface ParkAccessSource {
  readonly config: PlatctlConfig;
  /** The process environment's values (credentials, profiles, endpoints), read by the CLI. */
  readonly vars: EnvVars;
  readonly signal: AbortSignal;
  /** The bucket of `state.backend: s3`; undefined with the local backend. */
  readonly state: ObjectStore | undefined;
  /** The environment locks this run holds (shared backend, not a dry run). */
  readonly locks: Pick<EnvLocks, 'ensureFresh'> | undefined;
  readonly applier: UnitApplier | undefined;
  /** Where a line for people goes (a record moved to where it is now shared). */
  readonly say: (line: string) => void;
}

/** Each environment's access, its clouds shared with the environments whose preflight checks them too. */
export function parkAccess(source: ParkAccessSource): (env: string) => EnvAccess {
  const { config, vars, signal, state, locks, applier, say } = source;
  const clouds = new Map<string, EnvCloud>();
  const cloudOf = (env: string): EnvCloud => {
    let cloud = clouds.get(env);
    if (!cloud) {
      const settings = config.environments[env];
      if (!settings) throw new Error(`park: unknown environment ${env}`); // checked by the config loader
      cloud = createEnvCloud({ envName: env, settings, env: vars, maxAttempts: 3 });
      clouds.set(env, cloud);
    }
    return cloud;
  };
  return (env: string): EnvAccess => {
    const cloud = cloudOf(env);
    const settings = config.environments[env];
    let kube: Promise<CloudResult<KubeWriter>> | undefined;
    const aws = createParkAws(cloud, vars, settings?.cluster?.name ?? env, signal);
    const envBucket = settings?.aws?.state_bucket;
    return {
      cloud,
      aws,
      records: {
        ...parkRecordPlaces(state, envBucket === undefined ? undefined : aws.stateBucketRecords(envBucket)),
        ...(locks ? { mayWrite: () => locks.ensureFresh() } : {}),
        onMoved: (from, to) => say(`moved the park record of ${env} from ${from} to ${to}\n`),
      },
      kube: () => {
        kube ??= settings ? kubeWriterForEnv(cloud, settings, vars, signal) : Promise.reject(new Error('no settings'));
        return kube;
      },
      alsoCheck: (config.park[env]?.preflight_envs ?? []).filter((other) => other !== env).map(cloudOf),
      ...(applier ? { units: applier } : {}),
    };
  };
}
