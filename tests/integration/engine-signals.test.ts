import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { gone } from '../process/helpers.js';
import { PLATCTL, printedResumeArgs, sandbox, until } from './engine-helpers.js';
import type { Call, Sandbox } from './engine-helpers.js';

/** Waits until `count` units are running (their fake terragrunt recorded its start). */
async function running(box: Sandbox, count: number): Promise<Call[]> {
  let calls: Call[] = [];
  await until(
    async () => {
      calls = await box.calls();
      return calls.length >= count;
    },
    15_000,
    `${count} running units`,
  );
  return calls;
}

async function logOf(box: Sandbox, unit: string): Promise<string> {
  return readFile(join(box.root, (await box.state()).units[unit]?.log ?? ''), 'utf8').catch(() => '');
}

/**
 * Waits until `count` units run and handle SIGINT: the fake terragrunt records its start before it installs its
 * handler, and a SIGINT in between kills it outright (no "Interrupt received", no exit code 1).
 */
async function listening(box: Sandbox, count: number): Promise<Call[]> {
  const calls = await running(box, count);
  for (const call of calls) {
    await until(async () => (await logOf(box, call.unit)).includes('Initializing the backend'), 15_000, call.unit);
  }
  return calls;
}

/** Every process the fake terragrunt runs recorded (units and their grandchildren) is gone. */
async function noSurvivors(calls: readonly Call[]): Promise<void> {
  for (const call of calls) {
    expect(await gone(call.pid), `unit ${call.unit} pid ${call.pid}`).toBe(true);
    if (call.grandchild_pid !== null) {
      expect(await gone(call.grandchild_pid), `grandchild of ${call.unit}`).toBe(true);
    }
  }
}

describe('interrupting platctl (built CLI, real signals)', () => {
  it('on Ctrl-C forwards SIGINT, waits for the units, saves state, exits 130, and the resume completes', async () => {
    const box = await sandbox();
    await box.control({}, { sleep_ms: 20_000, grandchild: true });
    const child = box.start(['bootstrap']);
    const calls = await listening(box, 2);
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    const output = String(result.stdout);
    expect(output).toContain('SIGINT: starting nothing new; interrupting 2 running unit(s)');
    expect(output).toMatch(/STOPPED platform\/ecr +interrupted/);
    await noSurvivors(calls);
    const state = await box.state();
    expect(state.status).toBe('interrupted');
    expect(state.units['platform/ecr']).toMatchObject({ status: 'interrupted', exit_code: 1 });
    expect(state.units['platform/vpc']?.status).toBe('pending');
    // The unit saw SIGINT and cleaned up like terraform does.
    const log = await box.run(['status']);
    expect(log.exitCode).toBe(1);

    await box.control({});
    const resumed = await box.run(printedResumeArgs(output));
    expect(resumed.exitCode).toBe(0);
    expect((await box.state()).status).toBe('completed');
  });

  it('exits 143 on SIGTERM', async () => {
    const box = await sandbox();
    await box.control({}, { sleep_ms: 20_000 });
    const child = box.start(['bootstrap', '--unit', 'platform/ecr']);
    const calls = await running(box, 1);
    child.kill('SIGTERM');
    expect((await child).exitCode).toBe(143);
    await noSurvivors(calls);
    expect((await box.state()).units['platform/ecr']?.status).toBe('interrupted');
  });

  it('when its terminal goes away (SIGHUP, then every write fails) still stops the units with SIGINT and saves state', async () => {
    const box = await sandbox();
    await box.control({}, { sleep_ms: 20_000 });
    // `script` holds the pseudo-terminal platctl writes to; killing it hangs the terminal up, as closing a window does.
    const terminal = execa('script', ['-qec', `exec node '${PLATCTL}' bootstrap`, '/dev/null'], {
      cwd: box.root,
      env: box.env,
      extendEnv: false,
      reject: false,
    });
    const calls = await listening(box, 2);
    const lock = JSON.parse(await readFile(join(box.root, '.platctl.lock'), 'utf8')) as { pid: number };
    terminal.kill('SIGKILL');
    await terminal;
    expect(await gone(lock.pid, 15_000), 'platctl to finish').toBe(true);
    await noSurvivors(calls);
    const state = await box.state();
    expect(state.status).toBe('interrupted');
    for (const call of calls) {
      expect(state.units[call.unit]?.status, call.unit).toBe('interrupted');
      // SIGINT, not SIGKILL: Terraform released its state lock.
      expect(await logOf(box, call.unit)).toContain('Interrupt received');
    }
    await expect(readFile(join(box.root, '.platctl.lock'))).rejects.toThrow();
  });

  it('on a second Ctrl-C kills units that ignore SIGINT at once instead of waiting out the grace period', async () => {
    const box = await sandbox();
    await box.control({}, { sleep_ms: 60_000, ignore_signals: true, grandchild: true });
    const child = box.start(['bootstrap'], { PLATCTL_KILL_GRACE: '60' });
    const calls = await running(box, 2);
    let printed = '';
    child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    child.kill('SIGINT');
    // Insist once platctl says it handled the first signal (units ignore it): a condition, not a time, so a slow
    // machine cannot deliver both signals before the first is seen and make this a test of one Ctrl-C.
    await until(() => printed.includes('Ctrl-C again to kill now'), 15_000, 'the first signal to be handled');
    expect((await box.state()).units['platform/ecr']?.status).toBe('running');
    const secondAt = Date.now();
    child.kill('SIGINT');
    const result = await child;
    expect(Date.now() - secondAt).toBeLessThan(10_000);
    expect(result.exitCode).toBe(130);
    await noSurvivors(calls);
    const state = await box.state();
    expect(state.status).toBe('interrupted');
    expect(Object.values(state.units).filter((u) => u.status === 'interrupted')).toHaveLength(2);
  });
});
