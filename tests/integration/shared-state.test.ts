/**
 * `state.backend: s3` end to end: the built CLI with the fake terragrunt, against moto over real HTTP. Two sandboxes
 * are two clones of the repository (another directory, another HOME) sharing one bucket.
 */
import { appendFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { lockKey } from '../../engine/env-lock.js';
import type { ObjectStore } from '../../engine/object-store.js';
import { loadRemoteLatest } from '../../engine/shared-state.js';
import type { RunState } from '../../engine/state.js';
import { startAwsProxy } from '../helpers/aws-proxy.js';
import { useMoto } from '../helpers/moto.js';
import { lockdownBlock } from '../helpers/phases-config.js';
import { createBucket, lockHolder as holderOf, lockIsStale, stateStore, useS3State } from '../helpers/state-bucket.js';
import type { Sandbox } from './engine-helpers.js';
import { sandbox, until } from './engine-helpers.js';

const moto = useMoto();
const BUCKET = 'platctl-shared';

beforeEach(async () => {
  await createBucket(moto, BUCKET);
});

function bucket(): ObjectStore {
  return stateStore(moto, BUCKET);
}

/** A clone of the fixture repository using the shared backend (`heartbeat` short, so staleness takes a second). */
async function clone(heartbeat = '300ms', backend: 's3' | 'local' = 's3'): Promise<Sandbox> {
  const box = await sandbox();
  if (backend === 's3') await useS3(box, heartbeat);
  return box;
}

async function useS3(box: Sandbox, heartbeat = '300ms'): Promise<void> {
  await useS3State(join(box.root, '.platctl.yaml'), BUCKET, heartbeat);
}

function as(user: string, endpoint = moto.endpoint): Record<string, string> {
  return { ...moto.env, AWS_ENDPOINT_URL: endpoint, USER: user };
}

async function remoteState(): Promise<RunState> {
  const latest = await loadRemoteLatest(bucket());
  if (!latest.ok || latest.value.type !== 'ok') throw new Error(`no remote state: ${JSON.stringify(latest)}`);
  return latest.value.state;
}

async function remoteRunExists(): Promise<boolean> {
  const latest = await loadRemoteLatest(bucket());
  return latest.ok && latest.value.type === 'ok';
}

async function lockHolder(): Promise<string | undefined> {
  return (await holderOf(bucket(), 'platform'))?.run_id;
}

describe('state.backend s3', () => {
  it('status, resume, history and logs from a second clone with another HOME', async () => {
    const one = await clone();
    const two = await clone();
    await one.control({ 'platform/eks': { fail: true } });
    const first = await one.run(['bootstrap'], as('alice'));
    expect(first.exitCode, first.stderr).toBe(1);
    const runId = (await one.state()).run_id;
    // The lock is released; state, summary, pointer and each ended unit's log are in the bucket.
    expect(await bucket().get(lockKey('platform'))).toEqual({ ok: true, value: undefined });
    const logs = await bucket().list(`runs/${runId}/logs/`);
    expect(logs.ok && logs.value.objects.some((name) => name.endsWith('platform__eks.log'))).toBe(true);
    const eksLog = await bucket().get(
      `runs/${runId}/logs/${logs.ok ? logs.value.objects.find((n) => n.endsWith('platform__eks.log')) : ''}`,
    );
    expect(eksLog.ok && eksLog.value?.body).toMatch(/platform\/eks/);

    // The second clone sees the failed run, though it has no local state.
    const status = await two.run(['status', '--json'], as('bob'));
    expect(status.exitCode, status.stderr).toBe(1);
    const shown = JSON.parse(status.stdout) as { run: { run_id: string }; units: { id: string; status: string }[] };
    expect(shown.run.run_id).toBe(runId);
    expect(shown.units.find((u) => u.id === 'platform/eks')?.status).toBe('failed');

    // ... and resumes it: only what did not complete runs there.
    const completedInOne = Object.entries((await one.state()).units)
      .filter(([, u]) => u.status === 'completed' && !u.kept)
      .map(([id]) => id);
    const resumed = await two.run(['bootstrap', '--resume'], as('bob'));
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const ranInTwo = (await two.calls()).map((c) => c.unit);
    expect(ranInTwo).toContain('platform/eks');
    expect(ranInTwo.filter((unit) => completedInOne.includes(unit))).toEqual([]);
    const shared = await remoteState();
    expect(shared).toMatchObject({ run_id: runId, status: 'completed', resumes: 1 });

    // The first clone's status now comes from the bucket, not its stale local file.
    const back = await one.run(['status'], as('alice'));
    expect(back.exitCode, back.stdout + back.stderr).toBe(0);
    const old = await one.run(['status', '--run', runId, '--json'], as('alice'));
    expect(old.exitCode).toBe(0);
    const missing = await one.run(['status', '--run', '20200101T000000Z-000000'], as('alice'));
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/no run 20200101T000000Z-000000 in s3:\/\/platctl-shared\/platctl\/runs\//);

    const history = await one.run(['history', '--json'], as('alice'));
    expect(history.exitCode, history.stderr).toBe(0);
    const runs = (JSON.parse(history.stdout) as { runs: Record<string, unknown>[] }).runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ run_id: runId, command: 'bootstrap', status: 'completed', resumes: 1 });
    expect(runs[0]?.by).toMatchObject({ user: 'bob' });
    const text = await one.run(['history', '--env', 'platform', '--limit', '5'], as('alice'));
    expect(text.stdout).toMatch(
      new RegExp(`${runId}\\s+bootstrap\\s+bob@\\S+\\s+\\S+\\s+\\S+\\s+completed \\(resumed 1x\\)`),
    );
  }, 240_000);

  it('a damaged summary.json: history and --resume rebuild it from a whole state.json, or name what is damaged', async () => {
    const one = await clone();
    const two = await clone();
    await one.control({ 'platform/eks': { fail: true } });
    // No USER (a cron job): the run is by the OS account, never "unknown".
    const failed = await one.run(['bootstrap'], moto.env);
    expect(failed.exitCode, failed.stderr).toBe(1);
    const runId = (await one.state()).run_id;
    const me = userInfo().username;
    const listed = await one.run(['history'], moto.env);
    expect(listed.stdout).toMatch(new RegExp(`${runId}\\s+bootstrap\\s+${me}@\\S+`));
    expect(listed.stdout).not.toMatch(/unknown@/);

    const summaryKey = `runs/${runId}/summary.json`;
    const broken = await bucket().put(summaryKey, '{"version": 1, "run_id": ', { always: true });
    expect(broken.ok).toBe(true);
    const history = await two.run(['history'], as('bob'));
    expect(history.exitCode, history.stderr).toBe(0);
    expect(history.stdout).not.toMatch(/no runs recorded/);
    expect(history.stdout).toMatch(new RegExp(`${runId}\\s+bootstrap\\s+.*failed\\s+platform`));
    expect(history.stderr).toContain(
      `warning: run ${runId}: s3://platctl-shared/platctl/${summaryKey} is not a platctl run summary (damaged); ` +
        'rebuilt from its state.json',
    );
    await two.control({});
    const resumed = await two.run(['bootstrap', '--resume'], as('bob'));
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(await remoteState()).toMatchObject({ run_id: runId, status: 'completed', resumes: 1 });

    // Both objects damaged: named, with what to do, and never "no runs recorded".
    await bucket().put(summaryKey, 'not json', { always: true });
    await bucket().put(`runs/${runId}/state.json`, '{}', { always: true });
    const lost = await two.run(['history'], as('bob'));
    expect(lost.exitCode).toBe(1);
    expect(lost.stdout).not.toMatch(/no runs recorded/);
    expect(lost.stderr).toMatch(new RegExp(`run ${runId} cannot be read: s3://platctl-shared/platctl/${summaryKey}`));
    expect(lost.stderr).toMatch(/hint: .*platctl state push from there restores it; otherwise delete s3:\/\//);
  }, 240_000);

  it('lockdown and unlock apply logs are uploaded beside the unit logs', async () => {
    const box = await clone();
    await appendFile(join(box.root, '.platctl.yaml'), lockdownBlock());
    const bootstrap = await box.run(['bootstrap'], as('alice'));
    expect(bootstrap.exitCode, bootstrap.stderr).toBe(0);
    const logsOf = async (runId: string): Promise<string[]> => {
      const listed = await bucket().list(`runs/${runId}/logs/`);
      if (!listed.ok) throw new Error(listed.message);
      return listed.value.objects;
    };
    const built = (await box.state()).run_id;
    expect(await logsOf(built)).toEqual(
      expect.arrayContaining(['lockdown_0_split-dns.log', 'lockdown_1_private-endpoint.log']),
    );
    const lockLog = await bucket().get(`runs/${built}/logs/lockdown_1_private-endpoint.log`);
    expect(lockLog.ok && lockLog.value?.body).toMatch(/-var=public=false/);

    const teardown = await box.run(['teardown', '--yes'], as('alice'));
    expect(teardown.exitCode, teardown.stderr).toBe(0);
    const destroyed = (await box.state()).run_id;
    expect(await logsOf(destroyed)).toEqual(
      expect.arrayContaining(['unlock_0_private-endpoint.log', 'unlock_1_split-dns.log']),
    );
    const unlockLog = await bucket().get(`runs/${destroyed}/logs/unlock_0_private-endpoint.log`);
    expect(unlockLog.ok && unlockLog.value?.body).toMatch(/-var=public=true/);
  }, 240_000);

  it('the first s3 run of a repository uploads its local state; state push/pull move it by hand', async () => {
    const box = await clone('300ms', 'local');
    await box.control({ 'platform/eks': { fail: true } });
    expect((await box.run(['bootstrap'])).exitCode).toBe(1);
    const runId = (await box.state()).run_id;
    await useS3(box);
    const other = await clone();
    expect((await other.run(['status'], as('bob'))).exitCode).toBe(1);

    await box.control({});
    const resumed = await box.run(['bootstrap', '--resume'], as('alice'));
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout + resumed.stderr).toMatch(
      new RegExp(`uploaded the local state of run ${runId} to s3://platctl-shared/platctl/`),
    );
    expect(await remoteState()).toMatchObject({ run_id: runId, status: 'completed', resumes: 1 });

    const pulled = await other.run(['state', 'pull'], as('bob'));
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    expect((await other.state()).run_id).toBe(runId);
    const pushed = await other.run(['state', 'push'], as('bob'));
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect(pushed.stdout).toMatch(/it is the latest bootstrap/);
  }, 240_000);

  it('S3 closed mid-run: no unit starts after the failed renewal, exit 3, nothing lost locally', async () => {
    const proxy = await startAwsProxy(moto.endpoint);
    const box = await clone('300ms');
    // Long enough that the fence (a 300 ms heartbeat) always lands while the first unit still runs.
    await box.control({}, { sleep_ms: 8000 });
    const child = box.start(['bootstrap', '--parallelism', '1'], as('alice', proxy.endpoint));
    await until(async () => (await box.calls()).length === 1, 30_000, 'the first unit');
    await proxy.close();
    const result = await child;
    expect(result.exitCode, String(result.stderr)).toBe(3);
    expect(String(result.stderr)).toMatch(/refused: cannot renew the lock of environment platform: cannot reach S3/);
    // The unit running at the cut finished; none started after it.
    const calls = await box.calls();
    expect(calls).toHaveLength(1);
    const state = await box.state();
    expect(state.status).toBe('interrupted');
    expect(state.stopped_because).toMatch(/^cannot renew the lock of environment platform/);
    expect(state.units[calls[0]!.unit]?.status).toBe('completed');
    const pending = Object.values(state.units).filter((u) => u.status === 'pending' && !u.kept);
    expect(pending.length).toBe(
      Object.keys(state.units).length - 1 - Object.values(state.units).filter((u) => u.kept).length,
    );
  }, 240_000);

  it('kill -9 of the holder: refused naming it, stale after 3 heartbeats, --break-lock takes over', async () => {
    const one = await clone('300ms');
    const two = await clone('300ms');
    await one.control({}, { sleep_ms: 1000 });
    const child = one.start(['bootstrap', '--parallelism', '1'], as('alice'));
    await until(async () => (await one.calls()).length === 1 && (await lockHolder()) !== undefined, 30_000, 'the lock');
    child.kill('SIGKILL');
    await child;
    const runId = await lockHolder();

    const held = await two.run(['bootstrap', '--resume'], as('bob'));
    expect(held.exitCode).toBe(3);
    expect(held.stderr).toMatch(/environment platform is locked by another platctl run/);
    expect(held.stderr).toContain(`run ${runId}: bootstrap (platctl bootstrap --parallelism 1)`);
    expect(held.stderr).toMatch(/by alice@\S+, pid \d+, started /);
    expect(held.stderr).toMatch(/last heartbeat \d+ s ago/);

    // A new run refused for the lock says nothing about replacing the killed run's state: it replaces nothing.
    const fresh = await two.run(['bootstrap'], as('bob'));
    expect(fresh.exitCode).toBe(3);
    expect(fresh.stderr).toMatch(/environment platform is locked by another platctl run/);
    expect(fresh.stdout + fresh.stderr).not.toMatch(/replaces its state/);

    await until(() => lockIsStale(bucket(), 'platform'), 10_000, 'the lock to go stale');
    const stale = await two.run(['bootstrap', '--resume'], as('bob'));
    expect(stale.exitCode).toBe(3);
    expect(stale.stderr).toMatch(/heartbeat stopped \d+ s ago .* run again with --break-lock/);

    await two.control({});
    const broke = await two.run(['bootstrap', '--resume', '--break-lock'], as('bob'));
    expect(broke.exitCode, broke.stderr).toBe(0);
    expect(broke.stdout + broke.stderr).toMatch(
      new RegExp(`breaking the stale lock of environment platform: run ${runId} \\(bootstrap\\) by alice@`),
    );
    expect(await remoteState()).toMatchObject({ run_id: runId, status: 'completed', resumes: 1 });
    expect(await lockHolder()).toBeUndefined();
  }, 240_000);

  it('a runner whose clock is 120 s fast does not break a live lock; one 120 s slow breaks a dead one', async () => {
    const one = await clone('1s');
    const two = await clone('1s');
    const skewed = (ms: number): Record<string, string> => ({
      ...as('bob'),
      NODE_OPTIONS: `--import=${pathToFileURL(join(import.meta.dirname, '..', 'fixtures', 'engine', 'skew-clock.mjs')).href}`,
      PLATCTL_TEST_CLOCK_SKEW_MS: String(ms),
    });
    await one.control({}, { sleep_ms: 1500 });
    const child = one.start(['bootstrap', '--parallelism', '1'], as('alice'));
    await until(async () => (await lockHolder()) !== undefined, 30_000, 'the lock');
    const runId = await lockHolder();
    // Its heartbeat_at reads 120 s old to the fast runner: still live by the bucket's clock.
    const fast = await two.run(['bootstrap', '--break-lock'], skewed(120_000));
    expect(fast.exitCode, fast.stdout + fast.stderr).toBe(3);
    expect(fast.stderr).toMatch(/environment platform is locked by another platctl run/);
    expect(fast.stdout + fast.stderr).not.toMatch(/breaking the stale lock/);
    expect(await two.calls()).toEqual([]);
    child.kill('SIGKILL');
    await child;
    // Dead now; its heartbeat reads 120 s in the future to the slow runner, and still goes stale.
    await until(() => lockIsStale(bucket(), 'platform'), 15_000, 'the lock to go stale');
    await two.control({});
    const slow = await two.run(['bootstrap', '--resume', '--break-lock'], skewed(-120_000));
    expect(slow.exitCode, slow.stdout + slow.stderr).toBe(0);
    expect(slow.stdout + slow.stderr).toMatch(
      new RegExp(`breaking the stale lock of environment platform: run ${runId}`),
    );
  }, 240_000);

  it('a holder that was only paused and comes back after the takeover is fenced and writes nothing', async () => {
    const one = await clone('300ms');
    const two = await clone('300ms');
    await one.control({}, { sleep_ms: 800 });
    const child = one.start(['bootstrap', '--parallelism', '1'], as('alice'));
    // Stopped once its state is in the bucket (uploads run beside the walk): the other clone resumes that run.
    await until(
      async () => (await one.calls()).length === 1 && (await lockHolder()) !== undefined && (await remoteRunExists()),
      30_000,
      'the lock and the first upload',
    );
    child.kill('SIGSTOP');
    try {
      await until(() => lockIsStale(bucket(), 'platform'), 10_000, 'the lock to go stale');
      await two.control({});
      const broke = await two.run(['bootstrap', '--resume', '--break-lock'], as('bob'));
      expect(broke.exitCode, broke.stderr).toBe(0);
    } finally {
      child.kill('SIGCONT');
    }
    const after = await remoteState();
    const callsBefore = (await one.calls()).length;
    const result = await child;
    expect(result.exitCode, String(result.stderr)).toBe(3);
    expect(String(result.stderr)).toMatch(/lock of environment platform .* was taken over by another run/);
    // It started nothing after it came back, and the bucket still holds the new holder's state.
    expect((await one.calls()).length).toBe(callsBefore);
    expect(await remoteState()).toEqual(after);
    expect(after).toMatchObject({ status: 'completed', resumes: 1 });
  }, 240_000);
});
