import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config/load.js';
import { discover } from '../../../discover/index.js';
import { DISCOVER_FIXTURES } from '../../helpers/discover-fixtures.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function copyFixture(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `platctl-cache-${name}-`));
  temps.push(dir);
  cpSync(join(DISCOVER_FIXTURES, name), dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

async function run(root: string, env: Record<string, string> = {}) {
  const loaded = await loadConfig({ cwd: root });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const result = await discover({ root, config: loaded.value.config, env }, { version: 'test' });
  const edges: Record<string, string[]> = {};
  for (const id of result.graph.ids()) edges[id] = [...(result.graph.get(id)?.dependencies ?? [])].sort();
  return { result, edges };
}

describe('discovery caches', () => {
  it('reuses every unit and parses nothing when nothing changed', async () => {
    const root = copyFixture('locals-expose');
    const cold = await run(root);
    expect(cold.result.stats.filesParsed).toBeGreaterThan(0);
    expect(cold.result.stats.unitsReused).toBe(0);
    const warm = await run(root);
    expect(warm.edges).toEqual(cold.edges);
    expect(warm.result.stats.filesParsed).toBe(0);
    expect(warm.result.stats.unitsReused).toBe(warm.result.stats.units);
  });

  it('re-evaluates the units that read a changed file, and only those', async () => {
    const root = copyFixture('locals-expose');
    await run(root);
    // env.hcl feeds dev/app's db choice through read_terragrunt_config.
    writeFileSync(join(root, 'live/dev/env.hcl'), 'locals {\n  env  = "dev"\n  size = "small"\n}\n');
    const after = await run(root);
    expect(after.edges['dev/app']).toEqual(['dev/db-small', 'dev/network']);
    expect(after.result.stats.filesParsed).toBe(1);
    // dev/network reads env.hcl through root.hcl's locals only lazily: it never asked, so it stays cached.
    expect(after.result.stats.unitsReused).toBeGreaterThanOrEqual(2);
  });

  it('notices a file that find_in_parent_folders would now find first', async () => {
    const root = copyFixture('functions');
    const before = await run(root);
    expect(before.edges['dev/team/db']).toEqual(['dev/network']);
    // The search is one recorded input (where it started, what it looked for, what it found), not a probe per folder.
    const cached = JSON.parse(readFileSync(join(root, '.platctl-cache/units.json'), 'utf8')) as {
      units: (string | { id: string; inputs: { finds: (string | null)[] } })[];
    };
    const db = cached.units.find((u) => typeof u === 'object' && u.id === 'dev/team/db');
    expect(typeof db === 'object' ? db.inputs.finds : []).toEqual([
      `${join(root, 'live/dev/team')}\u0000network`,
      join(root, 'live/dev/network'),
    ]);
    // A closer "network" directory with a unit now shadows live/dev/network for dev/team/db.
    mkdirSync(join(root, 'live/dev/team/network'), { recursive: true });
    writeFileSync(join(root, 'live/dev/team/network/terragrunt.hcl'), '');
    const after = await run(root);
    expect(after.edges['dev/team/db']).toEqual(['dev/team/network']);
  });

  it('notices a changed environment variable read by get_env', async () => {
    const root = copyFixture('functions');
    const before = await run(root);
    expect(before.edges['dev/team/svc']).toContain('dev/team/app');
    const after = await run(root, { PLATCTL_FIXTURE_UNSET_VARIABLE: '../db' });
    expect(after.edges['dev/team/svc']).not.toContain('dev/team/app');
  });

  it('survives a corrupt cache file', async () => {
    const root = copyFixture('literal');
    const cold = await run(root);
    writeFileSync(join(root, '.platctl-cache', 'units.json'), '{not json');
    writeFileSync(join(root, '.platctl-cache', 'hcl-parse.json'), '[]');
    const again = await run(root);
    expect(again.edges).toEqual(cold.edges);
  });
});
