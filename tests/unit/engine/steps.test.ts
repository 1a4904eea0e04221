import { describe, expect, it } from 'vitest';
import type { RetryPolicy, Step, StepEnd, StepEvent, StepJournal, TryResult } from '../../../engine/steps.js';
import { describeSteps, runSteps } from '../../../engine/steps.js';

type Event = StepEvent<string, string, undefined>;

/** A journal in memory: what completed, and every call in order. */
function memoryJournal(completed: readonly string[] = []) {
  const done = new Set(completed);
  const calls: string[] = [];
  const journal: StepJournal<string, string> = {
    completed: (name) => done.has(name),
    started: (name, attempt) => {
      calls.push(`started ${name} ${attempt}`);
      return Promise.resolve();
    },
    ended: (name, end: StepEnd<string, string>) => {
      calls.push(`${end.type} ${name} ${end.attempt}`);
      if (end.type === 'done') done.add(name);
      return Promise.resolve();
    },
  };
  return { journal, calls };
}

/** A step answering each try from `answers` (then done), counting its tries. */
function scripted(name: string, answers: TryResult<string, string>[] = [], retry?: RetryPolicy) {
  const tries: number[] = [];
  const step: Step<string, string, undefined, string> = {
    name,
    about: undefined,
    ...(retry ? { retry } : {}),
    run: (attempt) => {
      tries.push(attempt);
      return Promise.resolve(answers.shift() ?? { ok: true, value: `${name} done` });
    },
    describe: () => Promise.resolve(`would run ${name}`),
  };
  return { step, tries };
}

const busy: TryResult<string, string> = { ok: false, failure: 'busy', transient: true };
const broken: TryResult<string, string> = { ok: false, failure: 'broken' };

/** A clock that never moves and a sleep that records its waits and returns at once. */
function fakeTime() {
  const waits: number[] = [];
  return { waits, now: () => 0, sleep: (ms: number) => (waits.push(ms), Promise.resolve()) };
}

describe('the steps runner', () => {
  it('skips the steps the journal says completed, and records each start and end of the others in order', async () => {
    const { journal, calls } = memoryJournal(['a']);
    const steps = [scripted('a'), scripted('b'), scripted('c')];
    const events: Event[] = [];
    const time = fakeTime();
    const outcome = await runSteps(
      steps.map((s) => s.step),
      { journal, signal: new AbortController().signal, ...time, emit: (e) => events.push(e) },
    );
    expect(outcome).toEqual({ type: 'completed' });
    expect(steps.map((s) => s.tries)).toEqual([[], [1], [1]]);
    expect(calls).toEqual(['started b 1', 'done b 1', 'started c 1', 'done c 1']);
    expect(events.map((e) => `${e.type} ${e.step}`)).toEqual([
      'skipped a',
      'started b',
      'done b',
      'started c',
      'done c',
    ]);
  });

  it('retries a transient failure under the step policy, never a lasting one, and stops at the first failure', async () => {
    const policy = { attempts: 3, intervalMs: 45_000 };
    const flaky = scripted('flaky', [busy, busy], policy);
    const last = scripted('last', [broken], policy);
    const never = scripted('never');
    const { journal, calls } = memoryJournal();
    const time = fakeTime();
    const events: Event[] = [];
    const outcome = await runSteps([flaky.step, last.step, never.step], {
      journal,
      signal: new AbortController().signal,
      ...time,
      emit: (e) => events.push(e),
    });
    expect(outcome).toEqual({ type: 'failed', step: 'last', attempt: 1, failure: 'broken' });
    expect([flaky.tries, last.tries, never.tries]).toEqual([[1, 2, 3], [1], []]);
    expect(time.waits).toEqual([45_000, 45_000]);
    expect(calls).toEqual([
      'started flaky 1',
      'started flaky 2',
      'started flaky 3',
      'done flaky 3',
      'started last 1',
      'failed last 1',
    ]);
    expect(events.filter((e) => e.type === 'retrying').map((e) => [e.attempt, e.attempts])).toEqual([
      [1, 3],
      [2, 3],
    ]);
  });

  it('gives up on a transient failure after the policy attempts', async () => {
    const always = scripted('always', [busy, busy, busy, busy], { attempts: 2, intervalMs: 1 });
    const { journal } = memoryJournal();
    const outcome = await runSteps([always.step], { journal, signal: new AbortController().signal, ...fakeTime() });
    expect(outcome).toEqual({ type: 'failed', step: 'always', attempt: 2, failure: 'busy' });
    expect(always.tries).toEqual([1, 2]);
  });

  it('starts no step once the fence says the lock is lost', async () => {
    const steps = [scripted('a'), scripted('b'), scripted('c')];
    const answers = [true, false];
    let asked = 0;
    const { journal, calls } = memoryJournal();
    const outcome = await runSteps(
      steps.map((s) => s.step),
      {
        journal,
        signal: new AbortController().signal,
        ...fakeTime(),
        fence: () => Promise.resolve(answers[asked++] ?? false),
      },
    );
    expect(outcome).toEqual({ type: 'fenced', step: 'b' });
    expect(asked).toBe(2);
    expect(calls).toEqual(['started a 1', 'done a 1']);
    expect(steps.map((s) => s.tries)).toEqual([[1], [], []]);
  });

  it('starts no step once the signal aborted', async () => {
    const controller = new AbortController();
    const first: Step<string, string, undefined> = {
      name: 'first',
      about: undefined,
      run: () => {
        controller.abort();
        return Promise.resolve({ ok: true, value: 'ok' });
      },
    };
    const second = scripted('second');
    const { journal } = memoryJournal();
    const outcome = await runSteps([first, second.step], { journal, signal: controller.signal, ...fakeTime() });
    expect(outcome).toEqual({ type: 'interrupted', step: 'second' });
    expect(second.tries).toEqual([]);
  });

  it('an abort during the wait between tries ends the wait at once and the step with its last failure', async () => {
    const controller = new AbortController();
    // An hour between tries, on the real abortable sleep: the test ends only because the abort cuts the wait short.
    const flaky = scripted('flaky', [busy, busy], { attempts: 3, intervalMs: 3_600_000 });
    const after = scripted('after');
    const { journal, calls } = memoryJournal();
    const outcome = await runSteps([flaky.step, after.step], {
      journal,
      signal: controller.signal,
      now: () => 0,
      emit: (e) => {
        if (e.type === 'retrying') controller.abort();
      },
    });
    expect(outcome).toEqual({ type: 'failed', step: 'flaky', attempt: 1, failure: 'busy' });
    expect(flaky.tries).toEqual([1]);
    expect(after.tries).toEqual([]);
    expect(calls).toEqual(['started flaky 1', 'failed flaky 1']);
  });

  it('an exception from a step is a bug: it propagates after the journal saw the step start', async () => {
    const bug: Step<string, string, undefined> = {
      name: 'bug',
      about: undefined,
      run: () => Promise.reject(new Error('a bug')),
    };
    const { journal, calls } = memoryJournal();
    await expect(runSteps([bug], { journal, signal: new AbortController().signal, ...fakeTime() })).rejects.toThrow(
      'a bug',
    );
    expect(calls).toEqual(['started bug 1']);
  });

  it('describes for --dry-run the same steps, in the order a run takes them', async () => {
    const steps = [scripted('z'), scripted('a'), scripted('m')].map((s) => s.step);
    const described: string[] = [];
    for await (const { step, description } of describeSteps(steps)) described.push(`${step}: ${description ?? ''}`);
    const events: Event[] = [];
    await runSteps(steps, {
      journal: memoryJournal().journal,
      signal: new AbortController().signal,
      ...fakeTime(),
      emit: (e) => events.push(e),
    });
    const ran = events.filter((e) => e.type === 'started').map((e) => e.step);
    expect(described).toEqual(['z: would run z', 'a: would run a', 'm: would run m']);
    expect(described.map((d) => d.split(':')[0])).toEqual(ran);
  });
});
