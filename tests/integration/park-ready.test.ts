/**
 * The morning half of the cron pair (issue 24): `up --yes` is accepted like `down --yes`, and `ready_namespaces`
 * naming a namespace that does not exist (a typo) or holds no pod is not ready: a bounded wait, then a failure
 * naming the namespace, never "0 pods ready ... up and ready".
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAwsProxy } from '../helpers/aws-proxy.js';
import { useMoto } from '../helpers/moto.js';
import { useParkEnv } from '../helpers/park-env.js';
import { parkConfig } from '../helpers/park-fixture.js';

describe('platctl up: the cron pair and ready_namespaces', { timeout: 180_000 }, () => {
  const moto = useMoto();
  // Through the proxy: it answers SSM DescribeInstanceInformation, which moto lacks (up waits for the bastion's agent).
  const park = useParkEnv(moto, { prefix: 'platctl-park-ready-', proxy: useAwsProxy(moto) });
  const { cli } = park;

  it('up --yes is accepted (cron); a namespace that does not exist, or holds no pod, is not ready', async () => {
    // kube-system keeps its DaemonSet pod through the park; typo-ns does not exist; empty-ns exists with no pod.
    await park.kube.server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'empty-ns' } });
    writeFileSync(
      join(park.root, '.platctl.yaml'),
      parkConfig('    ready_namespaces: [kube-system, typo-ns, empty-ns]\n    ready_timeout: 2s\n'),
    );
    expect((await cli(['down', '--env', 'platform', '--yes'])).code).toBe(0);

    const up = await cli(['up', '--env', 'platform', '--yes']);
    expect(up.code, up.stdout + up.stderr).toBe(1);
    expect(up.stdout).toContain('not ready after 2s: namespace typo-ns does not exist; namespace empty-ns has no pod');
    expect(up.stdout).toContain('check park.platform.ready_namespaces in .platctl.yaml');
    expect(up.stdout).toContain('platform: up failed at step pods-ready');
    expect(up.stdout).not.toContain('up and ready');

    // Fixed: the resume finishes, with the pods it saw.
    writeFileSync(
      join(park.root, '.platctl.yaml'),
      parkConfig('    ready_namespaces: [kube-system]\n    ready_timeout: 2s\n'),
    );
    const resumed = await cli(['up', '--env', 'platform', '--resume', '--yes']);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/✓ pods-ready +1 pods ready in kube-system/);
    expect(resumed.stdout).toContain('platform: up and ready');
  });
});
