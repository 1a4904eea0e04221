/**
 * `platctl status` reads the park record where it is shared (docs/park.md): in the state bucket with
 * `state.backend: s3`, else in the environment's `aws.state_bucket`. Another runner (a cron elsewhere, CI) writes it
 * there; this checkout's `.platctl-park/<env>.json` may be missing or stale. S3 is moto over real HTTP.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useMoto } from '../helpers/moto.js';
import { PARK_BUCKET, parkConfig, sampleParkRecord } from '../helpers/park-fixture.js';
import { runCli } from '../helpers/run-cli.js';
import { createBucket, stateStore, useS3State } from '../helpers/state-bucket.js';
import type { ParkFile, ParkRecord } from '../../park/record.js';
import { saveParkFile } from '../../park/record.js';
import { PLATCTL } from './engine-helpers.js';

const STATE_BUCKET = 'platctl-team-state';
const ENV_RECORD = `s3://${PARK_BUCKET}/platctl/park/platform.json`;
const STATE_RECORD = `s3://${STATE_BUCKET}/platctl/park/platform.json`;

/** A local park file as this checkout's last `down` left it: the record it parked, and its journal. */
function localFile(parked: ParkRecord, location: string): ParkFile {
  return {
    version: 1,
    env: 'platform',
    record: parked,
    record_location: location,
    last: {
      op: 'down',
      started_at: '2026-11-30T22:00:00.000Z',
      by: { host: 'laptop', user: 'alice' },
      status: 'completed',
      resumes: 0,
      steps: { record: { status: 'completed', duration_ms: 1200 } },
    },
    durations_ms: {},
  };
}

interface ParkJson {
  env: string;
  parked: boolean | null;
  record: { status: string } | null;
  record_location: string | null;
  last: { op: string } | null;
  error?: { reason: string; message: string };
}

describe('platctl status: the park state where the record is shared', { timeout: 60_000 }, () => {
  const moto = useMoto();
  let root: string;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'platctl-park-status-'));
    mkdirSync(join(root, 'live', 'platform'), { recursive: true });
    writeFileSync(join(root, '.platctl.yaml'), parkConfig());
    await createBucket(moto, PARK_BUCKET);
    await createBucket(moto, STATE_BUCKET);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const cli = (args: string[], env: Record<string, string> = moto.env) =>
    runCli([...args, '--config', join(root, '.platctl.yaml')], { cwd: root, env: { ...env, HOME: root } });
  /** Another runner's record, written where `bucket` shares it (as its first record). */
  const shareRecord = async (bucket: string, written: ParkRecord) => {
    const put = await stateStore(moto, bucket).put('park/platform.json', JSON.stringify(written), {
      ifNoneMatch: true,
    });
    expect(put.ok).toBe(true);
  };
  const parkJson = async (env?: Record<string, string>) => {
    const result = await cli(['status', '--json'], env);
    return { ...result, park: (JSON.parse(result.stdout) as { park: ParkJson[] }).park };
  };

  it('a record another runner wrote to the state bucket, none here: status says parked', async () => {
    await useS3State(join(root, '.platctl.yaml'), STATE_BUCKET);
    await shareRecord(STATE_BUCKET, sampleParkRecord('parked', 'cron'));

    const text = await cli(['status']);
    expect(text.stdout).toContain('platform: PARKED since 2026-11-30T22:00:00.000Z by cron@cron-host');
    expect(text.stdout).toContain(`record: ${STATE_RECORD}`);
    expect(text.stdout).toContain('recorded sizes (min/max/desired): system 2/4/3');
    // No run recorded and the park state is known: parked, exit 4 (README, exit codes), advised up, not bootstrap.
    expect(text.code, text.stderr).toBe(4);
    expect(text.stderr).toContain('platform is parked: platctl up --env platform brings it back');

    const json = await parkJson();
    expect(json.park).toEqual([
      {
        env: 'platform',
        parked: true,
        record: sampleParkRecord('parked', 'cron'),
        record_location: STATE_RECORD,
        last: null,
        killed: null,
      },
    ]);
  });

  it('the configuration in YAML flow style (here JSON, on one line): the shared record is still read', async () => {
    const configPath = join(root, '.platctl.yaml');
    await useS3State(configPath, STATE_BUCKET);
    writeFileSync(configPath, JSON.stringify(parse(readFileSync(configPath, 'utf8'))));
    await shareRecord(STATE_BUCKET, sampleParkRecord('parked', 'cron'));

    const text = await cli(['status']);
    expect(text.stdout, text.stderr).toContain('platform: PARKED since 2026-11-30T22:00:00.000Z by cron@cron-host');
    expect(text.stdout).toContain(`record: ${STATE_RECORD}`);
  });

  it("a stale local copy says parked; up ran elsewhere and the environment bucket's record says unparked", async () => {
    await saveParkFile(root, localFile(sampleParkRecord('parked', 'alice'), ENV_RECORD));
    await shareRecord(PARK_BUCKET, sampleParkRecord('unparked', 'ci'));

    const text = await cli(['status']);
    expect(text.stdout).toContain('platform: not parked (last parked 2026-11-30T22:00:00.000Z, unparked 2026-12-01');
    expect(text.stdout).not.toContain('PARKED');
    expect(text.stdout).toContain(`record: ${ENV_RECORD}`);
    // The journal is this checkout's own: its last down stays visible.
    expect(text.stdout).toContain('last down: completed');

    const json = await parkJson();
    expect(json.park).toEqual([
      {
        env: 'platform',
        parked: false,
        record: sampleParkRecord('unparked', 'ci'),
        record_location: ENV_RECORD,
        last: expect.objectContaining({ op: 'down' }) as unknown,
        killed: null,
      },
    ]);
  });

  it('state moved to an S3 backend, the record not moved yet: status names the copy that answered', async () => {
    // The environment bucket holds the record (written before `state.backend: s3`); the next `down`/`up` moves it.
    await useS3State(join(root, '.platctl.yaml'), STATE_BUCKET);
    await shareRecord(PARK_BUCKET, sampleParkRecord('parked', 'cron'));

    const text = await cli(['status']);
    expect(text.stdout, text.stderr).toContain('platform: PARKED since 2026-11-30T22:00:00.000Z by cron@cron-host');
    expect(text.stdout).toContain(`record: ${ENV_RECORD}`);
    expect((await parkJson()).park[0]?.record_location).toBe(ENV_RECORD);
    // status only reads: nothing was copied to the state bucket.
    const moved = await stateStore(moto, STATE_BUCKET).get('park/platform.json');
    expect(moved.ok && moved.value).toBe(undefined);
  });

  it('the shared record cannot be read: the park state is unknown, with where, why and what to do; exit 3', async () => {
    await saveParkFile(root, localFile(sampleParkRecord('parked', 'alice'), ENV_RECORD));
    const closed = await closedPort();
    const unreachable = { ...moto.env, AWS_ENDPOINT_URL: `http://127.0.0.1:${closed}` };

    const text = await cli(['status'], unreachable);
    expect(text.code).toBe(3);
    expect(text.stdout).not.toContain('PARKED');
    expect(text.stdout).not.toContain('not parked');
    // Where (the record's location), why (the cause) and what to do.
    expect(text.stdout).toContain(
      `platform: UNKNOWN: its park record cannot be read: cannot reach S3 reading ${ENV_RECORD} (ECONNREFUSED); ` +
        'check the network and the AWS credentials that reach it, then run platctl status again',
    );
    expect(text.stdout).toContain('last down: completed');

    const json = await parkJson(unreachable);
    expect(json.code).toBe(3);
    expect(json.park).toEqual([
      {
        env: 'platform',
        parked: null,
        record: null,
        record_location: ENV_RECORD,
        last: expect.objectContaining({ op: 'down' }) as unknown,
        killed: null,
        error: { reason: expect.any(String) as unknown, message: expect.stringContaining(ENV_RECORD) as unknown },
      },
    ]);
    expect(json.stderr).toContain(
      `platctl: the park state of platform is unknown: its park record cannot be read: cannot reach S3 reading ${ENV_RECORD}`,
    );

    // Without a local copy either: another runner may have parked it, so it is unknown, not absent.
    rmSync(join(root, '.platctl-park'), { recursive: true });
    const bare = await parkJson(unreachable);
    expect(bare.code).toBe(3);
    expect(bare.park).toMatchObject([{ env: 'platform', parked: null, record_location: ENV_RECORD, last: null }]);
  });

  it('nothing shared: the local file, offline, without loading the AWS SDK', async () => {
    const local = parkConfig().replace(`, state_bucket: ${PARK_BUCKET}`, '');
    writeFileSync(join(root, '.platctl.yaml'), local);
    await saveParkFile(
      root,
      localFile(sampleParkRecord('parked', 'alice'), join(root, '.platctl-park', 'platform.json')),
    );
    const path = join(root, '.platctl-park', 'platform.json');
    // No endpoint at all: any AWS call would fail.
    const offline = { PATH: process.env.PATH ?? '' };

    const text = await cli(['status'], offline);
    expect(text.code).toBe(4);
    expect(text.stdout).toContain('platform: PARKED since 2026-11-30T22:00:00.000Z by alice@alice-host');
    expect(text.stdout).toContain(`record: ${path}`);
    const json = await parkJson(offline);
    expect(json.park).toEqual([
      {
        env: 'platform',
        parked: true,
        record: sampleParkRecord('parked', 'alice'),
        record_location: path,
        last: expect.anything() as unknown,
        killed: null,
      },
    ]);

    // The built CLI in a process of its own, with a loader hook that logs every AWS SDK module it resolves.
    const log = join(root, 'modules.log');
    const hook = join(root, 'hook.mjs');
    writeFileSync(
      hook,
      `import { appendFileSync } from 'node:fs';\n` +
        `export async function resolve(specifier, context, next) {\n` +
        `  const found = await next(specifier, context);\n` +
        `  if (found.url.includes('@aws-sdk') || found.url.includes('@smithy')) appendFileSync(${JSON.stringify(log)}, found.url + '\\n');\n` +
        `  return found;\n}\n`,
    );
    const register = join(root, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hook}`)});\n`,
    );
    writeFileSync(log, '');
    const child = await execa(
      'node',
      ['--import', register, PLATCTL, 'status', '--config', join(root, '.platctl.yaml')],
      {
        cwd: root,
        env: { ...offline, HOME: root },
        extendEnv: false,
        reject: false,
      },
    );
    expect(child.stdout).toContain('platform: PARKED since');
    expect(readFileSync(log, 'utf8')).toBe('');
  });

  it('a corrupt local park file, nothing shared: UNKNOWN with the file and what to do, exit 3', async () => {
    const path = join(root, '.platctl-park', 'staging.json');
    mkdirSync(join(root, '.platctl-park'), { recursive: true });
    writeFileSync(path, '{"version": 1, "env": "stag');
    const offline = { PATH: process.env.PATH ?? '' };
    // Once with a configuration status does not load in full, once with one it does (staging is not under park:).
    for (const config of [parkConfig().replace(`, state_bucket: ${PARK_BUCKET}`, ''), parkConfig()]) {
      writeFileSync(join(root, '.platctl.yaml'), config);
      const text = await cli(['status'], offline);
      expect(text.code, text.stderr).toBe(3);
      expect(text.stdout).toContain(`staging: UNKNOWN: its park record cannot be read: ${path} is not valid JSON`);
      const json = await parkJson(offline);
      expect(json.park).toContainEqual(
        expect.objectContaining({ env: 'staging', parked: null, record: null, record_location: path }),
      );
    }
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 1;
}
