import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config/load.js';
import { discover } from '../../../discover/index.js';

// An included file's locals are remembered across units and replayed (discover/unit-config.ts #evaluateLocal): each
// unit must still get its own values, and its cache entry must record what a fresh evaluation records.

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function write(root: string, path: string, content: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

const ROOT_HCL = `locals {
  env_vars = read_terragrunt_config(find_in_parent_folders("env.hcl"))
  env      = local.env_vars.locals.env
  peer     = local.env_vars.locals.peer
  repo     = dirname(find_in_parent_folders("root.hcl"))
  note     = trimspace(file("\${get_parent_terragrunt_dir()}/note.txt"))
}
`;
const UNIT = `include "root" {
  path   = find_in_parent_folders("root.hcl")
  expose = true
}

dependency "peer" {
  config_path = "\${include.root.locals.repo}/live/\${include.root.locals.env}/\${include.root.locals.peer}"
}

dependency "noted" {
  config_path = "../\${include.root.locals.note}"
}
`;

function repository(): string {
  const root = mkdtempSync(join(tmpdir(), 'platctl-locals-memo-'));
  temps.push(root);
  write(root, '.platctl.yaml', 'version: 1\nenvironments:\n  dev:\n    dir: live/dev\n  ops:\n    dir: live/ops\n');
  write(root, 'root.hcl', ROOT_HCL);
  write(root, 'note.txt', 'n1\n');
  write(root, 'live/dev/env.hcl', 'locals {\n  env  = "dev"\n  peer = "base"\n}\n');
  write(root, 'live/ops/env.hcl', 'locals {\n  env  = "ops"\n  peer = "core"\n}\n');
  for (const dir of ['live/dev/base', 'live/dev/other', 'live/ops/core', 'live/dev/n1', 'live/dev/n2'])
    write(root, `${dir}/terragrunt.hcl`, '');
  for (const dir of ['live/ops/n1', 'live/ops/n2']) write(root, `${dir}/terragrunt.hcl`, '');
  for (const dir of ['live/dev/a', 'live/dev/b', 'live/ops/c', 'live/ops/d'])
    write(root, `${dir}/terragrunt.hcl`, UNIT);
  return root;
}

async function run(root: string) {
  const loaded = await loadConfig({ cwd: root });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const result = await discover({ root, config: loaded.value.config, env: {} }, { version: 'test' });
  const edges: Record<string, string[]> = {};
  for (const id of result.graph.ids()) edges[id] = [...(result.graph.get(id)?.dependencies ?? [])].sort();
  return { result, edges };
}

function recordedInputs(root: string, id: string): unknown {
  const cached = JSON.parse(readFileSync(join(root, '.platctl-cache/units.json'), 'utf8')) as {
    units: (string | { id: string; inputs: unknown })[];
  };
  const entry = cached.units.find((u) => typeof u === 'object' && u.id === id);
  return typeof entry === 'object' ? entry.inputs : undefined;
}

describe("an included file's locals remembered across units", () => {
  it('gives each unit its own values and records the same inputs as a fresh evaluation', async () => {
    const root = repository();
    const cold = await run(root);
    expect(cold.result.problems).toEqual([]);
    expect(cold.edges['dev/a']).toEqual(['dev/base', 'dev/n1']);
    expect(cold.edges['dev/b']).toEqual(['dev/base', 'dev/n1']);
    // Evaluated after units whose env.hcl was live/dev's: the remembered values are not theirs.
    expect(cold.edges['ops/c']).toEqual(['ops/core', 'ops/n1']);
    expect(cold.edges['ops/d']).toEqual(['ops/core', 'ops/n1']);
    // dev/b's locals came from what dev/a computed: its entry records what dev/a's does (the same text, so the
    // same hashes), in the same order.
    const a = JSON.stringify(recordedInputs(root, 'dev/a'));
    expect(a).toContain(join(root, 'live/dev/env.hcl'));
    expect(JSON.stringify(recordedInputs(root, 'dev/b'))).toBe(a.replaceAll('/live/dev/a/', '/live/dev/b/'));
    const c = JSON.stringify(recordedInputs(root, 'ops/c'));
    expect(JSON.stringify(recordedInputs(root, 'ops/d'))).toBe(c.replaceAll('/live/ops/c/', '/live/ops/d/'));

    // A read file that changed, and a file() that changed (never remembered): the next run in the same process
    // sees both.
    write(root, 'live/dev/env.hcl', 'locals {\n  env  = "dev"\n  peer = "other"\n}\n');
    write(root, 'note.txt', 'n2\n');
    const after = await run(root);
    expect(after.result.problems).toEqual([]);
    expect(after.edges['dev/a']).toEqual(['dev/n2', 'dev/other']);
    expect(after.edges['dev/b']).toEqual(['dev/n2', 'dev/other']);
    expect(after.edges['ops/c']).toEqual(['ops/core', 'ops/n2']);
  });
});
