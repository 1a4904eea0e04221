/**
 * Optional units and the narrow rollback through the built CLI, with the fake terragrunt: its `state pull` answers
 * what each unit held before the run (state_resources, state_fail), and its calls show exactly what was destroyed.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './engine-helpers.js';
import type { Sandbox } from './engine-helpers.js';

async function appendConfig(box: Sandbox, text: string): Promise<void> {
  const file = join(box.root, '.platctl.yaml');
  await writeFile(file, `${await readFile(file, 'utf8')}${text}`);
}

/** Units the run applied (completed or failed) and units it destroyed, from the fake's record. */
async function calls(box: Sandbox): Promise<{ applied: Set<string>; destroyed: string[]; probed: Set<string> }> {
  const all = await box.calls();
  return {
    applied: new Set(all.filter((c) => c.command === 'apply').map((c) => c.unit)),
    destroyed: all.filter((c) => c.command === 'destroy').map((c) => c.unit),
    probed: new Set(all.filter((c) => (c.command as string) === 'state pull').map((c) => c.unit)),
  };
}

describe('optional units and narrow rollback', { timeout: 180_000 }, () => {
  it('an optional unit failing skips only its dependents, the rest applies, and the run exits 1 naming it', async () => {
    const box = await sandbox();
    await appendConfig(box, 'optional: ["platform/dn*"]\n');
    await box.control({ 'platform/dns': { fail: true } });
    const result = await box.run(['bootstrap', '--fail-fast']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(/FAILED\s+platform\/dns \(exit-non-zero, exit code 1, .*optional\)/);
    expect(result.stdout).toContain('Optional units failed: platform/dns');
    const state = await box.state();
    expect(state.units['platform/dns']).toMatchObject({ status: 'failed', optional: true });
    // --fail-fast does not stop the walk for an optional unit: everything not needing dns applied.
    for (const id of ['platform/vpc', 'platform/eks', 'platform/cilium', 'platform/ecr', 'platform/iam-roles']) {
      expect(state.units[id]?.status, id).toBe('completed');
    }
    expect(state.units['platform/argocd']).toMatchObject({ status: 'skipped', skipped_because: 'platform/dns' });
  });

  it('an optional pattern that matches no unit is refused with a did-you-mean, exit 2', async () => {
    const box = await sandbox();
    await appendConfig(box, 'optional: ["platform/grafana*"]\n');
    const result = await box.run(['bootstrap']);
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toContain('optional names the pattern "platform/grafana*", which matches no unit');
    expect((await box.calls()).length).toBe(0);
  });

  it('rolls back exactly the units the run created; a unit that stood before survives', async () => {
    const box = await sandbox();
    // fail_times: the apply fails, the rollback's destroy (the next call) succeeds.
    await box.control({ 'platform/eks': { fail_times: 1 }, 'platform/ecr': { state_resources: 2 } });
    const result = await box.run(['bootstrap', '--rollback-on-failure', '--parallelism', '1']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(1);
    const { applied, destroyed, probed } = await calls(box);
    expect(probed.size).toBe(7);
    expect(applied).toContain('platform/eks');
    // Everything applied except the unit that stood (ecr) and the teardown floor (iam-roles).
    const expected = [...applied].filter((id) => id !== 'platform/ecr' && id !== 'platform/iam-roles').sort();
    expect([...destroyed].sort()).toEqual(expected);
    expect(destroyed.indexOf('platform/eks')).toBeLessThan(destroyed.indexOf('platform/vpc'));
    const state = await box.state();
    expect(state.rollback).toMatchObject({ mode: 'on_failure', status: 'completed' });
    expect(state.rollback?.probe['platform/ecr']).toMatchObject({ result: 'standing' });
    for (const id of expected) expect(state.rollback?.units?.[id]?.status, id).toBe('destroyed');
    expect(state.units['platform/eks']).toMatchObject({ status: 'failed', rolled_back: true });
    expect(result.stdout).toContain('ROLLED BACK');
    expect(result.stdout).toContain('platform/ecr stays: its state held 2 resources before the run');
  });

  it('fails closed: a unit whose state cannot be read counts as standing, and so does what it needs', async () => {
    const box = await sandbox();
    await box.control({ 'platform/eks': { fail: true }, 'platform/vpc': { state_fail: true } });
    const result = await box.run(['bootstrap', '--rollback-on-failure', '--parallelism', '1']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(1);
    const { destroyed } = await calls(box);
    expect(destroyed).toContain('platform/eks');
    expect(destroyed).not.toContain('platform/vpc');
    expect(destroyed).not.toContain('platform/iam-roles');
    const state = await box.state();
    expect(state.rollback?.probe['platform/vpc']).toMatchObject({ result: 'unknown' });
    expect(state.rollback?.probe['platform/vpc']?.detail).toContain('ExpiredToken');
    expect(result.stdout).toContain('platform/vpc stays: platctl could not tell whether it stood before the run');
  });

  it('never rolls back for an optional unit, nor with --no-rollback over the configuration; says which rule held', async () => {
    const box = await sandbox();
    await appendConfig(box, 'rollback: on_failure\noptional: [platform/dns]\n');
    await box.control({ 'platform/dns': { fail: true } });
    const optional = await box.run(['bootstrap']);
    expect(optional.exitCode).toBe(1);
    expect((await calls(box)).destroyed).toEqual([]);
    expect(optional.stdout).toContain('no rollback: only optional units failed');
    expect((await box.state()).rollback).toMatchObject({ status: 'held', rule: 'optional-unit' });

    await box.control({ 'platform/eks': { fail: true } });
    const refused = await box.run(['bootstrap', '--no-rollback']);
    expect(refused.exitCode).toBe(1);
    expect((await calls(box)).destroyed).toEqual([]);
    expect(refused.stdout).toContain('no rollback: --no-rollback was given');
    expect((await box.state()).rollback).toMatchObject({ mode: 'refused', status: 'held', rule: 'no-rollback' });
  });

  it('--no-clean-on-failure is --no-rollback (issue 28)', async () => {
    const box = await sandbox();
    await appendConfig(box, 'rollback: on_failure\n');
    await box.control({ 'platform/eks': { fail: true } });
    const refused = await box.run(['bootstrap', '--no-clean-on-failure']);
    expect(refused.exitCode).toBe(1);
    expect((await calls(box)).destroyed).toEqual([]);
    expect(refused.stdout).toContain('no rollback: --no-rollback was given');
    expect((await box.state()).rollback).toMatchObject({ mode: 'refused', status: 'held', rule: 'no-rollback' });
    const both = await box.run(['bootstrap', '--rollback-on-failure', '--no-clean-on-failure']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('contradict');
  });

  it('--dry-run --rollback-on-failure shows what a failure of each unit would destroy, and runs nothing', async () => {
    const box = await sandbox();
    const result = await box.run(['bootstrap', '--dry-run', '--rollback-on-failure']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('rollback on failure (at most');
    expect(result.stdout).toMatch(/if platform\/eks fails: destroy .*platform\/eks/);
    // iam-roles is the teardown floor: never in a rollback.
    expect(result.stdout).not.toMatch(/destroy [^\n]*platform\/iam-roles/);
    expect((await box.calls()).length).toBe(0);
  });

  it('refuses --rollback-on-failure with teardown, and with --no-rollback (exit 2)', async () => {
    const box = await sandbox();
    const teardown = await box.run(['teardown', '--rollback-on-failure', '--yes']);
    expect(teardown.exitCode).toBe(2);
    expect(teardown.stderr).toContain('apply to bootstrap only');
    const both = await box.run(['bootstrap', '--rollback-on-failure', '--no-rollback']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('contradict');
    expect((await box.calls()).length).toBe(0);
  });
});
