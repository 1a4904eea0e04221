/**
 * bench/walk: how good the scheduler's order is, and what the engine itself costs.
 *
 *   npm run build && node dist/bench/walk.js [--quick]
 *
 * 1. Makespan quality. Each graph shape is simulated (discrete events, simulated durations) under the engine's
 *    scheduler and, for comparison, Terragrunt's alphabetical ready-queue and the old waves. Printed: makespan divided
 *    by the lower bound max(critical path, total work / parallelism). Target (issue 3): <= 1.10 on every shape.
 *    The scheduler is given each unit's true duration ("exact") and, closer to real life, the last run's duration
 *    off by up to +-30% ("noisy").
 * 2. Engine overhead per unit: the real walk (state file with fsync, per-unit log files) over instant units.
 *    Target: <= 5 ms per unit.
 * 3. A 10,000-unit walk of instant units. Target: < 60 s; the number of state writes shows the coalescing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Executor, UnitOutcome } from '../engine/executor.js';
import { Graph, compareIds, remainingPathWeights, waves, waveIndex } from '../engine/graph.js';
import type { UnitId } from '../engine/graph.js';
import { UnitLog, logRelPath, prepareRunLogs } from '../engine/logs.js';
import { Redactor } from '../engine/redact.js';
import { Scheduler } from '../engine/scheduler.js';
import type { RunState } from '../engine/state.js';
import { StateStore } from '../engine/state.js';
import { walk } from '../engine/walk.js';

/** Deterministic pseudo-random numbers (the printed numbers must be reproducible). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Shape {
  readonly name: string;
  readonly graph: Graph;
  readonly duration: ReadonlyMap<UnitId, number>;
  readonly parallelism: number;
}

function node(g: Graph, id: string): void {
  g.addNode(id, id.split('/')[0] ?? 'p', `live/${id}`);
}

/** A long chain whose first unit sorts last, behind many short units that sort first. */
function hiddenChain(): Shape {
  const g = new Graph();
  const d = new Map<UnitId, number>();
  for (let i = 0; i < 12; i += 1) {
    const id = `p/a-short-${String(i).padStart(2, '0')}`;
    node(g, id);
    d.set(id, 3);
  }
  for (let i = 0; i < 8; i += 1) {
    const id = `p/z-chain-${i}`;
    node(g, id);
    d.set(id, 4);
    if (i > 0) g.addEdge(id, `p/z-chain-${i - 1}`);
  }
  return { name: 'hidden chain (alphabetical loses)', graph: g, duration: d, parallelism: 4 };
}

/** An EKS platform like examples/platform, durations in minutes. */
function platform(): Shape {
  const spec: [string, number, string[]][] = [
    ['iam-roles', 2, []],
    ['kms', 1, []],
    ['ecr', 1, []],
    ['vpc', 4, ['iam-roles']],
    ['dns', 2, ['vpc']],
    ['acm', 5, ['dns']],
    ['eks', 14, ['vpc', 'kms', 'iam-roles']],
    ['cilium', 3, ['eks']],
    ['node-groups', 6, ['cilium']],
    ['karpenter', 3, ['node-groups']],
    ['ebs-csi', 2, ['node-groups']],
    ['external-dns', 2, ['node-groups', 'dns']],
    ['cert-manager', 2, ['node-groups']],
    ['external-secrets', 2, ['node-groups']],
    ['crossplane', 4, ['node-groups']],
    ['gateway', 3, ['cert-manager', 'acm']],
    ['argocd', 4, ['gateway', 'external-secrets']],
    ['monitoring', 5, ['ebs-csi', 'node-groups']],
    ['logging', 3, ['ebs-csi']],
    ['tailscale', 2, ['node-groups']],
    ['backstage-db', 8, ['ebs-csi', 'external-secrets']],
    ['backstage', 3, ['backstage-db', 'argocd']],
    ['cross-vpc-dns', 1, ['tailscale', 'dns']],
    ['bastion', 2, ['vpc']],
    ['waf', 2, ['gateway']],
  ];
  const g = new Graph();
  const d = new Map<UnitId, number>();
  for (const [name, minutes] of spec) {
    node(g, `platform/${name}`);
    d.set(`platform/${name}`, minutes);
  }
  for (const [name, , deps] of spec) for (const dep of deps) g.addEdge(`platform/${name}`, `platform/${dep}`);
  return { name: 'EKS platform (25 units, minutes)', graph: g, duration: d, parallelism: 4 };
}

/** Random layered DAG: each unit needs 1-3 units of earlier layers. */
function layered(units: number, layers: number, parallelism: number, seed: number): Shape {
  const random = rng(seed);
  const g = new Graph();
  const d = new Map<UnitId, number>();
  const byLayer: UnitId[][] = [];
  for (let i = 0; i < units; i += 1) {
    const layer = Math.floor((i * layers) / units);
    const id = `p/u${String(i).padStart(5, '0')}`;
    node(g, id);
    // Heavy-tailed durations: most units are quick, a few are slow (EKS clusters, databases).
    d.set(id, Math.max(1, Math.round(Math.exp(random() * 3.5))));
    (byLayer[layer] ??= []).push(id);
    if (layer > 0) {
      const deps = 1 + Math.floor(random() * 3);
      for (let k = 0; k < deps; k += 1) {
        const from = Math.floor(random() * layer);
        const pool = byLayer[from] ?? [];
        const dep = pool[Math.floor(random() * pool.length)];
        if (dep !== undefined) g.addEdge(id, dep);
      }
    }
  }
  return {
    name: `layered DAG (${units} units, ${layers} layers, p=${parallelism})`,
    graph: g,
    duration: d,
    parallelism,
  };
}

function wide(units: number, parallelism: number, seed: number): Shape {
  const random = rng(seed);
  const g = new Graph();
  const d = new Map<UnitId, number>();
  for (let i = 0; i < units; i += 1) {
    const id = `p/w${String(i).padStart(4, '0')}`;
    node(g, id);
    d.set(id, 1 + Math.floor(random() * 60));
  }
  return { name: `independent units (${units}, p=${parallelism})`, graph: g, duration: d, parallelism };
}

function fan(width: number, parallelism: number, seed: number): Shape {
  const random = rng(seed);
  const g = new Graph();
  const d = new Map<UnitId, number>();
  node(g, 'p/root');
  node(g, 'p/sink');
  d.set('p/root', 5);
  d.set('p/sink', 5);
  for (let i = 0; i < width; i += 1) {
    const id = `p/m${String(i).padStart(3, '0')}`;
    node(g, id);
    d.set(id, 1 + Math.floor(random() * 20));
    g.addEdge(id, 'p/root');
    g.addEdge('p/sink', id);
  }
  return { name: `fan-out/fan-in (${width} wide, p=${parallelism})`, graph: g, duration: d, parallelism };
}

/** Several chains of different lengths with a few cross edges. */
function chains(seed: number): Shape {
  const random = rng(seed);
  const g = new Graph();
  const d = new Map<UnitId, number>();
  const lengths = [3, 5, 7, 9, 12, 15];
  lengths.forEach((length, c) => {
    for (let i = 0; i < length; i += 1) {
      const id = `p/c${c}-${String(i).padStart(2, '0')}`;
      node(g, id);
      d.set(id, 1 + Math.floor(random() * 10));
      if (i > 0) g.addEdge(id, `p/c${c}-${String(i - 1).padStart(2, '0')}`);
    }
  });
  for (let k = 0; k < 8; k += 1) {
    const a = Math.floor(random() * lengths.length);
    const b = Math.floor(random() * lengths.length);
    if (a === b) continue;
    const ia = Math.floor(random() * (lengths[a] ?? 1));
    const ib = Math.floor(random() * (lengths[b] ?? 1));
    // Only forward in a global order (chain index, position) keeps it acyclic.
    const from = `p/c${a}-${String(ia).padStart(2, '0')}`;
    const to = `p/c${b}-${String(ib).padStart(2, '0')}`;
    if (a > b) g.addEdge(from, to);
  }
  return { name: 'six chains with cross edges (p=4)', graph: g, duration: d, parallelism: 4 };
}

/** What list scheduling needs from a ready-queue; the engine's `Scheduler` is one. */
interface ReadyQueue {
  next(): UnitId | undefined;
  complete(id: UnitId): void;
}

/** Terragrunt's runner pool: ready units in alphabetical order. */
class AlphabeticalQueue implements ReadyQueue {
  readonly #graph: Graph;
  readonly #missing = new Map<UnitId, number>();
  #ready: UnitId[];

  constructor(graph: Graph) {
    this.#graph = graph;
    for (const n of graph.nodes.values()) this.#missing.set(n.id, n.dependencies.size);
    this.#ready = graph.ids().filter((id) => this.#missing.get(id) === 0);
  }

  next(): UnitId | undefined {
    this.#ready.sort(compareIds);
    return this.#ready.shift();
  }

  complete(id: UnitId): void {
    for (const dependent of this.#graph.get(id)?.dependents ?? []) {
      const left = (this.#missing.get(dependent) ?? 0) - 1;
      this.#missing.set(dependent, left);
      if (left === 0) this.#ready.push(dependent);
    }
  }
}

/** List scheduling in simulated time: whenever a slot is free, start what the queue hands out. */
function simulate(shape: Shape, queue: ReadyQueue): number {
  const running: { end: number; id: UnitId }[] = [];
  let now = 0;
  for (;;) {
    while (running.length < shape.parallelism) {
      const id = queue.next();
      if (id === undefined) break;
      running.push({ end: now + (shape.duration.get(id) ?? 1), id });
    }
    running.sort((a, b) => a.end - b.end);
    const first = running.shift();
    if (!first) return now;
    now = first.end;
    queue.complete(first.id);
  }
}

/** Terragrunt before v0.89: each wave waits for its slowest unit. */
function simulateWaves(shape: Shape): number {
  let total = 0;
  for (const wave of waves(shape.graph)) {
    const slots = new Array<number>(shape.parallelism).fill(0);
    for (const id of wave) {
      slots.sort((a, b) => a - b);
      slots[0] = (slots[0] ?? 0) + (shape.duration.get(id) ?? 1);
    }
    total += Math.max(...slots);
  }
  return total;
}

function lowerBound(shape: Shape): number {
  const weights = remainingPathWeights(shape.graph, (id) => shape.duration.get(id) ?? 1);
  const criticalPath = Math.max(...weights.values());
  const work = [...shape.duration.values()].reduce((a, b) => a + b, 0);
  return Math.max(criticalPath, work / shape.parallelism);
}

function quality(shapes: readonly Shape[]): boolean {
  console.log(
    '\n1. Makespan / lower bound (lower bound = max(critical path, total work / parallelism); target <= 1.10)\n',
  );
  const header = ['shape', 'platctl exact', 'platctl noisy', 'alphabetical', 'waves'];
  const rows: string[][] = [];
  let ok = true;
  for (const shape of shapes) {
    const lb = lowerBound(shape);
    const noise = rng(99);
    const noisy = new Map([...shape.duration].map(([id, d]) => [id, d * (0.7 + 0.6 * noise())]));
    const exact = simulate(shape, new Scheduler(shape.graph, { weight: (id) => shape.duration.get(id) ?? 1 })) / lb;
    const estimated = simulate(shape, new Scheduler(shape.graph, { weight: (id) => noisy.get(id) ?? 1 })) / lb;
    const alpha = simulate(shape, new AlphabeticalQueue(shape.graph)) / lb;
    const wavesRatio = simulateWaves(shape) / lb;
    if (exact > 1.1) ok = false;
    rows.push([shape.name, exact, estimated, alpha, wavesRatio].map((v) => (typeof v === 'number' ? v.toFixed(3) : v)));
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  console.log(`\n  platctl (exact durations) within 1.10 on every shape: ${ok ? 'yes' : 'NO'}`);
  return ok;
}

/** Runs the real walk over `graph` with units that finish at once; returns wall time and state writes. */
async function realWalk(graph: Graph, parallelism: number): Promise<{ ms: number; writes: number }> {
  const root = mkdtempSync(join(tmpdir(), 'platctl-bench-walk-'));
  try {
    const runId = 'bench';
    const levels = waveIndex(graph);
    const units: RunState['units'] = {};
    for (const id of graph.ids()) {
      const wave = levels.get(id) ?? 0;
      units[id] = {
        status: 'pending',
        attempts: 0,
        wave,
        dependencies: [...(graph.get(id)?.dependencies ?? [])].sort(compareIds),
        log: logRelPath(runId, wave, id),
      };
    }
    const state: RunState = {
      version: 1,
      run_id: runId,
      command: 'bootstrap',
      args: { env: [], unit: [], with_deps: false, parallelism, fail_fast: false },
      started_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
      status: 'running',
      graph_fingerprint: 'bench',
      platctl_version: 'bench',
      resumes: 0,
      known_durations_ms: {},
      units,
    };
    await prepareRunLogs(root, runId);
    const store = new StateStore(root, state, { now: Date.now });
    const instant: Executor = {
      commandLine: (job) => ['terragrunt', 'run', '--working-dir', job.absDir, '--', job.command],
      run: (_job, hooks): Promise<UnitOutcome> => {
        hooks.output.line('Apply complete! Resources: 0 added, 0 changed, 0 destroyed.');
        return Promise.resolve({ type: 'completed' });
      },
    };
    const redactor = new Redactor();
    const started = performance.now();
    const result = await walk({
      graph,
      store,
      executor: instant,
      command: 'bootstrap',
      parallelism,
      failFast: false,
      signal: new AbortController().signal,
      now: Date.now,
      emit: () => undefined,
      job: (unit) => ({ absDir: join(root, unit), tfArgs: [], timeoutMs: 60_000 }),
      openLog: (unit, header) =>
        UnitLog.open(
          root,
          store.unit(unit)?.log ?? '',
          {
            title: 'bootstrap',
            unit,
            attempt: header.attempt,
            startedAt: header.startedAt,
            commandLine: header.commandLine.join(' '),
            cwd: root,
          },
          redactor.fork(),
        ),
    });
    await store.close();
    const ms = performance.now() - started;
    if (result.status !== 'completed') throw new Error(`bench walk ended ${result.status}`);
    return { ms, writes: store.writes };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function overhead(quick: boolean): Promise<boolean> {
  console.log(
    '\n2. Engine overhead per unit (real walk: state file with fsync, one log file per unit; units finish at once)\n',
  );
  let ok = true;
  for (const [units, parallelism] of [
    [1000, 4],
    [1000, 16],
  ] as const) {
    const shape = layered(units, 20, parallelism, 7);
    const { ms, writes } = await realWalk(shape.graph, parallelism);
    const perUnit = ms / units;
    if (perUnit > 5) ok = false;
    console.log(
      `  ${units} units, parallelism ${parallelism}: ${ms.toFixed(0)} ms, ${perUnit.toFixed(2)} ms/unit, ${writes} state writes`,
    );
  }
  console.log(`  within 5 ms per unit: ${ok ? 'yes' : 'NO'}`);

  console.log('\n3. 10,000-unit walk of instant units (target < 60 s)\n');
  const big = layered(quick ? 2000 : 10_000, 50, 4, 11);
  const { ms, writes } = await realWalk(big.graph, 4);
  const bigOk = ms < 60_000 * (quick ? 0.2 : 1);
  console.log(
    `  ${big.graph.size} units, parallelism 4: ${(ms / 1000).toFixed(1)} s, ${(ms / big.graph.size).toFixed(2)} ms/unit, ${writes} state writes (${(big.graph.size / writes).toFixed(1)} units started per write)`,
  );
  console.log(`  under 60 s: ${bigOk ? 'yes' : 'NO'}`);
  return ok && bigOk;
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const shapes = [
    hiddenChain(),
    platform(),
    layered(300, 10, 4, 1),
    layered(300, 10, 8, 2),
    layered(1000, 30, 16, 3),
    wide(400, 4, 4),
    fan(60, 4, 5),
    chains(6),
  ];
  const good = quality(shapes);
  const fast = await overhead(quick);
  process.exitCode = good && fast ? 0 : 1;
}

await main();
