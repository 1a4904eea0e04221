/**
 * The state file's schema (engine/state.ts, zod): a full state file is accepted as it is, every field that holds
 * a value of the wrong kind is refused with its path, and the words say what was expected.
 */
import { describe, expect, it } from 'vitest';
import type { RunState } from '../../../engine/state.js';
import { STATE_FILE, parseState } from '../../../engine/state.js';

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

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The kind of a JSON value: what a field of the wrong kind differs in. */
function kind(value: Json | undefined): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function at(value: Json, path: readonly (string | number)[]): Json | undefined {
  let here: Json | undefined = value;
  for (const key of path) here = (here as Record<string | number, Json> | undefined)?.[key];
  return here;
}

describe('the state file schema', () => {
  it('accepts a full state file and returns it unchanged, fields from a newer platctl included', () => {
    const state = { ...fullState(), future_field: { any: 'thing' } };
    expect(parseState(JSON.stringify(state))).toEqual({ type: 'ok', state });
  });

  it('refuses every field given a value of another kind, naming that field', () => {
    const state = fullState() as unknown as Json;
    let refused = 0;
    for (const path of paths(state)) {
      // A wrong version has its own message (state.test.ts: "has version ..., this platctl reads version 1").
      if (path[0] === 'version') continue;
      const original = at(state, path);
      for (const bad of BAD) {
        if (bad === DELETE || kind(bad) === kind(original)) continue;
        const loaded = parseState(JSON.stringify(mutate(state, path, bad)));
        expect(loaded.type, `${path.join('.')} = ${JSON.stringify(bad)}`).toBe('invalid');
        if (loaded.type === 'invalid') {
          // The field itself, or (an array where an object belongs) the first field it lacks.
          expect(loaded.message).toMatch(
            new RegExp(`^${escape(`${STATE_FILE} is not a platctl state file (${path.join('.')}`)}[.:]`),
          );
        }
        refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(300);
  });

  it('refuses a missing required field and accepts a missing optional one', () => {
    const state = fullState() as unknown as Json;
    expect(parseState(JSON.stringify(mutate(state, ['units'], DELETE)))).toMatchObject({ type: 'invalid' });
    expect(parseState(JSON.stringify(mutate(state, ['args', 'with_deps'], DELETE)))).toMatchObject({
      type: 'invalid',
    });
    expect(parseState(JSON.stringify(mutate(state, ['lockdown'], DELETE))).type).toBe('ok');
    expect(parseState(JSON.stringify(mutate(state, ['units', 'prod/vpc', 'pid'], DELETE))).type).toBe('ok');
  });

  it('refuses numbers JSON reads as Infinity, fractions where a count belongs, and out-of-range counts', () => {
    const text = JSON.stringify(fullState()).replace('"duration_ms":1000', '"duration_ms":1e999');
    expect(parseState(text)).toMatchObject({ type: 'invalid', message: expect.stringContaining('duration_ms') });
    const cases: [(s: RunState) => void, string][] = [
      [
        (s) => void (s.units['prod/vpc']!.attempts = -1),
        'units.prod/vpc.attempts: Too small: expected number to be >=0',
      ],
      [
        (s) => void (s.units['prod/vpc']!.wave = 0.5),
        'units.prod/vpc.wave: Invalid input: expected int, received number',
      ],
      [(s) => void (s.args.parallelism = 0), 'args.parallelism: Too small: expected number to be >=1'],
      [(s) => void (s.run_id = ''), 'run_id: Too small: expected string to have >=1 characters'],
      [
        (s) => void (s.units['prod/vpc']!.status = 'done' as never),
        'units.prod/vpc.status: Invalid option: expected one of "pending"|"running"',
      ],
      [
        (s) => void (s.units['prod/vpc']!.dependencies = [7 as never]),
        'units.prod/vpc.dependencies.0: Invalid input: expected string, received number',
      ],
    ];
    for (const [change, message] of cases) {
      const state = fullState();
      change(state);
      const loaded = parseState(JSON.stringify(state));
      expect(loaded.type).toBe('invalid');
      if (loaded.type === 'invalid') expect(loaded.message).toContain(message);
    }
  });
});
