/**
 * Differential discovery: platctl's edges must equal real Terragrunt's, as `terragrunt find --dag --json
 * --dependencies --external` reports them, on examples/platform and on every discovery fixture Terragrunt accepts.
 *
 * What is compared: for every unit platctl discovered, the set of its HCL-declared dependencies (platctl-only
 * `implicit_deps` edges are left out), with dependencies outside every environment (externals) compared by path.
 * Terragrunt's units inside the environment directories, minus platctl's `exclude` globs, must be platctl's units.
 * Order inside `dependencies` is not deterministic in Terragrunt (see docs/discovery.md), so sets are compared.
 *
 * Fixtures whose expected.json lists `excluded` are also run for real (`terragrunt run --all -- apply` / `destroy`,
 * offline: their units hold one output and no provider): the units Terragrunt ran must be the units platctl's plan
 * walks, and the rest must be what Terragrunt's exclude blocks left out.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { execa } from 'execa';
import picomatch from 'picomatch';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load.js';
import { excludedUnits } from '../../discover/exclude.js';
import { discover } from '../../discover/index.js';
import { planRun } from '../../engine/plan.js';
import { DISCOVER_FIXTURES, discoverFixtures } from '../helpers/discover-fixtures.js';
import { repoRoot, requireToolPaths } from './helpers/tools.js';

interface FoundComponent {
  type: 'unit' | 'stack';
  path: string;
  dependencies?: string[];
}

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function copy(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'platctl-diff-'));
  temps.push(dir);
  cpSync(source, dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

/** The environment for terragrunt: no inherited TF_/TG_ settings (a TF_CLI_CONFIG_FILE naming a missing file breaks it). */
function toolEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(TF_|TG_|TERRAGRUNT_)/.test(key)) env[key] = value;
  }
  const home = mkdtempSync(join(tmpdir(), 'platctl-diff-home-'));
  temps.push(home);
  return { ...env, HOME: home };
}

/**
 * Compares platctl's edges with `terragrunt find`'s. `drops`: units whose dependencies Terragrunt leaves out (a
 * remote_state it cannot parse while building its graph); each must have none in Terragrunt's answer and at least
 * one in platctl's, which also warns about it; the other units are compared as usual.
 */
async function compare(root: string, drops: readonly string[] = []): Promise<void> {
  const tools = requireToolPaths();
  const loaded = await loadConfig({ cwd: root });
  if (!loaded.ok) throw new Error(`invalid config in ${root}: ${JSON.stringify(loaded.errors)}`);
  const { config } = loaded.value;
  const ours = await discover({ root, config, env: {}, cacheDir: false });
  expect(ours.problems.filter((p) => p.severity === 'error')).toEqual([]);

  const run = await execa(
    tools.terragrunt,
    ['find', '--dag', '--json', '--dependencies', '--external', '--no-color', '--working-dir', root],
    { env: toolEnv(), extendEnv: false, cwd: root, reject: false },
  );
  expect(run.exitCode, run.stderr).toBe(0);
  const found = JSON.parse(run.stdout) as FoundComponent[];

  const envDirs = Object.entries(config.environments).map(([env, e]) => ({ env, abs: resolve(root, e.dir) }));
  const excluded = config.exclude.length ? picomatch([...config.exclude], { dot: true }) : (): boolean => false;
  /** A Terragrunt path as a platctl id, or `external:<path from the root>` outside every environment. */
  const toId = (path: string): string => {
    const abs = resolve(root, path);
    const env = envDirs
      .filter((e) => abs === e.abs || abs.startsWith(e.abs + sep))
      .sort((a, b) => b.abs.length - a.abs.length)[0];
    const rel = relative(root, abs).split(sep).join('/');
    if (!env || excluded(rel) || excluded(`${rel}/terragrunt.hcl`)) return `external:${rel}`;
    return `${env.env}/${relative(env.abs, abs).split(sep).join('/') || '.'}`;
  };

  const theirs: Record<string, string[]> = {};
  for (const component of found) {
    if (component.type !== 'unit') continue;
    const id = toId(component.path);
    if (id.startsWith('external:')) continue;
    theirs[id] = [...new Set((component.dependencies ?? []).map(toId))].sort();
  }

  const mine: Record<string, string[]> = {};
  for (const id of ours.graph.ids()) {
    const node = ours.graph.get(id);
    const declared = [...(node?.dependencies ?? [])].filter((dep) =>
      ours.graph.edgeOrigins(id, dep).some((origin) => origin.kind !== 'implicit'),
    );
    const externals = ours.externals.filter((e) => e.unit === id).map((e) => `external:${e.dir}`);
    mine[id] = [...new Set([...declared, ...externals])].sort();
  }
  for (const id of drops) {
    expect(theirs[id], `terragrunt find leaves out the dependencies of ${id}`).toEqual([]);
    expect(mine[id]?.length, `platctl keeps the dependencies of ${id}`).toBeGreaterThan(0);
    expect(
      ours.problems.some(
        (p) => p.kind === 'terragrunt-drops-dependencies' && p.severity === 'warning' && p.unit === id,
      ),
      `platctl warns about ${id}: ${JSON.stringify(ours.problems)}`,
    ).toBe(true);
    delete mine[id];
    delete theirs[id];
  }
  expect(mine).toEqual(theirs);
}

describe('discovery agrees with real terragrunt', () => {
  it('on examples/platform', async () => {
    await compare(copy(join(repoRoot, 'examples', 'platform')));
  });

  for (const { name, dir, expected } of discoverFixtures()) {
    if (expected.terragrunt === 'rejects' || expected.terragrunt === 'skip') continue;
    it(`on fixture ${name}`, async () => {
      await compare(copy(dir), expected.terragruntDrops);
    });
  }

  for (const { name, dir, expected } of discoverFixtures()) {
    if (!expected.terragruntDrops) continue;
    it(`terragrunt run --all stops on fixture ${name}, whose remote_state it cannot parse while building its graph`, async () => {
      const tools = requireToolPaths();
      const run = await execa(
        tools.terragrunt,
        ['run', '--all', '--non-interactive', '--no-color', '--tf-path', tools.tofu, '--', 'plan'],
        { env: toolEnv(), extendEnv: false, cwd: copy(dir), reject: false },
      );
      expect(run.exitCode, run.stderr).not.toBe(0);
      expect(`${run.stdout}\n${run.stderr}`).toMatch(
        /json: cannot unmarshal string into Go struct field CtyJSONOutput\.Value|the remote_state\.backend field cannot be empty/,
      );
    });
  }

  for (const { name, dir, expected } of discoverFixtures()) {
    const rejected = expected.rejected;
    if (expected.terragrunt !== 'rejects' || !rejected) continue;
    it(`rejects fixture ${name}, as platctl does`, async () => {
      const root = copy(dir);
      const run = await execa(
        requireToolPaths().terragrunt,
        ['render', '--json', '--no-color', '--working-dir', join(root, rejected.unit)],
        { env: toolEnv(), extendEnv: false, cwd: root, reject: false },
      );
      expect(run.exitCode, run.stdout).not.toBe(0);
      expect(`${run.stdout}\n${run.stderr}`).toContain(rejected.message);
    });
  }

  for (const { name, dir, expected } of discoverFixtures()) {
    const excluded = expected.excluded;
    if (!excluded) continue;
    for (const [command, tf] of [
      ['bootstrap', 'apply'],
      ['teardown', 'destroy'],
    ] as const) {
      it(`leaves out the units terragrunt run --all ${tf} leaves out (exclude blocks), on fixture ${name}`, async () => {
        const root = copy(dir);
        const loaded = await loadConfig({ cwd: root });
        if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
        const { config } = loaded.value;
        const ours = await discover({ root, config, env: {}, cacheDir: false });
        const planned = planRun({
          command,
          graph: ours.graph,
          config,
          selection: { env: [], unit: [], withDeps: false },
          excluded: (scope) => excludedUnits(scope, ours.units, tf),
        });
        if (planned.type !== 'ok') throw new Error(planned.message);
        expect(Object.fromEntries(planned.plan.excluded)).toEqual(excluded[tf]);

        // The units terragrunt ran are the ones it initialised (each has a main.tf with one output: no provider).
        const tools = requireToolPaths();
        const run = await execa(
          tools.terragrunt,
          ['run', '--all', '--non-interactive', '--no-color', '--tf-path', tools.tofu, '--', tf, '-auto-approve'],
          { env: toolEnv(), extendEnv: false, cwd: root, reject: false },
        );
        expect(run.exitCode, run.stderr).toBe(0);
        const ran = Object.entries(config.environments).flatMap(([env, e]) =>
          readdirSync(resolve(root, e.dir), { withFileTypes: true })
            .filter((entry) => entry.isDirectory() && existsSync(join(root, e.dir, entry.name, '.terragrunt-cache')))
            .map((entry) => `${env}/${entry.name}`),
        );
        expect(ran.sort()).toEqual(planned.plan.walkGraph.ids());
      });
    }
  }

  it('on a stack once the command platctl names has generated it', async () => {
    const root = copy(join(DISCOVER_FIXTURES, 'stack-not-generated'));
    const loaded = await loadConfig({ cwd: root });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const before = await discover({ root, config: loaded.value.config, env: {}, cacheDir: false });
    const hint = before.problems.find((p) => p.kind === 'stack-not-generated')?.hint ?? '';
    const command = /`terragrunt (stack generate [^`]*)`/.exec(hint)?.[1]?.split(' ');
    expect(command, hint).toBeDefined();
    const run = await execa(requireToolPaths().terragrunt, [...(command ?? []), '--no-color'], {
      env: toolEnv(),
      extendEnv: false,
      cwd: root,
      reject: false,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    await compare(root);
  });
});
