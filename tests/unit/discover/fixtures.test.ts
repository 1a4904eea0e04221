import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config/load.js';
import { excludedUnits } from '../../../discover/exclude.js';
import { discover } from '../../../discover/index.js';
import { discoverFixtures } from '../../helpers/discover-fixtures.js';

describe('discovery fixtures', () => {
  for (const { name, dir, expected } of discoverFixtures()) {
    it(`${name}: edges and problems match expected.json`, async () => {
      const loaded = await loadConfig({ cwd: dir });
      if (!loaded.ok) throw new Error(`fixture config invalid: ${JSON.stringify(loaded.errors)}`);
      const result = await discover(
        { root: dir, config: loaded.value.config, env: {}, cacheDir: false },
        { locate: (k) => loaded.value.locate(k) },
      );
      const edges: Record<string, string[]> = {};
      for (const id of result.graph.ids()) edges[id] = [...(result.graph.get(id)?.dependencies ?? [])].sort();
      expect(edges).toEqual(expected.edges);

      if (expected.excluded) {
        for (const command of ['apply', 'destroy'] as const) {
          const left = excludedUnits(result.graph, result.units, command);
          expect(Object.fromEntries([...left].map(([id, { by }]) => [id, by])), command).toEqual(
            expected.excluded[command],
          );
        }
      }

      if (expected.externals) {
        const externals: Record<string, string[]> = {};
        for (const e of result.externals) (externals[e.unit] ??= []).push(e.dir);
        expect(externals).toEqual(expected.externals);
      }

      const problems = result.problems.map((p) => ({
        ...p,
        file: p.location ? relative(dir, p.location.file) : undefined,
      }));
      for (const want of expected.problems) {
        const match = problems.find(
          (p) =>
            p.kind === want.kind &&
            p.severity === want.severity &&
            (want.file === undefined || p.file === want.file) &&
            (want.line === undefined || p.location?.line === want.line) &&
            (want.unit === undefined || p.unit === want.unit) &&
            (want.hint === undefined || (p.hint ?? '').includes(want.hint)) &&
            (want.message === undefined || p.message.includes(want.message)),
        );
        expect(
          match,
          `expected problem ${JSON.stringify(want)} among ${JSON.stringify(problems, null, 1)}`,
        ).toBeDefined();
      }
      expect(problems.filter((p) => p.severity === 'error')).toHaveLength(
        expected.problems.filter((p) => p.severity === 'error').length,
      );
    });
  }
});
