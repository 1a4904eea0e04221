/**
 * Discovery gives the same result whichever parser read a file: a repository whose files the TypeScript file parser
 * answers, and the same repository with Windows line endings (every file declined, so hcl2json parses them all),
 * have the same units, edges and problems, a syntax error included.
 */
import { readFileSync, readdirSync, rmSync, writeFileSync, mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../../../bench/discovery.js';
import { configSchema } from '../../../config/schema.js';
import { discover } from '../../../discover/index.js';
import { parseHclFile } from '../../../discover/hcl/file-parser.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function hclFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.hcl'))
    .map((e) => join(e.parentPath, e.name));
}

function repository(lineEnding: '\n' | '\r\n'): string {
  const root = mkdtempSync(join(tmpdir(), 'platctl-fast-parser-'));
  temps.push(root);
  generate(root, 40);
  const broken = join(root, 'live', 'dev', 'broken');
  mkdirSync(broken, { recursive: true });
  writeFileSync(join(broken, 'terragrunt.hcl'), 'dependency "vpc" {\n  config_path = "../region-0/svc-0/vpc"\n}}\n');
  for (const file of hclFiles(root)) {
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('\n', lineEnding));
  }
  return root;
}

async function outcome(root: string) {
  const environments = Object.fromEntries(['dev', 'stage', 'prod', 'ops'].map((e) => [e, { dir: `live/${e}` }]));
  const config = configSchema.parse({ version: 1, environments });
  const result = await discover({ root, config, env: {}, cacheDir: false });
  const edges: Record<string, string[]> = {};
  for (const id of result.graph.ids()) edges[id] = [...(result.graph.get(id)?.dependencies ?? [])].sort();
  const problems = result.problems.map((p) => ({
    ...p,
    location: p.location && { ...p.location, file: p.location.file.slice(root.length) },
  }));
  return { edges, problems };
}

describe('discovery through the TypeScript file parser and through hcl2json', () => {
  it('gives the same units, edges and problems', async () => {
    const fast = repository('\n');
    const slow = repository('\r\n');
    expect(hclFiles(fast).filter((f) => !parseHclFile(readFileSync(f, 'utf8')).ok)).toEqual([
      join(fast, 'live', 'dev', 'broken', 'terragrunt.hcl'),
    ]);
    expect(hclFiles(slow).filter((f) => parseHclFile(readFileSync(f, 'utf8')).ok)).toEqual([]);
    const [a, b] = [await outcome(fast), await outcome(slow)];
    expect(Object.keys(a.edges)).toHaveLength(41);
    expect(a.problems.some((p) => p.location?.file.endsWith('broken/terragrunt.hcl'))).toBe(true);
    expect(a).toEqual(b);
  });
});
