/**
 * The shared state backend in tests (docs/state.md): a bucket in moto, a store on it, a repository configured to use
 * it, and the environment locks as the tests look at them.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { createStateBucket } from '../../cloud/state-bucket.js';
import type { EnvLockRecord } from '../../engine/env-lock.js';
import { readEnvLock } from '../../engine/env-lock.js';
import type { ObjectStore } from '../../engine/object-store.js';
import type { MotoServer } from './moto.js';

type Moto = Pick<MotoServer, 'endpoint' | 'region' | 'env'>;

/** A raw S3 client on moto, for seeding and inspecting objects behind platctl's back. */
export function motoS3(moto: Pick<Moto, 'endpoint' | 'region'>): S3Client {
  return new S3Client({
    region: moto.region,
    endpoint: moto.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
}

/** Creates `bucket` in moto (in eu-west-1, the region of every fixture). */
export async function createBucket(moto: Pick<Moto, 'endpoint' | 'region'>, bucket: string): Promise<S3Client> {
  const s3 = motoS3(moto);
  await s3.send(
    new CreateBucketCommand({ Bucket: bucket, CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' } }),
  );
  return s3;
}

/** platctl's own store on `bucket` (the one its runs use), for reading what they wrote. */
export function stateStore(
  moto: Moto,
  bucket: string,
  options: { prefix?: string; env?: Readonly<Record<string, string>>; requestTimeoutMs?: number } = {},
): ObjectStore {
  return createStateBucket(
    {
      bucket,
      keyPrefix: options.prefix ?? 'platctl',
      region: moto.region,
      ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    },
    options.env ?? moto.env,
  );
}

/** Appends `state: { backend: s3, bucket, heartbeat }` to the `.platctl.yaml` at `configPath`. */
export async function useS3State(configPath: string, bucket: string, heartbeat?: string): Promise<void> {
  const text = await readFile(configPath, 'utf8');
  const beat = heartbeat === undefined ? '' : `  heartbeat: ${heartbeat}\n`;
  await writeFile(configPath, `${text}state:\n  backend: s3\n  bucket: ${bucket}\n${beat}`);
}

/** The holder of `env`'s lock, or undefined when it is free. */
export async function lockHolder(store: ObjectStore, env: string): Promise<EnvLockRecord | undefined> {
  const found = await readEnvLock(store, env);
  return found.ok && found.value.type === 'held' ? found.value.holder : undefined;
}

/** True when `env`'s lock is held and stale. */
export async function lockIsStale(store: ObjectStore, env: string): Promise<boolean> {
  const found = await readEnvLock(store, env);
  return found.ok && found.value.type === 'held' && found.value.stale;
}
