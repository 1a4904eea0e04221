import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverEdges, recordedInputs, tempRoot, write } from '../../helpers/memo-repository.js';

// An included file's locals are remembered across units and replayed (discover/unit-config.ts #evaluateLocal): each
// unit must still get its own values, and its cache entry must record what a fresh evaluation records.

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
  const root = tempRoot('platctl-locals-memo-');
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

describe("an included file's locals remembered across units", () => {
  it('gives each unit its own values and records the same inputs as a fresh evaluation', async () => {
    const root = repository();
    const cold = await discoverEdges(root);
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
    const after = await discoverEdges(root);
    expect(after.result.problems).toEqual([]);
    expect(after.edges['dev/a']).toEqual(['dev/n2', 'dev/other']);
    expect(after.edges['dev/b']).toEqual(['dev/n2', 'dev/other']);
    expect(after.edges['ops/c']).toEqual(['ops/core', 'ops/n2']);
  });
});
