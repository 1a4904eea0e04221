/**
 * engine/light-schema.ts stands in for zod in the state file's schema, so `status` does not load zod. These tests
 * hold it to zod's behaviour: the state schema of engine/state.ts, evaluated once with this module and once with the
 * real zod (the same source, the import swapped), must accept and reject the same files with the same message.
 */
import { describe, expect, it, vi } from 'vitest';
import { z as zod } from 'zod';
import { z as light } from '../../../engine/light-schema.js';
import type { LoadedState, RunState } from '../../../engine/state.js';
import { STATE_FILE, parseState as parseLight } from '../../../engine/state.js';

/** engine/state.ts's `parseState`, with zod behind its schema instead of light-schema. */
async function zodParseState(): Promise<(text: string) => LoadedState> {
  vi.resetModules();
  vi.doMock('../../../engine/light-schema.js', () => ({ z: zod }));
  try {
    const state = await import('../../../engine/state.js');
    return (text) => state.parseState(text);
  } finally {
    vi.doUnmock('../../../engine/light-schema.js');
    vi.resetModules();
  }
}

const parseZod = await zodParseState();

/** A state with every optional field set, so every field gets mutated. */
function fullState(): RunState {
  return {
    version: 1,
    run_id: '20260101T000000Z-abcdef',
    command: 'bootstrap',
    args: { env: ['prod'], unit: ['prod/vpc'], with_deps: true, parallelism: 4, fail_fast: false },
    started_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:01:00.000Z',
    ended_at: '2026-01-01T00:02:00.000Z',
    status: 'failed',
    graph_fingerprint: 'fp',
    platctl_version: '0.1.0',
    resumes: 1,
    known_durations_ms: { bootstrap: { 'prod/vpc': 1200 }, teardown: { 'prod/vpc': 900 } },
    manual_steps: { 'vpn-peering': { how: 'confirmed', by: 'ops', at: '2026-01-01T00:00:00.000Z' } },
    lockdown: {
      direction: 'lock',
      status: 'failed',
      steps: {
        'api-private': { status: 'failed', attempts: 2, ended_at: '2026-01-01T00:03:00.000Z', error: 'e', log: 'l' },
      },
    },
    units: {
      'prod/vpc': {
        status: 'failed',
        attempts: 2,
        wave: 0,
        dependencies: ['prod/net'],
        started_at: '2026-01-01T00:00:01.000Z',
        ended_at: '2026-01-01T00:00:02.000Z',
        duration_ms: 1000,
        exit_code: 1,
        error: 'boom',
        reason: 'exit-non-zero',
        skipped_because: 'prod/net',
        skip_reason: 'dependency-failed',
        log: '.platctl-logs/x/0_prod__vpc.log',
        pid: 4242,
        kept: false,
        hooks: {
          'before-unit:crd_two_stage': { status: 'completed', ended_at: '2026-01-01T00:00:01.000Z', detail: 'd' },
        },
      },
      'prod/app': { status: 'pending', attempts: 0, wave: 1, dependencies: [] },
    },
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a value in `value` (objects' keys and arrays' indices), the root excluded. */
function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [];
  const entries: [string | number, Json][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...paths(child, [...prefix, key])]);
}

const DELETE = Symbol('delete');
/** Values that break some field or other: wrong types, bounds, fractions, empty things. */
const BAD: (Json | typeof DELETE)[] = [
  DELETE,
  null,
  true,
  0,
  -1,
  1.5,
  -0.5,
  2 ** 60,
  -(2 ** 60),
  '',
  'x',
  'running',
  [],
  ['x'],
  [1],
  {},
  { a: 1 },
  { a: 'x' },
];

function mutate(state: Json, path: readonly (string | number)[], bad: Json | typeof DELETE): Json {
  const copy = structuredClone(state) as { [key: string]: Json };
  let parent: { [key: string]: Json } | Json[] = copy;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, Json>)[key] as typeof parent;
  const last = path[path.length - 1]!;
  if (bad === DELETE) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else (parent as Record<string | number, Json>)[last] = bad;
  return copy;
}

describe('the state schema without zod', () => {
  it('accepts a full state file as zod does, and returns it unchanged', () => {
    const text = JSON.stringify(fullState());
    expect(parseLight(text)).toEqual(parseZod(text));
    expect(parseLight(text)).toEqual({ type: 'ok', state: fullState() });
  });

  it('accepts and rejects every mutation of every field exactly as zod does, with the same message', () => {
    const state = fullState() as unknown as Json;
    let rejected = 0;
    let compared = 0;
    for (const path of paths(state)) {
      for (const bad of BAD) {
        const text = JSON.stringify(mutate(state, path, bad));
        const what = bad === DELETE ? 'deleted' : JSON.stringify(bad);
        const got = parseLight(text);
        expect({ path, what, got }).toEqual({ path, what, got: parseZod(text) });
        compared += 1;
        if (got.type === 'invalid') rejected += 1;
      }
    }
    // The battery is not vacuous: most mutations break the file, some (optional fields deleted) do not.
    expect(compared).toBeGreaterThan(800);
    expect(rejected).toBeGreaterThan(compared / 2);
    expect(rejected).toBeLessThan(compared);
  });

  it('rejects numbers JSON reads as Infinity, as zod does', () => {
    const text = JSON.stringify(fullState()).replace('"duration_ms":1000', '"duration_ms":1e400');
    expect(parseLight(text)).toEqual(parseZod(text));
    expect(parseLight(text)).toEqual({
      type: 'invalid',
      reason: 'unparsable',
      message: `${STATE_FILE} is not a platctl state file (units.prod/vpc.duration_ms: Invalid input: expected number, received Infinity)`,
    });
  });

  it('says what is wrong in the same words as before (zod 4 messages)', () => {
    const cases: [(s: RunState) => void, string][] = [
      [
        (s) => void (s.units['prod/vpc']!.status = 'done' as never),
        'units.prod/vpc.status: Invalid option: expected one of "pending"|"running"|"completed"|"failed"|"skipped"|"interrupted"',
      ],
      [
        (s) => void (s.units['prod/vpc']!.attempts = -1),
        'units.prod/vpc.attempts: Too small: expected number to be >=0',
      ],
      [
        (s) => void (s.units['prod/vpc']!.wave = 0.5),
        'units.prod/vpc.wave: Invalid input: expected int, received number',
      ],
      [(s) => void (s.args.parallelism = 0), 'args.parallelism: Too small: expected number to be >0'],
      [(s) => void (s.run_id = ''), 'run_id: Too small: expected string to have >=1 characters'],
      [(s) => void delete (s as Partial<RunState>).units, 'units: Invalid input: expected record, received undefined'],
      [
        (s) => void (s.units['prod/vpc']!.dependencies = [7 as never]),
        'units.prod/vpc.dependencies.0: Invalid input: expected string, received number',
      ],
    ];
    for (const [change, message] of cases) {
      const state = fullState();
      change(state);
      const text = JSON.stringify(state);
      const expected = {
        type: 'invalid',
        reason: 'unparsable',
        message: `${STATE_FILE} is not a platctl state file (${message})`,
      };
      expect(parseLight(text)).toEqual(expected);
      expect(parseZod(text)).toEqual(expected);
    }
  });

  it('reports the first problem in zod order: fields in schema order, depth first', () => {
    const state = fullState() as unknown as Record<string, Json>;
    state.status = 'nope';
    (state.args as Record<string, Json>).env = 'prod';
    const text = JSON.stringify(state);
    expect(parseLight(text)).toEqual(parseZod(text));
    expect(parseLight(text)).toMatchObject({ message: expect.stringContaining('(args.env: ') as unknown });
  });

  it('has the zod API shape the schema is written against', () => {
    // The same calls run with both, so the schema in engine/state.ts reads as zod.
    const lightSchema = light.looseObject({
      n: light.number().int().nonnegative().optional(),
      s: light.string().min(1),
    });
    const zodSchema = zod.looseObject({ n: zod.number().int().nonnegative().optional(), s: zod.string().min(1) });
    for (const value of [{ s: 'x', extra: 1 }, { s: '' }, { s: 'x', n: -1 }, { s: 'x', n: undefined }]) {
      expect(lightSchema.safeParse(value).success).toBe(zodSchema.safeParse(value).success);
    }
  });
});
