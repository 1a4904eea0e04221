import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverEdges, tempRoot, write } from '../../helpers/memo-repository.js';

// A path built with a Terraform function platctl does not compute, or with a conversion of null (unknown in
// Terragrunt v1.1.3), is refused as a path platctl cannot resolve offline: where it is written, why, and what to do.
describe('paths platctl cannot resolve offline', () => {
  it('names the function, the file and line, and the way out', async () => {
    const root = tempRoot('platctl-uncomputed-');
    write(root, '.platctl.yaml', 'version: 1\nenvironments:\n  dev:\n    dir: live/dev\n');
    write(root, 'live/dev/vpc/terragrunt.hcl', '');
    write(
      root,
      'live/dev/app/terragrunt.hcl',
      'dependency "vpc" {\n  config_path = "../${cidrhost("10.0.0.0/16", 5)}"\n}\n',
    );
    write(root, 'live/dev/db/terragrunt.hcl', 'dependencies {\n  paths = ["../${tostring(null)}"]\n}\n');
    // Not needed by any path: no problem at all.
    write(root, 'live/dev/web/terragrunt.hcl', 'locals {\n  subnet = cidrsubnet("10.0.0.0/16", 8, 1)\n}\n');
    const { result } = await discoverEdges(root);
    const byUnit = new Map(result.problems.map((p) => [p.location?.file, p]));
    expect(result.problems).toHaveLength(2);
    const app = byUnit.get(join(root, 'live/dev/app/terragrunt.hcl'));
    expect(app).toMatchObject({ kind: 'unresolved-expression', severity: 'error', location: { line: 2 } });
    expect(app?.message).toContain('cidrhost() is not computed by platctl');
    expect(app?.hint).toContain('implicit_deps');
    const db = byUnit.get(join(root, 'live/dev/db/terragrunt.hcl'));
    expect(db).toMatchObject({ kind: 'unresolved-expression', severity: 'error', location: { line: 2 } });
    expect(db?.message).toContain('tostring(null) has no value in Terragrunt');
    expect(db?.hint).toContain('--allow-unresolved');
  });
});
