import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockdownBlock } from '../helpers/phases-config.js';
import { sandbox } from './engine-helpers.js';
import type { Call, Sandbox } from './engine-helpers.js';

const LOCKDOWN = lockdownBlock('  retry: { attempts: 3, interval: 100ms }\n');

async function withConfig(extra: string): Promise<Sandbox> {
  const box = await sandbox();
  await appendFile(join(box.root, '.platctl.yaml'), extra);
  return box;
}

const summary = (calls: readonly Call[]): string[] =>
  calls.map((c) => `${c.command} ${c.unit}${c.tf_args.length > 0 ? ` ${c.tf_args.join(' ')}` : ''}`);

describe('bootstrap and teardown phases (built CLI, fake terragrunt)', () => {
  it('locks down after a complete bootstrap, retrying a transient EKS error, and records each step', async () => {
    const box = await withConfig(LOCKDOWN);
    await box.control({
      'platform/eks': {
        when_args: {
          '-var=public=false': {
            fail_times: 2,
            fail_say: ['Error: updating EKS Cluster (p) config: ResourceInUseException: update in progress'],
          },
        },
      },
    });
    const result = await box.run(['bootstrap']);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const calls = summary(await box.calls());
    expect(calls.slice(-4)).toEqual([
      'apply platform/dns -var=split_dns=true',
      'apply platform/eks -var=public=false',
      'apply platform/eks -var=public=false',
      'apply platform/eks -var=public=false',
    ]);
    expect(calls.filter((c) => c.startsWith('apply')).length).toBe(7 + 4);
    expect(result.stdout).toMatch(/retry +lockdown step private-endpoint: .*ResourceInUseException.*attempt 2 of 3/);
    const state = await box.state();
    expect(state.status).toBe('completed');
    expect(state.lockdown).toMatchObject({
      direction: 'lock',
      status: 'completed',
      steps: {
        'split-dns': { status: 'completed', attempts: 1 },
        'private-endpoint': { status: 'completed', attempts: 3 },
      },
    });
    const log = await readFile(join(box.root, state.lockdown!.steps['private-endpoint']!.log!), 'utf8');
    expect(log.match(/# platctl lockdown step private-endpoint: platform\/eks \(attempt \d\)/g)).toHaveLength(3);
  });

  it('stops at a failing step with exit 1, and bootstrap --resume continues at that step without re-applying units', async () => {
    const box = await withConfig(LOCKDOWN);
    await box.control({ 'platform/eks': { when_args: { '-var=public=false': { fail: true } } } });
    const failed = await box.run(['bootstrap']);
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toMatch(/FAILED +lockdown step private-endpoint: exit code 1/);
    // The failed lockdown is the run's headline, with its step, cause, log and how to go on; not a warning.
    expect(failed.stdout).toMatch(/: failed in \S+\n\nLOCKDOWN FAILED at step private-endpoint: exit code 1/);
    expect(failed.stdout).toMatch(
      /the platform is NOT locked down: .*platctl bootstrap --resume continues at this step/,
    );
    expect(failed.stdout).not.toMatch(/warning: lockdown step/);
    const status = await box.run(['status']);
    expect(status.exitCode).not.toBe(0);
    expect(status.stdout).toMatch(/\nLOCKDOWN FAILED at step private-endpoint: exit code 1/);
    expect(status.stdout).toMatch(/log: \S+private-endpoint/);
    expect(status.stdout).toMatch(/Resume with: platctl bootstrap --resume/);
    expect((await box.state()).lockdown).toMatchObject({
      status: 'failed',
      steps: { 'split-dns': { status: 'completed' } },
    });
    const before = (await box.calls()).length;
    await box.control({});
    const resumed = await box.run(['bootstrap', '--resume']);
    expect(resumed.exitCode).toBe(0);
    expect(summary((await box.calls()).slice(before))).toEqual(['apply platform/eks -var=public=false']);
    expect((await box.state()).lockdown?.status).toBe('completed');
  });

  it('skips the lockdown for a partial selection unless --lockdown', async () => {
    const box = await withConfig(LOCKDOWN);
    const partial = await box.run(['bootstrap', '--unit', 'platform/vpc']);
    expect(partial.exitCode).toBe(0);
    expect(partial.stdout).toMatch(/lockdown skipped: this bootstrap covers only part of the units; pass --lockdown/);
    expect(summary(await box.calls())).toEqual(['apply platform/vpc']);
    const forced = await box.run(['bootstrap', '--unit', 'platform/vpc', '--lockdown']);
    expect(forced.exitCode).toBe(0);
    expect(summary(await box.calls()).slice(1)).toEqual([
      'apply platform/vpc',
      'apply platform/dns -var=split_dns=true',
      'apply platform/eks -var=public=false',
    ]);
  });

  it('teardown unlocks in reverse first, and a failed unlock destroys nothing', async () => {
    const box = await withConfig(LOCKDOWN);
    await box.control({ 'platform/dns': { when_args: { '-var=split_dns=false': { fail: true } } } });
    const failed = await box.run(['teardown', '--yes']);
    expect(failed.exitCode).toBe(1);
    expect(summary(await box.calls())).toEqual([
      'apply platform/eks -var=public=true',
      'apply platform/dns -var=split_dns=false',
    ]);
    expect(failed.stdout).toMatch(/unlock step split-dns \(platform\/dns\) failed/);
    await box.control({});
    const resumed = await box.run(['teardown', '--resume', '--yes']);
    expect(resumed.exitCode).toBe(0);
    const calls = summary(await box.calls()).slice(2);
    expect(calls[0]).toBe('apply platform/dns -var=split_dns=false');
    expect(calls.slice(1).every((c) => c.startsWith('destroy'))).toBe(true);
  });

  it('applies a crd_two_stage unit with -target first, then whole, both in its log', async () => {
    const box = await withConfig(`
hooks:
  - type: crd_two_stage
    units: [platform/argocd]
    targets: [helm_release.argocd_crds, kubernetes_manifest.appproject_crd]
`);
    const result = await box.run(['bootstrap']);
    expect(result.exitCode).toBe(0);
    const argocd = summary(await box.calls()).filter((c) => c.includes('platform/argocd'));
    expect(argocd).toEqual([
      'apply platform/argocd -target=helm_release.argocd_crds -target=kubernetes_manifest.appproject_crd',
      'apply platform/argocd',
    ]);
    const state = await box.state();
    expect(state.units['platform/argocd']?.hooks?.['before-unit:crd_two_stage']).toMatchObject({ status: 'completed' });
    const log = await readFile(join(box.root, state.units['platform/argocd']!.log!), 'utf8');
    expect(log).toMatch(/# ---- crd_two_stage stage 1 of 2[^\n]*\n# command: .*-target=helm_release.argocd_crds/);
    expect(log).toMatch(/# ---- apply platform\/argocd\n# command: .*-- apply -auto-approve -input=false\n/);
    expect(log.match(/Apply complete!/g)).toHaveLength(2);
  });

  it('platctl lockdown: --dry-run prints each apply, --undo unlocks in reverse', async () => {
    const box = await withConfig(LOCKDOWN);
    const dry = await box.run(['lockdown', '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(
      /^lockdown plan: 2 steps\n1\. split-dns \(platform\/dns\)\n +\S*fake-terragrunt\.mjs run --working-dir \S+\/live\/platform\/dns .* -- apply -auto-approve -input=false -var=split_dns=true\n/,
    );
    expect(await box.calls()).toEqual([]);
    const undo = await box.run(['lockdown', '--undo']);
    expect(undo.exitCode).toBe(0);
    expect(summary(await box.calls())).toEqual([
      'apply platform/eks -var=public=true',
      'apply platform/dns -var=split_dns=false',
    ]);
  });
});
