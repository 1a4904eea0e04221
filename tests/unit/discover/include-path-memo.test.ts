import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverEdges, recordedInputs, tempRoot, write } from '../../helpers/memo-repository.js';

// Include paths are remembered across units by their text and replayed (discover/unit-config.ts includePathMemo):
// the same text must still find each unit's own file, and each unit's cache entry must still record the search.

const ROOT_HCL = 'dependencies {\n  paths = ["${get_parent_terragrunt_dir()}/base"]\n}\n';
const PLAIN = 'include "root" {\n  path = find_in_parent_folders("root.hcl")\n}\n';
const TEMPLATE = 'include "root" {\n  path = "${dirname(find_in_parent_folders("root.hcl"))}/root.hcl"\n}\n';

function repository(): string {
  const root = tempRoot('platctl-include-memo-');
  write(root, '.platctl.yaml', 'version: 1\nenvironments:\n  dev:\n    dir: live/dev\n');
  write(root, 'live/dev/root.hcl', ROOT_HCL);
  write(root, 'live/dev/base/terragrunt.hcl', '');
  write(root, 'live/dev/special/root.hcl', ROOT_HCL);
  write(root, 'live/dev/special/base/terragrunt.hcl', '');
  write(root, 'live/dev/a/terragrunt.hcl', PLAIN);
  write(root, 'live/dev/b/terragrunt.hcl', TEMPLATE);
  write(root, 'live/dev/special/c/terragrunt.hcl', PLAIN);
  write(root, 'live/dev/special/d/terragrunt.hcl', TEMPLATE);
  write(root, 'live/dev/sub/e/terragrunt.hcl', PLAIN);
  write(root, 'live/dev/sub/f/terragrunt.hcl', TEMPLATE);
  return root;
}

describe('include paths remembered across units', () => {
  it('finds each unit its own file, records the search for every unit, and notices a closer file', async () => {
    const root = repository();
    const cold = await discoverEdges(root);
    expect(cold.result.problems).toEqual([]);
    expect(cold.edges['dev/a']).toEqual(['dev/base']);
    expect(cold.edges['dev/b']).toEqual(['dev/base']);
    // Evaluated after units whose same path text found live/dev/root.hcl: the memo's answer is not theirs.
    expect(cold.edges['dev/special/c']).toEqual(['dev/special/base']);
    expect(cold.edges['dev/special/d']).toEqual(['dev/special/base']);
    // And back again, after units that found live/dev/special/root.hcl.
    expect(cold.edges['dev/sub/e']).toEqual(['dev/base']);
    expect(cold.edges['dev/sub/f']).toEqual(['dev/base']);
    // A unit whose path came from the memo records the search it depends on, as one evaluated afresh does.
    for (const [id, dir] of [
      ['dev/b', 'live/dev'],
      ['dev/sub/e', 'live/dev/sub'],
      ['dev/sub/f', 'live/dev/sub'],
    ] as const) {
      expect(recordedInputs(root, id)?.finds).toEqual([
        `${join(root, dir)}\u0000root.hcl`,
        join(root, 'live/dev/root.hcl'),
      ]);
    }

    const warm = await discoverEdges(root);
    expect(warm.edges).toEqual(cold.edges);
    expect(warm.result.stats.unitsReused).toBe(warm.result.stats.units);

    // A root.hcl closer to sub/e and sub/f: both must be evaluated again, and find it.
    write(root, 'live/dev/sub/root.hcl', ROOT_HCL);
    write(root, 'live/dev/sub/base/terragrunt.hcl', '');
    const after = await discoverEdges(root);
    expect(after.result.problems).toEqual([]);
    expect(after.edges['dev/sub/e']).toEqual(['dev/sub/base']);
    expect(after.edges['dev/sub/f']).toEqual(['dev/sub/base']);
    expect(after.edges['dev/a']).toEqual(['dev/base']);
    expect(after.edges['dev/special/c']).toEqual(['dev/special/base']);
  });

  it('does not remember a path that took a fallback, nor one that failed', async () => {
    const root = tempRoot('platctl-include-memo-');
    write(root, '.platctl.yaml', 'version: 1\nenvironments:\n  dev:\n    dir: live/dev\n');
    write(root, 'live/dev/base/terragrunt.hcl', '');
    write(root, 'live/dev/x/root.hcl', ROOT_HCL);
    write(root, 'live/dev/x/base/terragrunt.hcl', '');
    const fallback =
      'include "root" {\n  path = try(find_in_parent_folders("root.hcl"), "${get_terragrunt_dir()}/../x/root.hcl")\n}\n';
    // dev/a finds no root.hcl above it and takes the fallback; dev/x/b finds live/dev/x/root.hcl.
    write(root, 'live/dev/a/terragrunt.hcl', fallback);
    write(root, 'live/dev/x/b/terragrunt.hcl', fallback);
    write(root, 'live/dev/y/terragrunt.hcl', PLAIN);
    const { result, edges } = await discoverEdges(root);
    expect(edges['dev/a']).toEqual(['dev/x/base']);
    expect(edges['dev/x/b']).toEqual(['dev/x/base']);
    expect(result.problems.map((p) => [p.unit, p.kind])).toEqual([['dev/y', 'evaluation-error']]);
  });
});
