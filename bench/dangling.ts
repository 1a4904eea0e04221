/**
 * bench/dangling: what thousands of broken dependency paths cost. It generates a 2,000-unit repository whose 6,000
 * dependency paths all dangle (one `../` too many, a misspelt unit name, a directory without terragrunt.hcl) and
 * the same repository with the paths fixed, then runs `platctl graph` on each as a whole process, interleaved,
 * several times, cold (no `.platctl-cache`), warm, and warm without the discovery snapshot (the path the broken
 * repository always takes: a discovery with errors keeps no snapshot), and prints the medians and the ratio.
 *
 *   npm run build && node dist/bench/dangling.js [--units 2000] [--runs 5]
 *
 * Target (issue 9): the broken repository within 1.5x of the fixed one.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const KINDS = ['net', 'vpc', 'db', 'cache', 'queue', 'api', 'worker', 'web'] as const;
const ENVS_PER_REGION = 25;
/** Dependencies per unit: each on the same kind of unit in an earlier environment of the region. */
const DEPS_PER_UNIT = 3;

function write(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/**
 * `units` units under `live/prod/region_<r>/env_<e>/<kind>`. Each has three dependency blocks on the same kind one,
 * two and three environments back (or on the `mgmt/` floor outside the environments, for the first ones). With
 * `broken`, every one of those paths dangles, in one of three ways.
 */
export function generate(root: string, units: number, broken: boolean): void {
  rmSync(root, { recursive: true, force: true });
  write(join(root, '.platctl.yaml'), 'version: 1\nenvironments:\n  prod:\n    dir: live/prod\n');
  for (const kind of KINDS) write(join(root, 'mgmt', kind, 'terragrunt.hcl'), `# floor ${kind}\n`);
  const perRegion = ENVS_PER_REGION * KINDS.length;
  for (let n = 0; n < units; n += 1) {
    const region = Math.floor(n / perRegion);
    const env = Math.floor((n % perRegion) / KINDS.length);
    const kind = KINDS[n % KINDS.length] ?? 'net';
    const blocks: string[] = [];
    for (let d = 1; d <= DEPS_PER_UNIT; d += 1) {
      let path = env - d >= 0 ? `../../env_${env - d}/${kind}` : `../../../../../mgmt/${kind}`;
      if (broken) {
        const how = (n * DEPS_PER_UNIT + d) % 3;
        if (how === 0) path = `../${path}`;
        else if (how === 1) path = `${path}x`;
        else path = dirname(path);
      }
      blocks.push(`dependency "d${d}" {\n  config_path = "${path}"\n}\n`);
    }
    write(join(root, 'live', 'prod', `region_${region}`, `env_${env}`, kind, 'terragrunt.hcl'), blocks.join('\n'));
  }
}

interface Sample {
  readonly ms: number;
  readonly code: number | null;
  readonly stderrBytes: number;
}

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'platctl.js');

/**
 * How much of the cache a run starts with: none; all of it; or the unit and parse caches without the discovery
 * snapshot and the rendered output, which only a discovery without errors gets (so the broken repository never
 * has them, and this row compares the two through the same path).
 */
type CacheState = 'cold' | 'warm' | 'warm, no snapshot';

function runOnce(root: string, state: CacheState): Sample {
  if (state === 'cold') rmSync(join(root, '.platctl-cache'), { recursive: true, force: true });
  if (state === 'warm, no snapshot') {
    rmSync(join(root, '.platctl-cache', 'graph.json'), { force: true });
    rmSync(join(root, '.platctl-cache', 'rendered'), { recursive: true, force: true });
  }
  const start = performance.now();
  const out = spawnSync(process.execPath, [BIN, 'graph', '--config', join(root, '.platctl.yaml')], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  return { ms: performance.now() - start, code: out.status, stderrBytes: Buffer.byteLength(out.stderr) };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function option(args: readonly string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  const value = i >= 0 ? Number(args[i + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} takes a positive whole number`);
  return value;
}

function main(): void {
  const args = process.argv.slice(2);
  const units = option(args, '--units', 2000);
  const runs = option(args, '--runs', 5);
  const fixedRoot = join(tmpdir(), 'platctl-bench-dangling-fixed');
  const brokenRoot = join(tmpdir(), 'platctl-bench-dangling-broken');
  generate(fixedRoot, units, false);
  generate(brokenRoot, units, true);
  const rows: string[] = [];
  for (const state of ['cold', 'warm', 'warm, no snapshot'] as const) {
    const fixed: Sample[] = [];
    const broken: Sample[] = [];
    if (state !== 'cold') {
      // Fill the caches once.
      runOnce(fixedRoot, 'warm');
      runOnce(brokenRoot, 'warm');
    }
    for (let r = 0; r < runs; r += 1) {
      fixed.push(runOnce(fixedRoot, state));
      broken.push(runOnce(brokenRoot, state));
    }
    if (fixed.some((s) => s.code !== 0)) throw new Error('the fixed repository does not discover cleanly');
    if (broken.some((s) => s.code !== 2)) throw new Error('the broken repository did not fail with exit code 2');
    const f = median(fixed.map((s) => s.ms));
    const b = median(broken.map((s) => s.ms));
    rows.push(
      [
        state.padEnd(17),
        `${(f / 1000).toFixed(2)} s`.padStart(9),
        `${(b / 1000).toFixed(2)} s`.padStart(9),
        `${(b / f).toFixed(2)}x`.padStart(7),
        `${(median(broken.map((s) => s.stderrBytes)) / 1024).toFixed(1)} KB`.padStart(10),
      ].join('  '),
    );
  }
  process.stdout.write(
    `platctl graph on ${units} units, ${units * DEPS_PER_UNIT} dependency paths; median of ${runs} runs (whole process)\n`,
  );
  process.stdout.write(`${'cache'.padEnd(17)}      fixed     broken    ratio  broken stderr\n`);
  process.stdout.write(`${rows.join('\n')}\n`);
  rmSync(fixedRoot, { recursive: true, force: true });
  rmSync(brokenRoot, { recursive: true, force: true });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
