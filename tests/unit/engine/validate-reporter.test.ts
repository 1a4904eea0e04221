import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CheckEvent, ValidateReport } from '../../../engine/check-report.js';
import type { RunEvent } from '../../../engine/events.js';
import { isCheckEvent, isParkEvent } from '../../../engine/events.js';
import { makePaint } from '../../../engine/reporters/paint.js';
import {
  ValidateReporter,
  formatDuration,
  renderTable,
  renderVerdict,
  toJson,
} from '../../../engine/reporters/validate.js';

const PLAIN = { paint: makePaint(false), color: false };
const COLOUR = { paint: makePaint(true), color: true };

const unhealthy: ValidateReport = {
  healthy: false,
  durationMs: 1234,
  checks: [
    {
      id: 'iam/credentials:platform',
      check: 'iam/credentials',
      target: 'platform',
      phase: 'iam',
      status: 'fail',
      message: 'the SSO session of profile platform expired at 2026-06-01T11:00:00.000Z',
      hint: 'run `aws sso login --profile platform`',
      durationMs: 12.4,
    },
    {
      id: 'unit/eks_cluster:platform/eks',
      check: 'unit/eks_cluster',
      target: 'platform/eks',
      phase: 'units',
      status: 'skip',
      message: 'skipped: iam/credentials:platform did not pass',
      skippedBecause: 'iam/credentials:platform',
      durationMs: 0,
    },
    {
      id: 'unit/argocd_apps:preprod/argocd',
      check: 'unit/argocd_apps',
      target: 'preprod/argocd',
      phase: 'units',
      status: 'fail',
      message: '1 of 2 Applications not Synced/Healthy: backstage',
      details: ['backstage: OutOfSync/Degraded'],
      durationMs: 45,
    },
    {
      id: 'tailscale/status:local',
      check: 'tailscale/status',
      target: 'local',
      phase: 'cross',
      status: 'pass',
      message: 'Running',
      durationMs: 3,
    },
  ],
};

describe('render', () => {
  it('prints an aligned table with details and hints under failures', () => {
    expect(renderTable(unhealthy, PLAIN)).toBe(
      [
        'CHECK             TARGET          RESULT  TIME  MESSAGE',
        'iam/credentials   platform        FAIL    12ms  the SSO session of profile platform expired at 2026-06-01T11:00:00.000Z',
        '    -> run `aws sso login --profile platform`',
        'unit/eks_cluster  platform/eks    SKIP    0ms   skipped: iam/credentials:platform did not pass',
        'unit/argocd_apps  preprod/argocd  FAIL    45ms  1 of 2 Applications not Synced/Healthy: backstage',
        '    backstage: OutOfSync/Degraded',
        'tailscale/status  local           PASS    3ms   Running',
        '',
      ].join('\n'),
    );
  });

  it('colours only the result column when asked', () => {
    const table = renderTable(unhealthy, COLOUR);
    expect(table).toContain('\x1b[31mFAIL  \x1b[39m');
    expect(table).toContain('\x1b[32mPASS  \x1b[39m');
  });

  it('says healthy or not in one line', () => {
    expect(renderVerdict(unhealthy, PLAIN)).toBe('UNHEALTHY: 2 failed, 1 skipped, 1 passed of 4 checks (1.2s)\n');
    const healthy: ValidateReport = { healthy: true, durationMs: 80, checks: unhealthy.checks.slice(3) };
    expect(renderVerdict(healthy, PLAIN)).toBe('healthy: 1 of 1 checks passed (80ms)\n');
  });

  it('produces the version 1 JSON document', () => {
    const json = toJson(unhealthy);
    expect(json).toMatchObject({ version: 1, healthy: false, duration_ms: 1234 });
    expect(json.checks[1]).toEqual({
      id: 'unit/eks_cluster:platform/eks',
      check: 'unit/eks_cluster',
      target: 'platform/eks',
      phase: 'units',
      status: 'skip',
      message: 'skipped: iam/credentials:platform did not pass',
      duration_ms: 0,
      skipped_because: 'iam/credentials:platform',
    });
    expect(json.checks[0]?.duration_ms).toBe(12);
    expect(formatDuration(1500)).toBe('1.5s');
  });
});

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

describe('ValidateReporter: the still-running lines of a non-terminal', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const now = () => new Date(Date.now()).toISOString();
  const target = {
    id: 'iam/credentials:platform',
    check: 'iam/credentials',
    target: 'platform',
    phase: 'iam',
  } as const;
  const started = (): CheckEvent => ({ type: 'check-started', at: now(), ...target, env: 'platform' });
  const finished = (): CheckEvent => ({
    type: 'check-finished',
    at: now(),
    ...target,
    env: 'platform',
    status: 'pass',
    message: 'arn:aws:sts::123456789012:assumed-role/Deployer/me',
    duration_ms: 31_000,
  });

  function reporter(): { out: Collect; reporter: ValidateReporter } {
    const out = new Collect();
    return { out, reporter: new ValidateReporter({ out, options: { everyMs: 30_000, now: () => Date.now() } }) };
  }

  it('tells check events from the walk and down/up events', () => {
    const walk: RunEvent = { type: 'warning', at: now(), message: 'm' };
    const park: RunEvent = { type: 'step-started', at: now(), env: 'platform', step: 'drain', title: 'Drain' };
    expect([started(), finished(), walk, park].map(isCheckEvent)).toEqual([true, true, false, false]);
    expect([started(), finished()].map(isParkEvent)).toEqual([false, false]);
  });

  it('names the running check every interval, and stops once it finished', () => {
    vi.useFakeTimers({ now: Date.parse('2026-06-01T12:00:00.000Z') });
    const { out, reporter: checks } = reporter();
    checks.event(started());
    vi.advanceTimersByTime(29_999);
    expect(out.text).toBe('');
    vi.advanceTimersByTime(1);
    expect(out.text).toBe('12:00:30 still running: iam/credentials:platform 30.0s\n');
    vi.advanceTimersByTime(1_000);
    checks.event(finished());
    vi.advanceTimersByTime(120_000);
    checks.close();
    expect(out.text).toBe('12:00:30 still running: iam/credentials:platform 30.0s\n');
  });

  it('prints nothing for the walk and down/up events, nor without a heartbeat (a terminal, --json)', () => {
    vi.useFakeTimers({ now: Date.parse('2026-06-01T12:00:00.000Z') });
    const { out, reporter: checks } = reporter();
    checks.event({ type: 'unit-started', at: now(), unit: 'platform/eks', wave: 0, attempt: 1, log: 'l' });
    checks.event({ type: 'step-started', at: now(), env: 'platform', step: 'drain', title: 'Drain the nodes' });
    vi.advanceTimersByTime(90_000);
    checks.close();
    expect(out.text).toBe('');

    const quiet = new ValidateReporter();
    quiet.event(started());
    vi.advanceTimersByTime(90_000);
    quiet.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});
