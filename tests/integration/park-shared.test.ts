/**
 * `down`/`up` with `state.backend: s3` (docs/state.md, docs/park.md): they take the same per-environment lock as
 * bootstrap and teardown, keep the park record under `<key_prefix>/park/<env>.json` in the state bucket, and move a
 * record found at its old place. The built CLI in processes of their own, against moto (behind a recording proxy)
 * and a real Kubernetes API server (platctl as the user of docs/park.md's ClusterRole); two sandboxes are two checkouts (another directory, another HOME) of one
 * repository whose environment is both parkable and has units (run by the fake terragrunt).
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useAwsProxy } from '../helpers/aws-proxy.js';
import { useMoto } from '../helpers/moto.js';
import { useParkKube } from '../helpers/park-env.js';
import {
  PARK_BUCKET,
  PARK_SIZES,
  instanceState,
  nodeGroupSizes,
  parkConfig,
  parkPdb,
  parkPod,
  s3ParkRecord,
  seedParkAws,
} from '../helpers/park-fixture.js';
import { createBucket, lockHolder, lockIsStale, stateStore, useS3State } from '../helpers/state-bucket.js';
import type { Sandbox } from './engine-helpers.js';
import { sandbox, until } from './engine-helpers.js';

const STATE_BUCKET = 'platctl-team-state';

interface Journal {
  record?: { status: string };
  last?: { op: string; status: string; stopped_because?: string; steps: Record<string, { status: string }> };
}

describe('down and up on the shared state backend', { timeout: 180_000 }, () => {
  const moto = useMoto();
  const proxy = useAwsProxy(moto);
  const park = useParkKube();
  let bastionId: string;

  beforeEach(async () => {
    proxy.inject = undefined;
    ({ bastionId } = await seedParkAws(moto.endpoint));
    await createBucket(moto, STATE_BUCKET);
  }, 90_000);

  const bucket = () => stateStore(moto, STATE_BUCKET);

  /** A checkout of the parkable repository; `backend: s3` unless told otherwise. */
  async function checkout(options: { backend?: 's3' | 'local'; config?: string } = {}): Promise<Sandbox> {
    const box = await sandbox();
    const config = join(box.root, '.platctl.yaml');
    await writeFile(config, options.config ?? parkConfig());
    if (options.backend !== 'local') await useS3State(config, STATE_BUCKET, '300ms');
    return box;
  }

  const env = (box: Sandbox, user = 'alice'): Record<string, string> => ({
    ...moto.env,
    AWS_ENDPOINT_URL: proxy.endpoint,
    KUBECONFIG: park.current().kubeconfig(box.root),
    USER: user,
  });

  const journal = (box: Sandbox): Journal => {
    const path = join(box.root, '.platctl-park', 'platform.json');
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Journal) : {};
  };

  const newRecord = async (): Promise<Record<string, unknown> | undefined> => {
    const got = await bucket().get('park/platform.json');
    return got.ok && got.value ? (JSON.parse(got.value.body) as Record<string, unknown>) : undefined;
  };

  it('a bootstrap holding the environment makes down refuse, naming it; the record lives in the state bucket', async () => {
    const builder = await checkout();
    const parker = await checkout();
    await builder.control({}, { sleep_ms: 1500 });
    const bootstrap = builder.start(['bootstrap', '--parallelism', '1'], env(builder, 'bob'));
    await until(async () => (await lockHolder(bucket(), 'platform'))?.verb === 'bootstrap', 60_000, 'the lock');

    const refused = await parker.run(['down', '--env', 'platform', '--yes'], env(parker));
    expect(refused.exitCode, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/refused: environment platform is locked by another platctl run/);
    expect(refused.stderr).toMatch(/run \S+: bootstrap \(platctl bootstrap --parallelism 1\)/);
    expect(refused.stderr).toMatch(/by bob@\S+, pid \d+, started /);
    expect(refused.stderr).toMatch(/last heartbeat \d+ s ago/);
    expect(await nodeGroupSizes(moto.endpoint)).toEqual(PARK_SIZES);
    expect(journal(parker).last).toBeUndefined();

    expect((await bootstrap).exitCode).toBe(0);
    const down = await parker.run(['down', '--env', 'platform', '--yes'], env(parker));
    expect(down.exitCode, down.stderr).toBe(0);
    // The record is in the state bucket under its key prefix, not at the environment bucket's old place.
    expect(await newRecord()).toMatchObject({ status: 'parked', node_groups: { system: { desired: 3 } } });
    expect(await s3ParkRecord(moto.endpoint)).toBeUndefined();
    expect(await lockHolder(bucket(), 'platform')).toBeUndefined();
    // bootstrap's guard reads the record there, from the other checkout.
    const guarded = await builder.run(['bootstrap'], env(builder, 'bob'));
    expect(guarded.exitCode).toBe(3);
    expect(guarded.stderr).toMatch(/platform is parked since .* \(by alice@/);
  });

  it('down holding the lock refuses bootstrap; killed -9, its lock goes stale and --break-lock resumes it', async () => {
    // Hold down inside its karpenter step: Karpenter cannot terminate the NodeClaim, and the wait for it is long.
    const parker = await checkout({ config: parkConfig('', '{ nodeclaim_timeout: 2m }') });
    const builder = await checkout();
    park.current().controllers.stuck.add('default-abc');
    const down = parker.start(['down', '--yes'], env(parker));
    await until(() => journal(parker).last?.steps.karpenter?.status === 'running', 60_000, 'the karpenter step');
    const holder = await lockHolder(bucket(), 'platform');
    expect(holder).toMatchObject({ verb: 'down', command: 'platctl down --yes', user: 'alice' });

    // --force skips the parked check; the environment lock still refuses.
    const refused = await builder.run(['bootstrap', '--force'], env(builder, 'bob'));
    expect(refused.exitCode, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/refused: environment platform is locked by another platctl run/);
    expect(refused.stderr).toContain(`run ${holder?.run_id ?? '?'}: down (platctl down --yes)`);
    expect(refused.stderr).toMatch(/last heartbeat \d+ s ago/);
    expect(await builder.calls()).toEqual([]);

    down.kill('SIGKILL');
    await down;
    park.current().controllers.stuck.clear();
    const fresh = await parker.run(['down', '--resume', '--yes'], env(parker));
    expect(fresh.exitCode).toBe(3);
    await until(() => lockIsStale(bucket(), 'platform'), 15_000, 'the lock to go stale');
    const stale = await parker.run(['down', '--resume', '--yes'], env(parker));
    expect(stale.exitCode).toBe(3);
    expect(stale.stderr).toMatch(/heartbeat stopped \d+ s ago .* run again with --break-lock/);

    const resumed = await parker.run(['down', '--resume', '--yes', '--break-lock'], env(parker));
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(
      new RegExp(`breaking the stale lock of environment platform: run ${holder?.run_id ?? '?'} \\(down\\) by alice@`),
    );
    expect(resumed.stdout).toMatch(/- do-not-disrupt +done in an earlier run/);
    expect(resumed.stdout).toContain('platform: parked, and verified through AWS');
    expect(journal(parker).last).toMatchObject({ status: 'completed', resumes: 1 });
    expect(await lockHolder(bucket(), 'platform')).toBeUndefined();
  });

  it('a failed renewal stops down before its next change, to the cluster as to AWS, even inside a step: exit 3, why in the journal', async () => {
    // A PodDisruptionBudget that never allows eviction holds the node-groups step for drain_grace, in the drain of
    // the first group (system), so the fence always lands before any group could be scaled.
    const parker = await checkout({ config: parkConfig().replace('drain_grace: 1s', 'drain_grace: 6s') });
    await park.current().server.apply(parkPod('apps', 'db-1', { node: 'sys-1', labels: { app: 'db' } }));
    await park.current().server.apply(parkPdb('apps', 'db', { app: 'db' }, 0));
    const down = parker.start(['down', '--yes'], env(parker));
    await until(() => journal(parker).last?.steps['node-groups']?.status === 'running', 60_000, 'node-groups');
    // S3 now refuses every write of the lock: the next renewal fails.
    proxy.inject = (call) =>
      call.method === 'PUT' && call.path.includes('/locks/')
        ? {
            status: 503,
            headers: { 'content-type': 'application/xml' },
            body: '<Error><Code>ServiceUnavailable</Code></Error>',
          }
        : undefined;
    const result = await down;
    expect(result.exitCode, String(result.stderr)).toBe(3);
    const out = String(result.stdout);
    expect(out).toMatch(/warning: cannot renew the lock of environment platform: .*: starting no more steps/);
    expect(out).toMatch(/platform: down stopped: cannot renew the lock of environment platform/);
    expect(out).toContain('Resume with: platctl down --resume --yes');
    // The step running at the fence made no change after it: its drain was under way, so the next eviction was not
    // sent (the cluster is fenced like AWS) and no group was scaled; and no step started after it.
    const last = journal(parker).last;
    expect(last?.status).toBe('failed');
    expect(last?.stopped_because).toMatch(/^cannot renew the lock of environment platform/);
    expect(last?.steps['node-groups']?.status).toBe('failed');
    // Which eviction the fence stopped depends on when the renewal failed: coredns-1 (the node's other pod) if the
    // drain had not reached it yet, else the PDB-held db-1.
    expect(out).toMatch(/did not evict pod (kube-system\/coredns-1|apps\/db-1), and changed nothing after that/);
    expect(await nodeGroupSizes(moto.endpoint)).toEqual(PARK_SIZES);
    expect(last?.steps.bastion?.status).toBe('pending');
    expect(last?.steps['verify-cost-zero']?.status).toBe('pending');
    expect(await instanceState(moto.endpoint, bastionId)).toBe('running');
    expect(journal(parker).record?.status).toBe('parked');
  });

  it('moves a record from the environment bucket to the state bucket; the local backend keeps the old place', async () => {
    const box = await checkout({ backend: 'local' });
    const down = await box.run(['down', '--yes'], env(box));
    expect(down.exitCode, down.stderr).toBe(0);
    // The local backend: exactly as before, in the environment's state bucket.
    expect(await s3ParkRecord(moto.endpoint)).toMatchObject({ status: 'parked' });
    expect(await newRecord()).toBeUndefined();

    await useS3State(join(box.root, '.platctl.yaml'), STATE_BUCKET, '300ms');
    const other = await checkout();
    // Read-only readers find the record at its old place and leave it there.
    const guarded = await other.run(['bootstrap'], env(other, 'bob'));
    expect(guarded.exitCode).toBe(3);
    expect(guarded.stderr).toMatch(/platform is parked since/);
    expect(await newRecord()).toBeUndefined();

    const up = await other.run(['up', '--env', 'platform'], env(other, 'bob'));
    expect(up.exitCode, up.stderr).toBe(0);
    expect(up.stdout).toContain(
      `moved the park record of platform from s3://${PARK_BUCKET}/platctl/park/platform.json to ` +
        `s3://${STATE_BUCKET}/platctl/park/platform.json`,
    );
    expect(await nodeGroupSizes(moto.endpoint)).toEqual(PARK_SIZES);
    expect(await newRecord()).toMatchObject({ status: 'unparked', unparked_by: { user: 'bob' } });
    // The old copy is left as it was, and no longer read: the new one is the record.
    expect(await s3ParkRecord(moto.endpoint)).toMatchObject({ status: 'parked' });
    const again = await other.run(['bootstrap'], env(other, 'bob'));
    expect(again.stderr).not.toMatch(/is parked since/);
  });
});
