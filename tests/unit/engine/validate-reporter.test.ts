import { describe, expect, it } from 'vitest';
import type { ValidateReport } from '../../../engine/check-report.js';
import { makePaint } from '../../../engine/reporters/paint.js';
import { formatDuration, renderTable, renderVerdict, toJson } from '../../../engine/reporters/validate.js';

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
