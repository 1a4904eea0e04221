/**
 * The park rules (park/rules.ts) on record stores the test builds: local ones over a temp dir, and shared ones in
 * memory. No AWS, no network, no CLI: what bootstrap refuses, and which records a teardown clears.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Graph } from '../../../engine/graph.js';
import type { ObjectStore, StoredObject } from '../../../engine/object-store.js';
import type { UnitState } from '../../../engine/state.js';
import type { ParkRecord } from '../../../park/record.js';
import {
  PARK_DIR,
  PARK_RECORD_VERSION,
  RecordStore,
  parkFilePath,
  recordKey,
  saveParkFile,
} from '../../../park/record.js';
import { repairHint } from '../../../park/record-schema.js';
import { bootstrapEnvs, clearParkAfterTeardown, parkedRefusal } from '../../../park/rules.js';
import { tempDir } from '../../helpers/temp.js';

const FORCE = 'or pass --force to bootstrap without this check';

function record(env: string, status: 'parked' | 'unparked'): ParkRecord {
  return {
    version: 1,
    env,
    cluster: `${env}-eks`,
    status,
    parked_at: '2026-11-30T22:00:00.000Z',
    parked_by: { host: 'cron-host', user: 'cron' },
    node_groups: { system: { min: 2, max: 4, desired: 3 } },
    karpenter: { nodepools: [], ec2nodeclasses: [] },
    bastions: [],
    argocd: { namespace: 'argocd', apps: [] },
  };
}

/** A repository root with the local park file of each environment given its record. */
async function rootWith(records: readonly ParkRecord[]): Promise<string> {
  const root = await tempDir('platctl-park-rules-');
  for (const r of records) {
    await saveParkFile(root, { version: PARK_RECORD_VERSION, env: r.env, record: r, durations_ms: {} });
  }
  return root;
}

/** The local record store of each environment, as the CLI builds it without a shared store. */
const localStores = (root: string) => (env: string) => Promise.resolve(new RecordStore(root, env));

/** A shared store kept in memory; `failing` makes every read fail, `conflicting` every delete lose its race. */
function memoryStore(objects: Map<string, StoredObject>, mode: 'ok' | 'failing' | 'conflicting' = 'ok'): ObjectStore {
  return {
    location: (key) => `memory://${key}`,
    get: (key) =>
      Promise.resolve(
        mode === 'failing'
          ? { ok: false, reason: 'unreachable', message: `cannot reach memory reading ${key}` }
          : { ok: true, value: objects.get(key) },
      ),
    put: () => Promise.reject(new Error('the rules never write a record')),
    remove: (key) => {
      if (mode === 'conflicting') return Promise.resolve({ ok: true, value: 'conflict' });
      objects.delete(key);
      return Promise.resolve({ ok: true, value: 'deleted' });
    },
    list: () => Promise.reject(new Error('the rules never list')),
  };
}

function graphOf(units: readonly string[]): Graph {
  const graph = new Graph();
  for (const id of units) graph.addNode(id, id.split('/')[0] ?? id, id);
  return graph;
}

function unit(status: UnitState['status'], kept?: boolean): UnitState {
  return { status, attempts: 1, wave: 0, dependencies: [], ...(kept ? { kept } : {}) };
}

describe('bootstrap on a parked environment', () => {
  it('is refused, naming who parked it and since when', async () => {
    const root = await rootWith([record('platform', 'parked')]);
    expect(await parkedRefusal(root, ['platform'], localStores(root))).toBe(
      'platform is parked since 2026-11-30T22:00:00.000Z (by cron@cron-host); ' +
        'run `platctl up --env platform` first, or pass --force to bootstrap it parked',
    );
  });

  it('runs when the record says unparked, or there is none', async () => {
    const root = await rootWith([record('platform', 'unparked')]);
    expect(await parkedRefusal(root, ['platform', 'staging'], localStores(root))).toBeUndefined();
  });

  it('is refused with the repair hint when the local record cannot be read', async () => {
    const root = await tempDir('platctl-park-rules-');
    await mkdir(join(root, PARK_DIR));
    const path = parkFilePath(root, 'platform');
    await writeFile(path, '{ not json');
    expect(await parkedRefusal(root, ['platform'], localStores(root))).toBe(
      `cannot tell whether platform is parked: ${path} is not valid JSON\n` +
        `  hint: ${repairHint(path, 'local', 'platform')}; ${FORCE}`,
    );
  });

  it('is refused when the shared record cannot be read, with a hint even when the store gives none', async () => {
    const root = await tempDir('platctl-park-rules-');
    const shared = memoryStore(new Map(), 'failing');
    const refusal = await parkedRefusal(root, ['platform'], (env) =>
      Promise.resolve(new RecordStore(root, env, { shared })),
    );
    expect(refusal).toBe(
      `cannot tell whether platform is parked: cannot reach memory reading ${recordKey('platform')}\n` +
        `  hint: fix the access to it, ${FORCE}`,
    );
  });

  it('is refused when the only record was moved aside', async () => {
    const root = await rootWith([record('platform', 'parked')]);
    const path = parkFilePath(root, 'platform');
    await rename(path, `${path}.damaged`);
    const refusal = await parkedRefusal(root, ['platform'], localStores(root));
    expect(refusal).toContain(
      `cannot tell whether platform is parked: ${path} is missing and ${path}.damaged is there: ` +
        "platform's only park record was moved aside\n  hint: repair it and move it back",
    );
    expect(refusal).toMatch(new RegExp(`; ${FORCE}$`));
  });

  it('checks the shared record, not the local mirror', async () => {
    const root = await rootWith([record('platform', 'unparked')]);
    const objects = new Map([
      [recordKey('platform'), { body: JSON.stringify(record('platform', 'parked')), etag: '1' }],
    ]);
    const shared = memoryStore(objects);
    const refusal = await parkedRefusal(root, ['platform'], (env) =>
      Promise.resolve(new RecordStore(root, env, { shared })),
    );
    expect(refusal).toMatch(/^platform is parked since /);
  });
});

describe('the environments a bootstrap touches', () => {
  const configured = ['dev', 'platform', 'staging'];

  it('are those of --env, else those of the --units, else every configured one', () => {
    expect(bootstrapEnvs({ env: ['dev', 'dev'] }, configured)).toEqual(['dev']);
    expect(bootstrapEnvs({ unit: ['staging/vpc', 'staging/eks', 'dev/vpc'] }, configured)).toEqual(['staging', 'dev']);
    expect(bootstrapEnvs({}, configured)).toEqual(configured);
  });

  it('are every configured one on --resume, whatever --env or --unit says', async () => {
    expect(bootstrapEnvs({ env: ['dev'], resume: true }, configured)).toEqual(configured);
    expect(bootstrapEnvs({ unit: ['dev/vpc'], resume: true }, configured)).toEqual(configured);
    // So a resumed run is refused over a parked environment its --env does not name.
    const root = await rootWith([record('platform', 'parked')]);
    const stores = localStores(root);
    expect(await parkedRefusal(root, bootstrapEnvs({ env: ['dev'] }, configured), stores)).toBeUndefined();
    expect(await parkedRefusal(root, bootstrapEnvs({ env: ['dev'], resume: true }, configured), stores)).toMatch(
      /^platform is parked since /,
    );
  });
});

describe('a teardown clears park records', () => {
  const graph = graphOf(['platform/vpc', 'platform/eks', 'staging/vpc']);
  const parkConfigured = (env: string) => env === 'platform';

  it('of an environment it destroyed as a whole (a kept unit counts as destroyed)', async () => {
    const root = await rootWith([record('platform', 'parked')]);
    const state = { units: { 'platform/vpc': unit('skipped', true), 'platform/eks': unit('completed') } };
    const clears = await clearParkAfterTeardown(root, graph, state, parkConfigured, localStores(root));
    expect(clears).toEqual({ cleared: [{ env: 'platform', removed: [parkFilePath(root, 'platform')] }] });
    expect(existsSync(parkFilePath(root, 'platform'))).toBe(false);
  });

  it('never of an environment it destroyed only in part', async () => {
    const root = await rootWith([record('platform', 'parked')]);
    const asked: string[] = [];
    const storeFor = (env: string) => {
      asked.push(env);
      return Promise.resolve(new RecordStore(root, env));
    };
    for (const eks of [unit('failed'), undefined]) {
      const units = { 'platform/vpc': unit('completed'), ...(eks ? { 'platform/eks': eks } : {}) };
      expect(await clearParkAfterTeardown(root, graph, { units }, parkConfigured, storeFor)).toEqual({ cleared: [] });
    }
    expect(asked).toEqual([]);
    expect(existsSync(parkFilePath(root, 'platform'))).toBe(true);
  });

  it('only where one can be: park settings or a local park file', async () => {
    const root = await rootWith([record('staging', 'parked')]);
    const state = {
      units: { 'platform/vpc': unit('completed'), 'platform/eks': unit('completed'), 'staging/vpc': unit('completed') },
    };
    const asked: string[] = [];
    const storeFor = (env: string) => {
      asked.push(env);
      return Promise.resolve(new RecordStore(root, env));
    };
    const clears = await clearParkAfterTeardown(root, graph, state, () => false, storeFor);
    expect(asked).toEqual(['staging']);
    expect(clears).toEqual({ cleared: [{ env: 'staging', removed: [parkFilePath(root, 'staging')] }] });
  });

  it('never remove a local record platctl does not understand (a newer version), and say so', async () => {
    const root = await rootWith([]);
    await mkdir(join(root, PARK_DIR), { recursive: true });
    const future = JSON.stringify({ version: PARK_RECORD_VERSION + 1, env: 'platform', durations_ms: {} });
    await writeFile(parkFilePath(root, 'platform'), future);
    const state = { units: { 'platform/vpc': unit('completed'), 'platform/eks': unit('completed') } };
    const clears = await clearParkAfterTeardown(root, graph, state, parkConfigured, localStores(root));
    expect(clears.cleared).toEqual([]);
    expect(clears.failed?.env).toBe('platform');
    expect(clears.failed?.message).toMatch(/; it was not removed$/);
    expect(clears.failed?.message).toContain(String(PARK_RECORD_VERSION + 1));
    expect(existsSync(parkFilePath(root, 'platform'))).toBe(true);
  });

  it('and report the one that could not be removed, where it lives, trying none after it', async () => {
    const root = await rootWith([record('platform', 'parked'), record('staging', 'parked')]);
    const objects = new Map([
      [recordKey('platform'), { body: JSON.stringify(record('platform', 'parked')), etag: '1' }],
    ]);
    const shared = memoryStore(objects, 'conflicting');
    const state = {
      units: { 'platform/vpc': unit('completed'), 'platform/eks': unit('completed'), 'staging/vpc': unit('completed') },
    };
    const asked: string[] = [];
    const storeFor = (env: string) => {
      asked.push(env);
      return Promise.resolve(new RecordStore(root, env, { shared }));
    };
    const clears = await clearParkAfterTeardown(root, graph, state, () => true, storeFor);
    expect(clears).toEqual({
      cleared: [],
      failed: {
        env: 'platform',
        message: `memory://${recordKey('platform')} changed while platctl removed it`,
        hint: 'look at it, then remove it by hand',
        location: `memory://${recordKey('platform')}`,
      },
    });
    expect(asked).toEqual(['platform']);
    expect(existsSync(parkFilePath(root, 'platform'))).toBe(true);
  });
});
