/**
 * helm-pending: recognising Helm's "another operation is in progress" in a unit's output (the helm provider's
 * diagnostic as OpenTofu/Terraform print it, through Terragrunt's log prefix, and Helm's own CLI wording), and
 * choosing the one Secret that may be deleted from a release's history.
 */
import { describe, expect, it } from 'vitest';
import { failure, ok } from '../../../cloud/result.js';
import type { RecoveryContext } from '../../../engine/recovery.js';
import type { HelmSecret, HelmSecretStore } from '../../../hooks/helm-pending.js';
import { helmPendingRecovery, pickPendingSecret, recogniseHelmPending } from '../../../hooks/helm-pending.js';

/** OpenTofu's apply of an updated helm_release whose release is stuck (the provider's wording). */
const PROVIDER_UPDATE = [
  'OpenTofu will perform the following actions:',
  '',
  '  # module.addons.helm_release.argocd will be updated in-place',
  '  ~ resource "helm_release" "argocd" {',
  '        id                         = "argo-cd"',
  '        name                       = "argo-cd"',
  '        namespace                  = "argocd"',
  '      ~ status                     = "pending-upgrade" -> "deployed"',
  '        # (25 unchanged attributes hidden)',
  '    }',
  '',
  'Plan: 0 to add, 1 to change, 0 to destroy.',
  'module.addons.helm_release.argocd: Modifying... [id=argo-cd]',
  '╷',
  '│ Error: another operation (install/upgrade/rollback) is in progress',
  '│ ',
  '│   with module.addons.helm_release.argocd,',
  '│   on ../modules/addons/argocd.tf line 1, in resource "helm_release" "argocd":',
  '│    1: resource "helm_release" "argocd" {',
  '│ ',
  '╵',
];

describe('recogniseHelmPending', () => {
  it("reads the provider's diagnostic: release from the Modifying line, namespace from the plan", () => {
    expect(recogniseHelmPending(PROVIDER_UPDATE)).toEqual({
      address: 'module.addons.helm_release.argocd',
      release: 'argo-cd',
      namespace: 'argocd',
      line: 'Error: another operation (install/upgrade/rollback) is in progress',
    });
  });

  it("reads it through Terragrunt's log prefix, with the namespace hidden in the plan", () => {
    const lines = [
      '12:00:01.001 STDOUT terraform:   # helm_release.this["kyverno"] will be updated in-place',
      '12:00:01.002 STDOUT terraform:   ~ resource "helm_release" "this" {',
      '12:00:01.003 STDOUT terraform:         id        = "kyverno"',
      '12:00:01.004 STDOUT terraform:         name      = "kyverno"',
      '12:00:01.005 STDOUT terraform:         # (24 unchanged attributes hidden)',
      '12:00:01.006 STDOUT terraform:     }',
      '12:00:02.000 STDOUT terraform: helm_release.this["kyverno"]: Modifying... [id=kyverno]',
      '12:00:03.000 STDERR terraform: │ Error: another operation (install/upgrade/rollback) is in progress',
      '12:00:03.001 STDERR terraform: │ ',
      '12:00:03.002 STDERR terraform: │   with helm_release.this["kyverno"],',
    ];
    expect(recogniseHelmPending(lines)).toEqual({
      address: 'helm_release.this["kyverno"]',
      release: 'kyverno',
      line: 'Error: another operation (install/upgrade/rollback) is in progress',
    });
  });

  it("reads the plan-time wording (the provider's dry run for a diff), release from the plan's name", () => {
    const lines = [
      '  # helm_release.prometheus_operator[0] will be updated in-place',
      '  ~ resource "helm_release" "prometheus_operator" {',
      '        name      = "kube-prometheus-stack"',
      '        namespace = "monitoring"',
      '    }',
      '╷',
      '│ Error: error running dry run for a diff: another operation (install/upgrade/rollback) is in progress',
      '│ ',
      '│   with helm_release.prometheus_operator[0],',
      '│   on main.tf line 509, in resource "helm_release" "prometheus_operator":',
      '╵',
    ];
    expect(recogniseHelmPending(lines)).toMatchObject({
      address: 'helm_release.prometheus_operator[0]',
      release: 'kube-prometheus-stack',
      namespace: 'monitoring',
    });
  });

  it("recognises Helm's own CLI wording, without a release it can name", () => {
    expect(
      recogniseHelmPending(['Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress']),
    ).toEqual({ line: 'Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress' });
  });

  it('is not fooled by the text quoted in a value, or by other Helm errors', () => {
    expect(
      recogniseHelmPending([
        '  + description = "Error: another operation (install/upgrade/rollback) is in progress"',
        'echo another operation (install/upgrade/rollback) is in progress',
        '│ Error: cannot re-use a name that is still in use',
        '│   with helm_release.argocd,',
      ]),
    ).toBeUndefined();
  });

  it('drops a release name Helm could not have (not a DNS-1123 name)', () => {
    const lines = [
      'helm_release.x: Modifying... [id=Bad_Name;rm]',
      '│ Error: another operation (install/upgrade/rollback) is in progress',
      '│   with helm_release.x,',
    ];
    expect(recogniseHelmPending(lines)).toEqual({
      address: 'helm_release.x',
      line: 'Error: another operation (install/upgrade/rollback) is in progress',
    });
  });
});

function secret(release: string, version: number, status: string, namespace = 'argocd'): HelmSecret {
  return {
    name: `sh.helm.release.v1.${release}.v${version}`,
    namespace,
    labels: { owner: 'helm', name: release, status, version: String(version) },
  };
}

describe('pickPendingSecret', () => {
  it('deletes the newest revision when it alone is pending', () => {
    const choice = pickPendingSecret('argo-cd', [
      secret('argo-cd', 1, 'superseded'),
      secret('argo-cd', 3, 'pending-upgrade'),
      secret('argo-cd', 2, 'deployed'),
    ]);
    expect(choice).toMatchObject({ type: 'delete', revision: 3, status: 'pending-upgrade' });
    expect(choice.type === 'delete' && choice.secret.name).toBe('sh.helm.release.v1.argo-cd.v3');
  });

  it('refuses when the newest revision is deployed (an older pending one is not the blocker)', () => {
    const choice = pickPendingSecret('argo-cd', [
      secret('argo-cd', 1, 'pending-install'),
      secret('argo-cd', 2, 'deployed'),
    ]);
    expect(choice).toEqual({
      type: 'refuse',
      reason: 'the newest revision of argo-cd (v2) is deployed, not pending: nothing to clear safely',
    });
  });

  it('refuses when several revisions are pending', () => {
    const choice = pickPendingSecret('argo-cd', [
      secret('argo-cd', 1, 'deployed'),
      secret('argo-cd', 2, 'pending-upgrade'),
      secret('argo-cd', 3, 'pending-rollback'),
    ]);
    expect(choice.type).toBe('refuse');
    expect(choice.type === 'refuse' && choice.reason).toContain(
      'several revisions of argo-cd are pending (v3 pending-rollback, v2 pending-upgrade)',
    );
  });

  it('refuses a Secret whose name does not match its version label, and an empty history', () => {
    const odd: HelmSecret = { ...secret('argo-cd', 2, 'pending-upgrade'), name: 'sh.helm.release.v1.argo-cd.v9' };
    expect(pickPendingSecret('argo-cd', [odd]).type).toBe('refuse');
    expect(pickPendingSecret('argo-cd', []).type).toBe('refuse');
  });
});

describe('helmPendingRecovery', () => {
  const ctx = (lines: readonly string[]): RecoveryContext => ({
    unit: 'platform/argocd',
    env: 'platform',
    lines,
    signal: new AbortController().signal,
    log: () => undefined,
  });
  const store = (secrets: HelmSecret[], deleted: string[]): HelmSecretStore => ({
    context: 'fixture',
    list: (_release, namespace) =>
      Promise.resolve(ok(secrets.filter((s) => namespace === undefined || s.namespace === namespace))),
    delete: (namespace, name) => {
      deleted.push(`${namespace}/${name}`);
      return Promise.resolve(ok('deleted' as const));
    },
  });

  it('switched off: deletes nothing and prints the exact kubectl command', async () => {
    const deleted: string[] = [];
    const recovery = helmPendingRecovery({
      enabled: false,
      resume: 'platctl bootstrap --resume',
      secrets: () =>
        Promise.resolve(
          ok(store([secret('argo-cd', 2, 'deployed'), secret('argo-cd', 3, 'pending-upgrade')], deleted)),
        ),
    });
    const verdict = await recovery.handle(ctx(PROVIDER_UPDATE));
    expect(deleted).toEqual([]);
    expect(verdict?.type).toBe('advice');
    expect(verdict?.type === 'advice' && verdict.advice).toContain(
      'Helm release argo-cd in namespace argocd is stuck pending-upgrade (revision 3); to clear it, delete only ' +
        "that revision's Secret: kubectl --context fixture delete secret sh.helm.release.v1.argo-cd.v3 --namespace argocd, " +
        'then platctl bootstrap --resume',
    );
  });

  it('switched on: deletes the pending Secret only, and says what it deleted', async () => {
    const deleted: string[] = [];
    const recovery = helmPendingRecovery({
      enabled: true,
      resume: 'platctl bootstrap --resume',
      secrets: () =>
        Promise.resolve(
          ok(store([secret('argo-cd', 2, 'deployed'), secret('argo-cd', 3, 'pending-upgrade')], deleted)),
        ),
    });
    const verdict = await recovery.handle(ctx(PROVIDER_UPDATE));
    expect(deleted).toEqual(['argocd/sh.helm.release.v1.argo-cd.v3']);
    expect(verdict).toEqual({
      type: 'recovered',
      detail: 'deleted Secret argocd/sh.helm.release.v1.argo-cd.v3 (argo-cd revision 3, pending-upgrade)',
    });
  });

  it('switched on, the namespace not in the output and the release in two namespaces: refuses', async () => {
    const deleted: string[] = [];
    const lines = PROVIDER_UPDATE.filter((line) => !line.includes('namespace'));
    const recovery = helmPendingRecovery({
      enabled: true,
      resume: 'platctl bootstrap --resume',
      secrets: () =>
        Promise.resolve(
          ok(
            store(
              [secret('argo-cd', 3, 'pending-upgrade', 'argocd'), secret('argo-cd', 1, 'deployed', 'staging')],
              deleted,
            ),
          ),
        ),
    });
    const verdict = await recovery.handle(ctx(lines));
    expect(deleted).toEqual([]);
    expect(verdict?.type === 'failed' && verdict.message).toContain('exists in several namespaces (argocd, staging)');
  });

  it('an unreachable cluster: the advice says how to find the revision by hand', async () => {
    const recovery = helmPendingRecovery({
      enabled: false,
      resume: 'platctl bootstrap --resume',
      secrets: () => Promise.resolve(failure('unreachable', 'cannot reach the API server https://x (ECONNREFUSED)')),
    });
    const verdict = await recovery.handle(ctx(PROVIDER_UPDATE));
    expect(verdict?.type === 'advice' && verdict.advice).toContain(
      'kubectl get secrets --namespace argocd -l owner=helm,name=argo-cd -L status,version',
    );
  });

  it('leaves other failures alone', async () => {
    const recovery = helmPendingRecovery({
      enabled: true,
      resume: 'platctl bootstrap --resume',
      secrets: () => Promise.reject(new Error('must not be asked')),
    });
    expect(await recovery.handle(ctx(['│ Error: Kubernetes cluster unreachable']))).toBeUndefined();
  });
});
