import { spawn } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import type { WalkEvent } from '../../../engine/events.js';
import type { Executor } from '../../../engine/executor.js';
import type { Graph } from '../../../engine/graph.js';
import { ProcessGroups } from '../../../engine/processes.js';
import { Redactor } from '../../../engine/redact.js';
import { makePaint } from '../../../engine/reporters/paint.js';
import { renderStatus, renderSummary } from '../../../engine/reporters/summary.js';
import type { RunDeps, RunRequest } from '../../../engine/run.js';
import { RUN_ID_ENV, executeRun, makeRunId } from '../../../engine/run.js';
import { STATE_FILE, parseState } from '../../../engine/state.js';
import { fillDisk, mountReadOnly, mountTmpfs, mountsAvailable, unmountAll } from '../../helpers/mounts.js';
import { AutoExecutor, ControlledExecutor, graphOf, runState, tempDir } from './helpers.js';

const MOUNTS = await mountsAvailable();
afterAll(unmountAll);

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

  it('leaves out units exclude blocks name: never run, recorded as excluded, their dependents run', async () => {
    // p/b's own block, and p/a through p/b's exclude_dependencies: p/c still runs, its dependency treated as applied.
    const executor = new AutoExecutor(graphOf([]), () => 0);
    const { request, deps, events } = await setup(executor);
    const excluded = (scope: Graph) =>
      new Map(
        ['p/a', 'p/b', 'p/elsewhere']
          .filter((id) => id === 'p/elsewhere' || scope.has(id))
          .map((id) => [id, { by: 'p/b' }]),
      );
    const result = await executeRun(request({ excluded }), deps());
    expect([...executor.started].sort()).toEqual(['p/c', 'p/floor']);
    expect(result).toMatchObject({ type: 'finished', status: 'completed', counts: { completed: 2, excluded: 2 } });
    if (result.type !== 'finished') return;
    expect(result.state.units['p/b']).toEqual({ status: 'excluded', attempts: 0, wave: 0, dependencies: ['p/a'] });
    expect(result.state.units['p/a']).toMatchObject({ status: 'excluded', excluded_by: 'p/b' });
    expect(result.state.units['p/elsewhere']).toBeUndefined();
    expect(events[0]).toMatchObject({ type: 'run-started', excluded: ['p/a', 'p/b'], to_run: 2, total: 4 });
    const summary = renderSummary({ state: result.state, lastLines: new Map(), paint: makePaint(false) });
    expect(summary).toMatch(/EXCLUDED p\/a +p\/b's exclude block \(exclude_dependencies\) leaves it out of apply/);
    expect(summary).toMatch(/EXCLUDED p\/b +its exclude block leaves it out of apply \(treated as applied\)/);
    expect(summary).toContain('4 units: 2 completed, 2 excluded');
    const status = renderStatus(result.state, makePaint(false), { live: false });
    expect(status).toMatch(/p\/a +excluded +- +p\/b's exclude block/);
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
    expect(asked).toEqual({
      command: 'teardown',
      toRun: ['p/c', 'p/b', 'p/a'],
      kept: ['p/floor'],
      excluded: [],
      envs: ['p'],
    });
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

  it('the first Ctrl-C ends the wait for a left-behind process that ignores SIGINT, and kills nothing', async () => {
    const controller = new AbortController();
    const executor = new AutoExecutor(graph, () => 0);
    const { root, request, deps, events } = await setup(executor);
    // A Terraform still releasing its state lock: SIGINT does not stop it at once. The run starts only once the
    // shell has set SIGINT aside (on a busy machine the signal could otherwise come first and end it at once).
    const orphan = spawn('sh', ['-c', 'trap "" INT; echo ready; exec sleep 60'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, [RUN_ID_ENV]: 'run-old' },
    });
    leftovers.push(orphan.pid!);
    await new Promise<void>((resolve, reject) => {
      orphan.stdout.once('data', () => resolve());
      orphan.once('exit', () => reject(new Error('the stand-in process ended before it ignored SIGINT')));
    });
    orphan.stdout.destroy();
    await writeFile(
      join(root, STATE_FILE),
      JSON.stringify({
        ...runState({ 'p/a': { status: 'running', attempts: 1, wave: 0, dependencies: [], pid: orphan.pid! } }),
        run_id: 'run-old',
      }),
    );
    const emit = (event: WalkEvent) => {
      events.push(event);
      if (event.type === 'warning' && event.message.startsWith('stopping p/a')) controller.abort();
    };
    // A grace far longer than the test's own time limit: only the abort can end the wait.
    const result = await executeRun(request(), deps({ signal: controller.signal, emit, graceMs: 600_000 }));
    expect(result.type).not.toBe('refused');
    const warnings = events.filter((e) => e.type === 'warning').map((e) => (e.type === 'warning' ? e.message : ''));
    expect(warnings).toContain(
      `interrupted while p/a (process group ${orphan.pid}) stopped after SIGINT; it was not killed: ` +
        `check it (ps -g ${orphan.pid}) before the next run`,
    );
    expect(orphan.exitCode).toBeNull();
    expect(orphan.signalCode).toBeNull();
    expect(executor.started).toEqual([]);
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

const warnings = (events: readonly WalkEvent[]): string[] =>
  events.flatMap((e) => (e.type === 'warning' ? [e.message] : []));

describe('executeRun over a state file it cannot read', () => {
  it.each([
    [
      'a newer platctl',
      '{"version": 2, "platctl_version": "1.4.0"}',
      'has version 2, written by a newer platctl (1.4.0)',
    ],
    ['a corrupt file', '{"version": 1, "units": ', 'is not JSON'],
    ['an array', '[]', 'is not a platctl state file: it holds an array'],
  ])('%s: keeps it as a dated backup, says where, and starts a new run', async (_what, text, why) => {
    const { root, request, deps, events } = await setup(new AutoExecutor(graph, () => 0));
    await writeFile(join(root, STATE_FILE), text);
    const result = await executeRun(request(), deps({ now: () => Date.UTC(2026, 0, 29, 10, 15) }));
    expect(result).toMatchObject({ type: 'finished', status: 'completed' });
    const backup = `${STATE_FILE}.bak-20260129T101500.000Z`;
    expect(warnings(events)).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^${join(root, STATE_FILE)} ${why.replace(/[()]/g, '\\$&')}.*; kept it as ${backup.replace(/\./g, '\\.')} and started a new run$`,
        ),
      ),
    );
    expect(await readFile(join(root, backup), 'utf8')).toBe(text);
    expect(parseState(await readFile(join(root, STATE_FILE), 'utf8')).type).toBe('ok');
  });

  it('refuses --resume over it and leaves it where it is', async () => {
    const { root, request, deps } = await setup(new AutoExecutor(graph, () => 0));
    await writeFile(join(root, STATE_FILE), '{"hello": 1}');
    const result = await executeRun(request({ resume: true }), deps());
    expect(result).toMatchObject({
      type: 'invalid',
      reason: 'state-unreadable',
      message: `${join(root, STATE_FILE)} is not a platctl state file: it has no "version" field`,
    });
    expect(await readdir(root)).toEqual([STATE_FILE]);
  });
});

describe.skipIf(!MOUNTS)('executeRun on a disk that refuses writes (needs the right to mount)', () => {
  it('a read-only repository (EROFS): refuses before anything runs, naming the lock file and the cause', async () => {
    const executor = new AutoExecutor(graph, () => 0);
    const { root, request, deps } = await setup(executor);
    await mountReadOnly(root);
    const result = await executeRun(request(), deps());
    expect(result).toEqual({
      type: 'refused',
      reason: 'disk-error',
      message: `cannot create ${join(root, '.platctl.lock')}: the file system is read-only (EROFS); run platctl from a writable checkout; nothing was run`,
    });
    expect(executor.started).toEqual([]);
  });

  it('a read-only log directory (EROFS): refuses before anything runs and releases the lock', async () => {
    const executor = new AutoExecutor(graph, () => 0);
    const { root, request, deps } = await setup(executor);
    await mkdir(join(root, '.platctl-logs'));
    await mountReadOnly(join(root, '.platctl-logs'));
    const result = await executeRun(request(), deps());
    expect(result).toMatchObject({
      type: 'refused',
      reason: 'disk-error',
      message: `cannot create the log directory ${join(root, '.platctl-logs', 'run-1')}: the file system is read-only (EROFS); run platctl from a writable checkout; nothing was run`,
    });
    expect(executor.started).toEqual([]);
    expect(await readdir(root)).toEqual(['.platctl-logs']);
  });

  it('a disk that fills up mid-run (ENOSPC on a tmpfs): stops, still finishes with its summary, never tears the state', async () => {
    const executor = new ControlledExecutor();
    const { request, deps, events } = await setup(executor);
    const root = join(await tempDir(), 'small');
    await mountTmpfs(root, 256);
    const run = executeRun(request({ root }), deps());
    await executor.waitForStarted(1);
    expect(executor.runningIds()).toEqual(['p/floor']);
    await fillDisk(root);
    // More output than the log's last page holds: its write fails too.
    executor.running.get('p/floor')?.hooks.output.line('x'.repeat(8192));
    executor.finish('p/floor');
    const result = await run;
    const statePath = join(root, STATE_FILE);
    expect(result).toMatchObject({ type: 'finished', status: 'failed' });
    if (result.type !== 'finished') return;
    expect(result.problems).toEqual([
      expect.stringContaining(`cannot write ${statePath}: no space is left on the device (ENOSPC)`),
      `cannot write ${statePath}: no space is left on the device (ENOSPC); free some space on that disk; the file still shows an earlier moment of this run, so --resume may run again units that completed since`,
    ]);
    // Nothing new started once the state could not be written; what ran is known in memory for the summary.
    expect(executor.started).toEqual(['p/floor']);
    expect(result.state.units['p/floor']?.status).toBe('completed');
    expect(result.state.units['p/a']?.status).toBe('pending');
    expect(warnings(events)).toContainEqual(
      expect.stringMatching(/^cannot finish the log of p\/floor .*: cannot write .*0_p__floor\.log: no space is left/),
    );
    // On disk: the last whole state (p/floor still running), no temp file, and the lock released.
    const onDisk = parseState(await readFile(statePath, 'utf8'));
    expect(onDisk.type === 'ok' && onDisk.state.units['p/floor']?.status).toBe('running');
    const names = await readdir(root);
    expect(names.filter((n) => n.includes('.tmp-') || n.startsWith('.platctl.lock'))).toEqual([]);
  });
});
