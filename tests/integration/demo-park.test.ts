/**
 * `npm run demo:park` stays green: the built demo driver runs down and up against moto and a real API server. With
 * `--keep` it leaves both running: the environment it prints works for platctl by hand, and SIGTERM stops them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, expect, it } from 'vitest';
import { PLATCTL, REPO_ROOT, until } from './engine-helpers.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The `export NAME=value` lines the demo printed, unquoted as a POSIX shell would. */
function exported(output: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of output.matchAll(/^ {2}export ([A-Z_][A-Z0-9_]*)=(.*)$/gm)) {
    const raw = match[2] ?? '';
    env[match[1] ?? ''] = raw.startsWith("'") ? raw.slice(1, -1).replaceAll("'\\''", "'") : raw;
  }
  return env;
}

it(
  'the park demo parks and brings the environment back; with --keep its printed environment works until SIGTERM',
  { timeout: 300_000 },
  async () => {
    const demoDir = mkdtempSync(join(tmpdir(), 'platctl-demo-park-'));
    dir = demoDir;
    const demo = execa(process.execPath, [join(REPO_ROOT, 'dist', 'scripts', 'demo-park.js'), '--keep'], {
      env: { PLATCTL_DEMO_DIR: join(demoDir, 'park'), NO_COLOR: '1' },
      reject: false,
      all: true,
      timeout: 280_000,
      // The demo stops etcd and kube-apiserver on SIGTERM, which takes seconds on a loaded machine: not execa's
      // default 5 s before SIGKILL.
      forceKillAfterDelay: 60_000,
    });
    let output = '';
    demo.all?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const done = demo.then((result) => result);
    let exited = false;
    void done.then(() => (exited = true));
    await until(() => exited || /^Ctrl-C here \(or kill \d+\)/m.test(output), 240_000, 'the --keep instructions');
    expect(output).toContain('platform: dry run, nothing was changed');
    expect(output).toMatch(/^\d\d:\d\d:\d\d platform: parked, and verified through AWS$/m);
    expect(output).toContain('platform: PARKED since');
    expect(output).toMatch(/^\d\d:\d\d:\d\d platform: up and ready$/m);
    expect(output).toContain('platform: not parked (last parked');
    expect(output).not.toContain('NodeVersionSupportWarning');

    const env = exported(output);
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['AWS_ENDPOINT_URL', 'KUBECONFIG']));
    const config = /npx platctl status --config (\S+)/.exec(output)?.[1];
    expect(config).toBe(join(demoDir, 'park', '.platctl.yaml'));
    const byHand = { ...env, PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: demoDir, NO_COLOR: '1' };
    // As typed in another shell: the built platctl, with only what the demo said to export (and PATH, HOME).
    const byHandRun = (args: string[]) =>
      execa(process.execPath, [PLATCTL, ...args], { cwd: demoDir, env: byHand, extendEnv: false, reject: false });
    const status = await byHandRun(['status', '--config', config ?? '']);
    expect(status.stdout).toContain('platform: not parked (last parked');
    const validate = await byHandRun(['validate', '--env', 'platform', '--json', '--config', config ?? '']);
    const report = JSON.parse(validate.stdout) as { checks: { id: string; status: string }[] };
    expect(report.checks.find((check) => check.id === 'iam/credentials:platform')?.status).toBe('pass');

    demo.kill('SIGTERM');
    const result = await done;
    expect(result.all).toContain('SIGTERM: stopping');
    expect(result.all).toContain('stopped moto and the Kubernetes API');
    expect(result.exitCode).toBe(0);
  },
);
