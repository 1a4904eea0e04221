import { describe, expect, it } from 'vitest';
import { labelBareIncludes } from '../../../discover/bare-include.js';
import { hclJsonPositions, parseHclJson } from '../../../discover/hcl-json.js';

describe('HCL JSON files', () => {
  it('turn blocks into the shape hcl2json gives native files, strings staying templates', () => {
    const text = JSON.stringify({
      '//': 'a comment',
      locals: { env: 'dev' },
      include: { root: { path: '${find_in_parent_folders("root.hcl")}' } },
      dependency: { vpc: { config_path: '../vpc' }, db: [{ config_path: '../db' }] },
      terraform: [{ source: 'git::x' }],
      inputs: { name: '${local.env}' },
    });
    expect(parseHclJson('/r/a.hcl.json', text)).toEqual({
      ok: true,
      json: {
        locals: [{ env: 'dev' }],
        include: { root: [{ path: '${find_in_parent_folders("root.hcl")}' }] },
        dependency: { vpc: [{ config_path: '../vpc' }], db: [{ config_path: '../db' }] },
        terraform: [{ source: 'git::x' }],
        inputs: { name: '${local.env}' },
      },
    });
  });

  it('report invalid JSON at its line and column', () => {
    expect(parseHclJson('/r/a.hcl.json', '{\n  "locals": {},\n}\n')).toMatchObject({
      ok: false,
      location: { file: '/r/a.hcl.json', line: 3, column: 1 },
    });
  });

  it('report a block written as something else at its key', () => {
    const outcome = parseHclJson('/r/a.hcl.json', '{\n  "dependency": {\n    "vpc": "../vpc"\n  }\n}\n');
    expect(outcome).toMatchObject({
      ok: false,
      message: expect.stringContaining('"dependency.vpc" must be a block'),
      location: { line: 3 },
    });
  });

  it('find where blocks and attributes are written', () => {
    const text = '{\n  "dependency": {\n    "vpc": {\n      "config_path": "../vpc"\n    }\n  }\n}\n';
    const outcome = parseHclJson('/r/a.hcl.json', text);
    if (!outcome.ok) throw new Error(outcome.message);
    expect(hclJsonPositions(text, outcome.json)).toEqual([
      { type: 'dependency', labels: ['vpc'], line: 3, column: 5, attributes: { config_path: [4, 7] } },
    ]);
  });
});

describe('a bare include beside labelled ones', () => {
  it('is labelled "" on its own line, nothing else moving', () => {
    const text = '# x\ninclude {\n  path = "a"\n}\n  include   {\n}\ninclude "env" {\n  path = "b"\n}\n';
    expect(labelBareIncludes(text)).toBe(
      '# x\ninclude "" {\n  path = "a"\n}\n  include ""   {\n}\ninclude "env" {\n  path = "b"\n}\n',
    );
  });

  it('leaves a file without a bare include alone', () => {
    expect(labelBareIncludes('include "env" {\n}\n')).toBeUndefined();
  });
});
