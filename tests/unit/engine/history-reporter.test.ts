/** `platctl history`'s table (engine/reporters/history.ts): aligned columns, durations, resumes, no trailing blanks. */
import { describe, expect, it } from 'vitest';
import { renderHistory } from '../../../engine/reporters/history.js';
import type { RunSummary } from '../../../engine/shared-state.js';

const run = (patch: Partial<RunSummary>): RunSummary => ({
  version: 1,
  run_id: 'r1',
  command: 'bootstrap',
  envs: ['p'],
  by: { user: 'ann', host: 'h' },
  started_at: '2026-01-01T10:00:00.123Z',
  updated_at: '2026-01-01T10:00:00.123Z',
  status: 'completed',
  counts: {},
  resumes: 0,
  ...patch,
});

describe('renderHistory', () => {
  it('one aligned line per run, durations in s, m and h, resumes counted', () => {
    const text = renderHistory([
      run({ duration_ms: 42_400 }),
      run({ run_id: 'r22', command: 'teardown', duration_ms: 125_000, resumes: 2, envs: ['p', 'q'] }),
      run({ run_id: 'r3', duration_ms: 3_725_000, status: 'failed' }),
      run({ run_id: 'r4', status: 'running' }),
    ]);
    expect(text).toBe(
      [
        'RUN  VERB       BY     STARTED               DURATION  RESULT                  ENVIRONMENTS',
        'r1   bootstrap  ann@h  2026-01-01T10:00:00Z  42s       completed               p',
        'r22  teardown   ann@h  2026-01-01T10:00:00Z  2m05s     completed (resumed 2x)  p,q',
        'r3   bootstrap  ann@h  2026-01-01T10:00:00Z  1h02m     failed                  p',
        'r4   bootstrap  ann@h  2026-01-01T10:00:00Z  -         running                 p',
        '',
      ].join('\n'),
    );
  });
});
