/**
 * The dry-run plan cannot drift from the run: its lockdown (unlock) steps are the applies the lockdown run makes for
 * the same configuration, and its phases come in the order a run reaches them.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import type { LockDirection } from '../../../engine/events.js';
import { runLockdown } from '../../../engine/lockdown.js';
import type { PhaseApply, PhaseContext, PhaseResult, RunPhaseName, RunPhases } from '../../../engine/phases.js';
import { LOCKDOWN_PHASE, RUN_PHASE_ORDER } from '../../../engine/phases.js';
import { planRun } from '../../../engine/plan.js';
import { ProcessGroups } from '../../../engine/processes.js';
import { Redactor } from '../../../engine/redact.js';
import { makePaint } from '../../../engine/reporters/paint.js';
import { renderWalkPlan } from '../../../engine/reporters/plan.js';
import { executeRun } from '../../../engine/run.js';
import type { RunCommand } from '../../../engine/unit-status.js';
import { buildLockdownPlan, buildWalkPlan } from '../../../engine/walk-plan.js';
import { AutoExecutor, graphOf, manualClock, tempDir } from './helpers.js';

const config = configSchema.parse({
  version: 1,
  environments: { p: { dir: 'live/p' } },
  units: { 'p/eks': { apply_args: ['-lock=false'] } },
  manual_steps: [{ id: 'approval', description: 'Get the change approved' }],
  converge: { waits: [{ id: 'api', http: { url: 'https://api.example.com/healthz' }, after: ['p/eks'] }] },
  lockdown: {
    env: 'p',
    steps: [
      { id: 'split-dns', unit: 'p/tailscale', lock_args: ['-var=split_dns=true'], unlock_args: ['-var=dns=false'] },
      { id: 'private-endpoint', unit: 'p/eks', lock_args: ['-var=public=false'], unlock_args: ['-var=public=true'] },
    ],
  },
});
const lockdown = config.lockdown!;
const graph = graphOf([['p/tailscale', 'p/eks']]);

/** The applies the lockdown run makes in `direction`, as `unit args...`. */
async function appliesOfRun(direction: LockDirection): Promise<string[]> {
  const applies: PhaseApply[] = [];
  const clock = manualClock();
  const ctx: PhaseContext = {
    command: direction === 'lock' ? 'bootstrap' : 'teardown',
    runId: 'r1',
    partial: false,
    signal: new AbortController().signal,
    now: clock.now,
    emit: () => undefined,
    records: () => ({}),
    record: () => Promise.resolve(),
    apply: (request) => {
      applies.push(request);
      return Promise.resolve({ outcome: { type: 'completed' }, output: [], errorLine: undefined, log: 'x.log' });
    },
  };
  expect(await runLockdown(ctx, lockdown, direction)).toEqual({ ok: true });
  return applies.map((a) => [a.unit, ...(config.units[a.unit]?.apply_args ?? []), ...a.extraArgs].join(' '));
}

async function walkPlan(command: RunCommand) {
  const planned = planRun({ command, graph, config, selection: { env: [], unit: [], withDeps: false } });
  if (planned.type !== 'ok') throw new Error(planned.message);
  return buildWalkPlan({
    command,
    plan: planned.plan,
    graphSize: graph.size,
    config,
    lockdownFlag: false,
    commandLine: (unit, tf, args) => [unit, ...args],
    manualSteps: { forRun: () => config.manual_steps, runCheck: () => Promise.resolve({ passed: true }) },
    convergeWaits: () => [
      {
        id: 'api',
        what: 'GET https://api.example.com/healthz',
        env: undefined,
        timeoutMs: 1000,
        wait: { after: ['p/eks'] },
        decision: 'run',
      },
    ],
    signal: new AbortController().signal,
  });
}

describe('the dry-run plan and the run', () => {
  for (const command of ['bootstrap', 'teardown'] as const) {
    const { direction } = LOCKDOWN_PHASE[command];
    it(`${command}: the plan's ${direction} steps are the applies the ${direction} run makes, in its order`, async () => {
      const run = await appliesOfRun(direction);
      expect(run.length).toBe(lockdown.steps.length);
      const view = await walkPlan(command);
      expect(view.lockdown?.direction).toBe(direction);
      expect(view.lockdown?.steps.map((s) => s.command)).toEqual(run);
      const standalone = await buildLockdownPlan({ config, lockdown, direction, commandLine: (u, a) => [u, ...a] });
      expect(standalone.steps.map((s) => s.command)).toEqual(run);
    });
  }

  it('a run reaches its phases in the order of RUN_PHASE_ORDER', async () => {
    const reached: RunPhaseName[] = [];
    const mark = (name: RunPhaseName) => (): Promise<PhaseResult> => {
      reached.push(name);
      return Promise.resolve({ ok: true });
    };
    const phases: RunPhases = {
      beforeRun: () => {
        reached.push('beforeRun');
        return Promise.resolve({ ok: true });
      },
      beforeWalk: mark('beforeWalk'),
      unitHooks: () => {
        if (!reached.includes('walk')) reached.push('walk');
        return [];
      },
      converge: mark('converge'),
      afterWalk: mark('afterWalk'),
    };
    const root = await tempDir();
    const result = await executeRun(
      {
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
      },
      {
        now: () => Date.now(),
        machine: { pid: process.pid, host: 'test-host', isAlive: () => false },
        groups: new ProcessGroups((pid, signal) => process.kill(pid, signal)),
        executor: () => new AutoExecutor(graph, () => 0),
        signal: new AbortController().signal,
        emit: () => undefined,
        redactor: new Redactor(),
        graceMs: 500,
        stateOptions: { fsync: false },
        phases,
      },
    );
    expect(result.type === 'finished' && result.status).toBe('completed');
    expect(reached).toEqual([...RUN_PHASE_ORDER]);
  });

  it('the plan shows each phase in that order: manual steps, the walk, convergence, lockdown', async () => {
    const text = renderWalkPlan(await walkPlan('bootstrap'), makePaint(false));
    const at = ['manual steps', 'wave 0', 'converge (', 'lockdown ('].map((head) => text.indexOf(head));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    const teardown = renderWalkPlan(await walkPlan('teardown'), makePaint(false));
    expect(teardown.indexOf('unlock (before the units)')).toBeLessThan(teardown.indexOf('wave 0'));
  });
});
