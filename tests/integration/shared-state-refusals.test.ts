/**
 * What the shared-state verbs and flags say when they cannot do their job: each failure says what, where and what to
 * do, and changes nothing. The bucket cases use moto over real HTTP; an unreachable S3 is a closed loopback port.
 */
import { cp, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { STATE_FILE } from '../../engine/state.js';
import { fillDisk, mountTmpfs, mountsAvailable, unmountAll } from '../helpers/mounts.js';
import { freePort, useMoto } from '../helpers/moto.js';
import { createBucket as createMotoBucket, useS3State } from '../helpers/state-bucket.js';
import type { Sandbox } from './engine-helpers.js';
import { sandbox } from './engine-helpers.js';

const moto = useMoto();
const BUCKET = 'platctl-refusals';

async function withS3(box: Sandbox): Promise<void> {
  await useS3State(join(box.root, '.platctl.yaml'), BUCKET);
}

function createBucket(): Promise<S3Client> {
  return createMotoBucket(moto, BUCKET);
}

describe('with the local backend', () => {
  it('history, state pull|push and --break-lock say they need state.backend s3 (exit 2, nothing run)', async () => {
    const box = await sandbox();
    const history = await box.run(['history']);
    expect(history.exitCode).toBe(2);
    expect(history.stderr).toMatch(/history needs the shared state backend; .*\.platctl\.yaml uses the local one/);
    expect(history.stderr).toMatch(/hint: set state.backend: s3 \(docs\/state.md\)/);
    for (const action of ['pull', 'push']) {
      const state = await box.run(['state', action]);
      expect(state.exitCode).toBe(2);
      expect(state.stderr).toMatch(new RegExp(`state ${action} needs state.backend: s3 in .*\\.platctl\\.yaml`));
    }
    const broke = await box.run(['bootstrap', '--break-lock']);
    expect(broke.exitCode).toBe(2);
    expect(broke.stderr).toMatch(/--break-lock applies to the shared lock of state.backend s3/);
    expect(await box.calls()).toEqual([]);
  }, 120_000);

  it('status --run names the last run when asked for another (the local backend keeps only that one)', async () => {
    const box = await sandbox();
    expect((await box.run(['bootstrap'])).exitCode).toBe(0);
    const status = await box.run(['status', '--run', '20200101T000000Z-000000']);
    expect(status.exitCode).toBe(2);
    expect(status.stderr).toContain(
      `run 20200101T000000Z-000000 is not the last run of ${box.root} (${(await box.state()).run_id})`,
    );
    expect((await box.run(['status', '--run', (await box.state()).run_id])).exitCode).toBe(0);
  }, 120_000);
});

describe('with the s3 backend', () => {
  it('an unreachable bucket refuses the run before anything starts (exit 3) and history says why', async () => {
    const box = await sandbox();
    await withS3(box);
    const closed = { ...moto.env, AWS_ENDPOINT_URL: `http://127.0.0.1:${await freePort()}` };
    const run = await box.run(['bootstrap'], closed);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(
      /refused: cannot read the shared run state: cannot reach S3 reading s3:\/\/platctl-refusals\/platctl\/latest\/bootstrap.json \(ECONNREFUSED\); nothing was run/,
    );
    expect(run.stderr).toMatch(/hint: check the network and the credentials for state.bucket/);
    expect(await box.calls()).toEqual([]);
    const history = await box.run(['history'], closed);
    expect(history.exitCode).toBe(3);
    expect(history.stderr).toMatch(
      /cannot read the run history: cannot reach S3 listing s3:\/\/platctl-refusals\/platctl\/runs\//,
    );
  }, 120_000);

  it('a missing bucket names the bucket and the key to fix', async () => {
    const box = await sandbox();
    await withS3(box);
    const run = await box.run(['bootstrap'], moto.env);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(/the bucket platctl-refusals does not exist/);
    expect(run.stderr).toMatch(/hint: create it, or fix state.bucket in .platctl.yaml/);
  }, 120_000);

  it('a lock object that is not a platctl lock refuses the run and says where it is', async () => {
    const s3 = await createBucket();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'platctl/locks/platform.json', Body: 'garbage' }));
    const box = await sandbox();
    await withS3(box);
    const run = await box.run(['bootstrap'], moto.env);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(
      /refused: s3:\/\/platctl-refusals\/platctl\/locks\/platform.json exists but is not a platctl lock/,
    );
    expect(run.stderr).toMatch(/hint: if no platctl run is in progress on that environment, delete the object/);
    expect(await box.calls()).toEqual([]);
  }, 120_000);

  it('history --env refuses an environment the configuration does not declare', async () => {
    await createBucket();
    const box = await sandbox();
    await withS3(box);
    const history = await box.run(['history', '--env', 'platfrom'], moto.env);
    expect(history.exitCode).toBe(2);
    expect(history.stderr).toMatch(/no environment platfrom in .*\.platctl\.yaml \(known: platform\)/);
  }, 120_000);
});

describe.skipIf(!(await mountsAvailable()))('state pull on a disk that fills up (needs the right to mount)', () => {
  afterAll(unmountAll);

  it('refuses with exit 3 naming the file and the cause, and leaves the local state byte for byte as it was', async () => {
    await createBucket();
    const box = await sandbox();
    await withS3(box);
    const env = { ...moto.env, USER: 'alice' };
    expect((await box.run(['bootstrap'], env)).exitCode).toBe(0);
    // Put the repository on a small tmpfs of its own, then fill it.
    const copy = `${box.root}.copy`;
    await cp(box.root, copy, { recursive: true });
    await mountTmpfs(box.root, 512);
    await cp(copy, box.root, { recursive: true });
    const statePath = join(box.root, STATE_FILE);
    const before = await readFile(statePath, 'utf8');
    await fillDisk(box.root);

    const pulled = await box.run(['state', 'pull'], env);
    expect(pulled.stderr).toBe(
      `platctl: refused: cannot write ${statePath}: no space is left on the device (ENOSPC); free some space on ` +
        `that disk; ${STATE_FILE} is unchanged, nothing pulled`,
    );
    expect(pulled.exitCode).toBe(3);
    expect(await readFile(statePath, 'utf8')).toBe(before);
    const left = (await readdir(box.root)).filter((name) => name.startsWith(`${STATE_FILE}.`));
    expect(left).toEqual([]);
  }, 120_000);
});
