import { readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  UnitLog,
  formatCommandLine,
  formatDuration,
  logRelPath,
  prepareRunLogs,
  readLogTail,
} from '../../../engine/logs.js';
import { Redactor } from '../../../engine/redact.js';
import { tempDir } from './helpers.js';

const header = (attempt: number) => ({
  title: 'bootstrap',
  unit: 'platform/eks',
  attempt,
  startedAt: '2026-01-01T00:00:00.000Z',
  commandLine: formatCommandLine(['terragrunt', 'run', '--', 'apply', '-var=db_password=hunter22', 'a b']),
  cwd: '/repo/live/platform/eks',
});

describe('unit logs', () => {
  it('names files by wave and id and points latest at the newest run', async () => {
    const root = await tempDir();
    expect(logRelPath('r1', 3, 'preprod/us-east-1/vpc')).toBe('.platctl-logs/r1/3_preprod__us-east-1__vpc.log');
    await prepareRunLogs(root, 'r1');
    await prepareRunLogs(root, 'r2');
    expect(await readlink(join(root, '.platctl-logs', 'latest'))).toBe('r2');
  });

  it('appends attempts with header and footer, redacted and without terminal escapes', async () => {
    const root = await tempDir();
    await prepareRunLogs(root, 'r1');
    const rel = logRelPath('r1', 0, 'platform/eks');
    const first = await UnitLog.open(root, rel, header(1), new Redactor(['supersecretvalue']));
    first.line('\u001b[32mInitializing...\u001b[0m');
    first.line('using supersecretvalue');
    first.line('Error: creating EKS Cluster: AccessDenied');
    first.line('  with aws_eks_cluster.this,');
    expect(first.errorLine()).toBe('Error: creating EKS Cluster: AccessDenied');
    expect(first.lastLines(2)).toEqual(['Error: creating EKS Cluster: AccessDenied', '  with aws_eks_cluster.this,']);
    await first.close({
      result: 'failed (exit-non-zero)',
      exitCode: 1,
      endedAt: '2026-01-01T00:01:00.000Z',
      durationMs: 61_000,
    });
    const second = await UnitLog.open(root, rel, header(2), new Redactor());
    second.line('Apply complete!');
    await second.close({ result: 'completed', exitCode: 0, endedAt: '2026-01-01T00:02:00.000Z', durationMs: 900 });
    const text = await readFile(join(root, rel), 'utf8');
    expect(text).toContain("# command: terragrunt run -- apply -var=db_password=*** 'a b'");
    expect(text).toContain('\nInitializing...\n');
    expect(text).toContain('using ***');
    expect(text).not.toContain('supersecretvalue');
    expect(text).toContain('# result:   failed (exit-non-zero) (exit code 1)');
    expect(text).toContain('# duration: 1m01s');
    expect(text.indexOf('(attempt 1)')).toBeLessThan(text.indexOf('(attempt 2)'));
    expect(await readLogTail(root, rel, 5)).toEqual(['Apply complete!']);
    expect(await readLogTail(root, 'missing.log', 5)).toEqual([]);
  });

  it('formats durations for people', () => {
    expect([850, 12_300, 245_000, 3_720_000].map(formatDuration)).toEqual(['850ms', '12.3s', '4m05s', '1h02m']);
  });
});
