/**
 * A remote_state whose backend or whole config is built from a dependency's outputs: Terragrunt v1.1.3 builds its
 * graph without outputs (mocks are not used there), cannot parse it, and so `terragrunt find` leaves out the unit's
 * dependencies and `terragrunt run --all` stops. platctl keeps the edges and warns (docs/discovery.md); the e2e
 * suite checks Terragrunt's side on the fixture terragrunt-drops-dependencies.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { discover } from '../../../discover/index.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

async function discoverRepo(files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), 'platctl-tg-drops-'));
  temps.push(root);
  const all = { 'live/dev/vpc/terragrunt.hcl': '', 'live/dev/db/terragrunt.hcl': '', ...files };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const config = configSchema.parse({ version: 1, environments: { dev: { dir: 'live/dev' } } });
  const result = await discover({ root, config, env: {}, cacheDir: false });
  const edges: Record<string, string[]> = {};
  for (const id of result.graph.ids()) edges[id] = [...(result.graph.get(id)?.dependencies ?? [])].sort();
  return { root, edges, problems: result.problems };
}

const VPC =
  'dependency "vpc" {\n  config_path  = "../vpc"\n  mock_outputs = { state = { path = "x" }, backend = "local", name = "n" }\n}\n\ndependencies {\n  paths = ["../db"]\n}\n\n';

describe('a remote_state Terragrunt cannot parse while building its graph', () => {
  it('in the unit: the edges are kept, and a warning names the unit, where, and what Terragrunt does', async () => {
    const { root, edges, problems } = await discoverRepo({
      'live/dev/app/terragrunt.hcl': `${VPC}remote_state {\n  backend = "local"\n  config  = dependency.vpc.outputs.state\n}\n`,
    });
    expect(edges['dev/app']).toEqual(['dev/db', 'dev/vpc']);
    expect(problems).toHaveLength(1);
    const [warning] = problems;
    expect(warning).toMatchObject({
      severity: 'warning',
      kind: 'terragrunt-drops-dependencies',
      unit: 'dev/app',
      location: { file: join(root, 'live/dev/app/terragrunt.hcl'), line: 12 },
      details: [
        'remote_state config reads dependency.vpc.outputs, which Terragrunt does not fetch while building its graph (mock_outputs are not used there either)',
        'expression: dependency.vpc.outputs.state',
      ],
    });
    expect(warning?.message).toBe(
      'Terragrunt would order dev/app without its dependencies (terragrunt find leaves them out, run --all stops with an error); platctl keeps the 2 it computes',
    );
    expect(warning?.hint).toMatch(/build remote_state config from literals, locals or get_env\(\)/);
  });

  it('through locals, a conditional or a call: the backend or config as a whole is not known', async () => {
    const { problems } = await discoverRepo({
      'live/dev/local/terragrunt.hcl': `${VPC}locals {\n  a = dependency.vpc.outputs.backend\n  b = local.a\n}\n\nremote_state {\n  backend = local.b\n  config  = { path = "x" }\n}\n`,
      'live/dev/cond/terragrunt.hcl': `${VPC}remote_state {\n  backend = dependency.vpc.outputs.backend == "" ? "s3" : "local"\n  config  = { path = "x" }\n}\n`,
      'live/dev/merge/terragrunt.hcl': `${VPC}remote_state {\n  backend = "local"\n  config  = merge({ path = "x" }, dependency.vpc.outputs.state)\n}\n`,
    });
    expect(problems.map((p) => [p.unit, p.kind, p.location?.line])).toEqual([
      ['dev/cond', 'terragrunt-drops-dependencies', 11],
      ['dev/local', 'terragrunt-drops-dependencies', 16],
      ['dev/merge', 'terragrunt-drops-dependencies', 12],
    ]);
  });

  it('no warning where Terragrunt parses it: outputs inside config, or a value only a real run knows', async () => {
    const { edges, problems } = await discoverRepo({
      'live/dev/inner/terragrunt.hcl': `${VPC}remote_state {\n  backend = "local"\n  config  = { path = "\${dependency.vpc.outputs.name}.tfstate", lock = dependency.vpc.outputs.name }\n}\n`,
      'live/dev/cmd/terragrunt.hcl': `${VPC}remote_state {\n  backend = run_cmd("echo", "local")\n  config  = { path = "x" }\n}\n`,
    });
    expect(problems).toEqual([]);
    expect(edges['dev/inner']).toEqual(['dev/db', 'dev/vpc']);
  });

  it('in an included file: one warning at its line, naming the units that include it', async () => {
    const include = 'include "root" {\n  path   = find_in_parent_folders("root.hcl")\n  expose = true\n}\n\n';
    const { root, edges, problems } = await discoverRepo({
      'live/root.hcl':
        'locals {\n  network = "vpc"\n}\n\ndependency "db" {\n  config_path = "${get_terragrunt_dir()}/../db"\n}\n\nremote_state {\n  backend = dependency.db.outputs.backend\n  config  = { path = "x" }\n}\n',
      'live/dev/web/terragrunt.hcl': `${include}dependency "vpc" {\n  config_path = "../\${include.root.locals.network}"\n}\n`,
      'live/dev/api/terragrunt.hcl': include,
    });
    expect(edges['dev/web']).toEqual(['dev/db', 'dev/vpc']);
    expect(edges['dev/api']).toEqual(['dev/db']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      kind: 'terragrunt-drops-dependencies',
      severity: 'warning',
      location: { file: join(root, 'live/root.hcl'), line: 10 },
      details: [
        expect.stringContaining('remote_state backend reads dependency.db.outputs') as unknown,
        'expression: dependency.db.outputs.backend',
        'included by units dev/api, dev/web',
      ],
    });
    expect(problems[0]?.message).toContain('or without any when a unit reads include.<name> in one');
  });
});
