/**
 * `platctl status` and the park state, the morning after (issue 24): a killed `down` shows as interrupted with the
 * command that finishes it; a parked environment is advised `platctl up`, never `bootstrap` (which refuses it); and
 * the exit code tells a monitor apart: 0 fine, 1 a run or a down/up failed or was killed, 3 a record cannot be read,
 * 4 parked. Local records only: no cloud is reached.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Operation, ParkFile } from '../../park/record.js';
import { saveParkFile } from '../../park/record.js';
import { PARK_BUCKET, parkConfig, sampleParkRecord } from '../helpers/park-fixture.js';
import { runCli } from '../helpers/run-cli.js';

function downJournal(status: Operation['status'], running = 'karpenter'): Operation {
  return {
    op: 'down',
    started_at: '2026-11-30T22:00:00.000Z',
    by: { host: 'cron-host', user: 'cron' },
    status,
    resumes: 0,
    steps: {
      record: { status: 'completed', duration_ms: 1200, detail: 'recorded 1 node groups' },
      [running]: { status: status === 'completed' ? 'completed' : status === 'failed' ? 'failed' : 'running' },
      'verify-cost-zero': { status: status === 'completed' ? 'completed' : 'pending' },
    },
  };
}

describe('platctl status: park verdicts and advice', { timeout: 60_000 }, () => {
  let root: string;
  let config: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'platctl-park-verdict-'));
    mkdirSync(join(root, 'live', 'platform'), { recursive: true });
    config = join(root, '.platctl.yaml');
    // No state bucket: the record is local, and status reaches no cloud.
    writeFileSync(config, parkConfig().replace(`, state_bucket: ${PARK_BUCKET}`, ''));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const status = (json = false) =>
    runCli(['status', ...(json ? ['--json'] : []), '--config', config], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: root },
    });
  const save = (file: Partial<ParkFile>) =>
    saveParkFile(root, { version: 1, env: 'platform', durations_ms: {}, ...file });
  const lockBy = (pid: number, command: string) =>
    writeFileSync(
      join(root, '.platctl.lock'),
      JSON.stringify({ pid, host: hostname(), command, started_at: '2026-11-30T22:00:00.000Z' }),
    );

  it('parked with no bootstrap run: advises platctl up, not bootstrap, and exits 4', async () => {
    await save({ record: sampleParkRecord('parked'), last: downJournal('completed') });
    const text = await status();
    expect(text.code).toBe(4);
    expect(text.stdout).toContain('platform: PARKED since 2026-11-30T22:00:00.000Z by cron@cron-host');
    expect(text.stdout).toContain(`    Bring it back with: platctl up --env platform --config ${config}`);
    expect(text.stderr).toContain('platform is parked: platctl up --env platform brings it back');
    expect(text.stderr).not.toContain('run platctl bootstrap');
    expect((await status(true)).code).toBe(4);

    // Brought back: nothing to report, exit 0 (a checkout that only parks has no bootstrap run).
    await save({ record: sampleParkRecord('unparked'), last: { ...downJournal('completed'), op: 'up' } });
    const fine = await status();
    expect(fine.code, fine.stderr).toBe(0);
    expect(fine.stdout).toContain('platform: not parked');
    expect(fine.stdout).not.toContain('Bring it back');
    // No record of anything at all: as before, exit 1 and "run platctl bootstrap".
    rmSync(join(root, '.platctl-park'), { recursive: true });
    const nothing = await status();
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('run platctl bootstrap');
  });

  it('a killed down: interrupted, how that is known, and the command that finishes it; exit 1', async () => {
    await save({ record: sampleParkRecord('parked'), last: downJournal('running') });
    // Its lock is still there, held by a pid that is gone (kill -9 leaves it).
    const child = execa(process.execPath, ['-e', '0']);
    const pid = child.pid ?? 1;
    await child;
    lockBy(pid, 'platctl down --yes');

    const text = await status();
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `    last down: interrupted (platctl was killed: pid ${pid} on ${hostname()}, which held the lock, is gone:`,
    );
    expect(text.stdout).toMatch(/ {6}interrupted +karpenter/);
    expect(text.stdout).not.toMatch(/last down: running/);
    expect(text.stdout).toContain(`    Resume with: platctl down --resume --env platform --config ${config} --yes`);
    const json = JSON.parse((await status(true)).stdout) as { park: { killed: string | null }[] };
    expect(json.park[0]?.killed).toContain('which held the lock, is gone');

    // No lock left at all: killed too.
    rmSync(join(root, '.platctl.lock'));
    expect((await status()).stdout).toContain('last down: interrupted (platctl was killed: it left no lock behind)');

    // While a live platctl down holds the lock it is running, not killed: no resume advice.
    // (A lock without a start time is believed only for a process whose command line says platctl.)
    const live = execa(process.execPath, ['-e', 'setTimeout(() => {}, 60000) // platctl down']);
    try {
      lockBy(live.pid ?? 1, 'platctl down --yes');
      const running = await status();
      expect(running.stdout).toContain('last down: running, started');
      expect(running.stdout).not.toContain('Resume with');
    } finally {
      live.kill('SIGKILL');
      await live.catch(() => undefined);
    }
  });

  it('the only record moved aside (the hint for a damaged one): unknown, never "not parked"; bootstrap refuses', async () => {
    await save({ record: sampleParkRecord('parked'), last: downJournal('completed') });
    const path = join(root, '.platctl-park', 'platform.json');
    renameSync(path, `${path}.damaged`);
    const text = await status();
    expect(text.code).toBe(3);
    expect(text.stdout).toContain(
      `platform: UNKNOWN: its park record cannot be read: ${path} is missing and ${path}.damaged is there: ` +
        "platform's only park record was moved aside",
    );
    expect(text.stdout).toContain('--restore-size GROUP=MIN/MAX/DESIRED');
    const bootstrap = await runCli(['bootstrap', '--env', 'platform', '--config', config], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: root },
    });
    expect(bootstrap.code, bootstrap.stderr).toBe(3);
    expect(bootstrap.stderr).toContain(`cannot tell whether platform is parked: ${path} is missing`);
  });

  it('a failed down: the resume command, exit 1', async () => {
    await save({ record: sampleParkRecord('parked'), last: downJournal('failed') });
    const text = await status();
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('last down: failed');
    expect(text.stdout).toContain(`Resume with: platctl down --resume --env platform --config ${config} --yes`);
  });
});
