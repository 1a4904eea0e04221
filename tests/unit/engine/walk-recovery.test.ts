/**
 * The walk's recoveries (engine/recovery.ts): consulted only after a unit's own apply exits non-zero, at most once per
 * attempt; a repair means exactly one more apply whose outcome is final; advice joins the unit's error.
 */
import { describe, expect, it } from 'vitest';
import type { WalkEvent } from '../../../engine/events.js';
import type { Executor, RunHooks, UnitJob, UnitOutcome } from '../../../engine/executor.js';
import type { RecoveryContext, RecoveryVerdict, UnitRecovery } from '../../../engine/recovery.js';
import { StateStore } from '../../../engine/state.js';
import { walk } from '../../../engine/walk.js';
import { MemoryLog, graphOf, manualClock, runState, tempDir } from './helpers.js';

const UNIT = 'platform/argocd';
const FAILED: UnitOutcome = { type: 'failed', reason: 'exit-non-zero', exitCode: 1, message: 'exit code 1' };

/** Plays the given outcomes in order, printing a coloured line and `Error: STUCK` before each failure. */
class ScriptedExecutor implements Executor {
  runs = 0;
  constructor(private readonly outcomes: UnitOutcome[]) {}
  commandLine(job: UnitJob): readonly string[] {
    return ['tg', job.command, job.unit];
  }
  run(_job: UnitJob, hooks: RunHooks): Promise<UnitOutcome> {
    const outcome = this.outcomes[this.runs] ?? { type: 'completed' };
    this.runs += 1;
    if (outcome.type === 'failed') {
      hooks.output.line('\u001b[31m╷\u001b[0m');
      hooks.output.line('Error: STUCK');
    }
    return Promise.resolve(outcome);
  }
}

function recovery(verdict: (ctx: RecoveryContext) => RecoveryVerdict | undefined): UnitRecovery & { seen: string[][] } {
  const seen: string[][] = [];
  return {
    name: 'fixit',
    seen,
    handle: (ctx) => {
      seen.push([...ctx.lines]);
      return Promise.resolve(verdict(ctx));
    },
  };
}

async function run(executor: Executor, recoveries: UnitRecovery[], controller = new AbortController()) {
  const graph = graphOf([], [UNIT]);
  const store = new StateStore(
    await tempDir(),
    runState({ [UNIT]: { status: 'pending', attempts: 0, wave: 0, dependencies: [], log: 'x.log' } }),
    { fsync: false, coalesceMs: 5 },
  );
  const events: WalkEvent[] = [];
  const log = new MemoryLog();
  const result = await walk({
    graph,
    store,
    executor,
    command: 'bootstrap',
    parallelism: 1,
    failFast: false,
    signal: controller.signal,
    now: manualClock().now,
    emit: (e) => events.push(e),
    job: () => ({ absDir: '/repo/x', tfArgs: [], timeoutMs: 60_000 }),
    openLog: () => Promise.resolve(log),
    recoveries,
  });
  await store.close();
  return { result, unit: store.unit(UNIT), events, log };
}

describe('walk recoveries', () => {
  it('a repair applies the unit once more; its success completes the unit and is recorded', async () => {
    const executor = new ScriptedExecutor([FAILED]);
    const fix = recovery(() => ({ type: 'recovered', detail: 'cleared it' }));
    const { result, unit, events, log } = await run(executor, [fix]);
    expect(result.status).toBe('completed');
    expect(executor.runs).toBe(2);
    // The recovery reads the output without its escape sequences.
    expect(fix.seen).toEqual([['╷', 'Error: STUCK']]);
    expect(unit?.hooks?.['on-failure:fixit']).toMatchObject({ status: 'completed', detail: 'cleared it' });
    expect(events.filter((e) => e.type === 'hook-finished')).toMatchObject([{ point: 'on-failure', ok: true }]);
    expect(log.lines).toContain(`# ---- apply ${UNIT} again, after fixit: cleared it`);
  });

  it('a second failure after a repair is final: the recovery is not asked again', async () => {
    const executor = new ScriptedExecutor([FAILED, FAILED, { type: 'completed' }]);
    const fix = recovery(() => ({ type: 'recovered', detail: 'cleared it' }));
    const { result, unit } = await run(executor, [fix]);
    expect(result.status).toBe('failed');
    expect(executor.runs).toBe(2);
    expect(fix.seen).toHaveLength(1);
    expect(unit?.error).toBe('exit code 1 (applied a second time after fixit cleared it): Error: STUCK');
  });

  it('advice joins the error and nothing runs again', async () => {
    const executor = new ScriptedExecutor([FAILED]);
    const { unit } = await run(executor, [recovery(() => ({ type: 'advice', advice: 'run this, then resume' }))]);
    expect(executor.runs).toBe(1);
    expect(unit?.status).toBe('failed');
    expect(unit?.error).toBe('exit code 1: Error: STUCK; run this, then resume');
    expect(unit?.hooks).toBeUndefined();
  });

  it('is not asked about a timeout, and a failure it does not know stays as it was', async () => {
    const timeout: UnitOutcome = { type: 'failed', reason: 'timeout', message: 'timed out after 1m' };
    const fix = recovery(() => ({ type: 'recovered', detail: 'x' }));
    const timed = await run(new ScriptedExecutor([timeout]), [fix]);
    expect(fix.seen).toEqual([]);
    expect(timed.unit?.reason).toBe('timeout');
    const unknown = await run(new ScriptedExecutor([FAILED]), [recovery(() => undefined)]);
    expect(unknown.unit?.error).toBe('exit code 1: Error: STUCK');
  });

  it('an interrupt during the repair: the unit is not applied again', async () => {
    const controller = new AbortController();
    const executor = new ScriptedExecutor([FAILED]);
    const fix = recovery(() => {
      controller.abort('SIGINT');
      return { type: 'recovered', detail: 'cleared it' };
    });
    const { result, unit } = await run(executor, [fix], controller);
    expect(executor.runs).toBe(1);
    expect(result.status).toBe('interrupted');
    expect(unit?.status).toBe('interrupted');
  });
});
