import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DISCOVER_FIXTURES } from '../helpers/discover-fixtures.js';
import { runCli } from '../helpers/run-cli.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A private copy of a fixture, so the parse cache written into it never touches the repository. */
function copyFixture(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `platctl-graph-${name}-`));
  temps.push(dir);
  cpSync(join(DISCOVER_FIXTURES, name), dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

describe('platctl graph', () => {
  it('prints the exact JSON shape, sorted, with dir relative to the root', async () => {
    const root = copyFixture('cross-env');
    const run = await runCli(['graph', '--format', 'json'], { cwd: join(root, 'live', 'platform') });
    expect(run.code).toBe(0);
    expect(run.stdout.endsWith('\n')).toBe(true);
    expect(JSON.parse(run.stdout)).toEqual({
      version: 1,
      root,
      units: [
        {
          id: 'platform/argocd',
          env: 'platform',
          dir: 'live/platform/argocd',
          dependencies: ['platform/eks', 'preprod/eks'],
          dependents: [],
        },
        {
          id: 'platform/cilium',
          env: 'platform',
          dir: 'live/platform/cilium',
          dependencies: ['platform/eks'],
          dependents: [],
        },
        {
          id: 'platform/eks',
          env: 'platform',
          dir: 'live/platform/eks',
          dependencies: [],
          dependents: ['platform/argocd', 'platform/cilium'],
        },
        {
          id: 'preprod/eks',
          env: 'preprod',
          dir: 'live/preprod/eks',
          dependencies: [],
          dependents: ['platform/argocd'],
        },
      ],
      waves: [
        ['platform/eks', 'preprod/eks'],
        ['platform/argocd', 'platform/cilium'],
      ],
    });
    expect(run.stdout.split('\n')).toHaveLength(2);
  });

  it('--json is --format json; --reverse gives teardown waves', async () => {
    const root = copyFixture('literal');
    const run = await runCli(['graph', '--json', '--reverse', '--config', join(root, '.platctl.yaml')]);
    expect(run.code).toBe(0);
    const graph = JSON.parse(run.stdout) as { waves: string[][] };
    expect(graph.waves).toEqual([['dev/app'], ['dev/db'], ['dev/vpc']]);
  });

  it('filters by --unit (with what it needs) and by --env', async () => {
    const root = copyFixture('cross-env');
    const config = join(root, '.platctl.yaml');
    const unit = await runCli(['graph', '--json', '--config', config, '--unit', 'platform/cilium']);
    expect((JSON.parse(unit.stdout) as { units: { id: string }[] }).units.map((u) => u.id)).toEqual([
      'platform/cilium',
      'platform/eks',
    ]);
    const env = await runCli(['graph', '--json', '--config', config, '--env', 'preprod']);
    expect((JSON.parse(env.stdout) as { units: { id: string }[] }).units.map((u) => u.id)).toEqual(['preprod/eks']);
  });

  it('renders text with waves, the longest chain and external dependencies', async () => {
    const root = copyFixture('cross-env');
    const run = await runCli(['graph', '--config', join(root, '.platctl.yaml')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('wave 1:\n  platform/argocd  <- platform/eks, preprod/eks\n');
    expect(run.stdout).toContain('4 units, 3 edges, 2 waves');
    expect(run.stdout).toContain('platform/eks -> mgmt/state');
  });

  it('renders dot and mermaid with every edge', async () => {
    const root = copyFixture('literal');
    const config = join(root, '.platctl.yaml');
    const dot = await runCli(['graph', '--format', 'dot', '--config', config]);
    expect(dot.stdout).toContain('"dev/app" -> "dev/db";');
    expect(dot.stdout).toContain('"dev/db" -> "dev/vpc";');
    expect(dot.stdout.trim().endsWith('}')).toBe(true);
    const mermaid = await runCli(['graph', '--format', 'mermaid', '--config', config]);
    expect(mermaid.stdout.startsWith('flowchart LR\n')).toBe(true);
    expect(mermaid.stdout.match(/-->/g)).toHaveLength(3);
  });

  it('exits 2 with every problem on stderr when the graph is unusable', async () => {
    const root = copyFixture('err-dangling');
    const run = await runCli(['graph', '--config', join(root, '.platctl.yaml')]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      'live/dev/eks/terragrunt.hcl:3:3: error: dependency "networking" points at live/networking',
    );
    expect(run.stderr).toContain('hint: did you mean live/dev/networking?');
    expect(run.stderr).toContain('the unit graph is not usable: 3 errors');
  });

  it('--allow-unresolved turns expressions that need a real run into warnings', async () => {
    const root = copyFixture('err-unresolved');
    const config = join(root, '.platctl.yaml');
    const strict = await runCli(['graph', '--config', config]);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain('run_cmd');
    expect(strict.stderr).toContain('--allow-unresolved');
    const lenient = await runCli(['graph', '--config', config, '--allow-unresolved']);
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toContain('warning: dependency "peer" config_path cannot be resolved offline');
  });

  it('warns, and keeps the edges, where Terragrunt’s own discovery would leave out a unit’s dependencies', async () => {
    const root = copyFixture('terragrunt-drops-dependencies');
    const config = join(root, '.platctl.yaml');
    for (const args of [['graph'], ['bootstrap', '--dry-run']]) {
      const run = await runCli([...args, '--config', config], { cwd: root });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(
        'live/dev/app/terragrunt.hcl:15:3: warning: Terragrunt would order dev/app without its dependencies (terragrunt find leaves them out, run --all stops with an error); platctl keeps the 2 it computes [terragrunt-drops-dependencies]',
      );
      expect(run.stderr).toContain(
        '  remote_state config reads dependency.vpc.outputs, which Terragrunt does not fetch',
      );
      expect(run.stderr).toContain('live/root.hcl:13:3: warning: Terragrunt would order the units including this file');
      expect(run.stderr).toContain('  remote_state backend reads dependency.db.outputs');
      expect(run.stderr).toContain('  included by unit dev/web');
      expect(run.stderr.match(/\[terragrunt-drops-dependencies\]/g)).toHaveLength(2);
    }
    const json = await runCli(['graph', '--json', '--config', config]);
    const app = (JSON.parse(json.stdout) as { units: { id: string; dependencies: string[] }[] }).units.find(
      (u) => u.id === 'dev/app',
    );
    expect(app?.dependencies).toEqual(['dev/db', 'dev/vpc']);
  });

  it('caps each kind of problem at 20 and counts the rest', async () => {
    const root = copyFixture('literal');
    for (let i = 0; i < 23; i += 1) {
      const dir = join(root, 'live', 'dev', `broken-${String(i).padStart(2, '0')}`);
      cpSync(join(root, 'live', 'dev', 'vpc'), dir, { recursive: true });
      writeFileSync(join(dir, 'terragrunt.hcl'), `dependency "x" {\n  config_path = "../missing-${i}"\n}\n`);
    }
    const run = await runCli(['graph', '--config', join(root, '.platctl.yaml')]);
    expect(run.code).toBe(2);
    expect(run.stderr.match(/\[dangling-path\]/g)).toHaveLength(20);
    expect(run.stderr).toContain(
      '... and 3 more dangling-path errors (23 in all; --verbose or --json lists every one)',
    );
    // --verbose prints every one; --json puts every one, hint included, on stdout.
    const verbose = await runCli(['graph', '--verbose', '--config', join(root, '.platctl.yaml')]);
    expect(verbose.stderr.match(/\[dangling-path\]/g)).toHaveLength(23);
    const json = await runCli(['graph', '--json', '--config', join(root, '.platctl.yaml')]);
    expect(json.code).toBe(2);
    const body = JSON.parse(json.stdout) as { type: string; problems: { kind: string; hint: string }[] };
    expect(body.type).toBe('discovery-failed');
    expect(body.problems).toHaveLength(23);
    expect(body.problems[0]).toMatchObject({ kind: 'dangling-path', severity: 'error' });
    expect(body.problems.every((p) => p.hint.startsWith('fix the path') || p.hint.startsWith('did you mean'))).toBe(
      true,
    );
  });

  it('rejects an unknown --env or --unit with exit 2', async () => {
    const root = copyFixture('literal');
    const config = join(root, '.platctl.yaml');
    const env = await runCli(['graph', '--config', config, '--env', 'dve']);
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('did you mean dev?');
    const unit = await runCli(['graph', '--config', config, '--unit', 'dev/ap']);
    expect(unit.code).toBe(2);
    expect(unit.stderr).toContain('did you mean dev/app?');
  });

  it('a selection that matches no unit says so, with what would match (exit 2), cold and warm', async () => {
    const root = copyFixture('cross-env');
    const config = join(root, '.platctl.yaml');
    // An environment whose dir holds no unit yet.
    mkdirSync(join(root, 'live', 'staging'), { recursive: true });
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace('implicit_deps:', '  staging:\n    dir: live/staging\nimplicit_deps:'),
    );
    for (const round of ['cold', 'warm']) {
      const empty = await runCli(['graph', '--config', config, '--env', 'staging']);
      expect(empty.code, round).toBe(2);
      expect(empty.stdout, round).toBe('');
      expect(empty.stderr, round).toContain('platctl: --env staging: no unit matches the selection');
      expect(empty.stderr, round).toContain('environment staging has no units (none below live/staging)');
      const elsewhere = await runCli(['graph', '--config', config, '--env', 'preprod', '--unit', 'platform/eks']);
      expect(elsewhere.code, round).toBe(2);
      expect(elsewhere.stderr, round).toContain(
        'platctl: --env preprod --unit platform/eks: no unit matches the selection',
      );
      expect(elsewhere.stderr, round).toContain('platform/eks is in environment platform, which --env leaves out');
      expect(elsewhere.stderr, round).toContain('did you mean --env platform?');
      // The whole graph is still fine.
      expect((await runCli(['graph', '--config', config])).code, round).toBe(0);
    }
  });

  it('uses the parse cache on a second run', async () => {
    const root = copyFixture('functions');
    const first = await runCli(['graph', '--json', '--config', join(root, '.platctl.yaml')]);
    const second = await runCli(['graph', '--json', '--config', join(root, '.platctl.yaml')]);
    expect(second.stdout).toBe(first.stdout);
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(root, '.platctl-cache', 'hcl-parse.json'))).toBe(true);
  });
});
