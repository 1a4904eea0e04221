/**
 * `platctl report` on the command line: where it writes, the JSON it prints, and every way it refuses (no run, a run
 * that is not the last, a park file it does not understand, an output it cannot write) with what to do.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReportModel } from '../../report/model.js';
import { fixtureState } from '../helpers/report-fixture.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp.js';

const CONFIG = `version: 1
environments:
  platform:
    dir: live/platform
  preprod:
    dir: live/preprod
  prod-eu-west-1-with-a-rather-long-environment-name:
    dir: live/prod
`;

async function repo(withState = true): Promise<string> {
  const root = await tempDir('platctl-report-cli-');
  await writeFile(join(root, '.platctl.yaml'), CONFIG);
  if (withState) {
    const state = fixtureState({ count: 12, parallelism: 3, fail: 'preprod/unit-001' });
    await writeFile(join(root, '.platctl-state.json'), JSON.stringify(state));
  }
  return root;
}

const PARK = {
  version: 1,
  env: 'preprod',
  durations_ms: {},
  record: {
    version: 1,
    env: 'preprod',
    cluster: 'preprod-eks',
    status: 'parked',
    parked_at: '2026-12-04T20:00:00.000Z',
    parked_by: { host: 'ci', user: 'cron' },
    node_groups: { system: { min: 1, max: 3, desired: 2 } },
    karpenter: { nodepools: [], ec2nodeclasses: [] },
    bastions: [],
    argocd: { namespace: 'argocd', apps: [] },
  },
  last: {
    op: 'down',
    started_at: '2026-12-04T20:00:00.000Z',
    by: { host: 'ci', user: 'cron' },
    status: 'completed',
    ended_at: '2026-12-04T20:03:00.000Z',
    resumes: 0,
    steps: {
      record: {
        status: 'completed',
        started_at: '2026-12-04T20:00:00.000Z',
        ended_at: '2026-12-04T20:00:05.000Z',
        duration_ms: 5000,
      },
      'scale-node-groups': {
        status: 'completed',
        started_at: '2026-12-04T20:00:05.000Z',
        ended_at: '2026-12-04T20:03:00.000Z',
        duration_ms: 175_000,
      },
    },
  },
};

describe('platctl report', () => {
  it('writes platctl-report-<run>.html in the working directory and prints its path', async () => {
    const root = await repo();
    const run = await runCli(['report'], { cwd: root });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const file = join(root, 'platctl-report-20261204T200000Z-abc123.html');
    expect(run.stdout).toBe(`${file}\n`);
    const html = await readFile(file, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    // Self-contained: nothing is loaded from anywhere.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).toContain('href=".platctl-logs/run-1/');
  });

  it('prints the same data as JSON with --format json (and --json)', async () => {
    const root = await repo();
    const json = await runCli(['report', '--format', 'json'], { cwd: root });
    expect(json.code).toBe(0);
    const model = JSON.parse(json.stdout) as ReportModel;
    expect(model).toMatchObject({ version: 1, kind: 'walk', run: { id: '20261204T200000Z-abc123', status: 'failed' } });
    expect(model.rows).toHaveLength(12);
    const short = await runCli(['report', '--json'], { cwd: root });
    expect(JSON.parse(short.stdout)).toMatchObject({ rows: model.rows, critical_path: model.critical_path });
  });

  it('keeps only the units of --env', async () => {
    const root = await repo();
    const run = await runCli(['report', '--json', '--env', 'preprod'], { cwd: root });
    const model = JSON.parse(run.stdout) as ReportModel;
    expect(model.rows.length).toBeGreaterThan(0);
    expect(model.rows.every((row) => row.id.startsWith('preprod/'))).toBe(true);
  });

  it('says there is nothing to report when no run is recorded (exit 1)', async () => {
    const root = await repo(false);
    const run = await runCli(['report'], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no bootstrap or teardown run recorded in');
    expect(run.stderr).toContain('nothing to report');
  });

  it('refuses a --run that is not the last run of a local state (exit 2)', async () => {
    const root = await repo();
    const run = await runCli(['report', '--run', '20200101T000000Z-000000'], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not the last run of');
    expect(run.stderr).toContain('state.backend s3 keeps them all');
  });

  it('refuses a state file of another version (exit 2), an unknown --env and --run with --park (exit 2)', async () => {
    const root = await repo();
    await writeFile(join(root, '.platctl-state.json'), JSON.stringify({ version: 99, platctl_version: '9.0.0' }));
    const newer = await runCli(['report'], { cwd: root });
    expect(newer.code).toBe(2);
    expect(newer.stderr).toContain('written by a newer platctl (9.0.0)');
    const env = await runCli(['report', '--env', 'nope'], { cwd: root });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('no environment nope in');
    const both = await runCli(['report', '--park', '--run', 'x'], { cwd: root });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--run and --park cannot be used together');
  });

  it('says where it cannot write (exit 2) and leaves no temp file', async () => {
    const root = await repo();
    const run = await runCli(['report', '--output', 'missing/run.html'], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot write the report to ${join(root, 'missing', 'run.html')}: its directory`);
    expect(run.stderr).toContain('hint: pass --output FILE');
    expect(existsSync(join(root, 'missing'))).toBe(false);
  });

  it('draws the last down/up with --park, and refuses a park file it does not understand (exit 3)', async () => {
    const root = await repo(false);
    await mkdir(join(root, '.platctl-park'));
    await writeFile(join(root, '.platctl-park', 'preprod.json'), JSON.stringify(PARK));
    const run = await runCli(['report', '--park', '--json'], { cwd: root });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const model = JSON.parse(run.stdout) as ReportModel;
    expect(model).toMatchObject({ kind: 'park', run: { command: 'down', status: 'completed', envs: ['preprod'] } });
    expect(model.rows.map((row) => [row.id, row.duration_ms])).toEqual([
      ['preprod/down/record', 5000],
      ['preprod/down/scale-node-groups', 175_000],
    ]);
    expect(model.sizes[0]?.node_groups).toEqual({ system: { min: 1, max: 3, desired: 2 } });
    const html = await runCli(['report', '--park', '--env', 'preprod'], { cwd: root });
    expect(html.code).toBe(0);
    expect(html.stdout).toBe(`${join(root, 'platctl-report-down-preprod.html')}\n`);
    const none = await runCli(['report', '--park', '--env', 'platform'], { cwd: root });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no down or up recorded for platform');
    await writeFile(join(root, '.platctl-park', 'preprod.json'), JSON.stringify({ ...PARK, version: 2 }));
    const bad = await runCli(['report', '--park'], { cwd: root });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('hint:');
  });
});
