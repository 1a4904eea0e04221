import { describe, expect, it } from 'vitest';
import type { CheckResult, ManualStep, ManualStepDeps } from '../../hooks/manual-steps.js';
import { checkManualSteps, stepsForRun } from '../../hooks/manual-steps.js';
import { manualClock } from './engine/helpers.js';

const token: ManualStep = {
  id: 'token',
  description: 'export TOKEN',
  check: ['sh', '-c', 'test -n "$TOKEN"'],
  check_timeout: 30_000,
  before: ['p/dns'],
};
const zone: ManualStep = { id: 'zone', description: 'delegate the zone', check_timeout: 30_000 };

function deps(checks: boolean[], overrides: Partial<ManualStepDeps> = {}) {
  const ran: string[][] = [];
  const d: ManualStepDeps = {
    runCheck: (step): Promise<CheckResult> => {
      ran.push(Array.isArray(step.check) ? [...step.check] : [step.check.ssm_parameter]);
      return Promise.resolve(checks.shift() ? { passed: true } : { passed: false, detail: 'exit code 1' });
    },
    yes: false,
    who: 'alice',
    ...overrides,
  };
  return { d, ran };
}
const ctx = { now: manualClock().now, signal: new AbortController().signal, resumed: undefined };

describe('manual steps', () => {
  it('counts only steps whose before units are in the run', () => {
    expect(stepsForRun([token, zone], new Set(['p/vpc'])).map((s) => s.id)).toEqual(['zone']);
    expect(stepsForRun([token, zone], new Set(['p/dns'])).map((s) => s.id)).toEqual(['token', 'zone']);
  });

  it('is silent when the check passes, and records it', async () => {
    const { d } = deps([true]);
    expect(await checkManualSteps([token], d, ctx)).toEqual({
      ok: true,
      manualSteps: { token: { how: 'check', at: '2026-01-01T00:00:00.000Z' } },
    });
  });

  it('without a terminal lists every unsatisfied step and refuses; --yes never bypasses a failing check', async () => {
    const { d } = deps([false], { yes: true });
    const result = await checkManualSteps([token, zone], d, ctx);
    expect(result).toMatchObject({
      ok: false,
      reason: 'manual-steps-not-done',
      message: 'a manual step is not done; nothing was run',
    });
    expect(!result.ok && result.details).toEqual([
      'token: export TOKEN (check ["sh","-c","test -n \\"$TOKEN\\""]: exit code 1)',
    ]);
    const without = await checkManualSteps([token, zone], deps([false]).d, ctx);
    expect(!without.ok && without.details).toHaveLength(2);
  });

  it('on a terminal asks, runs the check again, and refuses when it still fails', async () => {
    const asked: (string | undefined)[] = [];
    const ask = (step: ManualStep, failed: string | undefined) => {
      asked.push(`${step.id}:${failed}`);
      return Promise.resolve(true);
    };
    const fixed = deps([false, true], { ask });
    expect(await checkManualSteps([token], fixed.d, ctx)).toMatchObject({
      ok: true,
      manualSteps: { token: { how: 'confirmed', by: 'alice' } },
    });
    expect(fixed.ran).toHaveLength(2);
    const wrong = deps([false, false], { ask });
    const result = await checkManualSteps([token], wrong.d, ctx);
    expect(!result.ok && result.details).toEqual([
      expect.stringMatching(/^token: its check still fails after it was confirmed done/) as unknown,
    ]);
    expect(asked).toEqual(['token:exit code 1', 'token:exit code 1']);
  });

  it('needs a yes on the terminal or --yes for a step without a check, and records who', async () => {
    expect(await checkManualSteps([zone], deps([], { yes: true }).d, ctx)).toMatchObject({
      ok: true,
      manualSteps: { zone: { how: 'yes', by: 'alice' } },
    });
    expect(await checkManualSteps([zone], deps([], { ask: () => Promise.resolve(false) }).d, ctx)).toMatchObject({
      ok: false,
    });
  });
});
