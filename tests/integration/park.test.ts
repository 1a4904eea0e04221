/**
 * platctl down / up through the CLI, against moto (EKS node groups, EC2, S3, STS) behind a recording proxy and a real
 * Kubernetes API server with Karpenter's CRDs, Argo CD, PodDisruptionBudgets and do-not-disrupt pods; the test
 * controllers play Karpenter, the garbage collector and the kubelet, and platctl runs as the user of the ClusterRole
 * docs/park.md publishes.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { expiredTokenJson, useAwsProxy } from '../helpers/aws-proxy.js';
import { waitFor } from '../helpers/kube-server.js';
import { kubeServerUnavailable } from '../helpers/kube-server.js';
import { useMoto } from '../helpers/moto.js';
import { mountReadOnly, mountsAvailable, unmountAll } from '../helpers/mounts.js';
import { useParkEnv } from '../helpers/park-env.js';
import {
  PARK_CLUSTER as CLUSTER,
  PARK_SIZES as SIZES,
  instanceState as stateOf,
  nodeGroupSizes,
  parkConfig as config,
  parkNodePool,
  parkPdb,
  runInstance,
  s3ParkRecord,
} from '../helpers/park-fixture.js';
import { runCli } from '../helpers/run-cli.js';
import { PLATCTL } from './engine-helpers.js';

const MOUNTS = await mountsAvailable();
const unavailable = kubeServerUnavailable();

// Each test runs platctl several times against moto; a loaded 2-core machine needs more than the default 30 s.
describe.skipIf(unavailable !== undefined)(
  `platctl down / up${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  { timeout: 120_000 },
  () => {
    const moto = useMoto();
    const proxy = useAwsProxy(moto);
    const park = useParkEnv(moto, { prefix: 'platctl-park-', config: config(), proxy });
    let strayId: string | undefined;

    const env = (extra: Record<string, string> = {}) => ({
      ...moto.env,
      AWS_ENDPOINT_URL: proxy.endpoint,
      HOME: join(park.root, 'home'),
      KUBECONFIG: park.kube.kubeconfig(park.root),
      ...extra,
    });
    const cli = (args: string[], extra: Record<string, string> = {}) => park.cli(args, extra);

    const sizes = () => nodeGroupSizes(moto.endpoint);
    const instanceState = (id: string) => stateOf(moto.endpoint, id);
    const s3Record = () => s3ParkRecord(moto.endpoint);
    /** Waits until the controllers have made every object of `kind` go (the NodePool goes after its NodeClaims). */
    const gone = (kind: 'nodepools' | 'nodeclaims' | 'ec2nodeclasses') =>
      waitFor(`${kind} left`, async () => (await park.kube.names(kind)).length === 0);

    afterEach(async () => {
      strayId = undefined;
      await unmountAll();
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
      expect(await instanceState(park.bastionId)).toBe('stopped');
      // The NodeClaim is gone (down waited for it); the NodePool goes once the garbage collector sees that.
      expect(await park.kube.names('nodeclaims')).toEqual([]);
      await gone('nodepools');
      await gone('ec2nodeclasses');
      expect((await park.kube.get('applications', 'karpenter', 'argocd'))?.spec).toEqual({
        project: 'default',
        syncPolicy: {},
      });
      // Evicted pods go once their kubelet has stopped them; the DaemonSet pod stays.
      await waitFor('evicted pods gone', async () => (await park.kube.names('pods')).join() === 'cilium-x');
      const record = await s3Record();
      expect(record).toMatchObject({
        status: 'parked',
        node_groups: { system: { min: 2, max: 4, desired: 3 }, workers: { min: 1, max: 6, desired: 2 } },
        bastions: [{ id: park.bastionId, state: 'running' }],
        argocd: { namespace: 'argocd', apps: [{ name: 'karpenter', automated: { prune: true, selfHeal: true } }] },
      });
      const local = JSON.parse(readFileSync(join(park.root, '.platctl-park', 'platform.json'), 'utf8')) as {
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
      expect(await instanceState(park.bastionId)).toBe('running');
      const pool = await park.kube.get('nodepools', 'default');
      expect(pool?.metadata).toMatchObject({ name: 'default', annotations: { team: 'platform' } });
      expect(pool?.metadata.annotations).not.toHaveProperty(['karpenter.sh/nodepool-hash']);
      expect(pool?.spec).toEqual(parkNodePool('default').spec);
      expect(await park.kube.names('ec2nodeclasses')).toEqual(['default']);
      expect((await park.kube.get('applications', 'karpenter', 'argocd'))?.spec).toEqual({
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
      expect(park.kube.writes()).toEqual([]);
      expect(await sizes()).toEqual(SIZES);
      expect(await s3Record()).toBeUndefined();
    });

    it('--dry-run shows what each step would touch as it is now, and writes nothing', async () => {
      const dry = await cli(['down', '--dry-run']);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain('system: min 2 / max 4 / desired 3 -> min 0 / desired 0');
      expect(dry.stdout).toContain(`${park.bastionId}: running -> stopped`);
      expect(dry.stdout).toContain('NodePools: default');
      expect(dry.stdout).toContain('pods: apps/api-1');
      expect(dry.stdout).toContain('NodeClaims now: default-abc');
      expect(proxy.writes()).toEqual([]);
      expect(proxy.calls.length).toBeGreaterThan(0);
      expect(park.kube.writes()).toEqual([]);
      expect(existsSync(join(park.root, '.platctl-park'))).toBe(false);
    });

    it('a NodeClaim that never goes fails the karpenter step with its name and finalizers; nothing after it ran', async () => {
      park.kube.controllers.stuck.add('default-abc');
      const down = await cli(['down', '--yes']);
      expect(down.code).toBe(1);
      expect(down.stdout).toContain('default-abc (finalizers: karpenter.sh/termination)');
      expect(down.stdout).toContain('platform: down failed at step karpenter');
      expect(down.stdout).toContain('not parked: karpenter, node-groups, bastion, verify-cost-zero');
      expect(down.stdout).toContain('Resume with: platctl down --resume');
      expect(await sizes()).toEqual(SIZES);
    });

    it('a PodDisruptionBudget that never allows eviction is forced after drain_grace', async () => {
      await park.kube.server.apply(parkPdb('apps', 'api', { app: 'api' }, 0));
      const down = await cli(['down', '--yes']);
      expect(down.code).toBe(0);
      expect(down.stdout).toContain('forced after 1s: apps/api-1');
      expect(park.kube.writes()).toContain('DELETE /api/v1/namespaces/apps/pods/api-1?gracePeriodSeconds=0');
      // The server refused each eviction (429: the budget allows none) until platctl forced the delete.
      const evictions = park.kube
        .requests()
        .filter((e) => e.objectRef?.subresource === 'eviction' && e.objectRef.name === 'api-1');
      expect(evictions.length).toBeGreaterThan(1);
      expect(evictions.every((e) => e.responseStatus?.code === 429)).toBe(true);
    });

    it('an auth error mid-run stops at once and says what is parked and what is not (exit 1)', async () => {
      proxy.inject = (call) => (call.path.endsWith('/update-config') ? expiredTokenJson() : undefined);
      const down = await cli(['down', '--yes']);
      expect(down.code).toBe(1);
      expect(down.stdout).toContain('credentials rejected: stopped at once');
      expect(down.stdout).toContain('parked: record, argocd-pause, do-not-disrupt, karpenter');
      expect(down.stdout).toContain('not parked: node-groups, bastion, verify-cost-zero');
      expect(await instanceState(park.bastionId)).toBe('running');
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
        join(park.root, '.platctl.lock'),
        JSON.stringify({ pid: 1, host: hostname(), command: 'platctl bootstrap', started_at: '2026-12-01T00:00:00Z' }),
      );
      const locked = await cli(['down', '--yes']);
      expect(locked.code).toBe(3);
      expect(locked.stderr).toContain('refused: another platctl run holds .platctl.lock in');
      expect(locked.stderr).toContain('; down would race it\n');
      expect(locked.stderr).toContain('  command: platctl bootstrap\n');
      expect(locked.stderr).toContain('  hint: wait for it to finish');
      rmSync(join(park.root, '.platctl.lock'));

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
        await mountReadOnly(park.root);
        const down = await runCli(['down', '--yes', '--config', join(park.root, '.platctl.yaml')], {
          cwd: park.root,
          env: environment,
        });
        expect(down.code).toBe(3);
        expect(down.stderr).toBe(
          `platctl: refused: cannot create ${join(park.root, '.platctl.lock')}: the file system is read-only (EROFS); ` +
            `run platctl from a writable checkout; nothing was run\n`,
        );
        expect(await sizes()).toEqual(before);
        expect(await instanceState(park.bastionId)).toBe('running');
      },
    );

    it('kill -9 in the middle of down, then --resume finishes from the first unfinished step', async () => {
      // The built CLI in a process of its own: hold it inside the karpenter step (Karpenter cannot terminate the
      // NodeClaim, and the wait for it is long), then SIGKILL it.
      writeFileSync(join(park.root, '.platctl.yaml'), config('', '{ nodeclaim_timeout: 2m }'));
      park.kube.controllers.stuck.add('default-abc');
      const child = execa(process.execPath, [PLATCTL, 'down', '--yes', '--config', join(park.root, '.platctl.yaml')], {
        cwd: park.root,
        env: env(),
        extendEnv: false,
        reject: false,
      });
      const journal = join(park.root, '.platctl-park', 'platform.json');
      const running = (): boolean => {
        if (!existsSync(journal)) return false;
        const file = JSON.parse(readFileSync(journal, 'utf8')) as {
          last?: { steps: Record<string, { status: string }> };
        };
        return file.last?.steps.karpenter?.status === 'running';
      };
      const deadline = Date.now() + 60_000;
      while (!running() && Date.now() < deadline && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 50));
      expect(running()).toBe(true);
      child.kill('SIGKILL');
      await child;
      expect(existsSync(join(park.root, '.platctl.lock'))).toBe(true);
      park.kube.controllers.stuck.clear();

      const resumed = await cli(['down', '--resume', '--yes']);
      expect(resumed.stderr).toBe('');
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toContain('took over the lock of a platctl that died');
      expect(resumed.stdout).toContain('down --resume platform');
      expect(resumed.stdout).toMatch(/- argocd-pause +done in an earlier run/);
      expect(resumed.stdout).toMatch(/- do-not-disrupt +done in an earlier run/);
      expect(resumed.stdout).toMatch(/✓ karpenter +deleted NodePools /);
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
  },
);
