import { describe, expect, it } from 'vitest';
import {
  describe as describeNode,
  parseExpression,
  parseTemplate,
  type Expression,
} from '../../../discover/hcl/index.js';

function ast(source: string): Expression {
  const result = parseExpression(source);
  if (!result.ok) throw new Error(`${source}: ${result.error.message}`);
  return result.ast;
}

/** A compact rendering of a tree, to assert structure without offsets. */
function shape(node: Expression): string {
  switch (node.type) {
    case 'literal':
      return JSON.stringify(node.value);
    case 'template':
      return `tpl(${node.parts.map((p) => (p.kind === 'literal' ? JSON.stringify(p.value) : p.kind === 'interpolation' ? `\${${shape(p.expression)}}` : p.kind)).join(' ')})`;
    case 'tuple':
      return `[${node.items.map(shape).join(', ')}]`;
    case 'object':
      return `{${node.items.map(({ key, value }) => `${key.kind === 'name' ? key.name : shape(key.expression)}=${shape(value)}`).join(', ')}}`;
    case 'variable':
      return node.name;
    case 'getattr':
      return `${shape(node.object)}.${node.name}`;
    case 'index':
      return `${shape(node.object)}[${shape(node.key)}]`;
    case 'splat':
      return `splat-${node.form}(${shape(node.source)} -> ${shape(node.each)})`;
    case 'splat-item':
      return '@';
    case 'call':
      return `${node.name}(${node.args.map(shape).join(', ')}${node.expandFinal ? '...' : ''})`;
    case 'unary':
      return `(${node.operator}${shape(node.operand)})`;
    case 'binary':
      return `(${shape(node.left)} ${node.operator} ${shape(node.right)})`;
    case 'conditional':
      return `(${shape(node.condition)} ? ${shape(node.trueResult)} : ${shape(node.falseResult)})`;
    case 'for':
      return `for(${node.keyVar ?? ''},${node.valueVar} in ${shape(node.collection)}: ${node.key ? `${shape(node.key)} => ` : ''}${shape(node.value)}${node.group ? '...' : ''}${node.condition ? ` if ${shape(node.condition)}` : ''})`;
    case 'paren':
      return `(${shape(node.expression)})`;
  }
}

describe('parseExpression', () => {
  it('applies HCL operator precedence and associativity', () => {
    expect(shape(ast('a || b && c == d + e * -f'))).toBe('(a || (b && (c == (d + (e * (-f))))))');
    expect(shape(ast('1 - 2 - 3'))).toBe('((1 - 2) - 3)');
    expect(shape(ast('a < b == c >= d'))).toBe('((a < b) == (c >= d))');
    expect(shape(ast('!a.b[0]'))).toBe('(!a.b[0])');
  });

  it('parses conditionals right-associatively with full expressions in the branches', () => {
    expect(shape(ast('a ? b : c ? d : e'))).toBe('(a ? b : (c ? d : e))');
    expect(shape(ast('x == 1 ? y + 1 : z'))).toBe('((x == 1) ? (y + 1) : z)');
  });

  it('parses traversals, legacy indexes and splats', () => {
    expect(shape(ast('a.b.0["c"][d]'))).toBe('a.b[0]["c"][d]');
    expect(shape(ast('a[*].b.c[0]'))).toBe('splat-full(a -> @.b.c[0])');
    expect(shape(ast('a.*.b[0]'))).toBe('splat-attribute(a -> @.b)[0]');
  });

  it('parses calls, with expansion and trailing commas', () => {
    expect(shape(ast('f()'))).toBe('f()');
    expect(shape(ast('f(a, b...)'))).toBe('f(a, b...)');
    expect(shape(ast('f(\n  a,\n  b,\n)'))).toBe('f(a, b)');
    expect(shape(ast('provider::x::y(1)'))).toBe('provider::x::y(1)');
  });

  it('parses tuples and objects with separators HCL allows', () => {
    expect(shape(ast('[1, 2,]'))).toBe('[1, 2]');
    expect(shape(ast('[\n  1,\n  2\n]'))).toBe('[1, 2]');
    expect(shape(ast('{a = 1, b: 2}'))).toBe('{a=1, b=2}');
    expect(shape(ast('{\n  a = 1\n  "b" = 2\n  (c) = 3\n}'))).toBe('{a=1, "b"=2, (c)=3}');
    expect(shape(ast('{}'))).toBe('{}');
  });

  it('parses for expressions in both forms', () => {
    expect(shape(ast('[for x in xs : x.id if x.on]'))).toBe('for(,x in xs: x.id if x.on)');
    expect(shape(ast('{for k, v in m : k => v...}'))).toBe('for(k,v in m: k => v...)');
    expect(shape(ast('{\n  for k, v in m :\n  k => v\n}'))).toBe('for(k,v in m: k => v)');
  });

  it('unwraps a template that is one interpolation, keeps others as templates', () => {
    expect(shape(ast('"${a}"'))).toBe('a');
    expect(shape(ast('"x${a}"'))).toBe('tpl("x" ${a})');
    expect(shape(ast('"plain"'))).toBe('"plain"');
    expect(shape(ast('""'))).toBe('""');
  });

  it('parses heredocs as strings even around a single interpolation', () => {
    expect(shape(ast('<<EOT\n${a}\nEOT'))).toBe('tpl(${a} "\\n")');
    expect(shape(ast('f(<<EOT\nx\nEOT\n)'))).toBe('f("x\\n")');
  });

  it('nests template directives', () => {
    const node = ast('"%{ if a }x%{ else }%{ for v in l }${v}%{ endfor }%{ endif }"');
    expect(node.type).toBe('template');
    if (node.type !== 'template') return;
    const [part] = node.parts;
    expect(part?.kind).toBe('if');
    if (part?.kind !== 'if') return;
    expect(part.else[0]?.kind).toBe('for');
  });

  it('keeps offsets that slice back to the source', () => {
    const source = 'concat(local.a, [for x in local.b : x])';
    const node = ast(source);
    expect(node.type).toBe('call');
    if (node.type !== 'call') return;
    expect(node.args.map((arg) => source.slice(arg.start, arg.end))).toEqual(['local.a', '[for x in local.b : x]']);
  });

  it('memoises by source text', () => {
    expect(parseExpression('a.b + 1')).toBe(parseExpression('a.b + 1'));
    expect(parseTemplate('${a}/b')).toBe(parseTemplate('${a}/b'));
  });
});

describe('parse errors', () => {
  const cases: [string, string, number][] = [
    ['a +', 'expected an expression, found the end of the expression', 4],
    ['f(a b)', 'expected "," or ")" in the arguments of f()', 5],
    ['[1 2]', 'expected "," or "]" in the tuple', 4],
    ['{a = 1 b = 2}', 'expected ",", a newline or "}" after the object item', 8],
    ['{a.b = 1}', 'ambiguous object key', 2],
    ['a ? b', 'expected ":" in the conditional expression', 6],
    ['"${a"', 'expected "}" to close the interpolation', 5],
    ['"%{ if a }x"', '%{ if } has no matching %{ endif }', 2],
    ['"%{ endif }"', '%{ endif } without a matching %{ if }', 2],
    ['"%{ bogus }"', 'unknown template directive "bogus"', 5],
    ['f(a..., b)', 'the "..." expansion must be on the last argument', 7],
    ['a b', 'unexpected "b" after the expression', 3],
    ["'x'", 'use double quotes', 1],
    ['[for x in y]', 'expected ":" after the collection of the for expression', 12],
    ['a.', 'expected an attribute name after "."', 3],
  ];

  it.each(cases)('%s', (source, message, column) => {
    const result = parseExpression(source);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toBe('parse-error');
    expect(result.error.message).toContain(message);
    expect(result.error.column).toBe(column);
    expect(result.error.line).toBe(1);
  });

  it('reports lines and columns in multi-line source', () => {
    const result = parseExpression('f(\n  a,\n  b c\n)');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect([result.error.line, result.error.column]).toEqual([3, 5]);
  });

  it('refuses an object value continued on the next line, as HCL does', () => {
    expect(parseExpression('{ a = 1\n + 2 }').ok).toBe(false);
    expect(parseExpression('{ a = (1\n + 2) }').ok).toBe(true);
  });
});

describe('describe', () => {
  it('renders traversals for messages', () => {
    expect(describeNode(ast('include.root.locals["x"][0]'))).toBe('include.root.locals["x"][0]');
    expect(describeNode(ast('a[*].b'))).toBe('a[*].b');
    expect(describeNode(ast('dirname(x)'))).toBe('dirname(...)');
  });
});
