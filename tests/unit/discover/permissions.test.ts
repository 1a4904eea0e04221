/**
 * Files and directories discovery cannot read are errors that say "permission denied" and name the path, never an
 * empty unit or a "has no terragrunt.hcl".
 *
 * Root reads everything (CAP_DAC_OVERRIDE), so a chmod 000 proves nothing when the tests run as root, as they do in
 * CI containers. Then this file runs itself again in a child process without CAP_DAC_OVERRIDE and
 * CAP_DAC_READ_SEARCH (`setpriv`, still uid 0, so it reads the repository as before): the same tests, against real
 * EACCES. Without `setpriv` the privileged run skips them and says why.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { discover, isUsable } from '../../../discover/index.js';
import { repoRoot } from '../../e2e/helpers/tools.js';
import { runCli } from '../../helpers/run-cli.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) {
    restoreModes(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

const locked: string[] = [];
function lock(path: string): void {
  chmodSync(path, 0o000);
  locked.push(path);
}
function restoreModes(root: string): void {
  for (const path of locked.filter((p) => p.startsWith(root))) chmodSync(path, 0o755);
}

function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'platctl-perm-'));
  temps.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** True when a mode-000 file can still be read: root, or a process with CAP_DAC_OVERRIDE. */
function bypassesPermissions(): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'platctl-perm-probe-'));
  const file = join(dir, 'probe');
  writeFileSync(file, 'x');
  chmodSync(file, 0o000);
  try {
    readFileSync(file);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const privileged = bypassesPermissions();
const config = configSchema.parse({ version: 1, environments: { dev: { dir: 'live/dev' } } });

describe.skipIf(privileged)('unreadable files and directories', () => {
  it('an unreadable terragrunt.hcl is a read-error naming the file, not an empty unit', async () => {
    const root = repo({
      'live/dev/vpc/terragrunt.hcl': '',
      'live/dev/app/terragrunt.hcl': 'dependency "vpc" {\n  config_path = "../vpc"\n}\n',
    });
    lock(join(root, 'live/dev/app/terragrunt.hcl'));
    const result = await discover({ root, config, env: {}, cacheDir: false });
    const problem = result.problems.find((p) => p.kind === 'read-error');
    expect(problem).toMatchObject({ severity: 'error', unit: 'dev/app' });
    expect(problem?.message).toContain('permission denied');
    expect(problem?.message).toContain(join(root, 'live/dev/app/terragrunt.hcl'));
    expect(problem?.location?.file).toBe(join(root, 'live/dev/app/terragrunt.hcl'));
    expect(isUsable(result)).toBe(false);
  });

  it('an unreadable directory inside an environment is a read-error: its units would be missed', async () => {
    const root = repo({ 'live/dev/vpc/terragrunt.hcl': '', 'live/dev/secret/db/terragrunt.hcl': '' });
    lock(join(root, 'live/dev/secret'));
    const result = await discover({ root, config, env: {}, cacheDir: false });
    const problem = result.problems.find((p) => p.kind === 'read-error');
    expect(problem?.severity).toBe('error');
    expect(problem?.message).toMatch(/cannot read directory live\/dev\/secret: permission denied/);
    expect(isUsable(result)).toBe(false);
  });

  it('a dependency on an unreadable directory says permission denied, not "has no terragrunt.hcl"', async () => {
    const root = repo({
      'mgmt/state/terragrunt.hcl': '',
      'live/dev/app/terragrunt.hcl': '\ndependency "state" {\n  config_path = "../../../mgmt/state"\n}\n',
    });
    lock(join(root, 'mgmt'));
    const result = await discover({ root, config, env: {}, cacheDir: false });
    const problem = result.problems.find((p) => p.kind === 'read-error');
    expect(problem).toMatchObject({ severity: 'error', unit: 'dev/app' });
    expect(problem?.message).toBe('dependency "state" points at mgmt/state, which cannot be read: permission denied');
    expect(problem?.location?.line).toBe(3);
    expect(result.problems.some((p) => p.kind === 'dangling-path')).toBe(false);
  });

  it('an unreadable include is a read-error naming the included file', async () => {
    const root = repo({
      'live/root.hcl': 'dependencies {\n  paths = ["../vpc"]\n}\n',
      'live/dev/vpc/terragrunt.hcl': '',
      'live/dev/app/terragrunt.hcl': 'include "root" {\n  path = find_in_parent_folders("root.hcl")\n}\n',
    });
    lock(join(root, 'live/root.hcl'));
    const result = await discover({ root, config, env: {}, cacheDir: false });
    const problem = result.problems.find((p) => p.kind === 'read-error');
    expect(problem?.message).toBe(`cannot read ${join(root, 'live/root.hcl')}: permission denied`);
    expect(result.problems.filter((p) => p.severity === 'error')).toHaveLength(1);
  });

  it('platctl graph exits 2 and prints the path and "permission denied"', async () => {
    const root = repo({
      '.platctl.yaml': 'version: 1\nenvironments:\n  dev:\n    dir: live/dev\n',
      'live/dev/app/terragrunt.hcl': '',
    });
    lock(join(root, 'live/dev/app/terragrunt.hcl'));
    const run = await runCli(['graph'], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${relative(root, join(root, 'live/dev/app/terragrunt.hcl'))}`);
    expect(run.stderr).toContain('permission denied');
  });
});

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
const DROP = '-dac_override,-dac_read_search';

describe.runIf(privileged && process.env.PLATCTL_PERMISSION_CHILD !== '1')('unreadable files, as root', () => {
  it.skipIf(!SETPRIV)(
    'passes in a child process without CAP_DAC_OVERRIDE (skipped without setpriv: root would read everything)',
    async () => {
      const child = await execa(
        SETPRIV as string,
        [
          `--bounding-set=${DROP}`,
          `--inh-caps=${DROP}`,
          process.execPath,
          join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'),
          'run',
          relative(repoRoot, new URL(import.meta.url).pathname),
          '--reporter=json',
        ],
        { cwd: repoRoot, env: { PLATCTL_PERMISSION_CHILD: '1' }, reject: false, timeout: 180_000 },
      );
      const report = JSON.parse(child.stdout) as {
        numPassedTests: number;
        numFailedTests: number;
        testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
      };
      const failures = report.testResults
        .flatMap((file) => file.assertionResults)
        .filter((test) => test.status === 'failed')
        .map((test) => `${test.fullName}: ${test.failureMessages[0]?.split('\n')[0] ?? ''}`);
      expect(failures).toEqual([]);
      // Every test of the unprivileged block ran: none was skipped because the child could still read everything.
      expect(report.numPassedTests, child.stderr).toBe(5);
    },
    200_000,
  );
});
