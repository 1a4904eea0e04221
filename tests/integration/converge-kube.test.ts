/**
 * The convergence phase through the built CLI: `platctl bootstrap` with the fake terragrunt, then waits read from a
 * real Kubernetes API server. The test plays Argo CD and the Deployment controller: it moves the Applications from
 * Progressing to Healthy and writes the Deployment's readiness only once platctl says it is waiting for them. An
 * Application that never settles fails the run at the wait's own bound, named with its messages; `status` shows it
 * as the run's headline, and `bootstrap --resume` looks again only at what had not passed, applying nothing.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { installCrds } from '../helpers/kube-crds.js';
import { application } from '../helpers/kube-objects.js';
import { childrenOf, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { KubeObject } from '../helpers/kube-server.js';
import { kubeServerUnavailable, useKubeServer } from '../helpers/kube-server.js';
import { tempDir } from '../helpers/temp.js';
import { sandbox, until } from './engine-helpers.js';
import type { Sandbox } from './engine-helpers.js';

const unavailable = kubeServerUnavailable();

const APP = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application' } as const;
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;

function deployment(namespace: string, name: string): KubeObject {
  return {
    ...DEPLOYMENT,
    metadata: { name, namespace },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name, image: 'registry.example/controller:1' }] },
      },
    },
  };
}

describe.skipIf(unavailable !== undefined)(
  `convergence after bootstrap (built CLI, a real Kubernetes API server)${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  { timeout: 240_000 },
  () => {
    const kube = useKubeServer();
    beforeAll(async () => {
      await installCrds(kube, ['applications']);
    });

    /** The basic repository on the fixture cluster, with `converge:` appended. */
    async function platform(converge: string): Promise<{ box: Sandbox; env: Record<string, string> }> {
      const box = await sandbox();
      const path = join(box.root, '.platctl.yaml');
      const config = (await readFile(path, 'utf8')).replace(
        '    dir: live/platform\n',
        '    dir: live/platform\n    cluster: { name: platform, kubeconfig_context: fixture }\n',
      );
      await writeFile(path, `${config}converge:\n${converge}`);
      const dir = await tempDir('platctl-converge-kube-');
      return { box, env: { KUBECONFIG: kube.writeKubeconfig(dir, { context: 'fixture' }) } };
    }

    it('waits for Applications Progressing -> Healthy, CRDs Established and a Deployment Available, then completes', async () => {
      const ns = kube.namespace;
      await kube.create(application('root', 'Synced', 'Healthy', ns));
      await kube.create(application('backstage', 'OutOfSync', 'Progressing', ns, 'waiting for rollout'));
      await kube.create(deployment(ns, 'controller'));
      const { box, env } = await platform(`  interval: 1s
  waits:
    - id: crds
      after: [platform/argocd]
      crds: [applications.argoproj.io]
    - id: apps
      after: [platform/argocd]
      timeout: 3m
      argocd_apps: { namespace: ${ns} }
    - id: controller
      after: [platform/argocd]
      timeout: 3m
      workloads: [{ namespace: ${ns}, kind: deployment, name: controller }]
`);
      const run = box.start(['bootstrap'], env);
      let out = '';
      run.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
      run.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
      /** Waits until platctl printed a line matching `pattern` (the output is in the error when it never does). */
      const said = (pattern: RegExp, what: string): Promise<void> =>
        until(() => pattern.test(out), 120_000, what).catch((error: Error) => {
          throw new Error(`${error.message}; platctl printed:\n${out}`);
        });
      await said(/waiting apps .*\n +backstage: OutOfSync\/Progressing \(waiting for rollout\)/, 'the apps wait');
      expect(out).toMatch(/ready {3}crds /);
      await kube.patch({ ...APP, name: 'backstage', namespace: ns }, { status: { sync: { status: 'Synced' } } });
      await said(/waiting apps .*\n +backstage: Synced\/Progressing/, 'the apps wait to see Synced');
      await kube.patch(
        { ...APP, name: 'backstage', namespace: ns },
        { status: { health: { status: 'Healthy', message: null } } },
      );
      await said(/waiting controller .*\n +Deployment t\d+\/controller: /, 'the Deployment wait');
      await kube.patch(
        { ...DEPLOYMENT, name: 'controller', namespace: ns },
        { status: { observedGeneration: 1, replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2 } },
        { status: true },
      );
      const result = await run;
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(out).toMatch(/ready {3}apps /);
      expect(out).toMatch(/ready {3}controller /);
      const state = await box.state();
      expect(state.status).toBe('completed');
      expect(state.converge?.status).toBe('completed');
      expect(Object.values(state.converge?.waits ?? {}).map((w) => w.status)).toEqual(['passed', 'passed', 'passed']);
    });

    it('fails at the bound of an Application that never settles, naming it with its messages; --resume waits again only for it', async () => {
      const ns = kube.namespace;
      await kube.create(application('root', 'Synced', 'Healthy', ns));
      await kube.create({
        ...application('monitoring', 'OutOfSync', 'Degraded', ns, 'Deployment grafana exceeded its progress deadline'),
        status: {
          sync: { status: 'OutOfSync' },
          health: { status: 'Degraded', message: 'Deployment grafana exceeded its progress deadline' },
          conditions: [{ type: 'SyncError', message: 'one or more synchronization tasks completed unsuccessfully' }],
          operationState: { phase: 'Failed', message: 'one or more objects failed to apply' },
        },
      });
      const { box, env } = await platform(`  interval: 1s
  waits:
    - id: crds
      after: [platform/argocd]
      crds: [applications.argoproj.io]
    - id: apps
      after: [platform/argocd]
      timeout: 3s
      argocd_apps: { namespace: ${ns} }
`);
      const receiver = await startOtlpReceiver();
      let failed: Awaited<ReturnType<Sandbox['run']>>;
      try {
        failed = await box.run(['bootstrap', '--trace'], { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
      } finally {
        await receiver.close();
      }
      expect(failed.exitCode).toBe(1);
      // The trace: run -> phase converge -> a span per wait; the failed one has an error status and a 'not ready'
      // event for what it saw.
      const spans = receiver.spans;
      const root = spans.find((s) => s.name === 'platctl bootstrap')!;
      expect(root.attributes).toMatchObject({ 'platctl.exit_code': 1 });
      const phases = childrenOf(spans, root);
      expect(phases.map((s) => s.name)).toEqual(['phase walk', 'phase converge']);
      const waits = new Map(childrenOf(spans, phases[1]!).map((s) => [s.name, s]));
      expect([...waits.keys()].sort()).toEqual(['wait apps', 'wait crds']);
      expect(waits.get('wait crds')!.attributes).toMatchObject({ 'platctl.wait': 'crds', 'platctl.result': 'passed' });
      expect(waits.get('wait crds')!.statusCode).not.toBe(2);
      const apps = waits.get('wait apps')!;
      expect(apps.attributes).toMatchObject({
        'platctl.wait': 'apps',
        'platctl.result': 'failed',
        'platctl.timeout_ms': 3000,
      });
      expect(apps.attributes['platctl.waited_ms']).toBeGreaterThanOrEqual(3000);
      expect(apps.statusCode).toBe(2);
      expect(apps.eventNames).toContain('not ready');
      expect(apps.endNs).toBeLessThanOrEqual(phases[1]!.endNs);
      const why =
        'monitoring: OutOfSync/Degraded (Deployment grafana exceeded its progress deadline; SyncError: one or more ' +
        'synchronization tasks completed unsuccessfully; sync Failed: one or more objects failed to apply)';
      expect(failed.stdout).toContain(
        'CONVERGENCE FAILED at wait apps: not ready after 3.0s (converge timeout): 1 of 2 Applications not Synced/Healthy: monitoring',
      );
      expect(failed.stdout).toContain(`        ${why}`);
      expect(failed.stdout).toContain('Resume with: platctl bootstrap --resume');
      const state = await box.state();
      expect(state.status).toBe('failed');
      expect(state.converge?.waits).toMatchObject({
        crds: { status: 'passed' },
        apps: { status: 'failed', details: [why] },
      });
      const applied = (await box.calls()).length;

      const status = await box.run(['status'], env);
      expect(status.stdout).toContain('CONVERGENCE FAILED at wait apps');
      expect(status.stdout).toContain(why);

      await kube.patch(
        { ...APP, name: 'monitoring', namespace: ns },
        { status: { sync: { status: 'Synced' }, health: { status: 'Healthy', message: null }, conditions: null } },
      );
      const resumed = await box.run(['bootstrap', '--resume'], env);
      expect(resumed.stderr).toBe('');
      expect(resumed.exitCode).toBe(0);
      expect(resumed.stdout).toMatch(/ready {3}apps /);
      expect(resumed.stdout).not.toMatch(/wait {3}crds/);
      expect((await box.calls()).length).toBe(applied);
      expect((await box.state()).converge?.status).toBe('completed');
    });

    it('the first Ctrl-C ends a wait at once: exit 130, the wait recorded as interrupted, --resume waits again', async () => {
      const ns = kube.namespace;
      await kube.create(application('stuck', 'OutOfSync', 'Progressing', ns));
      const { box, env } = await platform(`  interval: 1s
  waits:
    - id: apps
      after: [platform/argocd]
      argocd_apps: { namespace: ${ns} }
`);
      const run = box.start(['bootstrap'], env);
      let out = '';
      run.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await until(() => /waiting apps /.test(out), 120_000, 'the apps wait');
      run.kill('SIGINT');
      const result = await run;
      expect(result.exitCode).toBe(130);
      expect(out).toContain('stopped wait apps (interrupted)');
      const state = await box.state();
      expect(state.status).toBe('interrupted');
      expect(state.converge?.waits.apps?.status).toBe('interrupted');
      await kube.patch(
        { ...APP, name: 'stuck', namespace: ns },
        { status: { sync: { status: 'Synced' }, health: { status: 'Healthy' } } },
      );
      const resumed = await box.run(['bootstrap', '--resume'], env);
      expect(resumed.exitCode).toBe(0);
      expect(resumed.stdout).toMatch(/ready {3}apps /);
    });

    it('a label selector and a project pick the Applications waited for; the others do not hold the run', async () => {
      const ns = kube.namespace;
      const labelled = (name: string, project: string, health: string): KubeObject => {
        const app = application(name, 'Synced', health, ns);
        return {
          ...app,
          metadata: { ...app.metadata, labels: { 'app.kubernetes.io/part-of': 'platform' } },
          spec: { ...(app.spec as Record<string, unknown>), project },
        };
      };
      await kube.create(labelled('core', 'platform', 'Healthy'));
      await kube.create(labelled('sandbox', 'experiments', 'Degraded'));
      await kube.create(application('unlabelled', 'OutOfSync', 'Missing', ns));
      const { box, env } = await platform(`  interval: 1s
  waits:
    - id: apps
      after: [platform/argocd]
      timeout: 2s
      argocd_apps: { namespace: ${ns}, selector: app.kubernetes.io/part-of=platform, project: platform }
`);
      const result = await box.run(['bootstrap'], env);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/ready {3}apps /);
      expect(result.stdout).not.toContain('waiting apps');
    });

    it('a bootstrap of a few units waits only for what it applied', async () => {
      const { box, env } = await platform(`  waits:
    - id: apps
      after: [platform/argocd]
      argocd_apps: {}
`);
      const result = await box.run(['bootstrap', '--unit', 'platform/vpc'], env);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('skipped wait apps: not in this run: platform/argocd');
    });
  },
);

describe('bootstrap --dry-run with converge:', () => {
  it('lists each wait with what it waits for, its bound and its units, and which a partial selection skips', async () => {
    const box = await sandbox();
    const path = join(box.root, '.platctl.yaml');
    await writeFile(
      path,
      `${await readFile(path, 'utf8')}converge:
  waits:
    - id: apps
      after: [platform/argocd]
      argocd_apps: { selector: app.kubernetes.io/part-of=platform, project: platform }
    - id: operators
      after: [platform/eks]
      timeout: 5m
      workloads: [{ namespace: kyverno, kind: statefulset, name: kyverno }]
    - id: ui
      http: { url: "https://argocd.example.com/" }
`,
    );
    const whole = await box.run(['bootstrap', '--dry-run']);
    expect(whole.exitCode).toBe(0);
    expect(whole.stdout).toContain(
      [
        'converge (after the units, before lockdown), 3 waits, each bounded:',
        '  1. apps: Argo CD Applications in argocd (selector app.kubernetes.io/part-of=platform, project platform) ' +
          'Synced and Healthy in platform (up to 30m00s, after platform/argocd)',
        '  2. operators: Available: StatefulSet kyverno/kyverno in platform (up to 5m00s, after platform/eks)',
        '  3. ui: https://argocd.example.com/ answers 200 or 302 (up to 10m00s)',
      ].join('\n'),
    );
    const partial = await box.run(['bootstrap', '--dry-run', '--unit', 'platform/eks', '--with-deps', '--json']);
    const view = JSON.parse(partial.stdout) as { converge: { id: string; decision: string; reason?: string }[] };
    expect(view.converge.map((w) => [w.id, w.decision, w.reason])).toEqual([
      ['apps', 'skipped', 'not in this run: platform/argocd'],
      ['operators', 'waits', undefined],
      ['ui', 'skipped', 'it has no after units and this run covers only part of them'],
    ]);
    expect(await box.calls()).toEqual([]);
  });

  it('a misspelt after unit stops bootstrap before it acts: exit 2 at its line, with a did-you-mean', async () => {
    const box = await sandbox();
    const path = join(box.root, '.platctl.yaml');
    await writeFile(
      path,
      `${await readFile(path, 'utf8')}converge:\n  waits:\n    - { id: apps, after: [platform/argcd], argocd_apps: {} }\n`,
    );
    const result = await box.run(['bootstrap']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('converge.waits[0].after names unit "platform/argcd"');
    expect(result.stderr).toContain('did you mean platform/argocd?');
    expect(await box.calls()).toEqual([]);
  });
});
