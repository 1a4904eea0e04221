/**
 * bench/expr-fuzz: the long run of the differential expression fuzzer (see bench/expr-fuzz/generate.ts). For each
 * seed it generates a repository of probe units, evaluates it with platctl and with real Terragrunt, prints every
 * probe where they differ (with the expression) and, at the end, the agreement rate.
 *
 *   npm run build && node dist/bench/expr-fuzz.js [--seeds 1000-1019] [--units 100] [--terragrunt PATH] [--keep DIR]
 *
 * Defaults: seeds 1000-1019, 100 probes per seed (2,000 expressions), terragrunt from .tools/bin. Exit code 0
 * always when the run completes (the rate is the result); 2 on a usage or setup error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareRepository, describeResult, summarize } from './expr-fuzz/compare.js';
import type { ProbeResult } from './expr-fuzz/compare.js';
import { generateRepository } from './expr-fuzz/generate.js';
import { KNOWN_DIFFERENCES, knownDifference } from './expr-fuzz/known.js';

interface Options {
  seeds: number[];
  units: number;
  terragrunt: string;
  keep: string | undefined;
}

function parseSeeds(text: string): number[] {
  const seeds: number[] = [];
  for (const part of text.split(',')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!range) throw new Error(`--seeds: "${part}" is not a number or a range like 1000-1019`);
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    for (let seed = from; seed <= to; seed++) seeds.push(seed);
  }
  return seeds;
}

function parseArgs(argv: readonly string[]): Options {
  const repoRoot = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
  const options: Options = {
    seeds: parseSeeds('1000-1019'),
    units: 100,
    terragrunt: join(repoRoot, '.tools', 'bin', 'terragrunt'),
    keep: undefined,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${flag ?? ''} needs a value`);
    if (flag === '--seeds') options.seeds = parseSeeds(value);
    else if (flag === '--units') options.units = Number(value);
    else if (flag === '--terragrunt') options.terragrunt = resolve(value);
    else if (flag === '--keep') options.keep = resolve(value);
    else throw new Error(`unknown flag ${flag ?? ''}; flags: --seeds, --units, --terragrunt, --keep`);
  }
  if (!Number.isInteger(options.units) || options.units < 1) throw new Error('--units must be a positive whole number');
  return options;
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`expr-fuzz: ${(error as Error).message}\n`);
    return 2;
  }
  const work = mkdtempSync(join(tmpdir(), 'platctl-expr-fuzz-'));
  const home = join(work, 'home');
  const results: ProbeResult[] = [];
  const started = Date.now();
  try {
    for (const seed of options.seeds) {
      const root = join(options.keep ?? work, `seed-${seed}`);
      const manifest = generateRepository(root, seed, options.units);
      const batch = await compareRepository(root, manifest, { terragrunt: options.terragrunt, home });
      for (const result of batch) {
        if (result.verdict === 'agree') continue;
        const known = knownDifference(result);
        process.stdout.write(`${describeResult(result)}${known ? `\n  (known: ${known.name})` : ''}\n`);
      }
      const summary = summarize(batch);
      process.stderr.write(`seed ${seed}: ${summary.agreed}/${summary.counted} agree\n`);
      results.push(...batch);
      if (!options.keep) rmSync(root, { recursive: true, force: true });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const summary = summarize(results);
  const known = KNOWN_DIFFERENCES.map(
    (difference) =>
      `  of which known (${difference.name}): ${results.filter((r) => knownDifference(r) === difference).length}`,
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    [
      '',
      `seeds ${options.seeds[0] ?? ''}..${options.seeds[options.seeds.length - 1] ?? ''} (${options.seeds.length}), ${results.length} expressions, ${seconds} s`,
      `agreement: ${summary.agreed}/${summary.counted} = ${(summary.rate * 100).toFixed(2)}%`,
      `  different edge:   ${summary.byVerdict['different-edge']}`,
      `  platctl refuses:  ${summary.byVerdict['platctl-refuses']}`,
      `  platctl accepts:  ${summary.byVerdict['platctl-accepts']}`,
      ...known,
      `  run_cmd (refused offline by design, not counted): ${summary.byVerdict['run-cmd']}`,
      '',
    ].join('\n'),
  );
  return 0;
}

process.exitCode = await main();
