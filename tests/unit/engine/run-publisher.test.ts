/**
 * A holder paused between its lock check and its upload (SIGSTOP, a suspended laptop) wakes up after another runner
 * took the run over and wrote its state: the stale upload must not land over the new holder's. The lock check alone
 * cannot stop it (it passed before the pause), so the run's own keys are written only over the ETag last seen.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EnvLocks } from '../../../engine/env-lock.js';
import type { ObjectStore, PutCondition, StoredObject } from '../../../engine/object-store.js';
import { RunPublisher, runStateKey, runSummaryKey } from '../../../engine/shared-state.js';
import type { RunState } from '../../../engine/state.js';

/** An object store in memory with S3's conditional puts (If-Match, If-None-Match: *). */
function memoryStore(): ObjectStore & { objects: Map<string, StoredObject> } {
  const objects = new Map<string, StoredObject>();
  const etagOf = (body: string | Uint8Array): string => createHash('md5').update(body).digest('hex');
  const holds = (key: string, condition: PutCondition): boolean => {
    const current = objects.get(key);
    if ('ifNoneMatch' in condition) return current === undefined;
    if ('ifMatch' in condition) return current?.etag === condition.ifMatch;
    return true;
  };
  return {
    objects,
    location: (key) => `memory://${key}`,
    get: (key) => Promise.resolve({ ok: true, value: objects.get(key) }),
    put: (key, body, condition) => {
      if (!holds(key, condition)) return Promise.resolve({ ok: true, value: { type: 'conflict' } });
      const etag = etagOf(body);
      objects.set(key, { body: Buffer.from(body).toString('utf8'), etag });
      return Promise.resolve({ ok: true, value: { type: 'written', etag } });
    },
    remove: () => Promise.reject(new Error('not used')),
    list: () => Promise.resolve({ ok: true, value: { objects: [], folders: [] } }),
  };
}

/** Locks whose check always passes: the check happened before the pause. */
const stillHeld = { ensureFresh: () => Promise.resolve(true), fenceReason: undefined } as unknown as EnvLocks;

const RUN = '20261205T080000Z-abcdef';

function state(by: string, status: RunState['status'], resumes: number): RunState {
  return {
    version: 1,
    run_id: RUN,
    command: 'bootstrap',
    started_at: '2026-12-05T08:00:00.000Z',
    updated_at: '2026-12-05T08:00:01.000Z',
    status,
    resumes,
    units: {},
    args: { env: ['platform'] },
    by,
  } as unknown as RunState;
}

function publisher(store: ObjectStore, user: string): RunPublisher {
  return new RunPublisher({ store, locks: stillHeld, root: '/nowhere', by: { user, host: 'h' }, envs: ['platform'] });
}

const written = (store: ReturnType<typeof memoryStore>, key: string): unknown =>
  JSON.parse(store.objects.get(key)?.body ?? 'null');

describe('RunPublisher: the run state in the bucket after a takeover', () => {
  it("a stale holder's late upload does not land over the new holder's state; it says why", async () => {
    const store = memoryStore();
    const alice = publisher(store, 'alice');
    alice.stateWritten([Buffer.from(JSON.stringify(state('alice', 'running', 0)))]);
    expect(await alice.close()).toEqual([]);

    // bob takes the run over (--resume --break-lock) and finishes it.
    const bob = publisher(store, 'bob');
    bob.stateWritten([Buffer.from(JSON.stringify(state('bob', 'completed', 1)))]);
    expect(await bob.close()).toEqual([]);
    const bobs = written(store, runStateKey(RUN));
    expect(bobs).toMatchObject({ status: 'completed', resumes: 1 });

    // alice wakes up with an upload whose lock check passed before she was stopped.
    alice.stateWritten([Buffer.from(JSON.stringify(state('alice', 'running', 0)))]);
    const problems = await alice.close();
    expect(written(store, runStateKey(RUN))).toEqual(bobs);
    expect(written(store, runSummaryKey(RUN))).toMatchObject({ status: 'completed', resumes: 1 });
    expect(problems).toEqual([
      `memory://${runStateKey(RUN)} was written by another run since this one last wrote it (the run was taken ` +
        'over): nothing more was written there; the local files have it all',
    ]);
  });

  it("the run's own uploads follow each other: each is made over the one before", async () => {
    const store = memoryStore();
    const alice = publisher(store, 'alice');
    for (const status of ['running', 'running', 'completed'] as const) {
      alice.stateWritten([Buffer.from(JSON.stringify(state('alice', status, 0)))]);
      expect(await alice.close()).toEqual([]);
    }
    expect(written(store, runStateKey(RUN))).toMatchObject({ status: 'completed' });
  });
});
