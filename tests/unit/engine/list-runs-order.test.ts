/**
 * Run ids carry their start time to the second and a random suffix, so two runs started in the same second sort by
 * chance. `history` and `--resume` must still put the newer one first: they order by `started_at`.
 */
import { describe, expect, it } from 'vitest';
import type { ObjectStore, StoredObject } from '../../../engine/object-store.js';
import type { RunSummary } from '../../../engine/shared-state.js';
import { findResumable, listRuns, runSummaryKey } from '../../../engine/shared-state.js';

/** The part of an object store listRuns reads: get and list, over summaries kept in memory. */
function memoryStore(summaries: readonly RunSummary[]): ObjectStore {
  const objects = new Map<string, StoredObject>(
    summaries.map((s) => [runSummaryKey(s.run_id), { body: JSON.stringify(s), etag: s.run_id }]),
  );
  return {
    location: (key) => `memory://${key}`,
    get: (key) => Promise.resolve({ ok: true, value: objects.get(key) }),
    put: () => Promise.reject(new Error('read-only store')),
    remove: () => Promise.reject(new Error('read-only store')),
    list: () => Promise.resolve({ ok: true, value: { objects: [], folders: summaries.map((s) => s.run_id) } }),
  };
}

function summary(runId: string, startedAt: string, selection: string[]): RunSummary {
  return {
    version: 1,
    run_id: runId,
    command: 'bootstrap',
    envs: ['dev'],
    by: { user: 'ci', host: 'runner' },
    started_at: startedAt,
    updated_at: startedAt,
    status: 'failed',
    counts: {},
    resumes: 0,
    selection_env: selection,
  };
}

describe('runs started in the same second', () => {
  // The later run has the smaller random suffix: ordered by id, it would come second.
  const earlier = summary('20261202T094100Z-ffffff', '2026-12-02T09:41:00.100Z', ['dev']);
  const later = summary('20261202T094100Z-000000', '2026-12-02T09:41:00.900Z', ['dev']);
  const older = summary('20261202T094059Z-aaaaaa', '2026-12-02T09:40:59.500Z', ['dev']);

  it('history lists the later one first', async () => {
    const runs = await listRuns(memoryStore([older, earlier, later]), { limit: 10 });
    expect(runs.ok && runs.value.runs.map((r) => r.run_id)).toEqual([later.run_id, earlier.run_id, older.run_id]);
  });

  it('a limit that falls inside that second still keeps the later one', async () => {
    const runs = await listRuns(memoryStore([older, earlier, later]), { limit: 1 });
    expect(runs.ok && runs.value.runs.map((r) => r.run_id)).toEqual([later.run_id]);
  });

  it('--resume picks the later one', async () => {
    const found = await findResumable(memoryStore([older, earlier, later]), ['dev']);
    expect(found.ok && found.value.match?.run_id).toBe(later.run_id);
  });
});
