/**
 * platctl down / up through the CLI, against moto (EKS node groups, EC2, S3, STS) behind a recording proxy and the
 * loopback Kubernetes API with Karpenter, Argo CD, PodDisruptionBudgets and do-not-disrupt pods.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expiredTokenJson, useAwsProxy } from '../helpers/aws-proxy.js';
import type { KubeApiServer } from '../helpers/kube-api.js';
import { KEYS, fixtureNodePool, fixturePdb, karpenterController } from '../helpers/kube-api.js';
import { useMoto } from '../helpers/moto.js';
import { mountReadOnly, mountsAvailable, unmountAll } from '../helpers/mounts.js';
import {
  PARK_CLUSTER as CLUSTER,
  PARK_SIZES as SIZES,
  instanceState as stateOf,
  nodeGroupSizes,
  parkConfig as config,
  runInstance,
  s3ParkRecord,
  seedParkAws,
  startParkKube,
} from '../helpers/park-fixture.js';
import { runCli } from '../helpers/run-cli.js';
import { PLATCTL } from './engine-helpers.js';

const MOUNTS = await mountsAvailable();

// Each test runs platctl several times against moto; a loaded 2-core machine needs more than the default 30 s.
describe('platctl down / up', { timeout: 120_000 }, () => {
  const moto = useMoto();
  const proxy = useAwsProxy(moto);
  let kube: KubeApiServer;
  let root: string;
  let bastionId: string;
  let strayId: string | undefined;

  const env = (extra: Record<string, string> = {}) => ({
    ...moto.env,
    AWS_ENDPOINT_URL: proxy.endpoint,
    HOME: join(root, 'home'),
    KUBECONFIG: kube.writeKubeconfig(root, 'fixture'),
    ...extra,
  });
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    runCli([...args, '--config', join(root, '.platctl.yaml')], { cwd: root, env: env(extra) });

  const sizes = () => nodeGroupSizes(moto.endpoint);
  const instanceState = (id: string) => stateOf(moto.endpoint, id);
  const s3Record = () => s3ParkRecord(moto.endpoint);

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'platctl-park-'));
    mkdirSync(join(root, 'live', 'platform'), { recursive: true });
    mkdirSync(join(root, 'home'), { recursive: true });
    writeFileSync(join(root, '.platctl.yaml'), config());
    proxy.calls.length = 0;
    proxy.inject = undefined;
    ({ bastionId } = await seedParkAws(moto.endpoint));
    strayId = undefined;
    kube = await startParkKube();
  }, 90_000);

  afterEach(async () => {
    await kube.close();
    await unmountAll();
    rmSync(root, { recursive: true, force: true });
  });

  it('down parks everything and verifies it; up restores every size, object and state exactly', async () => {
    const down = await cli(['down', '--env', 'platform', '--yes']);
    expect(down.stderr).toBe('');
    expect(down.code).toBe(0);
    expect(down.stdout).toContain('platform: parked, and verified through AWS');
    expect(await sizes()).toEqual({
      system: { minSize: 0, maxSize: 4, desiredSize: 0 },
      workers: { minSize: 0, maxSize: 6, desiredSize: 0 },
    });
    expect(await instanceState(bastionId)).toBe('stopped');
    expect(kube.objects(KEYS.nodepools)).toEqual([]);
    expect(kube.objects(KEYS.nodeclaims)).toEqual([]);
    expect(kube.objects(KEYS.applications)[0]?.spec).toEqual({ project: 'default', syncPolicy: {} });
    expect(kube.objects(KEYS.pods).map((p) => p.metadata?.name)).toEqual(['cilium-x']);
    const record = await s3Record();
    expect(record).toMatchObject({
      status: 'parked',
      node_groups: { system: { min: 2, max: 4, desired: 3 }, workers: { min: 1, max: 6, desired: 2 } },
      bastions: [{ id: bastionId, state: 'running' }],
      argocd: { namespace: 'argocd', apps: [{ name: 'karpenter', automated: { prune: true, selfHeal: true } }] },
    });
    const local = JSON.parse(readFileSync(join(root, '.platctl-park', 'platform.json'), 'utf8')) as {
      record: unknown;
      last: { status: string; steps: Record<string, { status: string }> };
    };
    expect(local.record).toEqual(record);
    expect(local.last.status).toBe('completed');
    expect(Object.keys(local.last.steps)).toEqual([
      'record',
      'argocd-pause',
      'do-not-disrupt',
      'karpenter',
      'node-groups',
      'bastion',
      'verify-cost-zero',
    ]);

    const up = await cli(['up', '--env', 'platform']);
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    expect(await sizes()).toEqual(SIZES);
    expect(await instanceState(bastionId)).toBe('running');
    const pool = kube.objects(KEYS.nodepools)[0];
    expect(pool?.metadata).toMatchObject({ name: 'default', annotations: { team: 'platform' } });
    expect(pool?.metadata?.annotations).not.toHaveProperty(['karpenter.sh/nodepool-hash']);
    expect(pool?.spec).toEqual(fixtureNodePool('default').spec);
    expect(kube.objects(KEYS.ec2nodeclasses).map((c) => c.metadata?.name)).toEqual(['default']);
    expect(kube.objects(KEYS.applications)[0]?.spec).toEqual({
      project: 'default',
      syncPolicy: { automated: { prune: true, selfHeal: true } },
    });
    expect(await s3Record()).toMatchObject({ status: 'unparked', node_groups: record?.node_groups });

    const status = await cli(['status']);
    expect(status.stdout).toContain('platform: not parked');
    expect(status.stdout).toContain('last up: completed');
    // No bootstrap ever ran here: --json still carries the park state (and says there is no run).
    const json = await cli(['status', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      run: null,
      complete: false,
      park: [{ env: 'platform', parked: false, record: { status: 'unparked' } }],
    });
  });

  it('a second down keeps the first record instead of recording zeros', async () => {
    expect((await cli(['down', '--yes'])).code).toBe(0);
    const first = await s3Record();
    const again = await cli(['down', '--yes']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/record +kept the record of /);
    expect(await s3Record()).toEqual(first);
    expect((first?.node_groups as Record<string, unknown>).system).toEqual({ min: 2, max: 4, desired: 3 });
  });

  it('expired credentials touch nothing: refused before any write (exit 3)', async () => {
    const expired = await cli(['down', '--yes'], {
      AWS_CREDENTIAL_EXPIRATION: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(expired.code).toBe(3);
    expect(expired.stdout).toContain('platform: refused');
    expect(expired.stdout).toContain('credentials');
    expect(proxy.writes()).toEqual([]);
    expect(kube.writes()).toEqual([]);
    expect(await sizes()).toEqual(SIZES);
    expect(await s3Record()).toBeUndefined();
  });

  it('--dry-run shows what each step would touch as it is now, and writes nothing', async () => {
    const dry = await cli(['down', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('system: min 2 / max 4 / desired 3 -> min 0 / desired 0');
    expect(dry.stdout).toContain(`${bastionId}: running -> stopped`);
    expect(dry.stdout).toContain('NodePools: default');
    expect(dry.stdout).toContain('pods: apps/api-1');
    expect(dry.stdout).toContain('NodeClaims now: default-abc');
    expect(proxy.writes()).toEqual([]);
    expect(proxy.calls.length).toBeGreaterThan(0);
    expect(kube.writes()).toEqual([]);
    expect(existsSync(join(root, '.platctl-park'))).toBe(false);
  });

  it('a NodeClaim that never goes fails the karpenter step with its name and finalizers; nothing after it ran', async () => {
    kube.controllers.length = 0;
    kube.controllers.push(karpenterController({ stuck: ['default-abc'] }));
    const down = await cli(['down', '--yes']);
    expect(down.code).toBe(1);
    expect(down.stdout).toContain('default-abc (finalizers: karpenter.sh/termination)');
    expect(down.stdout).toContain('platform: down failed at step karpenter');
    expect(down.stdout).toContain('not parked: karpenter, node-groups, bastion, verify-cost-zero');
    expect(down.stdout).toContain('Resume with: platctl down --resume');
    expect(await sizes()).toEqual(SIZES);
  });

  it('a PodDisruptionBudget that never allows eviction is forced after drain_grace', async () => {
    kube.objects(KEYS.pdbs).push(fixturePdb('apps', 'api', { app: 'api' }, 0));
    const down = await cli(['down', '--yes']);
    expect(down.code).toBe(0);
    expect(down.stdout).toContain('forced after 1s: apps/api-1');
    expect(kube.writes()).toContain('DELETE /api/v1/namespaces/apps/pods/api-1?gracePeriodSeconds=0');
    expect(kube.requests.filter((r) => r.url.endsWith('/api-1/eviction')).length).toBeGreaterThan(1);
  });

  it('an auth error mid-run stops at once and says what is parked and what is not (exit 1)', async () => {
    proxy.inject = (call) => (call.path.endsWith('/update-config') ? expiredTokenJson() : undefined);
    const down = await cli(['down', '--yes']);
    expect(down.code).toBe(1);
    expect(down.stdout).toContain('credentials rejected: stopped at once');
    expect(down.stdout).toContain('parked: record, argocd-pause, do-not-disrupt, karpenter');
    expect(down.stdout).toContain('not parked: node-groups, bastion, verify-cost-zero');
    expect(await instanceState(bastionId)).toBe('running');
  });

  it('verify-cost-zero fails naming an instance of the cluster that still runs', async () => {
    strayId = await runInstance(moto.endpoint, { 'eks:eks-cluster-name': CLUSTER, Name: 'stray' });
    const down = await cli(['down', '--yes']);
    expect(down.code).toBe(1);
    expect(down.stdout).toContain(`instance ${strayId ?? '?'} (stray) is running`);
    expect(down.stdout).toContain('failed at step verify-cost-zero');
  });

  it('refuses while another platctl holds the lock, and bootstrap refuses on a parked environment', async () => {
    writeFileSync(
      join(root, '.platctl.lock'),
      JSON.stringify({ pid: 1, host: hostname(), command: 'platctl bootstrap', started_at: '2026-12-01T00:00:00Z' }),
    );
    const locked = await cli(['down', '--yes']);
    expect(locked.code).toBe(3);
    expect(locked.stderr).toContain('refused: another platctl run holds .platctl.lock in');
    expect(locked.stderr).toContain('; down would race it\n');
    expect(locked.stderr).toContain('  command: platctl bootstrap\n');
    expect(locked.stderr).toContain('  hint: wait for it to finish');
    rmSync(join(root, '.platctl.lock'));

    expect((await cli(['down', '--yes'])).code).toBe(0);
    const bootstrap = await cli(['bootstrap', '--env', 'platform']);
    expect(bootstrap.code).toBe(3);
    expect(bootstrap.stderr).toMatch(/platform is parked since .*; run `platctl up --env platform`/);
    const forced = await cli(['bootstrap', '--env', 'platform', '--force']);
    expect(forced.stderr).not.toContain('is parked since');
  });

  it.skipIf(!MOUNTS)(
    'a read-only checkout (EROFS): refuses naming the lock file and the cause; nothing parked',
    async () => {
      const before = await sizes();
      const environment = env(); // writes the kubeconfig while it still can
      await mountReadOnly(root);
      const down = await runCli(['down', '--yes', '--config', join(root, '.platctl.yaml')], {
        cwd: root,
        env: environment,
      });
      expect(down.code).toBe(3);
      expect(down.stderr).toBe(
        `platctl: refused: cannot create ${join(root, '.platctl.lock')}: the file system is read-only (EROFS); ` +
          `run platctl from a writable checkout; nothing was run\n`,
      );
      expect(await sizes()).toEqual(before);
      expect(await instanceState(bastionId)).toBe('running');
    },
  );

  it('kill -9 in the middle of down, then --resume finishes from the first unfinished step', async () => {
    // The built CLI in a process of its own: hold it inside the karpenter step, then SIGKILL it.
    kube.hang = (request) => request.method === 'DELETE' && request.url.includes('/nodepools/');
    const child = execa(process.execPath, [PLATCTL, 'down', '--yes', '--config', join(root, '.platctl.yaml')], {
      cwd: root,
      env: env(),
      extendEnv: false,
      reject: false,
    });
    const journal = join(root, '.platctl-park', 'platform.json');
    const running = (): boolean => {
      if (!existsSync(journal)) return false;
      const file = JSON.parse(readFileSync(journal, 'utf8')) as {
        last?: { steps: Record<string, { status: string }> };
      };
      return file.last?.steps.karpenter?.status === 'running';
    };
    const deadline = Date.now() + 60_000;
    while (!running() && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    expect(running()).toBe(true);
    child.kill('SIGKILL');
    await child;
    expect(existsSync(join(root, '.platctl.lock'))).toBe(true);
    kube.hang = undefined;

    const resumed = await cli(['down', '--resume', '--yes']);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('took over the lock of a platctl that died');
    expect(resumed.stdout).toContain('down --resume platform');
    expect(resumed.stdout).toMatch(/- argocd-pause +done in an earlier run/);
    expect(resumed.stdout).toMatch(/- do-not-disrupt +done in an earlier run/);
    expect(resumed.stdout).toMatch(/✓ karpenter +deleted NodePools default/);
    expect(await sizes()).toEqual({
      system: { minSize: 0, maxSize: 4, desiredSize: 0 },
      workers: { minSize: 0, maxSize: 6, desiredSize: 0 },
    });
    const file = JSON.parse(readFileSync(journal, 'utf8')) as { last: { status: string; resumes: number } };
    expect(file.last).toMatchObject({ status: 'completed', resumes: 1 });
    expect((await s3Record())?.node_groups).toEqual({
      system: { min: 2, max: 4, desired: 3 },
      workers: { min: 1, max: 6, desired: 2 },
    });
  });

  it('up refuses an environment that was never parked', async () => {
    const up = await cli(['up']);
    expect(up.code).toBe(3);
    expect(up.stdout).toContain('platform is not parked: there is no park record at s3://');
    expect(proxy.writes()).toEqual([]);
  });
});
