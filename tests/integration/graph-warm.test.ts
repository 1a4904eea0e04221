/**
 * A warm `platctl graph` reuses the validated configuration (.platctl-cache/config.json) and every unchanged unit's
 * evaluation (.platctl-cache/units.json), and loads neither the YAML parser, zod nor the HCL evaluator. It must never
 * serve a stale graph: after each kind of change, the warm graph equals the one computed with no cache at all.
 */
import { execFile } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  readdirSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const REPO = resolve(import.meta.dirname, '../..');
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function platform(): string {
  const dir = mkdtempSync(join(tmpdir(), 'platctl-graph-warm-'));
  temps.push(dir);
  cpSync(join(REPO, 'examples', 'platform'), dir, {
    recursive: true,
    filter: (src) => !src.includes('.platctl-cache') && !src.includes('.platctl-state'),
  });
  return dir;
}

interface GraphJson {
  units: { id: string; dependencies: string[] }[];
}

async function graph(root: string): Promise<GraphJson> {
  const run = await runCli(['graph', '--format', 'json'], { cwd: root });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as GraphJson;
}

/** The graph with the caches as they are, then with none: they must be equal. */
async function warmEqualsCold(root: string): Promise<GraphJson> {
  const warm = await graph(root);
  rmSync(join(root, '.platctl-cache'), { recursive: true, force: true });
  const cold = await graph(root);
  expect(warm).toEqual(cold);
  // The cold run filled the caches again: the next change meets a warm cache.
  return warm;
}

function depsOf(g: GraphJson, id: string): string[] | undefined {
  return g.units.find((u) => u.id === id)?.dependencies;
}

describe('a warm platctl graph is never stale', () => {
  it('sees an edited unit, an added and a removed unit, an edited include and an edited .platctl.yaml', async () => {
    const root = platform();
    const before = await warmEqualsCold(root);
    expect(depsOf(before, 'platform/grafana')).not.toContain('platform/ecr');

    // An edited unit file: a new dependency.
    appendFileSync(
      join(root, 'live/platform/grafana/terragrunt.hcl'),
      '\ndependency "ecr" {\n  config_path = "../ecr"\n}\n',
    );
    expect(depsOf(await warmEqualsCold(root), 'platform/grafana')).toContain('platform/ecr');

    // An added unit.
    mkdirSync(join(root, 'live/platform/extra'));
    writeFileSync(
      join(root, 'live/platform/extra/terragrunt.hcl'),
      'dependency "eks" {\n  config_path = "../eks"\n}\n',
    );
    expect(depsOf(await warmEqualsCold(root), 'platform/extra')).toEqual(['platform/eks']);

    // A removed unit (nothing depends on it).
    rmSync(join(root, 'live/platform/extra'), { recursive: true });
    expect(depsOf(await warmEqualsCold(root), 'platform/extra')).toBeUndefined();

    // An edited include: every unit including it gains the edge.
    const include = join(root, '_envcommon/eks-addons.hcl');
    writeFileSync(
      include,
      `${readFileSync(include, 'utf8')}\ndependency "net" {\n  config_path = "\${get_terragrunt_dir()}/../networking"\n}\n`,
    );
    const edited = await warmEqualsCold(root);
    expect(depsOf(edited, 'platform/eks-addons')).toContain('platform/networking');
    expect(depsOf(edited, 'preprod/eks-addons')).toContain('preprod/networking');

    // An edited .platctl.yaml: a new implicit dependency.
    const config = join(root, '.platctl.yaml');
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace(
        'implicit_deps:\n',
        'implicit_deps:\n  platform/tailscale: [platform/dns]\n',
      ),
    );
    expect(depsOf(await warmEqualsCold(root), 'platform/tailscale')).toContain('platform/dns');
  }, 240_000);
});

/**
 * Runs graph until a run keeps its snapshot (.platctl-cache/graph.json): that happens once every file it reads is more
 * than a second old by the filesystem's clock. Returns the graph it printed.
 */
async function untilSnapshot<T>(root: string, run: () => Promise<T>): Promise<T> {
  for (;;) {
    const out = await run();
    if (existsSync(join(root, '.platctl-cache/graph.json'))) return out;
    await sleep(200);
  }
}

describe('a warm platctl graph answered from the snapshot is never stale', () => {
  it('sees a same-size edit made in the same second as the last run, and a file replaced by rename', async () => {
    const root = platform();
    const settled = await untilSnapshot(root, () => graph(root));
    expect(depsOf(settled, 'platform/crossplane')).toContain('platform/eks');

    // Right after a run, an edit that keeps the size (its mtime may equal the one the run saw).
    const crossplane = join(root, 'live/platform/crossplane/terragrunt.hcl');
    const size = statSync(crossplane).size;
    writeFileSync(crossplane, readFileSync(crossplane, 'utf8').replace('"../eks"', '"../ecr"'));
    expect(statSync(crossplane).size).toBe(size);
    const edited = await warmEqualsCold(root);
    expect(depsOf(edited, 'platform/crossplane')).toContain('platform/ecr');
    expect(depsOf(edited, 'platform/crossplane')).not.toContain('platform/eks');

    // Once the snapshot is back, a unit file replaced by rename (as editors save), same size.
    await untilSnapshot(root, () => graph(root));
    const gateway = join(root, 'live/platform/gateway/terragrunt.hcl');
    writeFileSync(`${gateway}.new`, readFileSync(gateway, 'utf8').replace('"../dns"', '"../ecr"'));
    renameSync(`${gateway}.new`, gateway);
    const renamed = await warmEqualsCold(root);
    expect(depsOf(renamed, 'platform/gateway')).toContain('platform/ecr');
  }, 240_000);
});

describe('what a warm start loads (the built binary, as a user runs it)', () => {
  /** Every module URL the process loads, through a module hook registered before platctl starts. */
  async function loadedModules(cwd: string, args: string[]): Promise<string[]> {
    const hook = `data:text/javascript,${encodeURIComponent(
      'export async function load(url, context, next) { process._rawDebug("LOADED " + url); return next(url, context); }',
    )}`;
    const register = `data:text/javascript,${encodeURIComponent(
      `import { register } from 'node:module'; register(${JSON.stringify(hook)});`,
    )}`;
    const { stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', register, join(REPO, 'bin', 'platctl.js'), ...args],
      { cwd },
    ).catch((error: { stderr: string; code: number }) => {
      // status exits 1 when there is no run; the modules it loaded are what matters here.
      if (error.code !== 1) throw error;
      return error;
    });
    return stderr
      .split('\n')
      .filter((line) => line.startsWith('LOADED '))
      .map((line) => line.slice('LOADED '.length));
  }

  const heavy = (urls: string[]) =>
    urls.filter((url) =>
      // zod and yaml load from the build's bundles (dist/config/zod.js, yaml.js), the others from node_modules.
      /node_modules\/(zod|yaml|fast-glob|picomatch|@cdktf)\/|dist\/config\/(zod|yaml)\.js$|discover\/hcl\/(evaluate|builtins)/.test(
        url,
      ),
    );

  it('warm graph: no zod, no YAML parser, no glob library, no HCL evaluator', async () => {
    const root = platform();
    const cold = await loadedModules(root, ['graph']); // fills the caches
    // The filter sees them when they do load: a cold run validates the configuration and evaluates the units.
    expect(cold.filter((url) => /dist\/config\/(zod|yaml)\.js$/.test(url))).toHaveLength(2);
    const warm = await loadedModules(root, ['graph']);
    expect(warm.some((url) => url.endsWith('/dist/discover/index.js'))).toBe(true);
    expect(heavy(warm)).toEqual([]);
  }, 120_000);

  it('warm graph of a settled repository (answered from the snapshot): not even the walk, the parser or the unit cache', async () => {
    const root = platform();
    // The built binary keeps its own snapshot (another build's is never trusted).
    await untilSnapshot(root, () => loadedModules(root, ['graph']));
    const warm = await loadedModules(root, ['graph']);
    expect(warm.some((url) => url.endsWith('/dist/discover/snapshot.js'))).toBe(true);
    expect(warm.filter((url) => /discover\/(full|scan|parsed-files|unit-cache|hcl2json)\.js$/.test(url))).toEqual([]);
    expect(heavy(warm)).toEqual([]);
  }, 120_000);

  it('warm graph printed from its kept output: no renderer, graph algorithm, help or problem formatter', async () => {
    const root = platform();
    await untilSnapshot(root, () => loadedModules(root, ['graph']));
    await loadedModules(root, ['graph']); // answered from the snapshot: rendered, and kept
    const warm = await loadedModules(root, ['graph']);
    expect(warm.some((url) => url.endsWith('/dist/discover/graph-cache.js'))).toBe(true);
    expect(
      warm.filter((url) =>
        /dist\/(cli\/help|discover\/(graph-render|problem-text|suggest)|engine\/graph)\.js$/.test(url),
      ),
    ).toEqual([]);
  }, 120_000);

  it('status: the one zod bundle (the state file is read through it), no YAML parser, glob library or evaluator', async () => {
    const loaded = await loadedModules(platform(), ['status']);
    expect(loaded.some((url) => url.endsWith('/dist/engine/state.js'))).toBe(true);
    // zod is the one schema library for what platctl reads from disk (docs/architecture.md); it comes as its bundle,
    // never module by module from node_modules.
    expect(heavy(loaded)).toEqual([expect.stringMatching(/\/dist\/config\/zod\.js$/)]);
  }, 60_000);
});

describe('a graph printed again from .platctl-cache/rendered', () => {
  async function graphOutput(root: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
    const run = await runCli(['graph', ...args], { cwd: root });
    expect(run.code).toBe(0);
    return { stdout: run.stdout, stderr: run.stderr };
  }

  /** Replaces every kept output with a mark (its stamp kept): a run that prints the mark was answered from it. */
  function markEntries(root: string): void {
    const dir = join(root, '.platctl-cache/rendered');
    for (const name of readdirSync(dir)) {
      const text = readFileSync(join(dir, name), 'utf8');
      writeFileSync(join(dir, name), `${text.slice(0, text.indexOf('\n') + 1)}MARK\n`);
    }
  }

  it('answers only the same request over the same discovery', async () => {
    const root = platform();
    await untilSnapshot(root, () => graphOutput(root));
    const text = (await graphOutput(root)).stdout; // from the snapshot: rendered, and kept
    const json = (await graphOutput(root, '--format', 'json')).stdout;
    markEntries(root);
    expect((await graphOutput(root)).stdout).toBe('MARK\n');
    expect((await graphOutput(root, '--json')).stdout).toBe('MARK\n');

    // Another request is rendered for itself.
    rmSync(join(root, '.platctl-cache/rendered'), { recursive: true });
    const reverse = (await graphOutput(root, '--reverse')).stdout;
    const dev = (await graphOutput(root, '--unit', 'platform/eks')).stdout;
    markEntries(root);
    expect((await graphOutput(root)).stdout).toBe(text);
    expect((await graphOutput(root, '--format', 'json')).stdout).toBe(json);
    expect(reverse).toContain('(teardown order)');
    expect(dev).not.toBe(text);
    expect((await graphOutput(root, '--reverse')).stdout).toBe('MARK\n');

    // A changed repository is never answered with an output of the old one.
    markEntries(root);
    const crossplane = join(root, 'live/platform/crossplane/terragrunt.hcl');
    writeFileSync(crossplane, readFileSync(crossplane, 'utf8').replace('"../eks"', '"../ecr"'));
    const edited = await graphOutput(root, '--format', 'json');
    expect(edited.stdout).not.toContain('MARK');
    expect(depsOf(JSON.parse(edited.stdout) as GraphJson, 'platform/crossplane')).toContain('platform/ecr');
    expect((await graphOutput(root, '--reverse')).stdout).not.toContain('MARK');
  }, 240_000);

  it('keeps nothing for a discovery with warnings, which every run prints', async () => {
    const root = platform();
    const grafana = join(root, 'live/platform/grafana/terragrunt.hcl');
    appendFileSync(grafana, '\ndependency "twice" {\n  config_path = "../eks"\n}\n');
    appendFileSync(grafana, '\ndependency "twice" {\n  config_path = "../ecr"\n}\n');
    await untilSnapshot(root, () => graphOutput(root));
    for (let i = 0; i < 2; i += 1) expect((await graphOutput(root)).stderr).toContain('twice');
    expect(existsSync(join(root, '.platctl-cache/rendered'))).toBe(false);
  }, 240_000);
});
