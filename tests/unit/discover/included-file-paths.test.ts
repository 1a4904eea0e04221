/**
 * Paths and values that Terragrunt reads differently from what a first reading suggests (docs/discovery.md): in an
 * included file, file(), fileexists(), fileset() and templatefile() resolve a relative path against the included
 * file's directory, read_terragrunt_config() and read_tfvars_file() against the unit's; read_tfvars_file() returns
 * a JSON string. The e2e suite checks the same files against the real terragrunt (fixtures include-file-functions,
 * read-tfvars, err-read-tfvars-attribute).
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

function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'platctl-included-paths-'));
  temps.push(root);
  write(root, files);
  return root;
}

async function discoverEdges(root: string, cacheDir: string | false = false) {
  const config = configSchema.parse({ version: 1, environments: { dev: { dir: 'live/dev' } } });
  const result = await discover({ root, config, env: {}, cacheDir }, { version: 'test' });
  const edges: Record<string, string[]> = {};
  for (const id of result.graph.ids()) edges[id] = [...(result.graph.get(id)?.dependencies ?? [])].sort();
  return { edges, problems: result.problems, stats: result.stats };
}

const INCLUDE_ROOT = 'include "root" {\n  path = find_in_parent_folders("root.hcl")\n}\n';

/** Units a, b and decoy, and dev/app including live/root.hcl, which holds `body`. */
function withRoot(body: string, extra: Record<string, string> = {}): string {
  return repo({
    'live/root.hcl': body,
    'live/dev/app/terragrunt.hcl': INCLUDE_ROOT,
    'live/dev/a/terragrunt.hcl': '',
    'live/dev/b/terragrunt.hcl': '',
    'live/dev/decoy/terragrunt.hcl': '',
    ...extra,
  });
}

describe('relative paths in an included file', () => {
  it('file() reads from the included file’s directory, not the unit’s', async () => {
    const root = withRoot('dependency "x" {\n  config_path = "../${trimspace(file("pick.txt"))}"\n}\n', {
      'live/pick.txt': 'a\n',
      'live/dev/app/pick.txt': 'decoy\n',
    });
    const { edges, problems } = await discoverEdges(root);
    expect(problems).toEqual([]);
    expect(edges['dev/app']).toEqual(['dev/a']);
  });

  it('the public pattern: file("${path_relative_to_include()}/blue_green.yaml") reads the file beside the unit', async () => {
    const root = withRoot(
      'locals {\n  bg = yamldecode(file("${path_relative_to_include()}/blue_green.yaml"))\n}\n\ndependency "x" {\n  config_path = "../${local.bg.active}"\n}\n',
      { 'live/dev/app/blue_green.yaml': 'active: b\n' },
    );
    const { edges, problems } = await discoverEdges(root);
    expect(problems).toEqual([]);
    expect(edges['dev/app']).toEqual(['dev/b']);
  });

  it('fileexists(), fileset() and templatefile() (and the file() calls of its template) read from there too', async () => {
    const root = withRoot(
      [
        'dependencies {',
        '  paths = concat(',
        '    [fileexists("flag") ? "../a" : "../decoy"],',
        '    [for f in fileset("deps", "*.txt") : "../${trimsuffix(f, ".txt")}"],',
        '    [trimspace(templatefile("dep.tftpl", {}))],',
        '  )',
        '}',
        '',
      ].join('\n'),
      {
        'live/flag': '',
        'live/deps/b.txt': '',
        'live/dep.tftpl': '../${trimspace(file("inner.txt"))}\n',
        'live/inner.txt': 'a\n',
        'live/dev/app/deps/decoy.txt': '',
        'live/dev/app/dep.tftpl': '../decoy\n',
        'live/dev/app/inner.txt': 'decoy\n',
      },
    );
    const { edges, problems } = await discoverEdges(root);
    expect(problems).toEqual([]);
    expect(edges['dev/app']).toEqual(['dev/a', 'dev/b']);
  });

  it('read_terragrunt_config() and read_tfvars_file() still read from the unit’s directory', async () => {
    const root = withRoot(
      'dependencies {\n  paths = ["../${read_terragrunt_config("s.hcl").locals.d}", "../${jsondecode(read_tfvars_file("v.tfvars")).d}"]\n}\n',
      {
        'live/s.hcl': 'locals {\n  d = "decoy"\n}\n',
        'live/v.tfvars': 'd = "decoy"\n',
        'live/dev/app/s.hcl': 'locals {\n  d = "a"\n}\n',
        'live/dev/app/v.tfvars': 'd = "b"\n',
      },
    );
    const { edges, problems } = await discoverEdges(root);
    expect(problems).toEqual([]);
    expect(edges['dev/app']).toEqual(['dev/a', 'dev/b']);
  });

  it('abspath() resolves against the unit’s directory, where platctl runs terragrunt for the unit', async () => {
    // Terragrunt's abspath() is Go's filepath.Abs: the directory terragrunt runs in (docs/discovery.md).
    const root = withRoot('dependency "x" {\n  config_path = "${abspath(".")}/../a"\n}\n');
    const { edges, problems } = await discoverEdges(root);
    expect(problems).toEqual([]);
    expect(edges['dev/app']).toEqual(['dev/a']);
  });

  it('the unit cache notices a change to a file the include reads, and the locals memo gives each unit its own', async () => {
    const root = withRoot(
      'locals {\n  bg = yamldecode(file("${path_relative_to_include()}/bg.yaml"))\n  shared = trimspace(file("shared.txt"))\n}\n\ndependencies {\n  paths = ["../${local.bg.active}", "../${local.shared}"]\n}\n',
      {
        'live/shared.txt': 'a\n',
        'live/dev/app/bg.yaml': 'active: b\n',
        'live/dev/web/terragrunt.hcl': INCLUDE_ROOT,
        'live/dev/web/bg.yaml': 'active: decoy\n',
      },
    );
    const cacheDir = join(root, '.platctl-cache');
    const cold = await discoverEdges(root, cacheDir);
    expect(cold.problems).toEqual([]);
    expect(cold.edges['dev/app']).toEqual(['dev/a', 'dev/b']);
    expect(cold.edges['dev/web']).toEqual(['dev/a', 'dev/decoy']);

    write(root, { 'live/shared.txt': 'b\n' });
    const warm = await discoverEdges(root, cacheDir);
    expect(warm.edges['dev/app']).toEqual(['dev/b']);
    expect(warm.edges['dev/web']).toEqual(['dev/b', 'dev/decoy']);
  });
});

describe('read_tfvars_file()', () => {
  async function pathFrom(expression: string, files: Record<string, string>) {
    const root = repo({
      'live/dev/app/terragrunt.hcl': `dependency "x" {\n  config_path = ${expression}\n}\n`,
      'live/dev/yes/terragrunt.hcl': '',
      'live/dev/no/terragrunt.hcl': '',
      ...files,
    });
    return discoverEdges(root);
  }

  it('returns the variables of an HCL file as Go’s JSON encoder writes them', async () => {
    const { edges, problems } = await pathFrom(
      'read_tfvars_file("v.tfvars") == "{\\"a\\":\\"\\\\u003c\\\\u0026\\",\\"b\\":[1,true,null],\\"c\\":1000000000000000000000}" ? "../yes" : "../no"',
      { 'live/dev/app/v.tfvars': 'c = 1e21\nb = [1, true, null]\na = "<&"\n' },
    );
    expect(problems).toEqual([]);
    expect(edges['dev/app']).toEqual(['dev/yes']);
  });

  it('returns a .json file as written, and jsondecode() reads it', async () => {
    const { edges, problems } = await pathFrom(
      'read_tfvars_file("v.tfvars.json") == "{ \\"d\\": \\"yes\\" }\\n" ? "../${jsondecode(read_tfvars_file("v.tfvars.json")).d}" : "../no"',
      { 'live/dev/app/v.tfvars.json': '{ "d": "yes" }\n' },
    );
    expect(problems).toEqual([]);
    expect(edges['dev/app']).toEqual(['dev/yes']);
  });

  it('refuses a .json file that is not a JSON object, and a tfvars file that calls a function', async () => {
    const json = await pathFrom('"../${jsondecode(read_tfvars_file("v.json")).d}"', {
      'live/dev/app/v.json': '["yes"]\n',
    });
    expect(json.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/could not unmarshal json body of tfvar file .*v\.json: it holds an array, not an object/),
    ]);
    const hcl = await pathFrom('"../${jsondecode(read_tfvars_file("v.tfvars")).d}"', {
      'live/dev/app/v.tfvars': 'd = lower("YES")\n',
    });
    expect(hcl.problems).toHaveLength(1);
    expect(hcl.problems[0]?.message).toMatch(/read_tfvars_file: .*v\.tfvars: d: .*a tfvars file holds only values/);
  });

  it('refuses an attribute read on the string, as Terragrunt does, with a hint to wrap it in jsondecode()', async () => {
    const { edges, problems } = await pathFrom('"../${read_tfvars_file("v.tfvars").d}"', {
      'live/dev/app/v.tfvars': 'd = "yes"\n',
    });
    expect(edges['dev/app']).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      kind: 'evaluation-error',
      location: { line: 2 },
      hint: expect.stringContaining('jsondecode(read_tfvars_file("vars.tfvars")).name') as unknown,
    });
    expect(problems[0]?.message).toMatch(/cannot read attribute "d" of read_tfvars_file\(...\): it is a string/);
  });
});
