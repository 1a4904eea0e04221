/**
 * The short run of the differential expression fuzzer (bench/expr-fuzz.ts is the long one): a few fixed seeds,
 * each one repository of probe units that reach targets through random expressions, evaluated by platctl and by
 * real Terragrunt. Every probe must agree, except run_cmd (refused offline by design) and the differences
 * docs/discovery.md lists (bench/expr-fuzz/known.ts); a failure prints each probe with its expression.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareRepository, describeResult } from '../../bench/expr-fuzz/compare.js';
import { generateRepository } from '../../bench/expr-fuzz/generate.js';
import { knownDifference } from '../../bench/expr-fuzz/known.js';
import { requireToolPaths } from './helpers/tools.js';

/** Seeds of the CI run; the bench's default seeds (1000-1019) are kept apart, for measuring. */
const SEEDS = [31, 32, 33];
const PROBES_PER_SEED = 80;

const work = mkdtempSync(join(tmpdir(), 'platctl-expr-fuzz-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('expression fuzz: platctl evaluates like terragrunt', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}`, async () => {
      const tools = requireToolPaths();
      const root = join(work, `seed-${seed}`);
      const manifest = generateRepository(root, seed, PROBES_PER_SEED);
      const results = await compareRepository(root, manifest, {
        terragrunt: tools.terragrunt,
        home: join(work, 'home'),
      });
      expect(results).toHaveLength(PROBES_PER_SEED);
      const unexplained = results.filter(
        (r) => r.verdict !== 'agree' && r.verdict !== 'run-cmd' && !knownDifference(r),
      );
      expect(unexplained.map(describeResult)).toEqual([]);
      // The run must have compared real edges, not two sets of refusals.
      expect(results.filter((r) => r.platctl.ok && r.terragrunt.ok).length).toBeGreaterThan(PROBES_PER_SEED / 2);
    });
  }
});
