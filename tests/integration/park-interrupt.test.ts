/**
 * `platctl down` never waits forever and an interrupt never makes it more destructive: the built CLI against moto
 * (behind a recording proxy that can black-hole a call), a black-holed loopback endpoint, and a real Kubernetes API
 * server whose eviction subresource enforces a PodDisruptionBudget that refuses every eviction.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useAwsProxy } from '../helpers/aws-proxy.js';
import type { BlackHole } from '../helpers/black-hole.js';
import { startBlackHole } from '../helpers/black-hole.js';
import { useMoto } from '../helpers/moto.js';
import { useParkEnv } from '../helpers/park-env.js';
import { PARK_SIZES as SIZES, nodeGroupSizes, parkConfig, parkPdb } from '../helpers/park-fixture.js';
import { runCli } from '../helpers/run-cli.js';
import { PLATCTL, until } from './engine-helpers.js';

interface Journal {
  last: {
    status: string;
    stopped_because?: string;
    steps: Record<string, { status: string; reason?: string; detail?: string }>;
  };
}

/** A Ctrl-C must end platctl this fast, however long the wait it interrupts (generous for a loaded 2-core box). */
const PROMPT_MS = 15_000;

describe('down: bounded waits, and Ctrl-C stops the work', { timeout: 150_000 }, () => {
  const moto = useMoto();
  const proxy = useAwsProxy(moto);
  const park = useParkEnv(moto, { prefix: 'platctl-park-interrupt-', config: parkConfig(), proxy });
  let hole: BlackHole;

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...moto.env,
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    AWS_ENDPOINT_URL: proxy.endpoint,
    HOME: join(park.root, 'home'),
    KUBECONFIG: park.kube.kubeconfig(park.root),
    ...extra,
  });
  const configPath = (): string => join(park.root, '.platctl.yaml');
  const start = (args: string[], extra: Record<string, string> = {}) =>
    execa(process.execPath, [PLATCTL, ...args, '--config', configPath()], {
      cwd: park.root,
      env: env(extra),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
  const journal = (): Journal =>
    JSON.parse(readFileSync(join(park.root, '.platctl-park', 'platform.json'), 'utf8')) as Journal;

  /** Sends SIGINT and returns the result and how long the process took to end after it. */
  async function interrupt(child: ReturnType<typeof start>) {
    const sentAt = Date.now();
    child.kill('SIGINT');
    const result = await child;
    return { result, afterMs: Date.now() - sentAt, stdout: String(result.stdout), stderr: String(result.stderr) };
  }

  beforeEach(async () => {
    proxy.hang = undefined;
    hole = await startBlackHole();
  });

  afterEach(async () => {
    proxy.hang = undefined;
    await hole.close();
  });

  it('a PDB-blocked drain interrupted by SIGINT forces nothing, scales nothing, exits 130, and --resume finishes', async () => {
    // coredns never may be evicted, and the grace is long: the drain of group system waits on it.
    writeFileSync(configPath(), parkConfig().replace('drain_grace: 1s', 'drain_grace: 10m'));
    await park.kube.server.apply(parkPdb('kube-system', 'coredns', { app: 'coredns-1' }, 0));
    // Each refused by the server (429): the budget allows no disruption.
    const evictions = (): number =>
      park.kube
        .requests()
        .filter((e) => e.objectRef?.subresource === 'eviction' && e.objectRef.name === 'coredns-1')
        .filter((e) => e.responseStatus?.code === 429).length;
    const child = start(['down', '--yes']);
    await until(() => evictions() >= 2, 60_000, 'the drain to be refused twice by the PDB');
    const seen = evictions();
    const { result, afterMs, stdout } = await interrupt(child);

    expect(result.exitCode).toBe(130);
    expect(afterMs).toBeLessThan(PROMPT_MS);
    // No eviction after the interrupt, no force, no scaling, nothing terminated.
    expect(evictions()).toBe(seen);
    expect(park.kube.writes().filter((w) => w.startsWith('DELETE') && w.includes('/pods/'))).toEqual([]);
    expect(proxy.calls.filter((c) => c.path.endsWith('/update-config'))).toEqual([]);
    expect(proxy.calls.filter((c) => c.action === 'TerminateInstances')).toEqual([]);
    expect(await nodeGroupSizes(moto.endpoint)).toEqual(SIZES);
    expect(stdout).toContain('interrupted (SIGINT) draining node group system');
    expect(stdout).toContain('nothing was forced and the group was not scaled');
    expect(stdout).toContain('Resume with: platctl down --resume');
    const stopped = journal().last;
    expect(stopped.status).toBe('failed');
    expect(stopped.steps['node-groups']).toMatchObject({ status: 'failed', reason: 'interrupted' });
    expect(stopped.stopped_because).toContain('draining node group system');

    // The operator decides: a short grace this time, and the resume goes on from the drain.
    writeFileSync(configPath(), parkConfig());
    const resumed = await start(['down', '--resume', '--yes']);
    expect(String(resumed.stderr)).toBe('');
    expect(resumed.exitCode).toBe(0);
    expect(String(resumed.stdout)).toMatch(/- karpenter +done in an earlier run/);
    expect(String(resumed.stdout)).toContain('forced after 1s: kube-system/coredns-1');
    expect(journal().last.status).toBe('completed');
    expect(await nodeGroupSizes(moto.endpoint)).toEqual({
      system: { minSize: 0, maxSize: 4, desiredSize: 0 },
      workers: { minSize: 0, maxSize: 6, desiredSize: 0 },
    });
  });

  it('a black-holed EKS endpoint fails the preflight within the request timeout, naming the call; nothing changed', async () => {
    const startedAt = Date.now();
    const run = await runCli(['down', '--yes', '--config', configPath()], {
      cwd: park.root,
      env: env({ AWS_ENDPOINT_URL_EKS: hole.endpoint, PLATCTL_REQUEST_TIMEOUT: '1' }),
    });
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('platform: refused: preflight: no answer from EKS');
    expect(run.stdout).toContain('cluster platform');
    expect(hole.requests.length).toBeGreaterThan(0);
    expect(Date.now() - startedAt).toBeLessThan(60_000);
    expect(proxy.writes()).toEqual([]);
    expect(existsSync(join(park.root, '.platctl.lock'))).toBe(false);
  });

  it('SIGINT during a preflight stuck on a black-holed EKS endpoint exits 130 at once and says to run again', async () => {
    const child = start(['down', '--yes'], { AWS_ENDPOINT_URL_EKS: hole.endpoint });
    await until(() => hole.requests.length > 0 || child.exitCode !== null, 60_000, 'a request to the black hole');
    expect(hole.requests.length).toBeGreaterThan(0);
    const { result, afterMs, stdout } = await interrupt(child);
    expect(result.exitCode).toBe(130);
    expect(afterMs).toBeLessThan(PROMPT_MS);
    expect(stdout).toContain('platform: down interrupted (SIGINT) during the preflight: nothing was changed');
    expect(stdout).toContain(`Nothing was changed; run it again: platctl down --config ${configPath()} --yes`);
    expect(proxy.writes()).toEqual([]);
    expect(existsSync(join(park.root, '.platctl.lock'))).toBe(false);
  });

  it('a node-group scaling call EKS never answers fails the step within the request timeout, naming the call', async () => {
    proxy.hang = (call) => call.path.endsWith('/update-config');
    const run = await runCli(['down', '--yes', '--config', configPath()], {
      cwd: park.root,
      env: env({ PLATCTL_REQUEST_TIMEOUT: '1' }),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('platform: down failed at step node-groups');
    expect(run.stdout).toContain('scaling node group system of cluster platform');
    expect(run.stdout).toContain('no answer from EKS');
    expect(run.stdout).toContain('Resume with: platctl down --resume');
    expect(journal().last.steps['node-groups']).toMatchObject({ status: 'failed', reason: 'timeout' });
  });

  it('SIGINT while a node-group scaling call hangs exits 130 promptly; the journal says where it stopped', async () => {
    proxy.hang = (call) => call.path.endsWith('/update-config');
    const child = start(['down', '--yes']);
    await until(
      () => proxy.calls.some((c) => c.path.endsWith('/update-config')) || child.exitCode !== null,
      90_000,
      'the scaling call',
    );
    const { result, afterMs, stdout } = await interrupt(child);
    expect(result.exitCode).toBe(130);
    expect(afterMs).toBeLessThan(PROMPT_MS);
    expect(stdout).toContain('interrupted (SIGINT) scaling node group system');
    expect(stdout).toContain('Resume with: platctl down --resume');
    expect(proxy.calls.filter((c) => c.action === 'TerminateInstances')).toEqual([]);
    const stopped = journal().last;
    expect(stopped.steps['node-groups']).toMatchObject({ status: 'failed', reason: 'interrupted' });
    expect(existsSync(join(park.root, '.platctl.lock'))).toBe(false);
  });

  it('down --yes | head -1: the closed pipe is not a bug; down finishes, releases its lock, records its journal', async () => {
    const child = start(['down', '--yes']);
    // Read one chunk, then close the pipe as `head -1` does: every later write of platctl fails with EPIPE.
    const first = await new Promise<string>((resolve) =>
      child.stdout?.once('data', (chunk: Buffer) => resolve(String(chunk))),
    );
    child.stdout?.destroy();
    const result = await child;
    expect(first).toContain('down platform');
    expect(String(result.stderr)).toBe('');
    expect(result.exitCode).toBe(0);
    expect(existsSync(join(park.root, '.platctl.lock'))).toBe(false);
    expect(journal().last.status).toBe('completed');
    expect(await nodeGroupSizes(moto.endpoint)).toEqual({
      system: { minSize: 0, maxSize: 4, desiredSize: 0 },
      workers: { minSize: 0, maxSize: 6, desiredSize: 0 },
    });
  });
});
