/**
 * platctl's side of the differential expression fuzzer, run as a child process by compare.ts (so a memory cap and
 * a time limit apply to it alone):
 *
 *   node dist/bench/expr-fuzz/platctl-side.js REPOSITORY
 *
 * Evaluates the generated repository with `discover()`, the function behind `platctl graph --format json`, called
 * directly so one probe's evaluation error does not hide the other probes' edges (the CLI refuses the whole graph
 * on any error), and prints one JSON object: for every unit (relative to the environment), its targets or its first
 * error. Exit code 0 with the object, 2 when the repository cannot be read.
 */
import { resolve } from 'node:path';
import { loadConfig } from '../../config/load.js';
import { discover } from '../../discover/index.js';
import { targetNames } from './compare.js';
import type { Outcome } from './compare.js';
import { FUZZ_ENV } from './generate.js';

async function outcomes(root: string): Promise<Record<string, Outcome>> {
  const loaded = await loadConfig({ cwd: root });
  if (!loaded.ok)
    throw new Error(`the generated .platctl.yaml in ${root} is invalid: ${JSON.stringify(loaded.errors)}`);
  const discovery = await discover({ root, config: loaded.value.config, env: {}, cacheDir: false });
  const out: Record<string, Outcome> = {};
  const errors = new Map<string, string>();
  for (const problem of discovery.problems) {
    if (problem.severity !== 'error' || problem.unit === undefined) continue;
    if (!errors.has(problem.unit)) errors.set(problem.unit, `${problem.kind}: ${problem.message}`);
  }
  for (const id of discovery.graph.ids()) {
    const unit = id.slice(FUZZ_ENV.length + 1);
    const error = errors.get(id);
    if (error !== undefined) {
      out[unit] = { ok: false, error };
      continue;
    }
    const deps = [...(discovery.graph.get(id)?.dependencies ?? [])].map((dep) =>
      resolve(root, FUZZ_ENV, dep.slice(FUZZ_ENV.length + 1)),
    );
    const externals = discovery.externals.filter((e) => e.unit === id).map((e) => resolve(root, e.dir));
    out[unit] = { ok: true, targets: targetNames(root, [...deps, ...externals]) };
  }
  return out;
}

async function main(): Promise<number> {
  const root = process.argv[2];
  if (root === undefined) {
    process.stderr.write('usage: platctl-side.js REPOSITORY\n');
    return 2;
  }
  try {
    process.stdout.write(`${JSON.stringify(await outcomes(resolve(root)))}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`platctl-side: ${(error as Error).message}\n`);
    return 2;
  }
}

process.exitCode = await main();
