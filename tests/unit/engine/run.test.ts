import { spawn } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import type { WalkEvent } from '../../../engine/events.js';
import type { Executor } from '../../../engine/executor.js';
import { ProcessGroups } from '../../../engine/processes.js';
import { Redactor } from '../../../engine/redact.js';
import type { RunDeps, RunRequest } from '../../../engine/run.js';
import { RUN_ID_ENV, executeRun, makeRunId } from '../../../engine/run.js';
import { STATE_FILE } from '../../../engine/state.js';
import { AutoExecutor, graphOf, runState, tempDir } from './helpers.js';

const config = configSchema.parse({
  version: 1,
  environments: { p: { dir: 'live/p' } },
  units: { 'p/floor': { teardown_skip: true }, 'p/c': { apply_args: ['-var=x=1'], timeout: '5m' } },
});
const graph = graphOf([
  ['p/b', 'p/a'],
  ['p/c', 'p/b'],
  ['p/a', 'p/floor'],
]);

const groups = new ProcessGroups((pid, signal) => process.kill(pid, signal));
const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

async function setup(executor: Executor) {
  const root = await tempDir();
  const events: WalkEvent[] = [];
  const request = (overrides: Partial<RunRequest> = {}): RunRequest => ({
    command: 'bootstrap',
    root,
    graph,
    absDir: (unit) => join(root, 'live', unit),
    config,
    selection: { env: [], unit: [], withDeps: false },
    resume: false,
    force: false,
    failFast: false,
    commandLine: 'platctl bootstrap',
    platctlVersion: 'test',
    ...overrides,
  });
  let ids = 0;
  const deps = (overrides: Partial<RunDeps> = {}): RunDeps => ({
    now: () => Date.now(),
    machine: { pid: process.pid, host: 'test-host', isAlive: () => false },
    groups,
    executor: () => executor,
    signal: new AbortController().signal,
    emit: (e) => events.push(e),
    redactor: new Redactor(),
    graceMs: 500,
    stateOptions: { fsync: false },
    newRunId: () => `run-${(ids += 1)}`,
    ...overrides,
  });
  return { root, events, request, deps };
}

describe('executeRun', () => {
  it('names run ids by time, sortably', () => {
    expect(makeRunId(Date.UTC(2026, 0, 29, 10, 15, 0))).toMatch(/^20260129T101500Z-[0-9a-f]{6}$/);
  });

  it('passes each unit its directory, Terraform arguments and timeout', async () => {
    const jobs: unknown[] = [];
    const executor: Executor = {
      commandLine: () => ['x'],
      run: (job) => {
        jobs.push(job);
        return Promise.resolve({ type: 'completed' });
      },
    };
    const { root, request, deps } = await setup(executor);
    await executeRun(request({ selection: { env: [], unit: ['p/c'], withDeps: false } }), deps());
    expect(jobs).toEqual([
      {
        unit: 'p/c',
        command: 'apply',
        absDir: join(root, 'live', 'p/c'),
        tfArgs: ['-var=x=1'],
        timeoutMs: 300_000,
        attempt: 1,
      },
    ]);
  });

  it('resumes the same run: keeps completed units, resets the rest, counts attempts and resumes', async () => {
    const failing = new AutoExecutor(graph, () => 0, new Set(['p/b']));
    const { root, request, deps } = await setup(failing);
    const first = await executeRun(request(), deps());
    expect(first).toMatchObject({ type: 'finished', status: 'failed', runId: 'run-1' });
    const second = new AutoExecutor(graph, () => 0);
    for (const unit of ['p/floor', 'p/a']) second.finished.add(unit);
    const resumed = await executeRun(request({ resume: true }), deps({ executor: () => second }));
    expect(resumed).toMatchObject({ type: 'finished', status: 'completed', runId: 'run-1' });
    expect(second.started).toEqual(['p/b', 'p/c']);
    if (resumed.type !== 'finished') return;
    expect(resumed.state.resumes).toBe(1);
    expect(resumed.state.units['p/b']).toMatchObject({ attempts: 2, status: 'completed' });
    expect(resumed.state.units['p/a']).toMatchObject({ attempts: 1 });
    expect(await readdir(join(root, '.platctl-logs'))).toEqual(['latest', 'run-1']);
  });

  it('keeps the floor in teardown: completed up front, never run, and counted', async () => {
    const executor = new AutoExecutor(graphOf([]), () => 0);
    const { request, deps, events } = await setup(executor);
    const result = await executeRun(request({ command: 'teardown' }), deps());
    expect(executor.started).toEqual(['p/c', 'p/b', 'p/a']);
    expect(result).toMatchObject({ type: 'finished', status: 'completed', counts: { completed: 4 } });
    if (result.type === 'finished')
      expect(result.state.units['p/floor']).toMatchObject({ kept: true, status: 'completed' });
    expect(events[0]).toMatchObject({ type: 'run-started', kept: ['p/floor'], to_run: 3, total: 4 });
  });

  it('asks for confirmation once the plan is known and changes nothing when declined', async () => {
    const executor = new AutoExecutor(graph, () => 0);
    const { root, request, deps } = await setup(executor);
    let asked: unknown;
    const result = await executeRun(
      request({ command: 'teardown' }),
      deps({
        confirm: (what) => {
          asked = what;
          return Promise.resolve(false);
        },
      }),
    );
    expect(result).toEqual({ type: 'cancelled' });
    expect(asked).toEqual({ command: 'teardown', toRun: ['p/c', 'p/b', 'p/a'], kept: ['p/floor'], envs: ['p'] });
    expect(executor.started).toEqual([]);
    expect(await readdir(root)).toEqual([]);
  });

  it('stops a unit process a killed run left behind, and leaves alone a process it cannot recognise', async () => {
    const { root, request, deps, events } = await setup(new AutoExecutor(graph, () => 0));
    const orphan = spawn('sleep', ['60'], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, [RUN_ID_ENV]: 'run-old' },
    });
    const stranger = spawn('sleep', ['60'], { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH ?? '' } });
    leftovers.push(orphan.pid!, stranger.pid!);
    const orphanExit = new Promise((resolve) => orphan.once('exit', resolve));
    const unit = (pid: number) => ({ status: 'running' as const, attempts: 1, wave: 0, dependencies: [], pid });
    await writeFile(
      join(root, STATE_FILE),
      JSON.stringify({ ...runState({ 'p/a': unit(orphan.pid!), 'p/b': unit(stranger.pid!) }), run_id: 'run-old' }),
    );
    const result = await executeRun(request(), deps());
    expect(result.type).toBe('finished');
    expect(await orphanExit).toBeDefined();
    const warnings = events.filter((e) => e.type === 'warning').map((e) => (e.type === 'warning' ? e.message : ''));
    expect(warnings).toContain(`stopping p/a (process group ${orphan.pid}), left running by the killed run run-old`);
    expect(
      warnings.some((w) => w.includes(`p/b of the previous run may still be running as process group ${stranger.pid}`)),
    ).toBe(true);
    expect(warnings.some((w) => w.includes('the previous bootstrap (run-old) ended running'))).toBe(true);
    expect(stranger.exitCode).toBeNull();
  });

  it('finds and stops a unit process whose pid the killed run never wrote down', async () => {
    // platctl records `running` before the spawn and the pid in the next (coalesced) write: a kill -9 in between
    // leaves a running unit without a pid. Its process still carries the run id and the unit in its environment.
    const { root, request, deps, events } = await setup(new AutoExecutor(graph, () => 0));
    const orphan = spawn('sleep', ['60'], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, [RUN_ID_ENV]: 'run-old', PLATCTL_UNIT: 'p/a' },
    });
    const otherUnit = spawn('sleep', ['60'], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, [RUN_ID_ENV]: 'run-old', PLATCTL_UNIT: 'p/b' },
    });
    leftovers.push(orphan.pid!, otherUnit.pid!);
    const orphanExit = new Promise((resolve) => orphan.once('exit', resolve));
    await writeFile(
      join(root, STATE_FILE),
      JSON.stringify({
        ...runState({
          'p/a': { status: 'running', attempts: 1, wave: 0, dependencies: [] },
          'p/b': { status: 'completed', attempts: 1, wave: 1, dependencies: ['p/a'] },
        }),
        run_id: 'run-old',
      }),
    );
    const result = await executeRun(request(), deps());
    expect(result.type).toBe('finished');
    expect(await orphanExit).toBeDefined();
    const warnings = events.filter((e) => e.type === 'warning').map((e) => (e.type === 'warning' ? e.message : ''));
    expect(warnings).toContain(`stopping p/a (process group ${orphan.pid}), left running by the killed run run-old`);
    // Only units recorded running are looked for.
    expect(otherUnit.exitCode).toBeNull();
  });

  it('refuses while another live run holds the lock', async () => {
    const { root, request, deps } = await setup(new AutoExecutor(graph, () => 0));
    await writeFile(
      join(root, '.platctl.lock'),
      JSON.stringify({ pid: 4242, host: 'test-host', command: 'platctl teardown', started_at: 'then' }),
    );
    const result = await executeRun(request(), deps({ machine: { pid: 1, host: 'test-host', isAlive: () => true } }));
    expect(result).toMatchObject({
      type: 'refused',
      reason: 'lock-held',
      details: ['pid 4242 on test-host', 'command: platctl teardown', 'started: then'],
    });
    expect(JSON.parse(await readFile(join(root, '.platctl.lock'), 'utf8'))).toMatchObject({ pid: 4242 });
  });
});
