/**
 * Ctrl-C during a real apply. PLATCTL_EXAMPLE_DELAY makes platform/eks sleep in a local-exec provisioner while
 * OpenTofu holds its state lock; SIGINT then goes to platctl alone, as a terminal sends it to the foreground
 * process group (the units run in their own groups, so only platctl can pass it on). platctl must forward it, let
 * tofu stop gracefully and release its lock, exit 130 with nothing left running, and `--resume` must finish the job.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StatusJson } from './helpers/platctl.js';
import {
  findFiles,
  processesUnder,
  readState,
  readTfState,
  runPlatctl,
  startPlatctl,
  waitFor,
  useExampleWorkspace,
} from './helpers/platctl.js';

const SLOW = 'platform/eks';

describe('SIGINT during a real bootstrap', () => {
  const example = useExampleWorkspace('interrupt');

  it('stops the running units cleanly, exits 130, leaves no lock and no process, and resumes', async () => {
    const { ws, graph } = example;
    const eksDir = join(ws.root, graph.get(SLOW)!.dir);
    // A long sleep, so nothing but the interruption can end it in time; a grace period longer than the test's bound,
    // so a SIGKILL from platctl cannot pass for a clean stop.
    const child = startPlatctl(ws, ['bootstrap'], {
      env: { PLATCTL_EXAMPLE_DELAY: `${SLOW}=300`, PLATCTL_KILL_GRACE: '60' },
    });
    const eksLog = (): string => {
      const record = existsSync(join(ws.root, '.platctl-state.json')) ? readState(ws).units[SLOW] : undefined;
      return record?.log !== undefined && existsSync(join(ws.root, record.log))
        ? readFileSync(join(ws.root, record.log), 'utf8')
        : '';
    };
    // tofu logs "Provisioning with 'local-exec'" just before it starts the sleep: wait for both.
    const sleepRunning = (): boolean => processesUnder(ws.base).some((p) => /(^|\/)sleep 300$/.test(p.cmdline));
    const sleeping = await waitFor(
      () => eksLog().includes("Provisioning with 'local-exec'") && sleepRunning(),
      120_000,
    );
    expect(sleeping, `${SLOW} never reached its delay`).toBe(true);
    // Mid-apply: tofu holds the unit's state lock.
    expect(existsSync(join(eksDir, '.terraform.tfstate.lock.info'))).toBe(true);

    const signalledAt = Date.now();
    process.kill(child.pid!, 'SIGINT');
    const result = await child;
    const stopMs = Date.now() - signalledAt;
    const stdout = String(result.stdout);
    expect(result.exitCode, `${stdout}\n${String(result.stderr)}`).toBe(130);
    expect(stopMs).toBeLessThan(20_000);
    expect(stdout).toMatch(/SIGINT: starting nothing new; interrupting \d+ running unit/);
    expect(stdout).toMatch(/: interrupted in /);
    expect(stdout).toMatch(/^Resume with: platctl bootstrap --resume$/m);

    const state = readState(ws);
    expect(state.status).toBe('interrupted');
    // tofu stopped by itself (exit 1 after "Gracefully shutting down"), not killed by a signal.
    expect(state.units[SLOW]).toMatchObject({ status: 'interrupted', attempts: 1, exit_code: 1 });
    const statuses = Object.values(state.units).map((u) => u.status);
    expect(statuses.every((s) => ['completed', 'interrupted', 'pending'].includes(s))).toBe(true);
    expect(statuses).toContain('pending');
    const log = eksLog();
    expect(log).toContain('Interrupt received.');
    expect(log).toContain('Gracefully shutting down...');
    expect(log).toContain('# result:   interrupted (exit code 1)');

    // No state lock anywhere in the copy (units' dirs, the dependencies' dirs, the terragrunt caches).
    expect(findFiles(ws.root, '.terraform.tfstate.lock.info')).toEqual([]);
    expect(existsSync(join(ws.root, '.platctl.lock'))).toBe(false);
    // Nothing survives platctl: no terragrunt, no tofu, no provisioner's sleep.
    const gone = await waitFor(() => processesUnder(ws.base).length === 0, 5_000);
    expect(gone, JSON.stringify(processesUnder(ws.base))).toBe(true);

    const status = await runPlatctl(ws, ['status', '--json']);
    expect(status.exitCode).toBe(1);
    expect((JSON.parse(status.stdout) as StatusJson).run).toMatchObject({ status: 'interrupted' });

    // The delay is no longer asked for; the interrupted units and those that never started run now.
    const resumed = await runPlatctl(ws, ['bootstrap', '--resume']);
    expect(resumed.exitCode, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
    const after = readState(ws);
    expect(after).toMatchObject({ run_id: state.run_id, status: 'completed', resumes: 1 });
    expect(after.units[SLOW]).toMatchObject({ status: 'completed', attempts: 2, exit_code: 0 });
    for (const [id, unit] of Object.entries(after.units)) expect(unit.status, id).toBe('completed');
    for (const [id, unit] of graph) expect(readTfState(ws, unit).resources.length, id).toBeGreaterThan(0);
    expect(findFiles(ws.root, '.terraform.tfstate.lock.info')).toEqual([]);
    expect(processesUnder(ws.base)).toEqual([]);
  });
});
