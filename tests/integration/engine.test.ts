import { mkdir, readFile, readdir, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { WalkEvent } from '../../engine/events.js';
import { gone } from '../process/helpers.js';
import { BASIC_UNITS as ALL, PLATCTL, printedResumeArgs, sandbox, until } from './engine-helpers.js';
import type { Call } from './engine-helpers.js';

const units = (calls: readonly Call[]): string[] => calls.map((c) => c.unit).sort();

describe('platctl bootstrap (built CLI, fake terragrunt)', () => {
  it('applies every unit after its dependencies and records state, logs and durations', async () => {
    const box = await sandbox();
    await box.control({}, { sleep_ms: 50 });
    const result = await box.run(['bootstrap']);
    expect(result.exitCode).toBe(0);
    expect(units(await box.calls())).toEqual(ALL);
    const state = await box.state();
    expect(state).toMatchObject({ version: 1, command: 'bootstrap', status: 'completed', resumes: 0 });
    for (const [id, unit] of Object.entries(state.units)) {
      expect(unit.status).toBe('completed');
      for (const dep of unit.dependencies) {
        expect(Date.parse(state.units[dep]!.ended_at!)).toBeLessThanOrEqual(Date.parse(unit.started_at!));
      }
      const log = await readFile(join(box.root, unit.log!), 'utf8');
      expect(log).toContain(`# platctl bootstrap: ${id} (attempt 1)`);
      expect(log).toContain('Apply complete!');
      expect(log).toMatch(/# result: +completed \(exit code 0\)/);
    }
    expect(state.units['platform/argocd']!.log).toBe(`.platctl-logs/${state.run_id}/4_platform__argocd.log`);
    expect(await readlink(join(box.root, '.platctl-logs', 'latest'))).toBe(state.run_id);
    expect(Object.keys(state.known_durations_ms.bootstrap ?? {}).sort()).toEqual(ALL);
    // The lock is gone after the run.
    await expect(readFile(join(box.root, '.platctl.lock'))).rejects.toThrow();
  });

  it('after a failure skips dependents, names everything, and the printed resume never re-runs a completed unit', async () => {
    const box = await sandbox();
    await box.control({ 'platform/eks': { fail: true, exit_code: 3 } });
    const failed = await box.run(['bootstrap']);
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toMatch(/FAILED +platform\/eks \(exit-non-zero, exit code 3/);
    expect(failed.stdout).toContain('Error: simulated failure in platform/eks');
    expect(failed.stdout).toMatch(/log: \.platctl-logs\/.+\/2_platform__eks\.log/);
    expect(failed.stdout).toMatch(/SKIPPED platform\/cilium +needs platform\/eks, which failed/);
    expect(failed.stdout).toMatch(/SKIPPED platform\/argocd +needs platform\/eks, which failed/);
    const resumeArgs = printedResumeArgs(failed.stdout);
    expect(resumeArgs).toEqual(['bootstrap', '--resume']);
    const before = await box.state();
    expect(before.units['platform/eks']).toMatchObject({
      status: 'failed',
      reason: 'exit-non-zero',
      exit_code: 3,
      error: 'exit code 3: Error: simulated failure in platform/eks',
    });
    const firstCalls = (await box.calls()).length;

    await box.control({});
    const resumed = await box.run(resumeArgs);
    expect(resumed.exitCode).toBe(0);
    const second = (await box.calls()).slice(firstCalls);
    expect(units(second)).toEqual(['platform/argocd', 'platform/cilium', 'platform/eks']);
    const after = await box.state();
    expect(after).toMatchObject({ run_id: before.run_id, status: 'completed', resumes: 1 });
    expect(after.units['platform/eks']).toMatchObject({ status: 'completed', attempts: 2 });
    expect(after.units['platform/vpc']).toEqual(before.units['platform/vpc']);
    // Both attempts are in the unit's log.
    const log = await readFile(join(box.root, after.units['platform/eks']!.log!), 'utf8');
    expect(log).toContain('(attempt 1)');
    expect(log).toContain('(attempt 2)');

    // Resuming a completed run runs nothing.
    const again = await box.run(['bootstrap', '--resume']);
    expect(again.exitCode).toBe(0);
    expect((await box.calls()).length).toBe(firstCalls + 3);
  });

  it('refuses to resume across a changed graph, naming what changed, unless --force', async () => {
    const box = await sandbox();
    await box.control({ 'platform/vpc': { fail: true } });
    expect((await box.run(['bootstrap'])).exitCode).toBe(1);
    // Add a unit and re-wire dns to depend on it.
    await mkdir(join(box.root, 'live/platform/route53'), { recursive: true });
    await writeFile(join(box.root, 'live/platform/route53/terragrunt.hcl'), '');
    await writeFile(
      join(box.root, 'live/platform/dns/terragrunt.hcl'),
      'dependency "vpc" {\n  config_path = "../vpc"\n}\ndependency "route53" {\n  config_path = "../route53"\n}\n',
    );
    await box.control({});
    const refused = await box.run(['bootstrap', '--resume']);
    expect(refused.exitCode).toBe(3);
    expect(refused.stderr).toContain('the graph changed since run');
    expect(refused.stderr).toContain('added:    platform/route53');
    expect(refused.stderr).toContain('re-wired: platform/dns now depends on platform/route53');
    expect(refused.stderr).toContain('--resume --force');
    const forced = await box.run(['bootstrap', '--resume', '--force']);
    expect(forced.exitCode).toBe(0);
    expect((await box.state()).units['platform/route53']?.status).toBe('completed');
  });

  it('prints the plan with --dry-run without running anything or needing terragrunt', async () => {
    const box = await sandbox();
    const env = { PLATCTL_TERRAGRUNT: '/nonexistent/terragrunt' };
    const text = await box.run(['bootstrap', '--dry-run'], env);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('bootstrap plan: 7 units in 5 waves');
    expect(text.stdout).toContain('wave 0: platform/ecr, platform/iam-roles');
    expect(text.stdout).toContain('wave 4: platform/argocd');
    const json = await box.run(['bootstrap', '--dry-run', '--json', '--unit', 'platform/eks', '--with-deps'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({
      command: 'bootstrap',
      waves: [['platform/iam-roles'], ['platform/vpc'], ['platform/eks']],
      kept: [],
      manual_steps: [],
      excluded: [],
    });
    expect(await box.calls()).toEqual([]);
    expect(await readdir(box.root)).not.toContain('.platctl-state.json');
  });

  it('honours Terragrunt exclude blocks: left out of apply, recorded as excluded, their dependents still run', async () => {
    const box = await sandbox();
    const cilium = join(box.root, 'live', 'platform', 'cilium', 'terragrunt.hcl');
    await writeFile(
      cilium,
      `${await readFile(cilium, 'utf8')}\nexclude {\n  if                   = true\n  actions              = ["apply"]\n  exclude_dependencies = true\n}\n`,
    );
    const dry = await box.run(['bootstrap', '--dry-run']);
    expect(dry.stderr).not.toContain('exclude');
    expect(dry.stdout).toContain(
      "excluded (Terragrunt exclude blocks; never applied; what needs them runs as if they were): platform/cilium, platform/eks (by platform/cilium's exclude_dependencies)",
    );
    const graph = await box.run(['graph']);
    expect(graph.stdout).toContain('  platform/cilium: apply; with exclude_dependencies also platform/eks');

    const result = await box.run(['bootstrap']);
    expect(result.exitCode).toBe(0);
    expect(units(await box.calls())).toEqual(ALL.filter((u) => u !== 'platform/cilium' && u !== 'platform/eks'));
    expect(result.stdout).toMatch(/EXCLUDED platform\/cilium +its exclude block leaves it out of apply/);
    expect(result.stdout).toMatch(/EXCLUDED platform\/eks +platform\/cilium's exclude block \(exclude_dependencies\)/);
    expect(result.stdout).toContain('7 units: 5 completed, 2 excluded');
    const state = await box.state();
    expect(state.status).toBe('completed');
    expect(state.units['platform/cilium']).toMatchObject({ status: 'excluded', attempts: 0 });
    expect(state.units['platform/eks']).toMatchObject({ status: 'excluded', excluded_by: 'platform/cilium' });
    const status = await box.run(['status']);
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toMatch(/platform\/eks +excluded +- +platform\/cilium's exclude block/);

    // The block lists apply only: teardown destroys both.
    const teardown = await box.run(['teardown', '--yes']);
    expect(teardown.exitCode).toBe(0);
    const destroyed = (await box.calls()).filter((c) => c.command === 'destroy').map((c) => c.unit);
    expect(destroyed).toContain('platform/cilium');
    expect(destroyed).toContain('platform/eks');
  });

  it('explains resumes that cannot happen', async () => {
    const box = await sandbox();
    const none = await box.run(['bootstrap', '--resume']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('there is no earlier run to resume');
    expect((await box.run(['bootstrap', '--unit', 'platform/ecr'])).exitCode).toBe(0);
    const other = await box.run(['teardown', '--resume', '--yes']);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain('the last run was a bootstrap');
    const mixed = await box.run(['bootstrap', '--resume', '--unit', 'platform/ecr']);
    expect(mixed.exitCode).toBe(2);
    expect(mixed.stderr).toContain('drop --unit');
    // The local backend keeps one run: --env must be its selection.
    const otherEnvs = await box.run(['bootstrap', '--resume', '--env', 'platform']);
    expect(otherEnvs.exitCode).toBe(2);
    expect(otherEnvs.stderr).toMatch(/the last run of .* \(\S+\) was started with no --env, not --env platform/);
    expect(await box.calls()).toHaveLength(1);
  });

  it('runs only the selection; units outside it count as applied', async () => {
    const box = await sandbox();
    const withDeps = await box.run(['bootstrap', '--unit', 'platform/eks', '--with-deps']);
    expect(withDeps.exitCode).toBe(0);
    expect(units(await box.calls())).toEqual(['platform/eks', 'platform/iam-roles', 'platform/vpc']);
    const n = (await box.calls()).length;
    const alone = await box.run(['bootstrap', '--unit', 'platform/argocd']);
    expect(alone.exitCode).toBe(0);
    expect(units((await box.calls()).slice(n))).toEqual(['platform/argocd']);
    const typo = await box.run(['bootstrap', '--unit', 'platform/ekss']);
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain('did you mean platform/eks');
  });

  it('fails a unit past its timeout with reason timeout and keeps going elsewhere', async () => {
    const box = await sandbox();
    const configPath = join(box.root, '.platctl.yaml');
    await writeFile(configPath, `${await readFile(configPath, 'utf8')}  platform/dns:\n    timeout: 1s\n`);
    await box.control({ 'platform/dns': { sleep_ms: 30_000, ignore_signals: true } });
    const started = Date.now();
    const result = await box.run(['bootstrap']);
    expect(result.exitCode).toBe(1);
    // 1 s timeout + 2 s grace (PLATCTL_KILL_GRACE), not the 30 s the unit wanted.
    expect(Date.now() - started).toBeLessThan(15_000);
    const state = await box.state();
    expect(state.units['platform/dns']).toMatchObject({
      status: 'failed',
      reason: 'timeout',
      error: expect.stringMatching(
        /^timed out after 1s \(raise units\.platform\/dns\.timeout in \.platctl\.yaml\)/,
      ) as unknown,
    });
    expect(state.units['platform/argocd']).toMatchObject({ status: 'skipped', skipped_because: 'platform/dns' });
    expect(state.units['platform/cilium']?.status).toBe('completed');
    const dns = (await box.calls()).find((c) => c.unit === 'platform/dns');
    expect(await gone(dns!.pid)).toBe(true);
  });

  it('stops starting units after the first failure with --fail-fast', async () => {
    const box = await sandbox();
    await box.control({ 'platform/iam-roles': { fail: true } }, { sleep_ms: 300 });
    const result = await box.run(['bootstrap', '--fail-fast', '--parallelism', '1']);
    expect(result.exitCode).toBe(1);
    expect(units(await box.calls())).toEqual(['platform/iam-roles']);
    expect(result.stdout).toContain('not started: --fail-fast after platform/iam-roles failed');
  });

  it('prints NDJSON events on stdout with --json and the summary on stderr', async () => {
    const box = await sandbox();
    const result = await box.run(['bootstrap', '--json', '--unit', 'platform/vpc', '--with-deps']);
    expect(result.exitCode).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as WalkEvent);
    expect(events[0]?.type).toBe('run-started');
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'completed', counts: { completed: 2 } });
    expect(events.filter((e) => e.type === 'unit-completed').map((e) => e.type === 'unit-completed' && e.unit)).toEqual(
      ['platform/iam-roles', 'platform/vpc'],
    );
    expect(result.stderr).toContain('2 units: 2 completed');
  });

  it('refuses before anything runs when terragrunt is missing or tofu cannot start', async () => {
    const box = await sandbox();
    const result = await box.run(['bootstrap'], { PLATCTL_TERRAGRUNT: join(box.root, 'no-such-terragrunt') });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(
      /terragrunt ".*no-such-terragrunt" \(from PLATCTL_TERRAGRUNT\) was not found; nothing was run/,
    );
    expect(await readdir(box.root)).not.toContain('.platctl-state.json');
    // tofu cannot even print its version with a missing CLI config file: every unit would fail.
    const cliConfig = await box.run(['bootstrap'], { TF_CLI_CONFIG_FILE: join(box.root, 'missing.tfrc') });
    expect(cliConfig.exitCode).toBe(3);
    expect(cliConfig.stderr).toContain('TF_CLI_CONFIG_FILE points at');
    expect(await box.calls()).toEqual([]);
  });

  it('redacts secrets in logs', async () => {
    const box = await sandbox();
    await box.control({
      'platform/ecr': {
        say: [
          'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
          'key AKIAIOSFODNN7EXAMPLE',
          'token: s3cr3t-from-env',
        ],
      },
    });
    const result = await box.run(['bootstrap', '--unit', 'platform/ecr'], { DEPLOY_TOKEN: 's3cr3t-from-env' });
    expect(result.exitCode).toBe(0);
    const state = await box.state();
    const log = await readFile(join(box.root, state.units['platform/ecr']!.log!), 'utf8');
    expect(log).not.toContain('wJalrXUtnFEMI');
    expect(log).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(log).not.toContain('s3cr3t-from-env');
    expect(log).toContain('aws_secret_access_key = ***');
  });

  it('unsets a shared TF_PLUGIN_CACHE_DIR for parallel units unless OpenTofu >= 1.10', async () => {
    const box = await sandbox();
    const old = await box.run(['bootstrap', '--unit', 'platform/ecr'], {
      TF_PLUGIN_CACHE_DIR: '/tmp/cache',
      FAKE_TF_VERSION: '1.9.0',
    });
    expect(old.stdout).toContain('TF_PLUGIN_CACHE_DIR (/tmp/cache) would be shared');
    const recent = await box.run(['bootstrap', '--unit', 'platform/ecr'], {
      TF_PLUGIN_CACHE_DIR: '/tmp/cache',
      FAKE_TF_VERSION: '1.10.2',
    });
    expect(recent.exitCode).toBe(0);
    expect((await box.calls()).map((c) => c.plugin_cache)).toEqual([null, '/tmp/cache']);
  });
});

describe('platctl teardown', () => {
  it('destroys dependents first, with teardown_args, and spares the floor', async () => {
    const box = await sandbox();
    expect((await box.run(['bootstrap'])).exitCode).toBe(0);
    const applied = (await box.calls()).length;
    const dry = await box.run(['teardown', '--dry-run']);
    expect(dry.stdout).toContain('wave 0: platform/argocd, platform/ecr');
    expect(dry.stdout).toContain('kept (teardown floor, never destroyed): platform/iam-roles');
    const result = await box.run(['teardown', '--yes', '--parallelism', '1']);
    expect(result.exitCode).toBe(0);
    const destroyed = (await box.calls()).slice(applied);
    expect(destroyed.every((c) => c.command === 'destroy')).toBe(true);
    expect(units(destroyed)).toEqual(ALL.filter((u) => u !== 'platform/iam-roles'));
    const order = destroyed.map((c) => c.unit);
    expect(order.indexOf('platform/argocd')).toBeLessThan(order.indexOf('platform/cilium'));
    expect(order.indexOf('platform/cilium')).toBeLessThan(order.indexOf('platform/eks'));
    expect(order.indexOf('platform/eks')).toBeLessThan(order.indexOf('platform/vpc'));
    expect(destroyed.find((c) => c.unit === 'platform/ecr')?.tf_args).toEqual(['-var=force_destroy=true']);
    expect(result.stdout).toMatch(/KEPT +platform\/iam-roles +teardown floor/);
    const state = await box.state();
    expect(state.units['platform/iam-roles']).toMatchObject({ status: 'completed', kept: true, attempts: 0 });
  });

  it('refuses without a terminal unless --yes, and selects dependents with --with-deps', async () => {
    const box = await sandbox();
    const refused = await box.run(['teardown']);
    expect(refused.exitCode).toBe(3);
    expect(refused.stderr).toContain('pass --yes');
    expect(await box.calls()).toEqual([]);
    const some = await box.run(['teardown', '--yes', '--unit', 'platform/eks', '--with-deps']);
    expect(some.exitCode).toBe(0);
    expect(units(await box.calls())).toEqual(['platform/argocd', 'platform/cilium', 'platform/eks']);
  });
});

describe('on a terminal', () => {
  // `script` runs platctl on a pseudo-terminal; `stty` gives it a size (a 0-row terminal gets plain lines).
  const onTerminal = (box: Awaited<ReturnType<typeof sandbox>>, args: string) =>
    execa('script', ['-qec', `stty rows 40 cols 120; exec node '${PLATCTL}' ${args}`, '/dev/null'], {
      cwd: box.root,
      env: box.env,
      extendEnv: false,
      reject: false,
    });

  it('shows a live view and asks before a teardown, destroying only after "yes"', async () => {
    const box = await sandbox();
    await box.control({}, { sleep_ms: 400 });
    const live = await onTerminal(box, 'bootstrap --unit platform/vpc --with-deps');
    expect(live.exitCode).toBe(0);
    const screen = String(live.stdout);
    expect(screen).toMatch(/bootstrap.*0\/2 done.*1 running/);
    expect(screen).toMatch(/platform\/iam-roles \d+ms/);
    expect(screen).toContain('2 units: 2 completed');

    const teardown = onTerminal(box, 'teardown --unit platform/vpc');
    let shown = '';
    teardown.stdout?.on('data', (chunk: Buffer) => {
      shown += chunk.toString();
      if (shown.includes('Type "yes" to destroy:') && !shown.includes('answered')) {
        shown += 'answered';
        teardown.stdin?.write('yes\n');
      }
    });
    const result = await teardown;
    expect(result.exitCode).toBe(0);
    expect(shown).toContain('this destroys 1 unit in platform, dependents first:');
    expect((await box.calls()).filter((c) => c.command === 'destroy').map((c) => c.unit)).toEqual(['platform/vpc']);

    const declined = onTerminal(box, 'teardown --unit platform/vpc');
    let asked = false;
    declined.stdout?.on('data', (chunk: Buffer) => {
      if (!asked && chunk.toString().includes('Type "yes"')) {
        asked = true;
        declined.stdin?.write('no\n');
      }
    });
    const no = await declined;
    expect(no.exitCode).toBe(3);
    expect(String(no.stdout)).toContain('teardown cancelled; nothing was changed');
    expect((await box.calls()).filter((c) => c.command === 'destroy')).toHaveLength(1);

    // Ctrl-C at the prompt is a no, with the interruption's exit code.
    const interrupted = onTerminal(box, 'teardown --unit platform/vpc');
    let hit = false;
    interrupted.stdout?.on('data', (chunk: Buffer) => {
      if (!hit && chunk.toString().includes('Type "yes"')) {
        hit = true;
        interrupted.stdin?.write('\u0003');
      }
    });
    expect((await interrupted).exitCode).toBe(130);
    expect((await box.calls()).filter((c) => c.command === 'destroy')).toHaveLength(1);
  });
});

describe('platctl status', () => {
  it('reports per unit and exits 0 only after a complete run', async () => {
    const box = await sandbox();
    const nothing = await box.run(['status']);
    expect(nothing.exitCode).toBe(1);
    expect(nothing.stderr).toContain('no run recorded');
    await box.control({ 'platform/dns': { fail: true } });
    await box.run(['bootstrap']);
    const text = await box.run(['status']);
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toMatch(/platform\/dns +failed .*exit code 1: Error: simulated failure in platform\/dns/);
    expect(text.stdout).toMatch(/platform\/argocd +skipped .*needs platform\/dns, which failed/);
    const json = await box.run(['status', '--json']);
    const parsed = JSON.parse(json.stdout) as {
      complete: boolean;
      counts: Record<string, number>;
      units: { id: string }[];
    };
    expect(parsed).toMatchObject({ complete: false, counts: { failed: 1, skipped: 1, completed: 5 } });
    expect(parsed.units.map((u) => u.id)).toEqual(ALL);
    await box.control({});
    await box.run(['bootstrap', '--resume']);
    expect((await box.run(['status'])).exitCode).toBe(0);
  });
});

describe('safety', () => {
  it('refuses a second run while the first holds the lock, naming the holder', async () => {
    const box = await sandbox();
    await box.control({}, { sleep_ms: 600 });
    const first = box.start(['bootstrap']);
    await until(async () => (await readdir(box.root)).includes('.platctl-state.json'), 15_000, 'the first run');
    const second = await box.run(['bootstrap', '--unit', 'platform/ecr']);
    expect(second.exitCode).toBe(3);
    expect(second.stderr).toContain('another platctl run holds .platctl.lock');
    expect(second.stderr).toContain(`pid ${first.pid}`);
    expect(second.stderr).toContain('command: platctl bootstrap');
    expect(second.stderr).toMatch(/started: \d{4}-\d\d-\d\dT/);
    expect((await first).exitCode).toBe(0);
  });

  it('refuses to run from a linked git worktree', async () => {
    const box = await sandbox();
    const git = (...args: string[]) =>
      execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: box.root, env: box.env });
    await git('init', '-q');
    await git('add', '.');
    await git('commit', '-q', '-m', 'fixture');
    const worktree = join(box.root, '..', 'wt');
    await git('worktree', 'add', '-q', worktree);
    const result = await execa(
      'node',
      [join(box.env.PLATCTL_TERRAGRUNT!, '..', '..', '..', '..', 'bin', 'platctl.js'), 'bootstrap'],
      {
        cwd: worktree,
        env: box.env,
        extendEnv: false,
        reject: false,
      },
    );
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain('refusing to bootstrap from a git worktree');
    expect(result.stderr).toContain('when = destroy');
    // The main checkout is fine.
    expect((await box.run(['bootstrap', '--unit', 'platform/ecr'])).exitCode).toBe(0);
  });
});
