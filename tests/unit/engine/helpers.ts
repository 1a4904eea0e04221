/**
 * Test doubles for the engine: graphs from edge lists, an executor that finishes units when the test says so (like
 * rushstack's AsyncOperationQueue tests), an executor that finishes them by itself, and an in-memory log.
 */
import { Graph } from '../../../engine/graph.js';
import { tempDir as makeTempDir } from '../../helpers/temp.js';
import type { Executor, RunHooks, UnitJob, UnitOutcome } from '../../../engine/executor.js';
import type { LogFooter } from '../../../engine/logs.js';
import type { RunState } from '../../../engine/state.js';
import type { AttemptLog } from '../../../engine/walk.js';

/** `[from, to]` means from depends on to. Ids `env/name`. */
export function graphOf(edges: readonly (readonly [string, string])[], extra: readonly string[] = []): Graph {
  const g = new Graph();
  for (const id of [...edges.flat(), ...extra]) g.addNode(id, id.split('/')[0] ?? '', `live/${id}`);
  for (const [from, to] of edges) g.addEdge(from, to);
  return g;
}

/** A scratch directory removed after the test file (see tests/helpers/temp.ts). */
export function tempDir(prefix = 'platctl-engine-'): Promise<string> {
  return makeTempDir(prefix);
}

interface Pending {
  readonly job: UnitJob;
  readonly hooks: RunHooks;
  readonly resolve: (outcome: UnitOutcome) => void;
}

/** Units run until `finish` is called; an abort interrupts them. Tracks concurrency and order. */
export class ControlledExecutor implements Executor {
  readonly started: string[] = [];
  readonly running = new Map<string, Pending>();
  maxConcurrent = 0;
  #waiters: { count: number; resolve: () => void }[] = [];

  commandLine(job: UnitJob): readonly string[] {
    return ['fake-terragrunt', job.command, job.unit];
  }

  run(job: UnitJob, hooks: RunHooks): Promise<UnitOutcome> {
    this.started.push(job.unit);
    return new Promise<UnitOutcome>((resolve) => {
      this.running.set(job.unit, { job, hooks, resolve });
      this.maxConcurrent = Math.max(this.maxConcurrent, this.running.size);
      hooks.signal.addEventListener('abort', () => this.finish(job.unit, { type: 'interrupted', exitCode: 130 }), {
        once: true,
      });
      for (const waiter of [...this.#waiters]) {
        if (this.started.length >= waiter.count) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    });
  }

  /** Ends a running unit (default: success). */
  finish(unit: string, outcome: UnitOutcome = { type: 'completed' }): void {
    const pending = this.running.get(unit);
    if (!pending) return;
    this.running.delete(unit);
    if (outcome.type === 'failed') pending.hooks.output.line(`Error: ${unit} broke`);
    pending.resolve(outcome);
  }

  fail(unit: string): void {
    this.finish(unit, { type: 'failed', reason: 'exit-non-zero', exitCode: 1, message: 'exit code 1' });
  }

  /** Resolves once `count` units have been started in total. */
  waitForStarted(count: number): Promise<void> {
    if (this.started.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  runningIds(): string[] {
    return [...this.running.keys()].sort();
  }
}

/** Finishes every unit after `delay(unit)` ms on its own; `fails` fail. Checks dependencies were done first. */
export class AutoExecutor implements Executor {
  readonly started: string[] = [];
  readonly finished = new Set<string>();
  readonly violations: string[] = [];
  maxConcurrent = 0;
  #running = 0;

  constructor(
    private readonly graph: Graph,
    private readonly delay: (unit: string) => number,
    private readonly fails: ReadonlySet<string> = new Set(),
  ) {}

  commandLine(job: UnitJob): readonly string[] {
    return ['auto', job.unit];
  }

  async run(job: UnitJob, hooks: RunHooks): Promise<UnitOutcome> {
    for (const dep of this.graph.get(job.unit)?.dependencies ?? []) {
      if (!this.finished.has(dep)) this.violations.push(`${job.unit} started before ${dep} finished`);
    }
    this.started.push(job.unit);
    this.#running += 1;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.#running);
    await new Promise((resolve) => setTimeout(resolve, this.delay(job.unit)));
    this.#running -= 1;
    if (this.fails.has(job.unit)) {
      hooks.output.line(`Error: ${job.unit} failed on purpose`);
      return { type: 'failed', reason: 'exit-non-zero', exitCode: 1, message: 'exit code 1' };
    }
    this.finished.add(job.unit);
    return { type: 'completed' };
  }
}

/** An attempt log in memory. */
export class MemoryLog implements AttemptLog {
  readonly lines: string[] = [];
  footer: LogFooter | undefined;

  line(text: string): void {
    this.lines.push(text);
  }

  section(title: string, commandLine: readonly string[]): void {
    this.lines.push(`# ---- ${title}`, `# command: ${commandLine.join(' ')}`);
  }

  lastLines(count: number): string[] {
    return this.lines.slice(-count);
  }

  errorLine(): string | undefined {
    return [...this.lines].reverse().find((l) => /error/i.test(l)) ?? this.lines[this.lines.length - 1];
  }

  close(footer: LogFooter): Promise<void> {
    this.footer = footer;
    return Promise.resolve();
  }
}

/** A clock tests move by hand. */
export function manualClock(start = Date.UTC(2026, 0, 1)): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

/** Lets pending promise callbacks and zero-delay timers run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}

/** A running bootstrap's state holding `units`. */
export function runState(units: RunState['units']): RunState {
  return {
    version: 1,
    run_id: 'r1',
    command: 'bootstrap',
    args: { env: [], unit: [], with_deps: false, parallelism: 4, fail_fast: false },
    started_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    status: 'running',
    graph_fingerprint: 'f',
    platctl_version: 'test',
    resumes: 0,
    known_durations_ms: {},
    units,
  };
}

/** a <- b <- d, a <- c <- d, d <- e, and an independent x (all in env p). */
export function diamond(): Graph {
  return graphOf(
    [
      ['p/b', 'p/a'],
      ['p/c', 'p/a'],
      ['p/d', 'p/b'],
      ['p/d', 'p/c'],
      ['p/e', 'p/d'],
    ],
    ['p/x'],
  );
}
