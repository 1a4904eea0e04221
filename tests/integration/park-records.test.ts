/**
 * Park records platctl does not understand (issue 24): every record read, shared (S3) or local, is checked in full;
 * one of another version, with a missing or wrong-typed field, sizes that are not whole numbers, or of another
 * environment or cluster is refused (exit 3) by status, bootstrap's parked guard, down and up, naming the object,
 * what is wrong and how to repair it; never acted on, never overwritten. And a `down` that finds every node group at
 * zero with no record refuses to record zeros: the sizes are given with `--restore-size`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EKSClient, UpdateNodegroupConfigCommand } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { useAwsProxy } from '../helpers/aws-proxy.js';
import { useMoto } from '../helpers/moto.js';
import { useParkEnv } from '../helpers/park-env.js';
import {
  PARK_BUCKET,
  PARK_CLUSTER,
  PARK_SIZES,
  awsClientConfig,
  nodeGroupSizes,
  parkConfig,
} from '../helpers/park-fixture.js';
import { stateStore } from '../helpers/state-bucket.js';

const KEY = 'park/platform.json';
const SHARED = `s3://${PARK_BUCKET}/platctl/${KEY}`;

function goodRecord(): Record<string, unknown> {
  return {
    version: 1,
    env: 'platform',
    cluster: PARK_CLUSTER,
    status: 'parked',
    parked_at: '2026-11-30T22:00:00.000Z',
    parked_by: { host: 'cron-host', user: 'cron' },
    node_groups: { system: { min: 2, max: 4, desired: 3 }, workers: { min: 1, max: 6, desired: 2 } },
    karpenter: { nodepools: [], ec2nodeclasses: [] },
    bastions: [],
    argocd: { namespace: 'argocd', apps: [] },
  };
}

/** Each record platctl must refuse, and what the refusal must say is wrong. */
const BAD: readonly { name: string; record: unknown; says: string }[] = [
  { name: 'empty', record: {}, says: 'is not a park record platctl understands: version:' },
  { name: 'version 2', record: { ...goodRecord(), version: 2 }, says: 'is a park record of version 2' },
  {
    name: 'no status',
    record: { ...goodRecord(), status: undefined },
    says: 'is not a park record platctl understands: status:',
  },
  {
    name: 'sizes as strings',
    record: { ...goodRecord(), node_groups: { system: { min: '2', max: '4', desired: '3' } } },
    says: 'node_groups.system.min: min must be a whole number (a JSON number, not a string)',
  },
  {
    name: 'fractional size',
    record: { ...goodRecord(), node_groups: { system: { min: 2, max: 4, desired: 2.5 } } },
    says: 'node_groups.system.desired: desired must be a whole number',
  },
  {
    name: 'another environment',
    record: { ...goodRecord(), env: 'staging' },
    says: 'is the park record of environment staging, not of platform',
  },
  {
    name: 'another cluster',
    record: { ...goodRecord(), cluster: 'other' },
    says: 'records cluster other, but environments.platform.cluster.name is platform',
  },
];

describe('park records platctl does not understand', { timeout: 240_000 }, () => {
  const moto = useMoto();
  const proxy = useAwsProxy(moto);
  const park = useParkEnv(moto, { prefix: 'platctl-park-records-', config: parkConfig(), proxy });
  const { cli } = park;

  const store = () => stateStore(moto, PARK_BUCKET);
  const putShared = async (body: string) => {
    const put = await store().put(KEY, body, { always: true });
    expect(put.ok).toBe(true);
  };
  const shared = async () => {
    const got = await store().get(KEY);
    return got.ok ? got.value?.body : 'unreadable';
  };
  const zeroAll = async () => {
    const eks = new EKSClient(awsClientConfig(moto.endpoint));
    for (const name of Object.keys(PARK_SIZES)) {
      await eks.send(
        new UpdateNodegroupConfigCommand({
          clusterName: PARK_CLUSTER,
          nodegroupName: name,
          scalingConfig: { minSize: 0, desiredSize: 0 },
        }),
      );
    }
  };

  it('a shared record it does not understand: status, bootstrap, down and up refuse (exit 3), naming it', async () => {
    for (const bad of BAD) {
      const body = JSON.stringify(bad.record);
      await putShared(body);
      proxy.calls.length = 0;

      const status = await cli(['status']);
      expect(status.code, `${bad.name}: ${status.stderr}`).toBe(3);
      expect(status.stdout, bad.name).toContain(`platform: UNKNOWN: its park record cannot be read: ${SHARED}`);
      expect(status.stdout, bad.name).toContain(bad.says);
      expect(status.stdout, bad.name).toContain('platctl neither acts on it nor overwrites it');

      const down = await cli(['down', '--env', 'platform', '--yes']);
      expect(down.code, `${bad.name}: ${down.stdout}${down.stderr}`).toBe(3);
      expect(down.stdout, bad.name).toContain('platform: refused');
      expect(down.stdout, bad.name).toContain(bad.says);
      expect(down.stdout, bad.name).toContain(`hint: `);

      expect(proxy.writes(), bad.name).toEqual([]);
      expect(park.kube.writes(), bad.name).toEqual([]);
      expect(await shared(), bad.name).toBe(body);
    }
    expect(await nodeGroupSizes(moto.endpoint)).toEqual(PARK_SIZES);

    // Sizes stored as strings: up refuses them; they never reach AWS.
    await zeroAll();
    const strings = BAD.find((b) => b.name === 'sizes as strings')?.record;
    await putShared(JSON.stringify(strings));
    proxy.calls.length = 0;
    const up = await cli(['up', '--env', 'platform', '--yes']);
    expect(up.code, up.stdout + up.stderr).toBe(3);
    expect(up.stdout).toContain('node_groups.system.min: min must be a whole number');
    expect(up.stdout).not.toContain('up and ready');
    expect(proxy.writes()).toEqual([]);

    // `{}`: bootstrap's parked guard cannot tell, and refuses (it used to crash, exit 70).
    await putShared('{}');
    const bootstrap = await cli(['bootstrap', '--env', 'platform']);
    expect(bootstrap.code, bootstrap.stderr).toBe(3);
    expect(bootstrap.stderr).toContain(`cannot tell whether platform is parked: ${SHARED} is not a park record`);
    const upEmpty = await cli(['up', '--env', 'platform', '--yes']);
    expect(upEmpty.code).toBe(3);
    expect(await shared()).toBe('{}');
  });

  it('a damaged local file beside a shared record: down refuses; moved aside, the shared record still says parked', async () => {
    await putShared(JSON.stringify(goodRecord()));
    await zeroAll();
    const path = join(park.root, '.platctl-park', 'platform.json');
    mkdirSync(join(park.root, '.platctl-park'));
    writeFileSync(path, '{"version": 1, "env": "platform", "durations_ms": {"down/record": "soon"}}');

    const down = await cli(['down', '--env', 'platform', '--yes']);
    expect(down.code, down.stdout + down.stderr).toBe(3);
    expect(down.stdout).toContain(`${path} is not a park file platctl understands: durations_ms.down/record:`);
    expect(down.stdout).toContain(`it only mirrors the shared record (${SHARED}, which stays the truth)`);
    expect(readFileSync(path, 'utf8')).toContain('"soon"');

    renameSync(path, `${path}.damaged`);
    const status = await cli(['status']);
    expect(status.stdout).toContain('platform: PARKED since 2026-11-30T22:00:00.000Z by cron@cron-host');
    const again = await cli(['down', '--env', 'platform', '--yes']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toMatch(/record +kept the record of 2026-11-30/);
    expect(JSON.parse((await shared()) ?? '')).toEqual(goodRecord());
  });

  it('local only: a damaged record is refused with a safe hint; every group at 0 and no record needs --restore-size', async () => {
    writeFileSync(join(park.root, '.platctl.yaml'), parkConfig().replace(`, state_bucket: ${PARK_BUCKET}`, ''));
    const path = join(park.root, '.platctl-park', 'platform.json');
    mkdirSync(join(park.root, '.platctl-park'));
    const damaged = JSON.stringify({ version: 1, env: 'platform', record: { ...goodRecord(), status: 'PARKED' } });
    writeFileSync(path, damaged);
    await zeroAll();

    const status = await cli(['status']);
    expect(status.code).toBe(3);
    expect(status.stdout).toContain(`${path} (its record) is not a park record platctl understands: status:`);
    const down = await cli(['down', '--env', 'platform', '--yes']);
    expect(down.code).toBe(3);
    // The local file is the only record: the hint says to repair it, and what to do if it cannot be.
    expect(down.stdout).toContain('do not delete it while platform is parked: it is the only record of the sizes');
    expect(down.stdout).toContain(`mv ${path} ${path}.damaged`);
    expect(down.stdout).toContain('--restore-size GROUP=MIN/MAX/DESIRED');
    expect(readFileSync(path, 'utf8')).toBe(damaged);

    // Moved aside as the hint says: down finds every group at 0 and no record, and will not record zeros.
    renameSync(path, `${path}.damaged`);
    const zeros = await cli(['down', '--env', 'platform', '--yes']);
    expect(zeros.code, zeros.stdout + zeros.stderr).toBe(3);
    expect(zeros.stdout).toContain('every node group of platform is already at 0');
    expect(zeros.stdout).toContain('down cannot know the sizes up must restore, and never records zeros');
    expect(zeros.stdout).toContain(
      'give them: platctl down --env platform --restore-size system=MIN/MAX/DESIRED --restore-size workers=MIN/MAX/DESIRED',
    );
    expect(existsSync(path)).toBe(false);
    const dry = await cli(['down', '--env', 'platform', '--dry-run']);
    expect(dry.code).toBe(3);

    // Usage errors: no --env, a malformed size, sizes out of order.
    expect((await cli(['down', '--yes', '--restore-size', 'system=2/4/3'])).code).toBe(2);
    const malformed = await cli(['down', '--env', 'platform', '--yes', '--restore-size', 'system=2/4']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('give GROUP=MIN/MAX/DESIRED');
    expect((await cli(['down', '--env', 'platform', '--yes', '--restore-size', 'system=3/4/2'])).code).toBe(2);
    // A group not parked, or one group of two: refused, nothing recorded.
    const unknown = await cli(['down', '--env', 'platform', '--yes', '--restore-size', 'sytem=2/4/3']);
    expect(unknown.code).toBe(3);
    expect(unknown.stdout).toContain('--restore-size names sytem, not a node group park.platform parks');
    const half = await cli(['down', '--env', 'platform', '--yes', '--restore-size', 'system=2/4/3']);
    expect(half.code).toBe(3);
    expect(half.stdout).toContain('--restore-size workers=MIN/MAX/DESIRED');
    expect(existsSync(path)).toBe(false);

    const given = await cli([
      'down',
      '--env',
      'platform',
      '--yes',
      '--restore-size',
      'system=2/4/3',
      '--restore-size',
      'workers=1/6/2',
    ]);
    expect(given.code, given.stdout + given.stderr).toBe(0);
    const file = JSON.parse(readFileSync(path, 'utf8')) as { record: { node_groups: unknown } };
    expect(file.record.node_groups).toEqual({
      system: { min: 2, max: 4, desired: 3 },
      workers: { min: 1, max: 6, desired: 2 },
    });
    // Once recorded, --restore-size is refused: the record holds the sizes.
    const twice = await cli(['down', '--env', 'platform', '--yes', '--restore-size', 'system=1/4/1']);
    expect(twice.code).toBe(3);
    expect(twice.stdout).toContain('already records the sizes up restores');
    const up = await cli(['up', '--env', 'platform', '--yes']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(await nodeGroupSizes(moto.endpoint)).toEqual(PARK_SIZES);
  });
});
