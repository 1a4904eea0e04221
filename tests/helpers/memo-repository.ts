/**
 * Small repositories for the tests of what discovery remembers across units (include paths, included files' locals):
 * files written under a temporary root, a full discovery of it, and the inputs the unit cache recorded per unit.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { loadConfig } from '../../config/load.js';
import { discover } from '../../discover/index.js';
import type { UnitInputs } from '../../discover/unit-cache.js';

/** A new temporary root, removed after the test file. Call at module level or inside a test. */
export function tempRoot(prefix: string): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  temps.push(root);
  return root;
}

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** Writes a file under the root, making its directories. */
export function write(root: string, path: string, content: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** A full discovery of the root, and each unit's dependencies, sorted. */
export async function discoverEdges(root: string) {
  const loaded = await loadConfig({ cwd: root });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const result = await discover({ root, config: loaded.value.config, env: {} }, { version: 'test' });
  const edges: Record<string, string[]> = {};
  for (const id of result.graph.ids()) edges[id] = [...(result.graph.get(id)?.dependencies ?? [])].sort();
  return { result, edges };
}

/** The inputs the unit cache recorded for a unit in the last run (undefined: no entry). */
export function recordedInputs(root: string, id: string): UnitInputs | undefined {
  const cached = JSON.parse(readFileSync(join(root, '.platctl-cache/units.json'), 'utf8')) as {
    units: (string | { id: string; inputs: UnitInputs })[];
  };
  const entry = cached.units.find((u) => typeof u === 'object' && u.id === id);
  return typeof entry === 'object' ? entry.inputs : undefined;
}
