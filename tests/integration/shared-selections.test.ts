/**
 * Runs of different environment selections on one shared backend (docs/state.md): `--resume` picks the run of its
 * own selection, and two real platctl processes with the overlapping selections {a,b} and {b,c}, started at the same
 * moment again and again, never deadlock and never both run b. The built CLI with the fake terragrunt on the
 * three-environment fixture, against moto over real HTTP, one request at a time (`serialized`: moto's conditional
 * writes are not atomic under its threaded server; S3's are).
 */
import { describe, expect, it } from 'vitest';
import { useMoto } from '../helpers/moto.js';
import { createBucket, stateStore, useS3State } from '../helpers/state-bucket.js';
import type { Call, CliResult, Sandbox } from './engine-helpers.js';
import { printedResumeArgs, sandbox } from './engine-helpers.js';
import { join } from 'node:path';
import { loadRemoteRun } from '../../engine/shared-state.js';

const moto = useMoto({ serialized: true });
const BUCKET = 'platctl-selections';

async function clone(): Promise<Sandbox> {
  const box = await sandbox('three');
  await useS3State(join(box.root, '.platctl.yaml'), BUCKET);
  return box;
}

function as(user: string): Record<string, string> {
  return { ...moto.env, USER: user };
}

async function remoteStatus(runId: string): Promise<string | undefined> {
  const run = await loadRemoteRun(stateStore(moto, BUCKET), runId);
  return run.ok && run.value.type === 'ok' ? run.value.state.status : undefined;
}

describe('selections on the shared backend', () => {
  it('--resume continues the newest run of its own --env selection, and says which', async () => {
    await createBucket(moto, BUCKET);
    const one = await clone();
    await one.control({ 'a/app': { fail: true }, 'b/app': { fail: true } });
    const first = await one.run(['bootstrap', '--env', 'a'], as('alice'));
    expect(first.exitCode, first.stderr).toBe(1);
    expect(printedResumeArgs(first.stdout)).toEqual(['bootstrap', '--resume', '--env', 'a']);
    const stateA = await one.state();
    const runA = stateA.run_id;
    const second = await one.run(['bootstrap', '--env', 'b'], as('alice'));
    expect(second.exitCode, second.stderr).toBe(1);
    const stateB = await one.state();
    const runB = stateB.run_id;
    // b's run is the newer one. (Not by id: ids carry the start to the second, and both may start in one second.)
    expect(stateB.started_at > stateA.started_at).toBe(true);

    // Another checkout, another person: the newest run is b's, but --env a resumes a's.
    const two = await clone();
    const resumed = await two.run(['bootstrap', '--resume', '--env', 'a'], as('bob'));
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(
      new RegExp(
        `resuming bootstrap ${runA}: .*\\n  resuming run ${runA}: bootstrap of a \\(--env a\\) by alice@\\S+, ` +
          `started \\S+, failed \\(1 newer run is of other environments\\)`,
      ),
    );
    expect((await two.calls()).map((c) => c.unit)).toEqual(['a/app']);
    expect(await remoteStatus(runA)).toBe('completed');
    expect(await remoteStatus(runB)).toBe('failed');

    // Without --env: no run of the default selection; it says so and how to find one, and runs nothing.
    const none = await two.run(['bootstrap', '--resume'], as('bob'));
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain(
      `no run started without --env in s3://${BUCKET}/platctl/runs/ (among the 50 newest) to resume`,
    );
    expect(none.stderr).toMatch(
      new RegExp(`run ${runB}: bootstrap of b \\(--env b\\) by alice@\\S+, started \\S+, failed`),
    );
    expect(none.stderr).toMatch(/hint: platctl history lists the runs; resume one with the --env it was started with/);
    const unknown = await two.run(['bootstrap', '--resume', '--env', 'c'], as('bob'));
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(
      /no run started with --env c .*\n[\s\S]*hint: platctl history --env c lists the runs/,
    );
    expect((await two.calls()).map((c) => c.unit)).toEqual(['a/app']);

    const b = await two.run(['bootstrap', '--resume', '--env', 'b'], as('bob'));
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.stdout).toContain(`resuming run ${runB}: bootstrap of b (--env b) by alice@`);
    expect(await remoteStatus(runB)).toBe('completed');
  }, 240_000);

  it('{a,b} and {b,c} started at once, 12 times: never a deadlock, never both in b, the loser refused naming the holder', async () => {
    await createBucket(moto, BUCKET);
    const left = await clone();
    const right = await clone();
    const SLEEP = 250;
    const ROUNDS = 12;
    await left.control({}, { sleep_ms: SLEEP });
    await right.control({}, { sleep_ms: SLEEP });
    const LEFT = ['bootstrap', '--env', 'a', '--env', 'b'];
    const RIGHT = ['bootstrap', '--env', 'b', '--env', 'c'];
    // Each round ends in a few seconds; the bound only tells a deadlock (which would never end) from a slow machine.
    const bound = 90_000;
    let refusals = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const before = [(await left.calls()).length, (await right.calls()).length] as const;
      const timed = async (box: Sandbox, args: string[], user: string): Promise<CliResult & { ms: number }> => {
        const t0 = Date.now();
        const child = box.start(args, as(user));
        const timer = setTimeout(() => child.kill('SIGKILL'), bound);
        const result = await child;
        clearTimeout(timer);
        return {
          exitCode: result.exitCode,
          stdout: String(result.stdout),
          stderr: String(result.stderr),
          ms: Date.now() - t0,
        };
      };
      const [l, r] = await Promise.all([timed(left, LEFT, 'left'), timed(right, RIGHT, 'right')]);
      const what = `round ${round}: left ${l.exitCode} ${l.stderr} / right ${r.exitCode} ${r.stderr}`;
      // Never a deadlock: both end on their own, well within the bound.
      expect(l.ms, what).toBeLessThan(bound);
      expect(r.ms, what).toBeLessThan(bound);
      expect([0, 3], what).toContain(l.exitCode);
      expect([0, 3], what).toContain(r.exitCode);
      expect(l.exitCode === 0 || r.exitCode === 0, what).toBe(true);
      const leftCalls = (await left.calls()).slice(before[0]);
      const rightCalls = (await right.calls()).slice(before[1]);
      for (const [result, calls, other] of [
        [l, leftCalls, RIGHT],
        [r, rightCalls, LEFT],
      ] as const) {
        if (result.exitCode !== 3) continue;
        refusals += 1;
        // Refused before anything ran, naming b and the run that holds it.
        expect(calls, what).toEqual([]);
        expect(result.stderr, what).toMatch(/refused: environment b is locked by another platctl run/);
        expect(result.stderr, what).toMatch(
          new RegExp(`run \\S+: bootstrap \\(platctl ${other.join(' ')}\\)\\n  by (left|right)@\\S+, pid \\d+`),
        );
        expect(result.stderr, what).toMatch(/last heartbeat \d+ s ago/);
      }
      // Never both in b: the b units of one run all ended before the other's first began.
      expect(overlap(inB(leftCalls), inB(rightCalls), SLEEP), what).toBe(false);
    }
    // The race was real: with 4 units of 250 ms per run, started together, they overlapped.
    expect(refusals).toBeGreaterThan(0);
  }, 600_000);
});

function inB(calls: readonly Call[]): number[] {
  return calls.filter((c) => c.unit.startsWith('b/')).map((c) => c.at);
}

/** True when a unit of `left` ran while one of `right` ran (each runs at least `ms` from its start). */
function overlap(left: readonly number[], right: readonly number[], ms: number): boolean {
  return left.some((l) => right.some((r) => l < r + ms && r < l + ms));
}
