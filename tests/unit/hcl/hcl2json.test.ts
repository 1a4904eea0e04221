/**
 * The hcl2json conventions, end to end: parse HCL with the real @cdktf/hcl2json, evaluate its output, and check
 * (1) the raw encoding the evaluator relies on, (2) the evaluated values, and (3) that evaluating hcl2json's output
 * agrees with evaluating the attribute's source text directly (found by outline()).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { BigNumber } from '../../../discover/hcl/number.js';
import {
  Unknown,
  evaluateJson,
  evaluateLocals,
  evaluateSource,
  outlineBody,
  standardFunctions,
  type HclFunction,
  type Scope,
  type Value,
} from '../../../discover/hcl/index.js';

// Loaded through require with a local type: the package's declarations pull in the DOM library.
const { parse } = createRequire(import.meta.url)('@cdktf/hcl2json') as {
  parse: (file: string, content: string) => Promise<Record<string, unknown>>;
};

const source = readFileSync(new URL('./fixtures/conventions.hcl', import.meta.url), 'utf8');
let json: Record<string, unknown>;

const functions: Record<string, HclFunction> = {
  ...standardFunctions(),
  find_in_parent_folders: (args) => `/repo/${args[0] as string}`,
};

function scopeFor(locals: Record<string, unknown>[]): Scope {
  const merged = Object.assign({}, ...locals) as Record<string, unknown>;
  const scope: Scope = { variables: {}, functions };
  scope.variables.local = evaluateLocals(merged, () => scope);
  return scope;
}

beforeAll(async () => {
  json = await parse('conventions.hcl', source);
});

const expected: Record<string, Value> = {
  literal: '../vpc',
  escaped_interp: 'cost ${notinterp}',
  escaped_control: 'percent %{ x }',
  backslashes: 'quote " backslash \\ tab\t uni é',
  unicode_dollar: '${x}',
  backslash_interp: 'a\\dev',
  dollar_run: '$${x}',
  interp_suffix: 'dev/b',
  interp_prefix: 'x-dev',
  bare_reference: ['a', 'b'],
  call: '/repo/live',
  nested_call: '/repo/live/dev/vpc',
  conditional: 'a',
  template_cond: 'x-a',
  template_cond_num: 'x-1',
  if_directive: 'yes',
  empty_else: 'a',
  for_directive: 'a=1b=2',
  strip: 'yes',
  strip_interp: 'dev',
  number: 42,
  float: 3.14,
  exp: 1000,
  negative: -5,
  negative_float: -1.5,
  negated_ref: -3,
  negated_paren: -2,
  arithmetic: 3,
  bool: false,
  nothing: null,
  tuple: [1, 'two', 'dev', 'dev-z', -1],
  object: { k: 1, q: 'dev', n: { m: true } },
  colon_object: { a: 1, b: 3 },
  computed_keys: { dev: 1, 'us-east-1-x': 2, '3': 'three', '${lit}': 4 },
  for_tuple: ['A', 'B'],
  for_object: { a: 10, b: 20 },
  index: 1,
  legacy_index: 'a',
  splat: [1, 2],
  paren: 3,
  paren_string: 'x',
  single_number: 1,
  single_string: 'a',
  single_bool: true,
  single_tuple: [1, 2],
  nested_template: 'nested dev',
  heredoc: 'hello\n  dev\n',
  flush_heredoc: 'indented\n  more\n',
  heredoc_directive: 'y\n',
  heredoc_escapes: 'multi ${x} %{y}\n',
  heredoc_in_call: { a: 1, b: 'dev' },
  multiline_call: ['a', 'b'],
  expansion: 5,
  escaped_in_call: '\\N"',
  try_fallback: 'fallback',
  set_function: ['a', 'b'],
  compare: 1,
  comment_inside: 'xdev',
};

describe('hcl2json encoding (what the evaluator relies on)', () => {
  it('wraps non-literal expressions in ${...} with their exact source', () => {
    expect(json.bare_reference).toBe('${local.list}');
    expect(json.call).toBe('${dirname(local.root)}');
    expect(json.negated_ref).toBe('${-local.n}');
    expect(json.arithmetic).toBe('${1 + 2}');
    expect(json.paren).toBe('${(local.n)}');
    expect(json.escaped_in_call).toBe('${upper("\\\\n\\"")}');
    expect(json.multiline_call).toBe('${concat(\n  ["a"], # comment\n  ["b"] // comment\n  /* block */\n)}');
    expect(json.heredoc_in_call).toBe('${yamldecode(<<EOT\na: 1\nb: ${local.env}\nEOT\n)}');
  });

  it('keeps literal strings decoded but template escapes escaped', () => {
    expect(json.literal).toBe('../vpc');
    expect(json.backslashes).toBe('quote " backslash \\ tab\t uni é');
    expect(json.escaped_interp).toBe('cost $${notinterp}');
    expect(json.unicode_dollar).toBe('$${x}');
    expect(json.dollar_run).toBe('$$${x}');
    expect(json.backslash_interp).toBe('a\\${local.env}');
    expect(json.heredoc_escapes).toBe('multi $${x} %%{y}\n');
  });

  it('turns literals into JSON values and collapses trivial templates', () => {
    expect([json.number, json.float, json.exp, json.negative, json.bool, json.nothing]).toEqual([
      42,
      3.14,
      1000,
      -5,
      false,
      null,
    ]);
    expect([json.single_number, json.single_string, json.single_bool, json.single_tuple]).toEqual([
      1,
      'a',
      true,
      [1, 2],
    ]);
    expect(json.nested_template).toBe('nested ${local.env}');
    expect(json.tuple).toEqual([1, 'two', '${local.env}', '${local.env}-z', -1]);
  });

  it('re-serialises directives without spaces or strip markers', () => {
    expect(json.if_directive).toBe('%{if local.flag}yes%{else}no%{endif}');
    expect(json.empty_else).toBe('%{if local.flag}a%{endif}');
    expect(json.for_directive).toBe('%{for k, v in local.m}${k}=${v}%{endfor}');
    expect(json.strip).toBe('%{if true}yes%{endif}');
    expect(json.strip_interp).toBe('${local.env}');
    expect(json.template_cond).toBe('x-%{if local.flag}a%{else}b%{endif}');
    expect(json.comment_inside).toBe('x${local.env}');
  });

  it('decodes heredocs into template strings', () => {
    expect(json.heredoc).toBe('hello\n  ${local.env}\n');
    expect(json.flush_heredoc).toBe('indented\n  more\n');
  });

  it('encodes object keys as templates', () => {
    expect(Object.keys(json.computed_keys as object).sort()).toEqual([
      '$${lit}',
      '${(local.env)}',
      '${local.region}-x',
      '3',
    ]);
  });

  it('nests blocks by label, in arrays of bodies', () => {
    expect(json.dependency).toEqual({
      vpc: [{ config_path: '../vpc' }, { config_path: '../vpc2' }],
      db: [{ config_path: '${dirname(local.root)}/${local.env}/db', enabled: '${local.flag}' }],
    });
    expect(json.include).toEqual({ root: [{ path: '${find_in_parent_folders("root.hcl")}', expose: true }] });
    expect(json.locals).toHaveLength(2);
    expect(json.nested).toEqual({ a: { b: [{ inner: [{ w: 1 }, { w: 2 }], deep: { d: [{ v: 3 }] } }] } });
    expect(json.empty).toEqual([{}]);
  });
});

describe('evaluating hcl2json output', () => {
  it('gives the expected value for every attribute', () => {
    const scope = scopeFor(json.locals as Record<string, unknown>[]);
    for (const [name, value] of Object.entries(expected)) {
      const result = evaluateJson(json[name], scope);
      // A fraction such as 3.14 is read back as cty reads the literal (a 512-bit number); compare its text.
      if (result instanceof BigNumber) expect(result.toString(), name).toBe(String(value as number));
      else expect(result, name).toEqual(value);
    }
  });

  it('reads a fraction written as a JSON number back as cty reads the literal (512 bits, not float64)', () => {
    const scope = scopeFor(json.locals as Record<string, unknown>[]);
    // 0.1 as float64 is 0.1000000000000000055511151231257827...; as a cty literal it is 0.1 to 512 bits, and
    // three of them add up to 0.3 exactly as OpenTofu prints it.
    expect(evaluateJson('${tostring(0.1 + 0.1 + 0.1)}', scope)).toBe('0.3');
    expect((evaluateJson(0.1, scope) as BigNumber).toString()).toBe('0.1');
    expect(
      evaluateJson('${tostring(local.x * 3)}', { ...scope, variables: { local: { x: evaluateJson(0.1, scope) } } }),
    ).toBe('0.3');
  });

  it('covers every attribute of the fixture', () => {
    const attributes = outlineBody(source).attributes.map((a) => a.name);
    expect(attributes.sort()).toEqual(Object.keys(expected).sort());
  });

  it('agrees with evaluating the attribute source text directly', () => {
    const scope = scopeFor(json.locals as Record<string, unknown>[]);
    for (const attribute of outlineBody(source).attributes) {
      expect(evaluateSource(attribute.source, scope), attribute.name).toEqual(
        evaluateJson(json[attribute.name], scope),
      );
    }
  });

  it('evaluates blocks, with Unknown dependency outputs', () => {
    const scope = scopeFor(json.locals as Record<string, unknown>[]);
    scope.variables.dependency = { vpc: { outputs: new Unknown('outputs are not available', 'dependency.vpc') } };
    expect(evaluateJson(json.dependency, scope)).toEqual({
      vpc: [{ config_path: '../vpc' }, { config_path: '../vpc2' }],
      db: [{ config_path: '/repo/live/dev/db', enabled: true }],
    });
    expect(evaluateJson(json.include, scope)).toEqual({ root: [{ path: '/repo/root.hcl', expose: true }] });
    expect(evaluateJson('${dependency.vpc.outputs.id}', scope)).toBeInstanceOf(Unknown);
  });
});

describe('heredoc and template edge cases agree with hcl2json', () => {
  // Each value is written once; hcl2json decodes it, our parser evaluates the same source text.
  const cases: Record<string, string> = {
    blank_lines: '<<-EOT\n    a\n\n    b\n        \n    c\nEOT',
    tabs: '<<-EOT\n\t\ta\n\t  b\n\tEOT',
    interp_at_line_start: '<<-EOT\n    a\n${local.x}\n    b\nEOT',
    interp_indented: '<<-EOT\n      ${local.x}\n    b\nEOT',
    less_indented_close: '<<-EOT\n    a\n  EOT',
    strip_in_heredoc: '<<EOT\nline\n  %{~ if true ~}\n  kept\n  %{~ endif ~}\nend\nEOT',
    plain_heredoc_indent: '<<EOT\n    keep\n  all\nEOT',
    directive_lines: '<<-EOT\n  %{ for v in ["a", "b"] ~}\n  ${v}\n  %{ endfor ~}\nEOT',
    unicode_spaces: '<<-EOT\n  \u2003x\n  y\nEOT',
    crlf_free_text: '"a\\tb\\u0041\\U0001F600"',
  };

  it('decodes each case to the same string', async () => {
    const file = Object.entries(cases)
      .map(([name, value]) => `${name} = ${value}\n`)
      .join('');
    const decoded = await parse('cases.hcl', file);
    const scope: Scope = { variables: { local: { x: 'X' } }, functions: standardFunctions() };
    for (const [name, value] of Object.entries(cases)) {
      const fromJson = evaluateJson(decoded[name], scope);
      expect(evaluateSource(value, scope), name).toEqual(fromJson);
    }
  });
});
