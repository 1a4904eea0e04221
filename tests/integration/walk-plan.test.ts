/**
 * `bootstrap --dry-run` and `teardown --dry-run` through the built CLI: the whole plan (manual steps with their
 * current check result, unlock steps, each wave with each unit's exact terragrunt command line and hooks, lockdown
 * steps), and nothing run: no terragrunt call, no state file, no log directory.
 */
import { appendFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WalkPlanView } from '../../engine/walk-plan.js';
import { LOCKDOWN_STEPS } from '../helpers/phases-config.js';
import { ENGINE_FIXTURES, sandbox } from './engine-helpers.js';
import type { Sandbox } from './engine-helpers.js';

const PHASES = `
manual_steps:
  - id: token
    description: Export CLOUDFLARE_API_TOKEN
    check: ["sh", "-c", "echo CLOUDFLARE_API_TOKEN is not set >&2; exit 1"]
    before: [platform/dns]
  - id: quota
    description: Raise the EIP quota
    check: ["true"]
  - id: approval
    description: Get the change approved
  - id: ecr-only
    description: Only for ECR
    check: ["false"]
    before: [platform/ecr]
hooks:
  - type: crd_two_stage
    units: [platform/argocd]
    targets: [helm_release.argocd_crds]
  - type: eni_ip_validation
    units: [platform/eks]
    subnets: { tags: { Name: platform-private-* } }
  - type: argocd_account_token
    units: [platform/argocd]
    account: backstage
    secret_id: platform/backstage/argocd-token
    server: https://argocd.example.com
lockdown:
  env: platform
${LOCKDOWN_STEPS}`;

async function box(): Promise<Sandbox> {
  const b = await sandbox();
  await appendFile(join(b.root, '.platctl.yaml'), PHASES);
  return b;
}

/** What a unit's apply or destroy looks like with the fake tools, in the sandbox. */
function commandOf(b: Sandbox, unit: string, tail: string): string {
  return (
    `${join(ENGINE_FIXTURES, 'fake-terragrunt.mjs')} run --working-dir ${join(b.root, 'live', unit)} ` +
    `--non-interactive --tf-path ${join(ENGINE_FIXTURES, 'fake-tofu.sh')} -- ${tail}`
  );
}

async function nothingRan(b: Sandbox): Promise<void> {
  expect(await b.calls()).toEqual([]);
  const files = await readdir(b.root);
  expect(files).not.toContain('.platctl-state.json');
  expect(files).not.toContain('.platctl-logs');
}

describe('bootstrap --dry-run and teardown --dry-run print the whole plan', () => {
  it('bootstrap: manual steps and their checks, each unit with its hooks and command line, then the lockdown', async () => {
    const b = await box();
    const result = await b.run(['bootstrap', '--dry-run']);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const out = result.stdout;
    expect(out).toContain('bootstrap plan: 7 units in 5 waves\n');
    expect(out).toContain(
      'manual steps (checked before anything runs):\n' +
        "  NOT DONE token: Export CLOUDFLARE_API_TOKEN (check sh -c 'echo CLOUDFLARE_API_TOKEN is not set >&2; exit 1': exit code 1: CLOUDFLARE_API_TOKEN is not set)\n" +
        '  done     quota: Raise the EIP quota (check true)\n' +
        '  confirm  approval: Get the change approved (no check: confirmed on the terminal, or by --yes)\n' +
        '  NOT DONE ecr-only: Only for ECR (check false: exit code 1)\n' +
        'wave 0: platform/ecr, platform/iam-roles\n',
    );
    expect(out).toContain(
      `  platform/eks\n    hook eni_ip_validation (before)\n    $ ${commandOf(b, 'platform/eks', 'apply -auto-approve -input=false')}\n`,
    );
    expect(out).toContain(
      'wave 4: platform/argocd\n' +
        '  platform/argocd\n' +
        '    hook crd_two_stage (before)\n' +
        `      $ ${commandOf(b, 'platform/argocd', 'apply -auto-approve -input=false -target=helm_release.argocd_crds')}\n` +
        `    $ ${commandOf(b, 'platform/argocd', 'apply -auto-approve -input=false')}\n` +
        '    hook argocd_account_token (after)\n' +
        'lockdown (after every unit completed), 2 steps:\n' +
        '  1. split-dns (platform/dns)\n' +
        `     $ ${commandOf(b, 'platform/dns', 'apply -auto-approve -input=false -var=split_dns=true')}\n` +
        '  2. private-endpoint (platform/eks)\n' +
        // execa drops the output's last newline.
        `     $ ${commandOf(b, 'platform/eks', 'apply -auto-approve -input=false -var=public=false')}`,
    );
    await nothingRan(b);
  });

  it('--json: the same plan as data; a partial selection names the steps it needs and skips the lockdown', async () => {
    const b = await box();
    const result = await b.run(['bootstrap', '--dry-run', '--json', '--unit', 'platform/dns', '--with-deps']);
    expect(result.exitCode).toBe(0);
    const view = JSON.parse(result.stdout) as WalkPlanView;
    expect(view.waves).toEqual([['platform/iam-roles'], ['platform/vpc'], ['platform/dns']]);
    expect(view.manual_steps.map((s) => [s.id, s.status])).toEqual([
      ['token', 'not-done'],
      ['quota', 'passed'],
      ['approval', 'confirm'],
    ]);
    expect(view.units.find((u) => u.id === 'platform/dns')).toEqual({
      id: 'platform/dns',
      wave: 2,
      command: commandOf(b, 'platform/dns', 'apply -auto-approve -input=false'),
      hooks: [],
    });
    expect(view.lockdown).toMatchObject({
      direction: 'lock',
      skipped: 'this bootstrap covers only part of the units; --lockdown runs it anyway',
    });
    const forced = await b.run(['bootstrap', '--dry-run', '--json', '--unit', 'platform/dns', '--lockdown']);
    expect((JSON.parse(forced.stdout) as WalkPlanView).lockdown?.skipped).toBeUndefined();
    await nothingRan(b);
  });

  it('teardown: the unlock steps in reverse first, then each destroy with its teardown_args; no hooks', async () => {
    const b = await box();
    const result = await b.run(['teardown', '--dry-run']);
    expect(result.exitCode).toBe(0);
    const out = result.stdout;
    expect(out).toContain(
      'teardown plan: 6 units in 4 waves (destroy order: dependents first)\n' +
        'unlock (before the units), 2 steps:\n' +
        '  1. private-endpoint (platform/eks)\n' +
        `     $ ${commandOf(b, 'platform/eks', 'apply -auto-approve -input=false -var=public=true')}\n` +
        '  2. split-dns (platform/dns)\n' +
        `     $ ${commandOf(b, 'platform/dns', 'apply -auto-approve -input=false -var=split_dns=false')}\n` +
        'wave 0: platform/argocd, platform/ecr\n' +
        `  platform/argocd\n    $ ${commandOf(b, 'platform/argocd', 'destroy -auto-approve -input=false')}\n` +
        `  platform/ecr\n    $ ${commandOf(b, 'platform/ecr', 'destroy -auto-approve -input=false -var=force_destroy=true')}\n`,
    );
    expect(out).not.toMatch(/hook|manual steps/);
    expect(out).toMatch(/\nkept \(teardown floor, never destroyed\): platform\/iam-roles$/);
    await nothingRan(b);
  });
});
