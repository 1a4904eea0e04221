import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WalkEvent } from '../../../engine/events.js';
import type { Graph } from '../../../engine/graph.js';
import { waveIndex } from '../../../engine/graph.js';
import type { RunState } from '../../../engine/state.js';
import { STATE_FILE, StateStore } from '../../../engine/state.js';
import type { Executor } from '../../../engine/executor.js';
import { walk } from '../../../engine/walk.js';
import type { HookSettings, NamedHook as Hook } from '../../../engine/hooks.js';
import {
  AutoExecutor,
  ControlledExecutor,
  MemoryLog,
  diamond,
  graphOf,
  manualClock,
  runState,
  tempDir,
} from './helpers.js';
import { until } from '../../helpers/wait.js';

function freshState(graph: Graph, completed: readonly string[] = []): RunState {
  const waves = waveIndex(graph);
  const units: RunState['units'] = {};
  for (const id of graph.ids()) {
    units[id] = {
      status: completed.includes(id) ? 'completed' : 'pending',
      attempts: completed.includes(id) ? 1 : 0,
      wave: waves.get(id) ?? 0,
      dependencies: [...(graph.get(id)?.dependencies ?? [])].sort(),
      log: `.platctl-logs/r/${waves.get(id) ?? 0}_${id.replaceAll('/', '__')}.log`,
    };
  }
  return runState(units);
}

async function setup(graph: Graph, completed: readonly string[] = [], makeLog = () => new MemoryLog()) {
  const root = await tempDir();
  const store = new StateStore(root, freshState(graph, completed), { fsync: false, coalesceMs: 5 });
  const events: WalkEvent[] = [];
  const logs = new Map<string, MemoryLog>();
  const controller = new AbortController();
  const clock = manualClock();
  const start = (executor: Executor, options: { parallelism?: number; failFast?: boolean } = {}) =>
    walk({
      graph,
      store,
      executor,
      command: 'bootstrap',
      parallelism: options.parallelism ?? 2,
      failFast: options.failFast ?? false,
      signal: controller.signal,
      now: clock.now,
      emit: (e) => events.push(e),
      job: (unit) => ({ absDir: `/repo/live/${unit}`, tfArgs: [], timeoutMs: 60_000 }),
      openLog: (unit) => {
        const log = makeLog();
        logs.set(unit, log);
        return Promise.resolve(log);
      },
    });
  return { root, store, events, logs, controller, clock, start };
}

describe('walk', () => {
  it('records when each unit became ready, so a report can tell waiting for a slot from running', async () => {
    const { store, clock, start } = await setup(diamond());
    const executor = new ControlledExecutor();
    const done = start(executor, { parallelism: 2 });
    await executor.waitForStarted(2);
    const t0 = new Date(clock.now()).toISOString();
    // a and x ready at the start; b, c wait for a; d and e for more.
    expect(store.unit('p/a')).toMatchObject({ ready_at: t0, started_at: t0 });
    expect(store.unit('p/b')?.ready_at).toBeUndefined();
    clock.advance(1000);
    executor.finish('p/a');
    await executor.waitForStarted(3);
    const t1 = new Date(clock.now()).toISOString();
    // x still holds a slot: c is ready since a ended but waits for one.
    expect(store.unit('p/b')).toMatchObject({ ready_at: t1, started_at: t1 });
    expect(store.unit('p/c')).toMatchObject({ status: 'pending', ready_at: t1 });
    clock.advance(500);
    executor.finish('p/x');
    await executor.waitForStarted(4);
    expect(store.unit('p/c')).toMatchObject({ ready_at: t1, started_at: new Date(clock.now()).toISOString() });
    for (const unit of ['p/b', 'p/c']) executor.finish(unit);
    await executor.waitForStarted(5);
    executor.finish('p/d');
    await executor.waitForStarted(6);
    executor.finish('p/e');
    await done;
  });

  it('runs every unit once, dependencies first, never above the concurrency limit', async () => {
    // A random layered DAG of 60 units with random durations.
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const edges: [string, string][] = [];
    for (let i = 1; i < 60; i += 1) {
      for (let k = 0; k < 3; k += 1) if (random() < 0.5) edges.push([`p/u${i}`, `p/u${Math.floor(random() * i)}`]);
    }
    const graph = graphOf(
      edges,
      Array.from({ length: 60 }, (_, i) => `p/u${i}`),
    );
    for (const limit of [1, 3, 8]) {
      const { start } = await setup(graph);
      const executor = new AutoExecutor(graph, () => Math.floor(random() * 4));
      const result = await start(executor, { parallelism: limit });
      expect(result.status).toBe('completed');
      expect(executor.violations).toEqual([]);
      expect(executor.maxConcurrent).toBeLessThanOrEqual(limit);
      expect(new Set(executor.started).size).toBe(60);
      expect(executor.started).toHaveLength(60);
    }
  });

  it('records running in the state file before the unit is spawned', async () => {
    const graph = graphOf([], ['p/a']);
    const { root, start } = await setup(graph);
    let onDisk: string | undefined;
    const executor: Executor = {
      commandLine: () => ['x'],
      run: async () => {
        const state = JSON.parse(await readFile(join(root, STATE_FILE), 'utf8')) as RunState;
        onDisk = state.units['p/a']?.status;
        return { type: 'completed' };
      },
    };
    await start(executor);
    expect(onDisk).toBe('running');
  });

  it('skips the dependents of a failure through a diamond, lets the rest finish, and says why', async () => {
    const graph = diamond();
    const { store, events, start } = await setup(graph);
    const executor = new ControlledExecutor();
    const done = start(executor, { parallelism: 2 });
    await executor.waitForStarted(2);
    expect(executor.runningIds()).toEqual(['p/a', 'p/x']);
    executor.finish('p/a');
    await executor.waitForStarted(3);
    // x still runs, so one slot: b and c are both ready; b goes first (tie by id).
    expect(executor.runningIds()).toEqual(['p/b', 'p/x']);
    executor.fail('p/b');
    await executor.waitForStarted(4);
    expect(executor.runningIds()).toEqual(['p/c', 'p/x']);
    executor.finish('p/c');
    executor.finish('p/x');
    const result = await done;
    expect(result.status).toBe('failed');
    expect(result.counts).toMatchObject({ completed: 3, failed: 1, skipped: 2 });
    expect(store.unit('p/d')).toMatchObject({
      status: 'skipped',
      skipped_because: 'p/b',
      skip_reason: 'dependency-failed',
    });
    expect(store.unit('p/e')).toMatchObject({ status: 'skipped', skipped_because: 'p/b' });
    expect(store.unit('p/b')).toMatchObject({
      status: 'failed',
      reason: 'exit-non-zero',
      exit_code: 1,
      error: 'exit code 1: Error: p/b broke',
    });
    const failed = events.find((e) => e.type === 'unit-failed');
    expect(failed).toMatchObject({ unit: 'p/b', last_lines: ['Error: p/b broke'] });
    // The skips are announced before anything else starts.
    const types = events.map((e) =>
      e.type === 'unit-started' || e.type === 'unit-skipped' ? `${e.type}:${e.unit}` : e.type,
    );
    expect(types.indexOf('unit-skipped:p/d')).toBeLessThan(types.indexOf('unit-started:p/c'));
  });

  it('records a failure before its slot is reused: with one slot no dependent of it ever starts', async () => {
    const graph = diamond();
    const { start } = await setup(graph);
    const executor = new AutoExecutor(graph, () => 0, new Set(['p/a']));
    const result = await start(executor, { parallelism: 1 });
    expect(executor.started.sort()).toEqual(['p/a', 'p/x']);
    expect(result.counts).toMatchObject({ failed: 1, skipped: 4, completed: 1 });
  });

  it('stops starting units after the first failure with --fail-fast, and lets running ones finish', async () => {
    const graph = graphOf([], ['p/a', 'p/b', 'p/c', 'p/d']);
    const { store, start } = await setup(graph);
    const executor = new ControlledExecutor();
    const done = start(executor, { parallelism: 2, failFast: true });
    await executor.waitForStarted(2);
    executor.fail('p/a');
    // p/b keeps running; nothing new starts. Waiting for the walk to record the fail-fast skips (a condition, not a
    // time) proves it handled the failure and freed p/a's slot before we look at what it started.
    await until(() => store.unit('p/c')?.status === 'skipped' && store.unit('p/d')?.status === 'skipped');
    await new Promise((resolve) => setImmediate(resolve));
    expect(executor.started).toEqual(['p/a', 'p/b']);
    executor.finish('p/b');
    const result = await done;
    expect(result.counts).toMatchObject({ failed: 1, completed: 1, skipped: 2 });
    expect(store.unit('p/c')).toMatchObject({ status: 'skipped', skipped_because: 'p/a', skip_reason: 'fail-fast' });
  });

  it('never re-runs units already completed (resume) and counts them as satisfied', async () => {
    const graph = diamond();
    const { start } = await setup(graph, ['p/a', 'p/b', 'p/x']);
    const executor = new AutoExecutor(graph, () => 0);
    for (const unit of ['p/a', 'p/b', 'p/x']) executor.finished.add(unit);
    const result = await start(executor);
    expect(executor.started).toEqual(['p/c', 'p/d', 'p/e']);
    expect(result.status).toBe('completed');
  });

  it('on interruption starts nothing new, marks running units interrupted and leaves the rest pending', async () => {
    const graph = diamond();
    const { store, controller, events, start } = await setup(graph);
    const executor = new ControlledExecutor();
    const done = start(executor);
    await executor.waitForStarted(2);
    controller.abort('SIGINT');
    const result = await done;
    expect(result.status).toBe('interrupted');
    expect(store.unit('p/a')?.status).toBe('interrupted');
    expect(store.unit('p/x')?.status).toBe('interrupted');
    expect(store.unit('p/b')?.status).toBe('pending');
    expect(executor.started).toHaveLength(2);
    expect(events.find((e) => e.type === 'interrupting')).toMatchObject({ signal: 'SIGINT', running: ['p/a', 'p/x'] });
  });

  it('treats an executor that throws as a failed unit instead of hanging', async () => {
    const graph = graphOf([['p/b', 'p/a']]);
    const { store, start } = await setup(graph);
    const result = await start({
      commandLine: () => ['x'],
      run: () => Promise.reject(new Error('boom')),
    });
    expect(result.status).toBe('failed');
    expect(store.unit('p/a')).toMatchObject({ status: 'failed', reason: 'spawn-error', error: 'boom' });
    expect(store.unit('p/b')).toMatchObject({ status: 'skipped' });
  });

  it('records the outcome and goes on when a log cannot be finished (disk full)', async () => {
    class UnwritableLog extends MemoryLog {
      override close(): Promise<void> {
        return Promise.reject(new Error('ENOSPC: no space left on device, write'));
      }
    }
    const graph = graphOf([['p/b', 'p/a']]);
    const { store, events, start } = await setup(graph, [], () => new UnwritableLog());
    const executor = new AutoExecutor(graph, () => 0, new Set(['p/b']));
    const result = await start(executor);
    expect(executor.started).toEqual(['p/a', 'p/b']);
    expect(store.unit('p/a')?.status).toBe('completed');
    expect(store.unit('p/b')).toMatchObject({ status: 'failed', reason: 'exit-non-zero' });
    expect(result.status).toBe('failed');
    const warnings = events.flatMap((e) => (e.type === 'warning' ? [e.message] : []));
    expect(warnings).toEqual([
      expect.stringMatching(/^cannot finish the log of p\/a .*: ENOSPC: no space left on device/) as unknown,
      expect.stringMatching(/^cannot finish the log of p\/b .*: ENOSPC/) as unknown,
    ]);
  });

  it('carries measured durations into known_durations_ms', async () => {
    const graph = graphOf([], ['p/a']);
    const { store, clock, start } = await setup(graph);
    await start({
      commandLine: () => ['x'],
      run: () => {
        clock.advance(1234);
        return Promise.resolve({ type: 'completed' });
      },
    });
    expect(store.unit('p/a')?.duration_ms).toBe(1234);
    expect(store.state.known_durations_ms.bootstrap).toEqual({ 'p/a': 1234 });
  });
});

describe('walk: nothing escapes the loop', () => {
  it('finishes and records every unit when a reporter throws on every event', async () => {
    const graph = diamond();
    const { root, store } = await setup(graph);
    const executor = new AutoExecutor(graph, () => 0, new Set(['p/x']));
    const result = await walk({
      graph,
      store,
      executor,
      command: 'bootstrap',
      parallelism: 2,
      failFast: false,
      signal: new AbortController().signal,
      now: () => Date.now(),
      emit: () => {
        throw new Error('reporter exploded');
      },
      job: (unit) => ({ absDir: `/repo/live/${unit}`, tfArgs: [], timeoutMs: 60_000 }),
      openLog: () => Promise.resolve(new MemoryLog()),
    });
    await store.close();
    expect(executor.started.sort()).toEqual(['p/a', 'p/b', 'p/c', 'p/d', 'p/e', 'p/x']);
    expect(result.status).toBe('failed');
    expect(result.counts).toMatchObject({ completed: 5, failed: 1 });
    expect(result.problems).toEqual([expect.stringMatching(/^a reporter failed .*reporter exploded/) as unknown]);
    const onDisk = JSON.parse(await readFile(join(root, STATE_FILE), 'utf8')) as RunState;
    expect(onDisk.units['p/e']?.status).toBe('completed');
    expect(onDisk.units['p/x']?.status).toBe('failed');
  });

  it('fails a unit whose job cannot be built and goes on with the rest', async () => {
    const graph = graphOf([['p/b', 'p/a']], ['p/x']);
    const { store } = await setup(graph);
    const executor = new AutoExecutor(graph, () => 0);
    const result = await walk({
      graph,
      store,
      executor,
      command: 'bootstrap',
      parallelism: 2,
      failFast: false,
      signal: new AbortController().signal,
      now: () => Date.now(),
      emit: () => undefined,
      job: (unit) => {
        if (unit === 'p/a') throw new Error('no directory for p/a');
        return { absDir: `/repo/live/${unit}`, tfArgs: [], timeoutMs: 60_000 };
      },
      openLog: () => Promise.resolve(new MemoryLog()),
    });
    expect(executor.started).toEqual(['p/x']);
    expect(store.unit('p/a')).toMatchObject({ status: 'failed', reason: 'spawn-error', error: 'no directory for p/a' });
    expect(store.unit('p/b')).toMatchObject({ status: 'skipped', skipped_because: 'p/a' });
    expect(result.counts).toMatchObject({ completed: 1, failed: 1, skipped: 1 });
  });

  it('records a bug after the unit ran (outside its try block) instead of an unhandled rejection, and saves the state', async () => {
    class BrokenTail extends MemoryLog {
      override lastLines(): string[] {
        throw new Error('tail broke');
      }
    }
    const graph = graphOf([['p/b', 'p/a']], ['p/x']);
    const { root, store, start } = await setup(graph, [], () => new BrokenTail());
    const executor = new AutoExecutor(graph, () => 0, new Set(['p/a']));
    const result = await start(executor, { parallelism: 1 });
    await store.close();
    expect(result.status).toBe('failed');
    expect(result.problems).toEqual([
      expect.stringMatching(/^internal error in unit p\/a \(a bug in platctl\): tail broke; stopping$/) as unknown,
    ]);
    // The failure itself was recorded before the bug; nothing new started after it.
    expect(executor.started).toEqual(['p/a']);
    const onDisk = JSON.parse(await readFile(join(root, STATE_FILE), 'utf8')) as RunState;
    expect(onDisk.units['p/a']).toMatchObject({ status: 'failed', reason: 'exit-non-zero' });
    expect(onDisk.units['p/x']?.status).toBe('pending');
  });
});

describe('walk: named hooks around a unit', () => {
  const settings: HookSettings = { type: 'crd_two_stage', units: ['p/a'], targets: ['x.y'] };

  async function withHooks(graph: Graph, hooks: (unit: string) => Hook[], completed: string[] = []) {
    const env = await setup(graph, completed);
    const run = (executor: Executor) =>
      walk({
        graph,
        store: env.store,
        executor,
        command: 'bootstrap',
        parallelism: 2,
        failFast: false,
        signal: env.controller.signal,
        now: env.clock.now,
        emit: (e) => env.events.push(e),
        job: (unit) => ({ absDir: `/repo/live/${unit}`, tfArgs: ['-var=a=1'], timeoutMs: 60_000 }),
        openLog: (unit) => {
          const log = new MemoryLog();
          env.logs.set(unit, log);
          return Promise.resolve(log);
        },
        hooks: (unit) => hooks(unit).map((hook) => ({ hook, settings })),
      });
    return { ...env, run };
  }

  it('fails the unit with reason hook-failed when a before-unit hook fails: no apply, dependents skipped', async () => {
    const graph = graphOf([['p/b', 'p/a']]);
    const hook: Hook = {
      name: 'eni_ip_validation',
      beforeUnit: (ctx) => {
        ctx.log(`checking subnets of ${ctx.unit} in ${ctx.env}`);
        return Promise.resolve({ ok: false, reason: 'too-few-free-ips', message: 'subnet-1 has 3 free IPs, needs 64' });
      },
    };
    const { store, events, logs, run } = await withHooks(graph, (unit) => (unit === 'p/a' ? [hook] : []));
    const executor = new AutoExecutor(graph, () => 0);
    const result = await run(executor);
    expect(executor.started).toEqual([]);
    expect(result.counts).toMatchObject({ failed: 1, skipped: 1 });
    expect(store.unit('p/a')).toMatchObject({
      status: 'failed',
      reason: 'hook-failed',
      error: 'hook eni_ip_validation: subnet-1 has 3 free IPs, needs 64',
      hooks: { 'before-unit:eni_ip_validation': { status: 'failed', detail: 'subnet-1 has 3 free IPs, needs 64' } },
    });
    expect(store.unit('p/b')).toMatchObject({ status: 'skipped', skipped_because: 'p/a' });
    expect(logs.get('p/a')?.lines).toEqual([
      '# hook eni_ip_validation (before-unit)',
      'checking subnets of p/a in p',
      '# hook eni_ip_validation (before-unit): FAILED: subnet-1 has 3 free IPs, needs 64',
    ]);
    const seen = events.flatMap((e) =>
      e.type === 'hook-started' || e.type === 'hook-finished' || e.type === 'unit-failed'
        ? [`${e.type}:${'hook' in e ? String(e.hook) : ''}`]
        : [],
    );
    expect(seen).toEqual([
      'hook-started:eni_ip_validation',
      'hook-finished:eni_ip_validation',
      'unit-failed:eni_ip_validation',
    ]);
  });

  it('runs after-unit hooks once the apply completed, and fails the unit when one fails', async () => {
    const graph = graphOf([], ['p/a']);
    const order: string[] = [];
    const hook: Hook = {
      name: 'argocd_account_token',
      afterUnit: () => {
        order.push('after');
        return Promise.resolve({ ok: false, reason: 'unreachable', message: 'Argo CD answered 503' });
      },
    };
    const { store, run } = await withHooks(graph, () => [hook]);
    const executor: Executor = {
      commandLine: () => ['tg', 'apply'],
      run: () => {
        order.push('apply');
        return Promise.resolve({ type: 'completed' });
      },
    };
    await run(executor);
    expect(order).toEqual(['apply', 'after']);
    expect(store.unit('p/a')).toMatchObject({ status: 'failed', reason: 'hook-failed' });
  });

  it('turns a hook that throws into hook-failed (a bug) instead of losing the unit', async () => {
    const graph = graphOf([], ['p/a', 'p/x']);
    const hook: Hook = { name: 'secret_cleanup', beforeUnit: () => Promise.reject(new Error('oops')) };
    const { store, run } = await withHooks(graph, (unit) => (unit === 'p/a' ? [hook] : []));
    const result = await run(new AutoExecutor(graph, () => 0));
    expect(store.unit('p/a')).toMatchObject({
      status: 'failed',
      reason: 'hook-failed',
      error: 'hook secret_cleanup: the hook threw (a bug in platctl): oops',
    });
    expect(store.unit('p/x')?.status).toBe('completed');
    expect(result.status).toBe('failed');
  });

  it('gives hooks an apply of the unit with extra arguments under its own header, and skips a hook that finished before', async () => {
    const graph = graphOf([], ['p/a']);
    const jobs: string[][] = [];
    const executor: Executor = {
      commandLine: (job) => ['tg', job.command, ...job.tfArgs],
      run: (job, hooks) => {
        jobs.push([...job.tfArgs]);
        hooks.output.line(`applied ${job.tfArgs.join(' ')}`);
        return Promise.resolve({ type: 'completed' });
      },
    };
    let calls = 0;
    const hook: Hook = {
      name: 'crd_two_stage',
      beforeUnit: async (ctx) => {
        calls += 1;
        const stage = await ctx.apply(['-target=kubernetes_manifest.crd'], 'crd_two_stage: stage 1 (CRDs)');
        return stage.ok ? { ok: true, value: 'CRDs applied' } : stage;
      },
    };
    const first = await withHooks(graph, () => [hook]);
    await first.run(executor);
    expect(jobs).toEqual([['-var=a=1', '-target=kubernetes_manifest.crd'], ['-var=a=1']]);
    expect(first.logs.get('p/a')?.lines).toEqual([
      '# hook crd_two_stage (before-unit)',
      '# ---- crd_two_stage: stage 1 (CRDs)',
      '# command: tg apply -var=a=1 -target=kubernetes_manifest.crd',
      'applied -var=a=1 -target=kubernetes_manifest.crd',
      '# hook crd_two_stage (before-unit): ok: CRDs applied',
      '# ---- apply p/a',
      '# command: tg apply -var=a=1',
      'applied -var=a=1',
    ]);
    expect(first.store.unit('p/a')?.hooks?.['before-unit:crd_two_stage']).toMatchObject({ status: 'completed' });

    // A resumed attempt whose stage 1 already applied starts at stage 2.
    jobs.length = 0;
    const second = await withHooks(graph, () => [hook]);
    second.store.patchUnit('p/a', { hooks: { 'before-unit:crd_two_stage': { status: 'completed', ended_at: 'x' } } });
    await second.run(executor);
    expect(calls).toBe(1);
    expect(jobs).toEqual([['-var=a=1']]);
    expect(second.store.unit('p/a')?.status).toBe('completed');
  });
});
