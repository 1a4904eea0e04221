import { describe, expect, it } from 'vitest';
import { outline, outlineBody, type OutlineBlock } from '../../../discover/hcl/index.js';

const unit = `# A unit
include "root" {
  path   = find_in_parent_folders("root.hcl")
  expose = true
}

locals {
  env = "dev" // trailing comment
  tricky = "braces } { and \\"quotes\\" and \${"}"} and # not a comment"
  doc = <<-EOT
    dependency "fake" {
      config_path = "../not-a-block"
    }
  EOT
  /* a block comment with dependency "x" { } inside */
  map = {
    a = [1, 2,
      3]
  }
}

dependency "vpc" {
  config_path = "\${dirname(find_in_parent_folders("root.hcl"))}/\${local.env}/vpc"

  mock_outputs = {
    vpc_id = "vpc-123"
  }
}

dependency "db" { config_path = "../db" }

dependencies {
  paths = [
    "../a",
    "../b",
  ]
}

inputs = {
  name = local.env
}
`;

function find(blocks: readonly OutlineBlock[], type: string, label?: string): OutlineBlock {
  const block = blocks.find((b) => b.type === type && (label === undefined || b.labels[0] === label));
  if (!block) throw new Error(`no ${type} ${label ?? ''} block`);
  return block;
}

describe('outline', () => {
  const blocks = outline(unit);

  it('finds the top-level blocks with their labels and positions', () => {
    expect(blocks.map((b) => [b.type, b.labels.join(' '), b.line, b.column])).toEqual([
      ['include', 'root', 2, 1],
      ['locals', '', 7, 1],
      ['dependency', 'vpc', 22, 1],
      ['dependency', 'db', 30, 1],
      ['dependencies', '', 32, 1],
    ]);
    expect(find(blocks, 'include').endLine).toBe(5);
    expect(find(blocks, 'dependency', 'vpc').endLine).toBe(28);
  });

  it('gives attributes with their raw expression text and positions', () => {
    const vpc = find(blocks, 'dependency', 'vpc');
    expect(vpc.attributes.map((a) => [a.name, a.line, a.column])).toEqual([
      ['config_path', 23, 3],
      ['mock_outputs', 25, 3],
    ]);
    expect(vpc.attributes[0]?.source).toBe('"${dirname(find_in_parent_folders("root.hcl"))}/${local.env}/vpc"');
    expect(vpc.attributes[0]).toMatchObject({ valueLine: 23, valueColumn: 17 });
    expect(vpc.attributes[1]?.source).toBe('{\n    vpc_id = "vpc-123"\n  }');
    expect(find(blocks, 'dependency', 'db').attributes[0]).toMatchObject({
      name: 'config_path',
      line: 30,
      source: '"../db"',
    });
    expect(find(blocks, 'dependencies').attributes[0]?.source).toBe('[\n    "../a",\n    "../b",\n  ]');
  });

  it('skips strings, heredocs and comments that look like blocks', () => {
    const locals = find(blocks, 'locals');
    expect(locals.attributes.map((a) => a.name)).toEqual(['env', 'tricky', 'doc', 'map']);
    expect(locals.blocks).toEqual([]);
    expect(locals.attributes[0]?.source).toBe('"dev"');
    expect(locals.attributes[1]?.source).toBe('"braces } { and \\"quotes\\" and ${"}"} and # not a comment"');
    expect(locals.attributes[3]?.source).toBe('{\n    a = [1, 2,\n      3]\n  }');
    expect(blocks.some((b) => b.labels.includes('fake') || b.labels.includes('x'))).toBe(false);
  });

  it('returns top-level attributes too, through outlineBody', () => {
    const body = outlineBody(unit);
    expect(body.attributes.map((a) => [a.name, a.line, a.source])).toEqual([
      ['inputs', 39, '{\n  name = local.env\n}'],
    ]);
  });

  it('nests blocks and accepts identifier labels and one-line blocks', () => {
    const nested = outline(
      'outer a "b" {\n  inner { x = 1 }\n  inner {\n    x = 2\n  }\n  deep "d" {\n    v = 3\n  }\n}\nempty {}\n',
    );
    const outer = find(nested, 'outer');
    expect(outer.labels).toEqual(['a', 'b']);
    expect(outer.blocks.map((b) => [b.type, b.labels.join(), b.line])).toEqual([
      ['inner', '', 2],
      ['inner', '', 3],
      ['deep', 'd', 6],
    ]);
    expect(outer.blocks[0]?.attributes[0]).toMatchObject({ name: 'x', source: '1', line: 2, column: 11 });
    expect(find(outer.blocks, 'deep').attributes[0]?.source).toBe('3');
    expect(find(nested, 'empty')).toMatchObject({ attributes: [], blocks: [], line: 10 });
  });

  it('never throws on malformed input and keeps what it recognised', () => {
    const inputs = [
      'dependency "vpc" {\n  config_path = "../vpc"\n',
      'a = "unterminated\ndependency "x" {\n  config_path = "../x"\n}\n',
      '}}}\nlocals { a = 1 }\n',
      'locals {\n  a = (1 + \n}\nafter {}\n',
      '<<EOT\nno end',
      '/* never closed',
      'block "label {\n}',
      '"just a string"',
      '= = =',
      '',
    ];
    for (const input of inputs) expect(() => outline(input), input).not.toThrow();
    expect(find(outline(inputs[0] ?? ''), 'dependency').attributes[0]?.source).toBe('"../vpc"');
    expect(find(outline(inputs[1] ?? ''), 'dependency', 'x').attributes[0]?.source).toBe('"../x"');
    expect(find(outline(inputs[2] ?? ''), 'locals').attributes[0]?.name).toBe('a');
  });

  it('handles CRLF line endings', () => {
    const crlf = 'dependency "vpc" {\r\n  config_path = "../vpc"\r\n}\r\n';
    const block = find(outline(crlf), 'dependency');
    expect(block.attributes[0]).toMatchObject({ name: 'config_path', line: 2, column: 3, source: '"../vpc"' });
  });
});
