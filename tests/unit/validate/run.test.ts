import { describe, expect, it } from 'vitest';
import { failure, ok } from '../../../cloud/result.js';
import { planChecks } from '../../../validate/plan.js';
import { runChecks } from '../../../validate/run.js';
import type { ValidateDeps } from '../../../validate/deps.js';
import type { PlanInput, PlannedCheck } from '../../../validate/plan.js';
import type { CheckEvent, CheckResult } from '../../../validate/types.js';
import { until } from '../../helpers/wait.js';
import type { FakeCloudAnswers } from './fakes.js';
import { fakeCloud, fakeDeps, makeConfig, s3State, unit, unitMap } from './fakes.js';

const stateUnits = (n: number) =>
  unitMap(
    ...Array.from({ length: n }, (_, i) =>
      unit(`platform/app-${String(i).padStart(2, '0')}`, s3State(`platform/app-${i}`)),
    ),
  );

async function run(
  input: Partial<PlanInput>,
  answers: FakeCloudAnswers,
  depsOverrides: Partial<ValidateDeps> = {},
  concurrency = 8,
) {
  const calls: string[] = [];
  const plan = planChecks({ config: makeConfig(), units: stateUnits(3), ...input });
  if (!plan.ok) throw new Error(plan.message);
  const report = await runChecks({
    checks: plan.checks,
    deps: fakeDeps({ platform: fakeCloud('platform', answers, calls) }, depsOverrides),
    concurrency,
  });
  const status = Object.fromEntries(
    report.checks.map((c) => [c.id, c.skippedBecause ? `skip<-${c.skippedBecause}` : c.status]),
  );
  return { report, calls, status };
}

describe('runChecks', () => {
  it('passes a healthy platform', async () => {
    const { report, status } = await run({}, {});
    expect(report.healthy).toBe(true);
    expect(Object.values(status).every((s) => s === 'pass')).toBe(true);
    expect(report.checks.map((c) => c.id)).toEqual([
      'iam/credentials:platform',
      'iam/deployer_role:platform',
      'iam/state_bucket:platform',
      'unit/state:platform/app-00',
      'unit/state:platform/app-01',
      'unit/state:platform/app-02',
    ]);
  });

  it('turns an expired SSO session into one failure and skips the rest of the environment', async () => {
    const { report, calls, status } = await run(
      {
        config: makeConfig({ validate: { tailscale: { binary: 'tailscale' } } }),
      },
      {
        preflight: () =>
          Promise.resolve({
            ok: false,
            reason: 'sso-expired',
            message: 'the SSO session of profile platform expired at 2026-06-01T11:00:00.000Z',
            hint: 'run `aws sso login --profile platform`',
          }),
      },
      {
        runCommand: () =>
          Promise.resolve({
            type: 'exited',
            exitCode: 0,
            stdout: JSON.stringify({ BackendState: 'Running' }),
            stderr: '',
          }),
      },
    );
    expect(report.healthy).toBe(false);
    expect(status).toEqual({
      'iam/credentials:platform': 'fail',
      'iam/deployer_role:platform': 'skip<-iam/credentials:platform',
      'iam/state_bucket:platform': 'skip<-iam/credentials:platform',
      'unit/state:platform/app-00': 'skip<-iam/credentials:platform',
      'unit/state:platform/app-01': 'skip<-iam/credentials:platform',
      'unit/state:platform/app-02': 'skip<-iam/credentials:platform',
      'tailscale/status:local': 'pass',
    });
    expect(report.checks.filter((c) => c.status === 'fail' || c.status === 'error')).toHaveLength(1);
    expect(report.checks[0]?.hint).toBe('run `aws sso login --profile platform`');
    expect(calls).toEqual(['platform:preflight']);
  });

  it('skips the units when the state bucket is unreadable, naming the bucket check', async () => {
    const { status, calls } = await run(
      {},
      { checkBucket: () => Promise.resolve(failure('not-found', 'bucket tf-state-platform does not exist')) },
    );
    expect(status['iam/state_bucket:platform']).toBe('fail');
    expect(status['iam/deployer_role:platform']).toBe('pass');
    expect(status['unit/state:platform/app-01']).toBe('skip<-iam/state_bucket:platform');
    expect(calls.filter((c) => c.includes('readState'))).toEqual([]);
  });

  it('stops an environment whose credentials are rejected mid-run', async () => {
    let reads = 0;
    const { status } = await run(
      {},
      {
        readState: () => {
          reads += 1;
          return Promise.resolve(
            failure('auth', 'AWS rejected the credentials: ExpiredToken', 'run `aws sso login --profile platform`'),
          );
        },
      },
      {},
      1,
    );
    expect(reads).toBe(1);
    expect(status['unit/state:platform/app-00']).toBe('error');
    expect(status['unit/state:platform/app-01']).toBe('skip<-unit/state:platform/app-00');
    expect(status['unit/state:platform/app-02']).toBe('skip<-unit/state:platform/app-00');
  });

  it('times out a check that never answers, without hanging the run', async () => {
    const started = Date.now();
    const { report, status } = await run(
      { config: makeConfig({ validate: { timeout: '200ms' } }) },
      {
        readState: (_bucket, key) =>
          key.startsWith('app-1') ? new Promise(() => undefined) : Promise.resolve(ok({ resources: 1, bytes: 1 })),
      },
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(status['unit/state:platform/app-01']).toBe('error');
    expect(report.checks.find((c) => c.id === 'unit/state:platform/app-01')?.message).toBe(
      'timed out: no answer within 0.2s',
    );
    expect(status['unit/state:platform/app-02']).toBe('pass');
  });

  it('never runs more checks at once than the concurrency', async () => {
    let inFlight = 0;
    let peak = 0;
    const plan = planChecks({ config: makeConfig(), units: stateUnits(20) });
    if (!plan.ok) throw new Error(plan.message);
    const cloud = fakeCloud('platform', {
      readState: async () => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        return ok({ resources: 1, bytes: 1 });
      },
    });
    const report = await runChecks({ checks: plan.checks, deps: fakeDeps({ platform: cloud }), concurrency: 3 });
    expect(report.healthy).toBe(true);
    expect(peak).toBe(3);
  });

  it('skips the checks that read the cluster when its API does not answer', async () => {
    const units = unitMap(
      unit('platform/eks'),
      unit('platform/cilium'),
      unit('platform/argocd'),
      unit('platform/vpc', s3State('platform/vpc')),
    );
    const { status } = await run(
      { units, config: makeConfig({ validate: { gateway: { namespace: 'gateway', name: 'public' } } }) },
      { kube: () => Promise.resolve(failure('unreachable', 'cannot reach the API server https://x (ECONNREFUSED)')) },
    );
    expect(status).toMatchObject({
      'cluster/api:platform': 'fail',
      'unit/eks_cluster:platform/eks': 'skip<-cluster/api:platform',
      'unit/cilium_agent:platform/cilium': 'skip<-cluster/api:platform',
      'unit/argocd_apps:platform/argocd': 'skip<-cluster/api:platform',
      'gateway/status:gateway/public': 'skip<-cluster/api:platform',
      'unit/state:platform/vpc': 'pass',
    });
  });

  it('an interrupted run is never reported healthy, even when nothing it finished failed', async () => {
    const plan = planChecks({ config: makeConfig(), units: stateUnits(3) });
    if (!plan.ok) throw new Error(plan.message);
    const interrupt = new AbortController();
    const cloud = fakeCloud('platform', {
      assumeRole: () => {
        // Ctrl-C (or cron's SIGTERM) arrives after the credentials check passed, while the role is being assumed.
        interrupt.abort();
        return Promise.resolve(ok({ arn: 'arn:aws:sts::111111111111:assumed-role/Deployer/platctl-validate' }));
      },
    });
    const report = await runChecks({
      checks: plan.checks,
      deps: fakeDeps({ platform: cloud }),
      concurrency: 8,
      signal: interrupt.signal,
    });
    expect(report.checks.find((c) => c.id === 'iam/credentials:platform')?.status).toBe('pass');
    expect(report.checks.filter((c) => c.status === 'fail' || c.status === 'error')).toEqual([]);
    expect(report.checks.filter((c) => c.message === 'skipped: interrupted').length).toBeGreaterThan(0);
    expect(report.healthy).toBe(false);
  });

  it('an interrupt ends the checks in flight at once, reported as interrupted rather than as timeouts', async () => {
    const plan = planChecks({ config: makeConfig({ validate: { timeout: '5s' } }), units: stateUnits(3) });
    if (!plan.ok) throw new Error(plan.message);
    const interrupt = new AbortController();
    const cloud = fakeCloud('platform', {
      readState: () => {
        setTimeout(() => interrupt.abort('SIGTERM'), 20);
        return new Promise(() => undefined);
      },
    });
    const started = Date.now();
    const report = await runChecks({
      checks: plan.checks,
      deps: fakeDeps({ platform: cloud }),
      concurrency: 1,
      signal: interrupt.signal,
    });
    expect(Date.now() - started).toBeLessThan(2000);
    const states = report.checks.filter((c) => c.check === 'unit/state');
    expect(states.map((c) => [c.status, c.message])).toEqual([
      ['skip', 'skipped: interrupted while running'],
      ['skip', 'skipped: interrupted'],
      ['skip', 'skipped: interrupted'],
    ]);
    expect(report.healthy).toBe(false);
  });

  it('reports a crashing check as an error instead of failing the run', async () => {
    const { status, report } = await run({}, { checkBucket: () => Promise.reject(new Error('boom')) });
    expect(status['iam/state_bucket:platform']).toBe('error');
    expect(report.checks.find((c) => c.id === 'iam/state_bucket:platform')?.message).toBe('check crashed: boom');
  });

  describe('on the engine scheduler', () => {
    /** An HTTP check of `name` (`http/endpoint:<name>`) that requires the named checks. */
    const check = (name: string, ...requires: string[]): PlannedCheck => ({
      id: `http/endpoint:${name}`,
      check: 'http/endpoint',
      target: name,
      phase: 'cross',
      requires: requires.map((r) => `http/endpoint:${r}`),
      timeoutMs: 10_000,
      timeoutIsFailure: true,
      spec: { kind: 'http-endpoint', url: `http://${name}.test/`, expect: [200] },
    });

    /** Fake endpoints that answer only when the test says so; counts the requests in flight and their peak. */
    function endpoints() {
      const waiting = new Map<string, (status: number) => void>();
      const asked: string[] = [];
      let peak = 0;
      const fetch: typeof globalThis.fetch = (url) => {
        const name = new URL(url instanceof Request ? url.url : url).hostname.replace(/\.test$/, '');
        asked.push(name);
        return new Promise((resolve) => {
          waiting.set(name, (status) => {
            waiting.delete(name);
            resolve(new Response(null, { status }));
          });
          peak = Math.max(peak, waiting.size);
        });
      };
      const answer = async (name: string, status: number): Promise<void> => {
        await until(() => waiting.has(name), 5000, `${name} to be asked`);
        waiting.get(name)?.(status);
      };
      return { fetch, waiting, asked, answer, peak: () => peak };
    }

    it('skips the dependents of a failed check with its name, while independent checks use every slot', async () => {
      const http = endpoints();
      const ended: CheckResult[] = [];
      const running = runChecks({
        checks: [
          check('gate'),
          check('a'),
          check('b'),
          check('c'),
          check('after-gate', 'gate'),
          check('after-that', 'after-gate'),
        ],
        deps: fakeDeps({}, { fetch: http.fetch }),
        concurrency: 2,
        onResult: (result) => ended.push(result),
      });
      await until(() => http.waiting.size === 2, 5000, 'two checks in flight');
      expect([...http.waiting.keys()]).toEqual(['gate', 'a']);
      await http.answer('gate', 500);
      // The gate's failure skips both dependents at once, without a slot: the freed slot goes to b.
      await until(() => http.waiting.has('b'), 5000, 'b to start in the freed slot');
      expect(ended.map((r) => r.id)).toEqual([
        'http/endpoint:gate',
        'http/endpoint:after-gate',
        'http/endpoint:after-that',
      ]);
      expect(http.waiting.size).toBe(2);
      await http.answer('a', 200);
      await http.answer('b', 200);
      await http.answer('c', 200);
      const report = await running;

      expect(http.peak()).toBe(2);
      expect(http.asked).toEqual(['gate', 'a', 'b', 'c']);
      expect(report.checks.map((c) => [c.target, c.status, c.message, c.skippedBecause])).toEqual([
        ['gate', 'fail', 'HTTP 500, expected 200', undefined],
        ['a', 'pass', 'HTTP 200', undefined],
        ['b', 'pass', 'HTTP 200', undefined],
        ['c', 'pass', 'HTTP 200', undefined],
        ['after-gate', 'skip', 'skipped: http/endpoint:gate did not pass', 'http/endpoint:gate'],
        ['after-that', 'skip', 'skipped: http/endpoint:gate did not pass', 'http/endpoint:gate'],
      ]);
      expect(report.healthy).toBe(false);
    });

    it('names the first required check that failed, whichever failed first, once all of them ended', async () => {
      const http = endpoints();
      const ended: string[] = [];
      const running = runChecks({
        checks: [check('x'), check('y'), check('both', 'x', 'y')],
        deps: fakeDeps({}, { fetch: http.fetch }),
        concurrency: 2,
        onResult: (result) => ended.push(result.target),
      });
      await http.answer('y', 503);
      await until(() => ended.includes('y'), 5000, 'y to end');
      // Still waiting for x: the skip is reported once the cause it names is known.
      expect(ended).toEqual(['y']);
      await http.answer('x', 404);
      const report = await running;
      expect(ended).toEqual(['y', 'x', 'both']);
      expect(report.checks.find((c) => c.target === 'both')).toMatchObject({
        status: 'skip',
        message: 'skipped: http/endpoint:x did not pass',
        skippedBecause: 'http/endpoint:x',
        durationMs: 0,
      });
      expect(http.asked).toEqual(['x', 'y']);
    });

    it('emits check-started as a check starts and check-finished as each ends, a skipped check with no start', async () => {
      const http = endpoints();
      const events: CheckEvent[] = [];
      const running = runChecks({
        checks: [check('gate'), check('a'), check('after-gate', 'gate')],
        deps: fakeDeps({}, { fetch: http.fetch }),
        concurrency: 2,
        emit: (event) => events.push(event),
      });
      await until(() => http.waiting.size === 2, 5000, 'two checks in flight');
      expect(events.map((e) => [e.type, e.id])).toEqual([
        ['check-started', 'http/endpoint:gate'],
        ['check-started', 'http/endpoint:a'],
      ]);
      expect(events[0]).toEqual({
        type: 'check-started',
        at: expect.any(String) as string,
        id: 'http/endpoint:gate',
        check: 'http/endpoint',
        target: 'gate',
        phase: 'cross',
      });
      await http.answer('gate', 500);
      await http.answer('a', 200);
      const report = await running;
      expect(events.map((e) => [e.type, e.id])).toEqual([
        ['check-started', 'http/endpoint:gate'],
        ['check-started', 'http/endpoint:a'],
        ['check-finished', 'http/endpoint:gate'],
        ['check-finished', 'http/endpoint:after-gate'],
        ['check-finished', 'http/endpoint:a'],
      ]);
      // The finished event carries the result in the events' snake_case.
      const skipped = report.checks.find((c) => c.target === 'after-gate');
      expect(events[3]).toEqual({
        type: 'check-finished',
        at: expect.any(String) as string,
        id: 'http/endpoint:after-gate',
        check: 'http/endpoint',
        target: 'after-gate',
        phase: 'cross',
        status: 'skip',
        message: skipped?.message,
        duration_ms: 0,
        skipped_because: 'http/endpoint:gate',
      });
    });

    it('ends a circle of checks with an error instead of waiting forever', async () => {
      const http = endpoints();
      const running = runChecks({
        checks: [check('free'), check('p', 'q'), check('q', 'p')],
        deps: fakeDeps({}, { fetch: http.fetch }),
        concurrency: 2,
      });
      await http.answer('free', 200);
      await expect(running).rejects.toThrow('validate: the checks depend on each other in a circle');
    });

    it('refuses a check that requires one not planned, before running anything', async () => {
      const http = endpoints();
      await expect(
        runChecks({ checks: [check('a', 'nowhere')], deps: fakeDeps({}, { fetch: http.fetch }), concurrency: 1 }),
      ).rejects.toThrow('validate: a check depends on the unknown check http/endpoint:nowhere');
      expect(http.asked).toEqual([]);
    });
  });
});
