/**
 * platctl up through the CLI, the parts beyond the record: re-applying configured units through the engine's
 * Terragrunt executor (the fake terragrunt records every call; its `exec` does what the apply would), and the steps
 * after Karpenter (Kyverno, rollouts, database clients, pod readiness) against a real Kubernetes API server: a real
 * fail-closed admission webhook for Kyverno, Deployments and StatefulSets as the server validates them, and pod status
 * written through the status subresource as a kubelet would. platctl runs as the user of docs/park.md's ClusterRole.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { stripForRecord } from '../../park/kube-helpers.js';
import { useAwsProxy } from '../helpers/aws-proxy.js';
import type { KubeObject } from '../helpers/kube-server.js';
import { kubeBinaries, waitFor } from '../helpers/kube-server.js';
import { useMoto } from '../helpers/moto.js';
import { childrenOf, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { useParkEnv } from '../helpers/park-env.js';
import {
  PARK_CLUSTER,
  PARK_SIZES,
  nodeGroupSizes,
  parkConfig,
  parkEC2NodeClass,
  parkNode,
  parkNodePool,
  parkPod,
  s3ParkRecord,
} from '../helpers/park-fixture.js';
import type { Call, UnitBehaviour } from './engine-helpers.js';
import { ENGINE_FIXTURES, REPO_ROOT } from './engine-helpers.js';

const FAKE_TG = join(ENGINE_FIXTURES, 'fake-terragrunt.mjs');
const FAKE_TOFU = join(ENGINE_FIXTURES, 'fake-tofu.sh');
const APPLY_EFFECT = join(REPO_ROOT, 'tests', 'fixtures', 'park', 'apply-effect.mjs');
const UNITS = ['eks-nodes', 'karpenter', 'cross-vpc-dns'];
const REPLACE = ['kubectl_manifest.nodepool["default"]', 'kubectl_manifest.ec2nodeclass["default"]'];

const UNITS_CONFIG = parkConfig(
  `    node_group_units: [platform/eks-nodes]
    reconnect_units: [platform/cross-vpc-dns]
`,
  `{ nodeclaim_timeout: 10s, unit: platform/karpenter, replace: ['${REPLACE[0]}', '${REPLACE[1]}'] }`,
);

describe('platctl up', { timeout: 240_000 }, () => {
  const moto = useMoto();
  const proxy = useAwsProxy(moto);
  const park = useParkEnv(moto, { prefix: 'platctl-park-up-', config: UNITS_CONFIG, proxy });

  const record = () => join(park.root, 'calls.ndjson');
  const control = (units: Record<string, UnitBehaviour & { exec?: string[] }>): void =>
    writeFileSync(join(park.root, 'control.json'), JSON.stringify({ default: {}, units }));
  const calls = (): Call[] =>
    readFileSync(record(), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Call);
  const cli = (args: string[], extraEnv: Record<string, string> = {}) =>
    park.cli(args, {
      PATH: process.env.PATH,
      PLATCTL_TERRAGRUNT: FAKE_TG,
      PLATCTL_TF_PATH: FAKE_TOFU,
      FAKE_TG_RECORD: record(),
      FAKE_TG_CONTROL: join(park.root, 'control.json'),
      ...extraEnv,
    });
  /** An `exec` for the fake terragrunt: the apply sets these node-group sizes and creates these objects. */
  const effect = (
    name: string,
    spec: { groups?: Record<string, { min: number; max: number; desired: number }>; create?: KubeObject[] },
  ): string[] => {
    const file = join(park.root, `${name}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        ...(spec.groups ? { eks: { endpoint: moto.endpoint, cluster: PARK_CLUSTER, groups: spec.groups } } : {}),
        ...(spec.create
          ? {
              // Terraform's own credentials: the admin's.
              kube: {
                kubectl: kubeBinaries().kubectl,
                kubeconfig: park.kube.server.writeKubeconfig(park.root, { context: 'terraform' }),
                create: spec.create,
              },
            }
          : {}),
      }),
    );
    return [process.execPath, APPLY_EFFECT, file];
  };
  const RECORDED = { system: { min: 2, max: 4, desired: 3 }, workers: { min: 1, max: 6, desired: 2 } };
  const argv = (unit: string, ...tfArgs: string[]) => [
    'run',
    '--working-dir',
    join(park.root, 'live', 'platform', unit),
    '--non-interactive',
    '--tf-path',
    FAKE_TOFU,
    '--',
    'apply',
    '-auto-approve',
    '-input=false',
    ...tfArgs,
  ];

  beforeEach(() => {
    for (const unit of UNITS) {
      mkdirSync(join(park.root, 'live', 'platform', unit), { recursive: true });
      writeFileSync(join(park.root, 'live', 'platform', unit, 'terragrunt.hcl'), '# a unit\n');
    }
    writeFileSync(record(), '');
    control({});
  });

  it('re-applies the node-group, Karpenter (-replace) and reconnect units through terragrunt, then checks the record', async () => {
    expect((await cli(['down', '--yes'])).code).toBe(0);
    expect(calls()).toEqual([]);
    const parked = await s3ParkRecord(moto.endpoint);
    expect(parked?.node_groups).toEqual(RECORDED);

    const dry = await cli(['up', '--dry-run']);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      `apply platform/eks-nodes: ${FAKE_TG} run --working-dir ${join(park.root, 'live/platform/eks-nodes')} --non-interactive --tf-path ${FAKE_TOFU} -- apply -auto-approve -input=false`,
    );
    expect(dry.stdout).toContain(`'-replace=${REPLACE[0]}' '-replace=${REPLACE[1]}'`);
    expect(dry.stdout).toContain('workers: 0/6/0 -> 1/6/2 (min/max/desired)');
    expect(calls()).toEqual([]);

    // The units' Terraform holds the sizes of before (IaC is the truth) and the Karpenter objects.
    const pool = stripForRecord(parkNodePool('default')) as KubeObject;
    const nodeClass = stripForRecord(parkEC2NodeClass('default')) as KubeObject;
    control({
      'platform/eks-nodes': { exec: effect('nodes', { groups: RECORDED }) },
      'platform/karpenter': { exec: effect('karpenter', { create: [nodeClass, pool] }) },
    });
    proxy.calls.length = 0;
    const up = await cli(['up']);
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    expect(calls().map((c) => [c.unit, c.argv])).toEqual([
      ['platform/eks-nodes', argv('eks-nodes')],
      ['platform/karpenter', argv('karpenter', `-replace=${REPLACE[0]}`, `-replace=${REPLACE[1]}`)],
      ['platform/cross-vpc-dns', argv('cross-vpc-dns')],
    ]);
    // Through the unit, not from the record: platctl itself never called UpdateNodegroupConfig.
    expect(proxy.calls.filter((c) => c.path.endsWith('/update-config'))).toEqual([]);
    expect(await nodeGroupSizes(moto.endpoint)).toEqual(PARK_SIZES);
    expect(up.stdout).toMatch(/✓ node-groups +system 2\/4\/3, workers 1\/6\/2 \(applying platform\/eks-nodes\)/);
    expect(up.stdout).toMatch(/✓ karpenter +applied platform\/karpenter replacing kubectl_manifest/);
    expect(up.stdout).toMatch(/✓ reconnect +applied platform\/cross-vpc-dns/);
    expect(await park.kube.names('nodepools')).toEqual(['default']);
    expect(await s3ParkRecord(moto.endpoint)).toMatchObject({ status: 'unparked' });
    const logs = readdirSync(join(park.root, '.platctl-logs')).filter((d) => d.startsWith('park-up-'));
    expect(logs).toHaveLength(1);
    const log = readFileSync(join(park.root, '.platctl-logs', logs[0]!, 'platform__eks-nodes.log'), 'utf8');
    expect(log).toContain('aws_eks_node_group.workers: Modifications complete');
    expect(log).toContain('# result:   completed');
  });

  it('--trace: run -> down/up <env> -> step spans with results; each terragrunt runs under the step applying it', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint };
      const down = await cli(['down', '--yes'], traced);
      expect(down.stderr).toBe('');
      expect(down.code).toBe(0);
      control({
        'platform/eks-nodes': { exec: effect('nodes', { groups: RECORDED }) },
        'platform/karpenter': { fail: true, exit_code: 3 },
      });
      expect((await cli(['up'], traced)).code).toBe(1);
      const pool = stripForRecord(parkNodePool('default')) as KubeObject;
      control({ 'platform/karpenter': { exec: effect('karpenter', { create: [pool] }) } });
      const resumed = await cli(['up', '--resume'], traced);
      expect(resumed.stderr).toBe('');
      expect(resumed.code).toBe(0);

      const spans = receiver.spans;
      const roots = spans.filter((s) => s.parentSpanId === '').map((s) => s.name);
      expect(roots).toEqual(['platctl down', 'platctl up', 'platctl up']);
      /** The env span of a run and its steps, by name. */
      const tree = (index: number, op: string) => {
        const root = spans.filter((s) => s.name === `platctl ${op}`)[index]!;
        const envs = childrenOf(spans, root);
        expect(envs.map((s) => s.name)).toEqual([`${op} platform`]);
        const steps = new Map(childrenOf(spans, envs[0]!).map((s) => [s.name, s]));
        return { root, env: envs[0]!, steps };
      };

      const parked = tree(0, 'down');
      expect(parked.root.attributes).toMatchObject({ 'platctl.exit_code': 0, 'platctl.result': 'completed' });
      expect(parked.env.attributes).toMatchObject({ 'platctl.env': 'platform', 'platctl.op': 'down' });
      expect([...parked.steps.keys()]).toEqual(
        expect.arrayContaining(['step record', 'step node-groups', 'step bastion']),
      );
      for (const [name, step] of parked.steps) {
        expect(step.attributes['platctl.result'], name).toMatch(/^(completed|skipped)$/);
        expect(step.statusCode, name).not.toBe(2);
      }

      const failed = tree(0, 'up');
      expect(failed.root.attributes).toMatchObject({ 'platctl.exit_code': 1, 'platctl.result': 'failed' });
      expect(failed.env.statusCode).toBe(2);
      expect(failed.steps.get('step node-groups')?.attributes['platctl.result']).toBe('completed');
      const karpenter = failed.steps.get('step karpenter')!;
      expect(karpenter.attributes).toMatchObject({ 'platctl.result': 'failed', 'platctl.reason': 'apply-failed' });
      expect(karpenter.statusCode).toBe(2);
      expect(failed.steps.has('step reconnect')).toBe(false);

      const done = tree(1, 'up');
      expect(done.root.attributes).toMatchObject({ 'platctl.exit_code': 0, 'platctl.result': 'completed' });
      expect(done.env.attributes).toMatchObject({ 'platctl.resumed': true, 'platctl.result': 'completed' });
      expect(done.steps.get('step node-groups')?.attributes['platctl.result']).toBe('skipped');
      expect(done.steps.get('step karpenter')?.attributes['platctl.result']).toBe('completed');

      // Each terragrunt got the trace context of the step that applied its unit, and Terragrunt's exporter settings.
      const parentOf = (step: (typeof spans)[number]) => `00-${step.traceId}-${step.spanId}-01`;
      expect(calls().map((c) => [c.unit, c.traceparent])).toEqual([
        ['platform/eks-nodes', parentOf(failed.steps.get('step node-groups')!)],
        ['platform/karpenter', parentOf(karpenter)],
        ['platform/karpenter', parentOf(done.steps.get('step karpenter')!)],
        ['platform/cross-vpc-dns', parentOf(done.steps.get('step reconnect')!)],
      ]);
      for (const call of calls()) {
        expect(call.trace_exporter).toBe('otlpHttp');
        expect(call.traces_endpoint).toBe(`${receiver.endpoint}/v1/traces`);
      }
    } finally {
      await receiver.close();
    }
  });

  it('sizes the units do not bring back, and a failed apply, fail with what and where; --resume continues', async () => {
    expect((await cli(['down', '--yes'])).code).toBe(0);
    // Terraform that ignores desired_size leaves workers at desired 0.
    control({
      'platform/eks-nodes': {
        exec: effect('nodes', { groups: { ...RECORDED, workers: { min: 1, max: 6, desired: 0 } } }),
      },
    });
    const mismatch = await cli(['up']);
    expect(mismatch.code).toBe(1);
    expect(mismatch.stdout).toContain(
      'node groups not at their recorded sizes (min/max/desired) after applying platform/eks-nodes: workers is 1/6/0, recorded 1/6/2',
    );
    expect(mismatch.stdout).toContain('drop park.platform.node_group_units to restore from the record');
    expect(mismatch.stdout).toContain('platform: up failed at step node-groups');
    expect(await s3ParkRecord(moto.endpoint)).toMatchObject({ status: 'parked' });

    control({
      'platform/eks-nodes': { exec: effect('nodes', { groups: RECORDED }) },
      'platform/karpenter': { fail: true, exit_code: 3 },
    });
    const failed = await cli(['up', '--resume']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(
      /✗ karpenter +terragrunt apply of platform\/karpenter failed: exit code 3: Error: simulated failure in platform\/karpenter \(log: \.platctl-logs\/park-up-[^/]+\/platform__karpenter\.log\)/,
    );
    expect(failed.stdout).toContain('hint: read the log, fix platform/karpenter, then run platctl up --resume');
    expect(failed.stdout).toContain('Resume with: platctl up --resume');

    const pool = stripForRecord(parkNodePool('default')) as KubeObject;
    control({ 'platform/karpenter': { exec: effect('karpenter', { create: [pool] }) } });
    const resumed = await cli(['up', '--resume']);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/- node-groups +done in an earlier run/);
    expect(calls().map((c) => c.unit)).toEqual([
      'platform/eks-nodes',
      'platform/eks-nodes',
      'platform/karpenter',
      'platform/karpenter',
      'platform/cross-vpc-dns',
    ]);
    expect(await nodeGroupSizes(moto.endpoint)).toEqual(PARK_SIZES);
  });

  it('a configured unit that does not exist stops up and down (exit 2, file:line, did-you-mean) before anything runs', async () => {
    writeFileSync(
      join(park.root, '.platctl.yaml'),
      UNITS_CONFIG.replace('platform/cross-vpc-dns', 'platform/cross-vpc'),
    );
    for (const verb of [['up'], ['down', '--yes']]) {
      const result = await cli(verb);
      expect(result.code, verb[0]).toBe(2);
      expect(result.stderr, verb[0]).toContain(
        '.platctl.yaml:15:23: error: park.platform.reconnect_units names unit "platform/cross-vpc", which discovery did not find',
      );
      expect(result.stderr, verb[0]).toContain('did you mean platform/cross-vpc-dns?');
    }
    expect(proxy.calls).toEqual([]);
    expect(calls()).toEqual([]);
    expect(existsSync(join(park.root, '.platctl-park'))).toBe(false);
  });
  it('a missing terragrunt or an unusable CLI config refuses up (exit 3) before anything runs, as for bootstrap', async () => {
    const missing = await cli(['up'], { PLATCTL_TERRAGRUNT: join(park.root, 'no-such-terragrunt') });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain(
      `terragrunt "${join(park.root, 'no-such-terragrunt')}" (from PLATCTL_TERRAGRUNT) was not found; nothing was run`,
    );
    const cliConfig = await cli(['up'], { TF_CLI_CONFIG_FILE: join(park.root, 'no-such.tfrc') });
    expect(cliConfig.code).toBe(3);
    expect(cliConfig.stderr).toContain(
      `TF_CLI_CONFIG_FILE points at ${join(park.root, 'no-such.tfrc')}, which does not exist`,
    );
    expect(proxy.calls).toEqual([]);
    expect(calls()).toEqual([]);
    expect(existsSync(join(park.root, '.platctl-park'))).toBe(false);
  });
  it('recovers Kyverno (bounded), restarts rollouts and early DB clients, and judges by pod readiness', async () => {
    writeFileSync(
      join(park.root, '.platctl.yaml'),
      parkConfig(`    kyverno: { namespace: kyverno }
    rollouts:
      - { namespace: argocd, kind: statefulset, name: argocd-application-controller }
      - { namespace: apps, name: web }
    db_clients:
      - { namespace: apps, deployment: api, database: pg }
      - { namespace: apps, deployment: worker, database: pg }
      - { namespace: apps, deployment: reporter, database: pg }
    db_clients_timeout: 5s
    ready_namespaces: [apps, kyverno]
    ready_timeout: 3s
`),
    );
    expect((await cli(['down', '--yes'])).code).toBe(0);

    // The morning after: Kyverno's webhook fails closed with no ready pod behind it, the database became ready after
    // the api's pod started, a node is not Ready (not what up judges by), a pod elsewhere is not ready either.
    const kube = park.kube.server;
    const dbReady = Date.now() - 600_000;
    const at = (ms: number) => new Date(ms).toISOString();
    // The pods down evicted are gone (the kubelet stopped them) before the morning's pods of the same names come.
    await waitFor('evicted pods gone', async () => !(await park.kube.names('pods')).includes('api-1'));
    for (const name of ['kyverno', 'batch']) {
      const created = await kube.request('POST', '/api/v1/namespaces', namespace(name));
      if (created.status !== 201 && created.status !== 409) throw new Error(`namespace ${name}: ${created.status}`);
    }
    for (const object of [
      deployment('kyverno', 'kyverno-admission-controller', { app: 'kyverno' }),
      deployment('apps', 'web', { app: 'web' }),
      deployment('apps', 'api', { app: 'api' }),
      deployment('apps', 'worker', { app: 'worker' }),
      deployment('apps', 'reporter', { app: 'reporter' }),
      statefulSet('argocd', 'argocd-application-controller'),
      cnpgCluster('apps', 'pg', at(dbReady)),
      parkPod('kyverno', 'kyverno-admission-1', { labels: { app: 'kyverno' }, ready: false }),
      parkPod('apps', 'web-1', { labels: { app: 'web' }, ready: false }),
      parkPod('apps', 'api-1', { labels: { app: 'api' }, startTime: at(dbReady - 60_000) }),
      parkPod('apps', 'worker-1', { labels: { app: 'worker' }, startTime: at(dbReady + 60_000) }),
      // Two seconds after the database by the clocks of two hosts: it may have started before it.
      parkPod('apps', 'reporter-1', { labels: { app: 'reporter' }, startTime: at(dbReady + 2_000) }),
      parkPod('batch', 'report-1', { ready: false }),
      parkNode('sick-1', {}, {}, false),
      // Last: from now on the server calls them, and with no Kyverno behind them they refuse what they match.
      kyvernoWebhook('validating'),
      kyvernoWebhook('mutating'),
    ]) {
      await kube.apply(object);
    }
    // The webhook is live: the server refuses a change to a Deployment while no Kyverno answers.
    await waitFor('the webhook refuses', async () => {
      const res = await kube.request(
        'PATCH',
        '/apis/apps/v1/namespaces/apps/deployments/web',
        { metadata: { labels: { probe: 'x' } } },
        { contentType: 'application/merge-patch+json' },
      );
      return res.status >= 500 || res.status === 403 || res.status === 400;
    });

    // Kyverno never comes back: the step deletes the fail-closed webhooks, restarts Kyverno and gives up in time.
    const started = Date.now();
    const stuck = await cli(['up']);
    expect(stuck.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(stuck.stdout).toContain('✗ kyverno');
    expect(stuck.stdout).toContain('no Kyverno pod ready in kyverno after 3s (1 pods)');
    expect(stuck.stdout).toContain('platform: up failed at step kyverno');
    expect(await park.kube.names('validatingWebhooks')).toEqual([]);
    expect(await park.kube.names('mutatingWebhooks')).toEqual([]);
    expect(
      park.kube
        .writes()
        .some((w) => w.startsWith('PATCH /apis/apps/v1/namespaces/kyverno/deployments/kyverno-admission-controller')),
    ).toBe(true);

    // A restart now brings pods back ready (the next one: Kyverno's restart by the failed up stays unanswered);
    // one pod of a readiness namespace never gets ready.
    await park.kube.controllers.answerRestartsFromNow();
    await kube.apply(parkPod('apps', 'stuck-1', { ready: false }));
    const notReady = await cli(['up', '--resume']);
    expect(notReady.code).toBe(1);
    expect(notReady.stdout).toMatch(/✓ kyverno +restarted kyverno\/kyverno-admission-controller; Kyverno ready/);
    expect(notReady.stdout).toMatch(/✓ rollouts +restarted argocd\/argocd-application-controller, apps\/web/);
    expect(notReady.stdout).toMatch(
      /✓ db-clients +restarted apps\/api \(1 pods started before pg was ready, or within 30s of it\), apps\/reporter \(1 pods started before pg was ready, or within 30s of it\); fine: apps\/worker/,
    );
    expect(notReady.stdout).toContain('pods not ready after 3s: apps/stuck-1');
    expect(notReady.stdout).not.toContain('report-1');
    expect(notReady.stdout).toContain('platform: up failed at step pods-ready');
    const restartedAt = async (kind: 'statefulsets' | 'deployments', namespace: string, name: string) =>
      (
        (await park.kube.get(kind, name, namespace))?.spec as {
          template: { metadata?: { annotations?: Record<string, string | undefined> } };
        }
      ).template.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'];
    expect(await restartedAt('statefulsets', 'argocd', 'argocd-application-controller')).toBeDefined();
    expect(await restartedAt('deployments', 'apps', 'web')).toBeDefined();
    expect(await restartedAt('deployments', 'apps', 'api')).toBeDefined();
    expect(await restartedAt('deployments', 'apps', 'reporter')).toBeDefined();
    expect(await restartedAt('deployments', 'apps', 'worker')).toBeUndefined();

    await kube.delete({ apiVersion: 'v1', kind: 'Pod', namespace: 'apps', name: 'stuck-1' }, { force: true });
    const up = await cli(['up', '--resume']);
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(/✓ pods-ready +5 pods ready in apps, kyverno/);
    expect(up.stdout).toContain('platform: up and ready');
    // Judged by pods: the node that is not Ready did not hold up.
    expect(await park.kube.get('nodes', 'sick-1')).toBeDefined();
    expect(await s3ParkRecord(moto.endpoint)).toMatchObject({ status: 'unparked' });
  });
  it('bootstrap reads the shared record; a teardown of the whole parked environment removes it (S3 and local)', async () => {
    const recordPath = '/park-state-platform/platctl/park/platform.json';
    // S3 speaks XML: an expired token as S3 answers it.
    const expired = {
      status: 400,
      headers: { 'content-type': 'application/xml' },
      body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message></Error>',
    };
    proxy.inject = (call) => (call.path === recordPath ? expired : undefined);
    const unknown = await cli(['bootstrap', '--env', 'platform']);
    proxy.inject = undefined;
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('refused: cannot tell whether platform is parked: AWS rejected the credentials');
    expect(unknown.stderr).toContain('or pass --force to bootstrap without this check');

    expect((await cli(['down', '--yes'])).code).toBe(0);
    // Parked by another runner: only the shared record knows.
    const local = join(park.root, '.platctl-park', 'platform.json');
    renameSync(local, `${local}.away`);
    const refused = await cli(['bootstrap', '--env', 'platform']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/platform is parked since .*; run `platctl up --env platform` first/);
    renameSync(`${local}.away`, local);

    // Part of the environment destroyed: still parked.
    const partial = await cli(['teardown', '--unit', 'platform/cross-vpc-dns', '--yes']);
    expect(partial.code).toBe(0);
    expect(partial.stdout).not.toContain('Park record');
    expect(await s3ParkRecord(moto.endpoint)).toMatchObject({ status: 'parked' });

    const teardown = await cli(['teardown', '--yes']);
    expect(teardown.stderr).toBe('');
    expect(teardown.code).toBe(0);
    expect(teardown.stdout).toContain(
      `Park record of platform removed: s3://park-state-platform/platctl/park/platform.json, ${local}`,
    );
    expect(await s3ParkRecord(moto.endpoint)).toBeUndefined();
    expect(existsSync(local)).toBe(false);
    expect(
      proxy
        .writes()
        .filter((c) => c.method === 'DELETE')
        .map((c) => c.path),
    ).toEqual([recordPath]);
    expect(calls().filter((c) => c.command === 'destroy')).toHaveLength(4);

    const bootstrap = await cli(['bootstrap', '--env', 'platform']);
    expect(bootstrap.stderr).not.toContain('parked');
    expect(bootstrap.code).toBe(0);
  });
  it('up waits for an EC2NodeClass that is still being deleted before creating it again, bounded', async () => {
    writeFileSync(join(park.root, '.platctl.yaml'), parkConfig('    ready_timeout: 3s\n'));
    park.kube.controllers.holdClasses = true;
    expect((await cli(['down', '--yes'])).code).toBe(0);
    expect((await park.kube.get('ec2nodeclasses', 'default'))?.metadata.deletionTimestamp).toBeDefined();
    await waitFor('the NodePool gone', async () => (await park.kube.names('nodepools')).length === 0);

    const held = await cli(['up']);
    expect(held.code).toBe(1);
    expect(held.stdout).toContain(
      'EC2NodeClass default is still being deleted after 3s (finalizers: karpenter.k8s.aws/termination), so it cannot be created again',
    );
    expect(held.stdout).toContain('platform: up failed at step karpenter');
    expect(await park.kube.names('nodepools')).toEqual([]);

    park.kube.controllers.holdClasses = false;
    const up = await cli(['up', '--resume']);
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(/✓ karpenter +created default, default/);
    const nodeClass = await park.kube.get('ec2nodeclasses', 'default');
    expect([nodeClass?.metadata.name, nodeClass?.metadata.deletionTimestamp]).toEqual(['default', undefined]);
  });
});

function namespace(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

const TEMPLATE = (labels: Record<string, string>) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'main', image: 'app:1' }] },
});

/** A Deployment selecting `labels`, available as its controller would report. */
function deployment(ns: string, name: string, labels: Record<string, string>): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: { replicas: 1, selector: { matchLabels: labels }, template: TEMPLATE(labels) },
    status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1 },
  };
}

function statefulSet(ns: string, name: string): KubeObject {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: ns },
    spec: { serviceName: name, replicas: 1, selector: { matchLabels: labels }, template: TEMPLATE(labels) },
  };
}

/** A CloudNativePG cluster, Ready since `readySince`. */
function cnpgCluster(ns: string, name: string, readySince: string): KubeObject {
  return {
    apiVersion: 'postgresql.cnpg.io/v1',
    kind: 'Cluster',
    metadata: { name, namespace: ns },
    spec: { instances: 1 },
    status: {
      phase: 'Cluster in healthy state',
      conditions: [
        { type: 'Ready', status: 'True', reason: 'ClusterIsReady', message: '', lastTransitionTime: readySince },
      ],
    },
  };
}

/**
 * Kyverno's webhook configuration, failing closed: the server calls it for every change to a Deployment, and with
 * no Kyverno behind the address the change is refused.
 */
function kyvernoWebhook(kind: 'validating' | 'mutating'): KubeObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration',
    metadata: { name: `kyverno-resource-${kind}-webhook-cfg` },
    webhooks: [
      {
        name: `${kind}.kyverno.svc-fail`,
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 2,
        // Port 9 (discard): nothing answers there on a test machine.
        clientConfig: { url: `https://127.0.0.1:9/${kind}` },
        rules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
        ],
      },
    ],
  };
}
