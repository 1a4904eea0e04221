/**
 * helm-pending with the built CLI: the fake terragrunt prints the helm provider's "another operation is in progress"
 * diagnostic on its first apply of platform/argocd and succeeds on the second; a real Kubernetes API server holds the
 * release's Helm Secrets (a deployed revision and a pending-upgrade one, labelled as Helm 3 labels them), and its
 * audit log says what platctl deleted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject, KubeServer } from '../helpers/kube-server.js';
import { kubeServerUnavailable, useKubeServer } from '../helpers/kube-server.js';
import type { Sandbox } from './engine-helpers.js';
import { sandbox } from './engine-helpers.js';

const UNIT = 'platform/argocd';

/** What OpenTofu prints through the helm provider when the release is stuck. */
const STUCK_OUTPUT = [
  '  # helm_release.argocd will be updated in-place',
  '  ~ resource "helm_release" "argocd" {',
  '        id                         = "argo-cd"',
  '        name                       = "argo-cd"',
  '      ~ status                     = "pending-upgrade" -> "deployed"',
  '        # (25 unchanged attributes hidden)',
  '    }',
  'helm_release.argocd: Modifying... [id=argo-cd]',
  '╷',
  '│ Error: another operation (install/upgrade/rollback) is in progress',
  '│ ',
  '│   with helm_release.argocd,',
  '│   on main.tf line 1, in resource "helm_release" "argocd":',
  '╵',
];

function helmSecret(version: number, status: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'helm.sh/release.v1',
    metadata: {
      name: `sh.helm.release.v1.argo-cd.v${version}`,
      namespace: 'argocd',
      labels: { owner: 'helm', name: 'argo-cd', status, version: String(version) },
    },
    data: { release: Buffer.from(`release v${version}`).toString('base64') },
  };
}

const SECRETS = { apiVersion: 'v1', kind: 'Secret' } as const;

async function secretNames(kube: KubeServer): Promise<string[]> {
  return (await kube.list(SECRETS, 'labelSelector=owner%3Dhelm')).map((s) => s.metadata.name).sort();
}

const unavailable = kubeServerUnavailable();

describe.skipIf(unavailable !== undefined)(
  `helm-pending recovery (built CLI, real Kubernetes API server)${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  { timeout: 120_000 },
  () => {
    const kube = useKubeServer({ audit: true });
    let dir: string;
    /** Where this test's requests start in the server's audit log. */
    let since = 0;
    /** The DELETEs that reached the server in this test, as `METHOD path`. */
    const deletes = (): string[] =>
      kube
        .audit()
        .slice(since)
        .filter((e) => e.verb === 'delete')
        .map((e) => `DELETE ${e.requestURI}`);

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'platctl-helm-pending-'));
      for (const name of ['argocd', 'kyverno']) {
        await kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      }
    });
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(async () => {
      for (const secret of await kube.list(SECRETS, 'labelSelector=owner%3Dhelm')) {
        await kube.delete({ ...SECRETS, name: secret.metadata.name, namespace: secret.metadata.namespace ?? '' });
      }
      for (const secret of [
        helmSecret(1, 'superseded'),
        helmSecret(2, 'deployed'),
        helmSecret(3, 'pending-upgrade'),
        // Another release's pending revision: never touched.
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: {
            name: 'sh.helm.release.v1.kyverno.v4',
            namespace: 'kyverno',
            labels: { owner: 'helm', name: 'kyverno', status: 'pending-upgrade', version: '4' },
          },
        },
      ]) {
        await kube.create(secret);
      }
      since = kube.audit().length;
    });

    /** The basic repository on the loopback cluster, with argocd failing once as the stuck release makes it. */
    async function platform(recover: boolean): Promise<{ box: Sandbox; env: Record<string, string> }> {
      const box = await sandbox();
      const path = join(box.root, '.platctl.yaml');
      const config = (await readFile(path, 'utf8')).replace(
        '    dir: live/platform\n',
        '    dir: live/platform\n    cluster: { name: platform, kubeconfig_context: fixture }\n',
      );
      await writeFile(path, `${config}${recover ? 'recover: [helm-pending]\n' : ''}`);
      await box.control({ [UNIT]: { fail_times: 1, fail_say: STUCK_OUTPUT } });
      return { box, env: { KUBECONFIG: kube.writeKubeconfig(dir, { context: 'fixture' }) } };
    }

    it('with recover: deletes only the pending revision, re-applies the unit once, and the run completes', async () => {
      const { box, env } = await platform(true);
      const result = await box.run(['bootstrap', '--yes'], env);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(await secretNames(kube)).toEqual([
        'sh.helm.release.v1.argo-cd.v1',
        'sh.helm.release.v1.argo-cd.v2',
        'sh.helm.release.v1.kyverno.v4',
      ]);
      expect(deletes()).toEqual(['DELETE /api/v1/namespaces/argocd/secrets/sh.helm.release.v1.argo-cd.v3']);
      expect((await box.calls()).filter((c) => c.unit === UNIT)).toHaveLength(2);
      const state = await box.state();
      expect(state.status).toBe('completed');
      expect(state.units[UNIT]?.hooks?.['on-failure:helm-pending']).toMatchObject({
        status: 'completed',
        detail: 'deleted Secret argocd/sh.helm.release.v1.argo-cd.v3 (argo-cd revision 3, pending-upgrade)',
      });
      const log = await readFile(join(box.root, state.units[UNIT]?.log ?? ''), 'utf8');
      expect(log).toContain('# helm-pending: Helm release argo-cd in namespace argocd is stuck pending-upgrade');
      expect(log).toContain('again, after helm-pending: deleted Secret argocd/sh.helm.release.v1.argo-cd.v3');
    });

    it('a second identical failure after the recovery is a plain failure, and nothing more is deleted', async () => {
      const { box, env } = await platform(true);
      await box.control({ [UNIT]: { fail: true, fail_say: STUCK_OUTPUT } });
      const result = await box.run(['bootstrap', '--yes'], env);
      expect(result.exitCode).toBe(1);
      expect(deletes()).toHaveLength(1);
      expect((await box.calls()).filter((c) => c.unit === UNIT)).toHaveLength(2);
      const unit = (await box.state()).units[UNIT];
      expect(unit?.status).toBe('failed');
      expect(unit?.error).toContain(
        'applied a second time after helm-pending deleted Secret argocd/sh.helm.release.v1.argo-cd.v3',
      );
    });

    it('without the switch: deletes nothing and prints the exact kubectl command and the resume command', async () => {
      const { box, env } = await platform(false);
      const result = await box.run(['bootstrap', '--yes'], env);
      expect(result.exitCode).toBe(1);
      expect(deletes()).toEqual([]);
      expect(await secretNames(kube)).toHaveLength(4);
      expect((await box.calls()).filter((c) => c.unit === UNIT)).toHaveLength(1);
      const output = result.stdout + result.stderr;
      expect(output).toContain(
        'Helm release argo-cd in namespace argocd is stuck pending-upgrade (revision 3); to clear it, delete only ' +
          "that revision's Secret: kubectl --context fixture delete secret sh.helm.release.v1.argo-cd.v3 --namespace argocd, " +
          'then platctl bootstrap --resume (or let platctl do it: platctl bootstrap --resume --recover helm-pending)',
      );
      expect((await box.state()).units[UNIT]?.hooks?.['on-failure:helm-pending']).toBeUndefined();
    });

    it('--dry-run says whether the recovery is on', async () => {
      const { box, env } = await platform(false);
      const off = await box.run(['bootstrap', '--dry-run'], env);
      expect(off.stdout).toContain('recovery helm-pending: off');
      const on = await box.run(['bootstrap', '--dry-run', '--recover', 'helm-pending'], env);
      expect(on.stdout).toContain('recovery helm-pending: on (');
      expect(deletes()).toEqual([]);
    });

    it('teardown refuses --recover (exit 2) before anything runs', async () => {
      const { box, env } = await platform(false);
      const result = await box.run(['teardown', '--recover', 'helm-pending', '--yes'], env);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain('--recover applies to bootstrap (an apply) only');
      expect(await box.calls()).toEqual([]);
    });
  },
);
