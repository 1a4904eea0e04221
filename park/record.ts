/**
 * What `down` remembers and where: the park record (the sizes, objects and states `up` restores) and the step
 * journal of the last `down`/`up` (for `--resume`, `platctl status` and ETAs).
 *
 * Locally both live in `.platctl-park/<env>.json`, written atomically (temp file, fsync, rename). With
 * `environments.<env>.aws.state_bucket` the record is also stored at `s3://<bucket>/platctl/park/<env>.json`, the
 * copy every runner shares: a first record is written with `If-None-Match: *` and later ones with `If-Match` on the
 * ETag read, so two runners can never both write a first record.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { NodeGroupSize, ParkAws } from '../cloud/park-aws.js';
import type { KubeJson } from '../cloud/kube-writer.js';
import type { CloudResult } from '../cloud/result.js';
import { failure, ok } from '../cloud/result.js';

export const PARK_DIR = '.platctl-park';
export const PARK_RECORD_VERSION = 1;

export type ParkOp = 'down' | 'up';

export interface ParkRecord {
  readonly version: 1;
  readonly env: string;
  readonly cluster: string;
  /** `parked` from the first `down` until `up` finishes; `unparked` is kept as history. */
  status: 'parked' | 'unparked';
  readonly parked_at: string;
  /** Who parked: `user@host`, and the AWS principal. */
  readonly parked_by: { readonly host: string; readonly user: string; readonly arn?: string };
  readonly node_groups: Readonly<Record<string, NodeGroupSize>>;
  readonly karpenter: { readonly nodepools: readonly KubeJson[]; readonly ec2nodeclasses: readonly KubeJson[] };
  readonly bastions: readonly { readonly id: string; readonly state: string }[];
  readonly argocd: { readonly namespace: string; readonly apps: readonly { name: string; automated: unknown }[] };
  unparked_at?: string;
  unparked_by?: { readonly host: string; readonly user: string };
}

export type StepStatus = 'pending' | 'running' | 'completed' | 'failed';

export interface StepRecord {
  status: StepStatus;
  started_at?: string;
  ended_at?: string;
  duration_ms?: number;
  detail?: string;
  reason?: string;
}

/** One `down` or `up` of one environment, step by step. */
export interface Operation {
  readonly op: ParkOp;
  readonly started_at: string;
  readonly by: { readonly host: string; readonly user: string };
  status: 'running' | 'completed' | 'failed';
  ended_at?: string;
  resumes: number;
  /** In the order they run. */
  readonly steps: Record<string, StepRecord>;
}

/** `.platctl-park/<env>.json`. */
export interface ParkFile {
  readonly version: 1;
  readonly env: string;
  record?: ParkRecord;
  /** Where the record is shared, if anywhere. */
  record_location?: string;
  last?: Operation;
  /** Last duration of each `<op>/<step>`, for ETAs. */
  durations_ms: Record<string, number>;
}

export function parkFilePath(root: string, env: string): string {
  return join(root, PARK_DIR, `${env}.json`);
}

export type LoadedParkFile =
  | { readonly type: 'missing' }
  | { readonly type: 'ok'; readonly file: ParkFile }
  | { readonly type: 'invalid'; readonly message: string };

export async function loadParkFile(root: string, env: string): Promise<LoadedParkFile> {
  const path = parkFilePath(root, env);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { type: 'missing' };
    return { type: 'invalid', message: `cannot read ${path}: ${(error as Error).message}` };
  }
  try {
    const parsed = JSON.parse(text) as ParkFile;
    if (parsed.version !== PARK_RECORD_VERSION || parsed.env !== env) {
      return { type: 'invalid', message: `${path} is not a platctl park file of environment ${env}` };
    }
    return { type: 'ok', file: { ...parsed, durations_ms: parsed.durations_ms ?? {} } };
  } catch {
    return { type: 'invalid', message: `${path} is not valid JSON; move it away and run again` };
  }
}

/** Every environment with a park file under `root`. */
export async function parkFileEnvs(root: string): Promise<string[]> {
  try {
    return (await readdir(join(root, PARK_DIR)))
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -'.json'.length))
      .sort();
  } catch {
    return [];
  }
}

/** Writes the file atomically: a crash leaves the old file or the new one, never half of one. */
export async function saveParkFile(root: string, file: ParkFile): Promise<void> {
  const dir = join(root, PARK_DIR);
  await mkdir(dir, { recursive: true });
  const path = parkFilePath(root, file.env);
  const temp = `${path}.tmp-${randomBytes(4).toString('hex')}`;
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(`${JSON.stringify(file, null, 2)}\n`);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temp, path);
}

/**
 * Saves the journal part of `file` (the last operation and the durations) over the file on disk, keeping the record
 * mirror as {@link RecordStore.mirror} last wrote it.
 */
export async function saveJournal(root: string, file: ParkFile): Promise<void> {
  const current = await loadParkFile(root, file.env);
  const base: ParkFile =
    current.type === 'ok' ? current.file : { version: PARK_RECORD_VERSION, env: file.env, durations_ms: {} };
  const next: ParkFile = { ...base, durations_ms: file.durations_ms };
  if (file.last) next.last = file.last;
  await saveParkFile(root, next);
}

/** The S3 key of an environment's record. */
export function recordKey(env: string): string {
  return `platctl/park/${env}.json`;
}

/** Where an environment's record is read and written: S3 (when a state bucket is configured) and the local file. */
export class RecordStore {
  readonly #root: string;
  readonly #env: string;
  /** Where the record is shared; undefined: local only. */
  readonly #shared: { readonly bucket: string; readonly aws: ParkAws } | undefined;
  /** The ETag of the S3 object last read, for the next conditional write. */
  #etag: string | undefined;

  /** Shared in `bucket` through `aws` when both are given, else local only. */
  constructor(root: string, env: string, bucket: string | undefined, aws: ParkAws | undefined) {
    this.#root = root;
    this.#env = env;
    this.#shared = bucket !== undefined && aws !== undefined ? { bucket, aws } : undefined;
  }

  get location(): string {
    return this.#shared ? `s3://${this.#shared.bucket}/${recordKey(this.#env)}` : parkFilePath(this.#root, this.#env);
  }

  /** The current record (S3 when configured, else local), or undefined. */
  async read(): Promise<CloudResult<ParkRecord | undefined>> {
    if (this.#shared) {
      const got = await this.#shared.aws.getObject(this.#shared.bucket, recordKey(this.#env));
      if (!got.ok) return got;
      this.#etag = got.value?.etag;
      if (!got.value) return ok(undefined);
      try {
        return ok(JSON.parse(got.value.body) as ParkRecord);
      } catch {
        return failure(
          'error',
          `${this.location} is not valid JSON`,
          'inspect it; delete it only if nothing is parked',
        );
      }
    }
    const local = await loadParkFile(this.#root, this.#env);
    if (local.type === 'invalid') return failure('error', local.message);
    return ok(local.type === 'ok' ? local.file.record : undefined);
  }

  /**
   * Writes `record` where `previous` (as read) was: a first record only if there is none yet, a replacement only if
   * nobody changed it since. `conflict` when another runner got there first.
   */
  async write(record: ParkRecord, first: boolean): Promise<CloudResult<'written' | 'conflict'>> {
    if (this.#shared) {
      const { bucket, aws } = this.#shared;
      const condition = first || this.#etag === undefined ? { ifNoneMatch: true as const } : { ifMatch: this.#etag };
      const put = await aws.putObject(bucket, recordKey(this.#env), `${JSON.stringify(record, null, 2)}\n`, condition);
      if (!put.ok || put.value === 'conflict') return put;
      // Read back for the ETag of the next conditional write.
      const again = await aws.getObject(bucket, recordKey(this.#env));
      if (again.ok) this.#etag = again.value?.etag;
    }
    await this.mirror(record);
    return ok('written');
  }

  /**
   * Removes the record where it is (the S3 object, then the local file with its journal), after a teardown of the
   * environment; returns the locations that held one. Nothing there is a success.
   */
  async clear(): Promise<CloudResult<string[]>> {
    const removed: string[] = [];
    if (this.#shared) {
      const { bucket, aws } = this.#shared;
      const current = await aws.getObject(bucket, recordKey(this.#env));
      if (!current.ok) return current;
      if (current.value) {
        const deleted = await aws.deleteObject(bucket, recordKey(this.#env));
        if (!deleted.ok) return deleted;
        removed.push(this.location);
      }
    }
    const path = parkFilePath(this.#root, this.#env);
    if ((await loadParkFile(this.#root, this.#env)).type !== 'missing') {
      try {
        await rm(path, { force: true });
      } catch (error) {
        return failure('error', `cannot remove ${path}: ${(error as Error).message}`, 'remove it by hand');
      }
      removed.push(path);
    }
    return ok(removed);
  }

  /** Copies `record` into the local file. */
  async mirror(record: ParkRecord): Promise<void> {
    const local = await loadParkFile(this.#root, this.#env);
    const file: ParkFile =
      local.type === 'ok' ? local.file : { version: PARK_RECORD_VERSION, env: this.#env, durations_ms: {} };
    file.record = record;
    file.record_location = this.location;
    await saveParkFile(this.#root, file);
  }
}
