/**
 * The per-environment S3 lock (engine/env-lock.ts) against moto over real HTTP.
 *
 * moto 5.2.1 honours If-None-Match and If-Match on PutObject and If-Match on DeleteObject (412 PreconditionFailed),
 * but it checks the condition and then writes in two steps with no lock between them: under its default threaded
 * server two concurrent conditional writes can both pass. Real S3 decides them atomically. So this file runs moto one
 * request at a time (`serialized`), which makes each conditional write atomic as on S3, and the races below test
 * platctl's protocol, not moto's threading.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { LockOwner } from '../../engine/env-lock.js';
import { acquireEnvLocks, lockKey, readEnvLock } from '../../engine/env-lock.js';
import type { ObjectStore } from '../../engine/object-store.js';
import { freePort, useMoto } from '../helpers/moto.js';
import { createBucket, stateStore } from '../helpers/state-bucket.js';
import { REPO_ROOT, until } from './engine-helpers.js';

const moto = useMoto({ serialized: true });
const BUCKET = 'platctl-state';

function owner(run: string, verb = 'bootstrap'): LockOwner {
  return { run_id: run, verb, command: `platctl ${verb}`, host: 'runner-1', user: 'ci', pid: 4242 };
}

function store(prefix = 'platctl', env: Record<string, string> = moto.env): ObjectStore {
  return stateStore(moto, BUCKET, { prefix, env, requestTimeoutMs: 3000 });
}

beforeEach(async () => {
  await createBucket(moto, BUCKET);
});

describe('the S3 environment lock', () => {
  it('locks in sorted order, refuses a held environment naming its holder, and releases only its own', async () => {
    const s = store();
    const now = (): number => Date.now();
    const a = await acquireEnvLocks(['b', 'a'], owner('run-a'), {
      store: s,
      now,
      heartbeatMs: 30_000,
      breakLock: false,
    });
    if (a.type !== 'acquired') throw new Error(JSON.stringify(a));
    expect(a.locks.envs).toEqual(['a', 'b']);
    const held = await readEnvLock(s, 'b');
    expect(held.ok && held.value.type === 'held' && held.value.holder).toMatchObject({
      run_id: 'run-a',
      verb: 'bootstrap',
      host: 'runner-1',
      user: 'ci',
      pid: 4242,
      heartbeat_ms: 30_000,
    });

    const b = await acquireEnvLocks(['c', 'b'], owner('run-b', 'teardown'), {
      store: s,
      now,
      heartbeatMs: 30_000,
      breakLock: true,
    });
    // Held and fresh: even --break-lock does not take it, and c (taken after b in order) is not left locked.
    expect(b).toMatchObject({ type: 'held', env: 'b', stale: false, holder: { run_id: 'run-a' } });
    expect((await s.get(lockKey('c'))).ok && (await s.get(lockKey('c')))).toEqual({ ok: true, value: undefined });

    expect(await a.locks.release()).toEqual([]);
    expect(await s.get(lockKey('a'))).toEqual({ ok: true, value: undefined });
    const again = await acquireEnvLocks(['b', 'c'], owner('run-b'), {
      store: s,
      now,
      heartbeatMs: 30_000,
      breakLock: false,
    });
    expect(again.type).toBe('acquired');
    if (again.type === 'acquired') await again.locks.release();
  });

  it('renews with If-Match; a stale lock is taken over only with --break-lock, and the old holder is fenced', async () => {
    const s = store();
    const now = (): number => Date.now();
    // Long enough that the first checks below run well inside 3 beats on a loaded machine.
    const beat = 1000;
    const first = await acquireEnvLocks(['prod'], owner('run-1'), {
      store: s,
      now,
      heartbeatMs: beat,
      breakLock: false,
    });
    if (first.type !== 'acquired') throw new Error(JSON.stringify(first));
    // A renewal moves the heartbeat and the ETag.
    const before = await s.get(lockKey('prod'));
    await first.locks.renew();
    const after = await s.get(lockKey('prod'));
    expect(before.ok && after.ok && before.value?.etag !== after.value?.etag).toBe(true);
    expect(first.locks.fenced.aborted).toBe(false);

    // The holder stops renewing (as if killed): fresh for 3 heartbeats, then stale.
    const fresh = await acquireEnvLocks(['prod'], owner('run-2'), {
      store: s,
      now,
      heartbeatMs: beat,
      breakLock: true,
    });
    expect(fresh).toMatchObject({ type: 'held', stale: false });
    await until(async () => {
      const found = await readEnvLock(s, 'prod');
      return found.ok && found.value.type === 'held' && found.value.stale;
    }, 15_000);
    const refused = await acquireEnvLocks(['prod'], owner('run-2'), {
      store: s,
      now,
      heartbeatMs: beat,
      breakLock: false,
    });
    expect(refused).toMatchObject({ type: 'held', stale: true, holder: { run_id: 'run-1' } });
    expect(refused.type === 'held' && refused.ageMs).toBeGreaterThan(3 * beat);

    const shown: string[] = [];
    const broke = await acquireEnvLocks(['prod'], owner('run-2'), {
      store: s,
      now,
      heartbeatMs: beat,
      breakLock: true,
      onBreak: (found) => shown.push(found.holder.run_id),
    });
    if (broke.type !== 'acquired') throw new Error(JSON.stringify(broke));
    expect(shown).toEqual(['run-1']);
    expect(broke.tookOver.map((f) => f.holder.run_id)).toEqual(['run-1']);

    // The old holder comes back: it may not write (it renews first, and learns it lost the lock).
    expect(await first.locks.ensureFresh()).toBe(false);
    expect(first.locks.fenceReason).toMatch(/lock of environment prod .* was taken over by another run/);
    expect(await first.locks.release()).toEqual([
      "the lock of environment prod is no longer this run's; left it to its new holder",
    ]);
    const now2 = await readEnvLock(s, 'prod');
    expect(now2.ok && now2.value.type === 'held' && now2.value.holder.run_id).toBe('run-2');
    await broke.locks.release();
  });

  it('a renewal that cannot reach S3 fences the run', async () => {
    const reachable = store();
    const closed = store('platctl', { ...moto.env, AWS_ENDPOINT_URL: `http://127.0.0.1:${await freePort()}` });
    let cut = false;
    let puts = 0;
    const switching: ObjectStore = {
      location: (key) => reachable.location(key),
      get: (key) => (cut ? closed : reachable).get(key),
      put: (key, body, condition) => {
        puts += 1;
        return (cut ? closed : reachable).put(key, body, condition);
      },
      remove: (key, etag) => (cut ? closed : reachable).remove(key, etag),
      list: (prefix) => (cut ? closed : reachable).list(prefix),
    };
    const got = await acquireEnvLocks(['prod'], owner('run-1'), {
      store: switching,
      now: () => Date.now(),
      heartbeatMs: 100,
      breakLock: false,
    });
    if (got.type !== 'acquired') throw new Error(JSON.stringify(got));
    got.locks.start();
    // Renewals that reach S3 keep the run unfenced: wait for two of them (a condition, not a time), however slowly
    // a starved CPU lets the heartbeat run.
    const taken = puts;
    await until(() => puts >= taken + 2, 10_000, 'two renewals');
    expect(got.locks.fenced.aborted).toBe(false);
    cut = true;
    await until(() => got.locks.fenced.aborted, 10_000, 'the run to be fenced');
    expect(got.locks.fenceReason).toMatch(
      /^cannot renew the lock of environment prod: cannot reach S3 writing s3:\/\//,
    );
    expect(await got.locks.ensureFresh()).toBe(false);
    await got.locks.release();
  });
});

describe('clock skew between runners', () => {
  const SKEW_MS = 120_000;

  it('a breaker whose clock is 120 s ahead does not judge a live lock stale, and cannot break it', async () => {
    const s = store();
    const beat = 1000;
    const holder = await acquireEnvLocks(['prod'], owner('run-live'), {
      store: s,
      now: () => Date.now(),
      heartbeatMs: beat,
      breakLock: false,
    });
    if (holder.type !== 'acquired') throw new Error(JSON.stringify(holder));
    holder.locks.start();
    try {
      const ahead = (): number => Date.now() + SKEW_MS;
      const seen = await readEnvLock(s, 'prod');
      expect(seen.ok && seen.value.type === 'held' && seen.value.stale).toBe(false);
      const broke = await acquireEnvLocks(['prod'], owner('run-skewed'), {
        store: s,
        now: ahead,
        heartbeatMs: beat,
        breakLock: true,
      });
      expect(broke).toMatchObject({ type: 'held', stale: false, holder: { run_id: 'run-live' } });
      expect(broke.type === 'held' && broke.ageMs).toBeLessThan(3 * beat + 1000);
      expect(holder.locks.fenced.aborted).toBe(false);
      expect(await holder.locks.ensureFresh()).toBe(true);
    } finally {
      await holder.locks.release();
    }
  });

  it.each([
    ['behind the breaker', -SKEW_MS],
    ['ahead of the breaker', SKEW_MS],
  ])(
    'a dead holder whose clock was %s goes stale by the bucket clock and --break-lock takes it',
    async (_, holderSkew) => {
      const s = store();
      const beat = 500;
      // The holder writes heartbeat_at from its own (skewed) clock and is then killed: it never renews.
      const dead = await acquireEnvLocks(['prod'], owner('run-dead'), {
        store: s,
        now: () => Date.now() + holderSkew,
        heartbeatMs: beat,
        breakLock: false,
      });
      if (dead.type !== 'acquired') throw new Error(JSON.stringify(dead));
      const fresh = await acquireEnvLocks(['prod'], owner('run-new'), {
        store: s,
        now: () => Date.now(),
        heartbeatMs: beat,
        breakLock: true,
      });
      expect(fresh).toMatchObject({ type: 'held', stale: false });
      await until(
        async () => {
          const found = await readEnvLock(s, 'prod');
          return found.ok && found.value.type === 'held' && found.value.stale;
        },
        20_000,
        'the dead lock to go stale',
      );
      const broke = await acquireEnvLocks(['prod'], owner('run-new'), {
        store: s,
        now: () => Date.now(),
        heartbeatMs: beat,
        breakLock: true,
      });
      if (broke.type !== 'acquired') throw new Error(JSON.stringify(broke));
      expect(broke.tookOver.map((f) => f.holder.run_id)).toEqual(['run-dead']);
      // The old holder, back, learns it lost the lock before it writes anything.
      expect(await dead.locks.ensureFresh()).toBe(false);
      await dead.locks.release();
      await broke.locks.release();
    },
  );
});

/** A separate process taking locks through the built modules: one request per stdin line, one answer per line. */
const CONTENDER = `
import { createInterface } from 'node:readline';
const { acquireEnvLocks } = await import(process.argv[1]);
const { createStateBucket } = await import(process.argv[2]);
const held = new Map();
console.log('ready');
createInterface({ input: process.stdin }).on('line', async (line) => {
  const request = JSON.parse(line);
  if (request.release !== undefined) {
    await held.get(request.release)?.release();
    held.delete(request.release);
    console.log(JSON.stringify({ released: request.release }));
    return;
  }
  const store = createStateBucket({ bucket: '${BUCKET}', keyPrefix: request.prefix, requestTimeoutMs: 5000 }, process.env);
  const owner = { run_id: 'run-' + process.pid, verb: 'bootstrap', command: 'platctl bootstrap', host: 'h', user: 'u', pid: process.pid };
  const result = await acquireEnvLocks(request.envs, owner, { store, now: Date.now, heartbeatMs: 30000, breakLock: false });
  if (result.type === 'acquired') held.set(request.prefix, result.locks);
  console.log(JSON.stringify({ prefix: request.prefix, pid: process.pid, type: result.type, env: result.env }));
});
`;

interface Answer {
  prefix?: string;
  released?: string;
  pid: number;
  type: string;
  env?: string;
}

const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

async function contender(): Promise<{ ask: (request: object) => Promise<Answer>; pid: number }> {
  const child = spawn(
    'node',
    [
      '--input-type=module',
      '-e',
      CONTENDER,
      join(REPO_ROOT, 'dist', 'engine', 'env-lock.js'),
      join(REPO_ROOT, 'dist', 'cloud', 'state-bucket.js'),
    ],
    { stdio: 'pipe', env: moto.childEnv() },
  );
  children.push(child);
  const waiting: ((answer: Answer) => void)[] = [];
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.stderr.on('data', (chunk: Buffer) => reject(new Error(chunk.toString())));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'ready') resolve();
      else waiting.shift()?.(JSON.parse(line) as Answer);
    });
  });
  return {
    pid: child.pid ?? 0,
    ask: (request) => {
      const answer = new Promise<Answer>((resolve) => waiting.push(resolve));
      child.stdin.write(`${JSON.stringify(request)}\n`);
      return answer;
    },
  };
}

describe('processes racing for environment locks', () => {
  it('2 processes racing for one environment lock 100 times: exactly one wins each time', async () => {
    const racers = await Promise.all([contender(), contender()]);
    for (let round = 0; round < 100; round += 1) {
      const prefix = `race-${round}`;
      const results = await Promise.all(racers.map((r) => r.ask({ prefix, envs: ['prod'] })));
      const winners = results.filter((r) => r.type === 'acquired');
      expect(winners, `round ${round}: ${JSON.stringify(results)}`).toHaveLength(1);
      expect(results.find((r) => r.type !== 'acquired')).toMatchObject({ type: 'held', env: 'prod' });
      const lock = await readEnvLock(store(prefix), 'prod');
      expect(lock.ok && lock.value.type === 'held' && lock.value.holder.pid).toBe(winners[0]?.pid);
      await Promise.all(racers.map((r) => r.ask({ release: prefix })));
      expect(await store(prefix).get(lockKey('prod'))).toEqual({ ok: true, value: undefined });
    }
  }, 300_000);

  it('selections {a,b} and {b,c} started at once never deadlock and never both hold b', async () => {
    const [ab, bc] = await Promise.all([contender(), contender()]);
    for (let round = 0; round < 40; round += 1) {
      const prefix = `overlap-${round}`;
      const [one, two] = await Promise.all([
        ab.ask({ prefix, envs: ['a', 'b'] }),
        bc.ask({ prefix, envs: ['b', 'c'] }),
      ]);
      // Both answered (no deadlock), and exactly one holds its selection: b has one holder.
      expect([one.type, two.type].sort(), `round ${round}`).toEqual(['acquired', 'held']);
      expect((one.type === 'held' ? one : two).env).toBe('b');
      const loser = one.type === 'held' ? 'a' : 'c';
      // The loser released what it had taken before it met b.
      expect(await store(prefix).get(lockKey(loser))).toEqual({ ok: true, value: undefined });
      await Promise.all([ab.ask({ release: prefix }), bc.ask({ release: prefix })]);
    }
  }, 300_000);
});
