import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyOne } from '../../../engine/apply-one.js';
import type { ApplyOneSettings } from '../../../engine/apply-one.js';
import type { Executor, UnitJob } from '../../../engine/executor.js';
import { Redactor } from '../../../engine/redact.js';
import { tempDir } from '../../helpers/temp.js';

const job = (root: string): UnitJob => ({
  unit: 'platform/eks-nodes',
  command: 'apply',
  absDir: join(root, 'live', 'eks-nodes'),
  tfArgs: [],
  attempt: 1,
  timeoutMs: 60_000,
});

const settings = (root: string, executor: Executor): ApplyOneSettings => ({
  root,
  executor,
  redactor: new Redactor(),
  logDir: '.platctl-logs/up',
  title: 'up',
  now: () => Date.now(),
});

const completes: Executor = {
  commandLine: (j) => ['terragrunt', j.command],
  run: () => Promise.resolve({ type: 'completed' }),
};

describe('applyOne', () => {
  it('a log directory the disk refuses fails the apply, saying which and why; nothing runs', async () => {
    const root = await tempDir('platctl-apply-one-');
    await writeFile(join(root, '.platctl-logs'), 'a file where the log directory goes');
    let ran = false;
    const result = await applyOne(
      settings(root, { ...completes, run: () => ((ran = true), Promise.resolve({ type: 'completed' })) }),
      job(root),
      new AbortController().signal,
    );
    expect(result).toMatchObject({ type: 'failed' });
    expect(result.type === 'failed' && result.message).toMatch(
      new RegExp(`^cannot create the log directory ${join(root, '.platctl-logs', 'up')}: .*; nothing was run$`),
    );
    expect(ran).toBe(false);
  });

  it('a bug while opening the log is thrown as a bug, not reported as a failed apply', async () => {
    const root = await tempDir('platctl-apply-one-');
    const broken: Executor = {
      ...completes,
      commandLine: () => {
        throw new TypeError("Cannot read properties of undefined (reading 'join')");
      },
    };
    await expect(applyOne(settings(root, broken), job(root), new AbortController().signal)).rejects.toThrow(TypeError);
  });

  it('applies and logs a unit', async () => {
    const root = await tempDir('platctl-apply-one-');
    const result = await applyOne(settings(root, completes), job(root), new AbortController().signal);
    expect(result).toEqual({ type: 'completed', log: '.platctl-logs/up/platform__eks-nodes.log' });
  });
});
