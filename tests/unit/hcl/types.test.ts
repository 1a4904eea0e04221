/**
 * cty's type rules as OpenTofu applies them: values keep their type (tuple vs list, object vs map, set), `==`
 * compares types first, conversions and unification follow cty.convert. Each expectation is what OpenTofu (and so
 * Terragrunt) evaluates the expression to; the differential fuzzer (bench/expr-fuzz) found the cases.
 */
import { describe, expect, it } from 'vitest';
import { evaluateSource, standardFunctions, typeOf } from '../../../discover/hcl/index.js';
import { failure, run, plain } from './helpers.js';

describe('equality compares types first', () => {
  it.each([
    ['tolist([1]) == [1]', false],
    ['[1] == [1]', true],
    ['tolist([1]) == tolist([1])', true],
    ['{ a = 1 } == tomap({ a = 1 })', false],
    ['tomap({ a = 1 }) == tomap({ a = 1 })', true],
    ['1 == "1"', false],
    ['toset(["b", "a"]) == toset(["a", "b"])', true],
    ['null == null', true],
    ['tolist([]) == []', false],
    ['1.0 == 1', true],
    ['[1, "a"] == [1, "a"]', true],
    ['contains(["1"], 1)', false],
  ])('%s is %s', (source, value) => {
    expect(plain(run(source))).toEqual(value);
  });
});

describe('a conditional has the type both results unify to', () => {
  it.each([
    ['true ? 1 : "a"', '1'],
    ['false ? "a" : true', 'true'],
    ['jsonencode(true ? [1] : ["a"])', '["1"]'],
    ['jsonencode(true ? { a = 1 } : { b = "x" })', '{"a":"1"}'],
    ['jsonencode(true ? [1, 2] : [])', '[1,2]'],
    ['true ? 1 : null', 1],
    // The branch not taken is evaluated for its type only; its errors are dropped, as HCL drops them.
    ['true ? 1 : x.missing', 1],
  ])('%s', (source, value) => {
    expect(run(source, { x: { y: 'z' } })).toEqual(value);
  });

  it('refuses results that do not unify, as OpenTofu does', () => {
    expect(failure(() => run('true ? 1 : [1]')).message).toContain('inconsistent conditional result types');
    expect(failure(() => run('true ? { a = 1 } : [1]')).message).toContain('inconsistent conditional result types');
    // A map of strings does not convert to an object with an object attribute, and no list converts to a tuple.
    expect(failure(() => run('true ? { a = 1, n = { on = true } } : tomap({ a = "x", n = "y" })')).message).toContain(
      'inconsistent conditional result types',
    );
    expect(failure(() => run('true ? [1, [2]] : tolist(["a", "b"])')).message).toContain(
      'inconsistent conditional result types',
    );
  });

  it('a tuple holding a null beside a structure is no list of any type (expression fuzzer seed 6024, checked with terragrunt)', () => {
    // A null is dynamic: with an object or a tuple beside it the items unify only to dynamic, and cty converts a
    // tuple to a list of dynamic only when every item is dynamic.
    for (const source of [
      'true ? setproduct(["a"], [1]) : [[false, { k0 = "true" }], null]',
      'true ? tolist(["a"]) : [{ a = 1 }, null]',
    ]) {
      expect(failure(() => run(source)).message, source).toContain('inconsistent conditional result types');
    }
    expect(failure(() => run('tolist([{ a = 1 }, null])')).message).toContain('all elements must have the same type');
    expect(failure(() => run('toset([{ a = 1 }, null])')).message).toContain('all elements must have the same type');
    // A null beside a primitive, or only nulls, still converts.
    expect(run('jsonencode(true ? setproduct(["a"], [1]) : [[false, 2], null])')).toBe('[["a",1]]');
    expect(run('jsonencode(true ? tolist(["a"]) : [2, null])')).toBe('["a"]');
    expect(run('jsonencode(tolist([null, null]))')).toBe('[null,null]');
    expect(run('jsonencode(concat(tolist(["a"]), [{ a = 1 }, null]))')).toBe('["a",{"a":1},null]');
  });
});

describe('a tuple and a set unify to the set (cty has no conversion from a set to a tuple)', () => {
  // Seed 1014 of the fuzzer: the tuple was kept, with its numbers, where Terragrunt gives a set of strings.
  it.each([
    ['jsonencode(true ? [1e21, 0] : toset(["a"]))', '["0","1000000000000000000000"]'],
    ['jsonencode(false ? [1e21, 0] : toset(["a"]))', '["a"]'],
    ['jsonencode(true ? toset(["a"]) : [2, 1])', '["a"]'],
    ['jsonencode(true ? [[1]] : toset([["a"]]))', '[["1"]]'],
  ])('%s is %s', (source, value) => {
    expect(run(source)).toBe(value);
  });
});

describe('conversions follow cty.convert', () => {
  it.each([
    ['tolist([1, "a"])', ['1', 'a'], { list: 'string' }],
    ['toset([3, 1, "a", 1])', ['1', '3', 'a'], { set: 'string' }],
    ['tomap({ a = 1, b = "x" })', { a: '1', b: 'x' }, { map: 'string' }],
    ['tomap({ a = true, b = "x" })', { a: 'true', b: 'x' }, { map: 'string' }],
    ['distinct([1, "1", 2])', ['1', '2'], { list: 'string' }],
    ['concat(tolist(["a"]), tolist([1]))', ['a', '1'], { list: 'string' }],
    ['concat(tolist(["a"]), [1])', ['a', 1], { tuple: ['string', 'number'] }],
    ['keys(tomap({ b = 1, a = 2 }))', ['a', 'b'], { list: 'string' }],
    ['keys({ b = 1, a = 2 })', ['a', 'b'], { tuple: ['string', 'string'] }],
    // Maps of different element types merge into an object (tofu 1.12.6: object({ a: number, b: string })).
    ['merge(tomap({ a = 1 }), tomap({ b = "x" }))', { a: 1, b: 'x' }, { object: { a: 'number', b: 'string' } }],
    ['merge(tomap({ a = 1 }), { b = "x" })', { a: 1, b: 'x' }, { object: { a: 'number', b: 'string' } }],
    ['tolist(["a", "b"])[*]', ['a', 'b'], { list: 'string' }],
  ])('%s', (source, value, type) => {
    const result = run(source);
    expect(result).toEqual(value);
    expect(typeOf(result)).toEqual(type);
  });

  it.each([
    ['tobool("1")', true],
    ['tobool("0")', false],
    ['tonumber("+5")', 5],
    ['"1" ? "yes" : "no"', 'yes'],
  ])('%s (unsafe primitive conversion)', (source, value) => {
    expect(plain(run(source))).toEqual(value);
  });

  it('refuses what cty cannot convert', () => {
    expect(failure(() => run('tolist([true, 1])')).message).toContain('all elements must have the same type');
    expect(failure(() => run('tomap({ a = [1], b = "x" })')).message).toContain('all map elements must have');
    expect(failure(() => run('concat(toset(["a"]))')).message).toContain('all arguments must be lists or tuples');
    expect(failure(() => run('tobool("True")')).message).toContain('use lowercase "true"');
  });
});

describe('text functions work on what OpenTofu works on', () => {
  it.each([
    // Strings are NFC-normalised as they become values.
    ['"e\\u0301" == "\\u00e9"', true],
    ['length("e\\u0301te")', 3],
    // length, substr and strrev count grapheme clusters.
    ['length("🇫🇷 ok")', 4],
    ['strrev("ab🇫🇷")', '🇫🇷ba'],
    ['substr("🇫🇷abc", 0, 2)', '🇫🇷a'],
    // upper/lower map each code point on its own (Go's simple case mapping).
    ['upper("straße ﬁ")', 'STRAßE ﬁ'],
    ['lower("ΣΑΣ")', 'σασ'],
    ['lower("İ")', 'i'],
    ['title("ǆemal")', 'ǅemal'],
  ])('%s', (source, value) => {
    expect(plain(run(source))).toEqual(value);
  });
});

describe('yamldecode resolves scalars as go-cty-yaml does', () => {
  it.each([
    ['on: yes\noff: no', { true: true, false: false }],
    ['x: 0o17\ny2: 017\nz: 0x1F', { x: 15, y2: 17, z: 31 }],
    ['u: 1_000\nf: 1e3\ng: .5', { u: '1_000', f: 1000, g: 0.5 }],
    [
      'd: 2001-12-14\nt: 12:30:45\nu: 2001-12-14 21:59:43.10',
      { d: '2001-12-14T00:00:00Z', t: '12:30:45', u: '2001-12-14T21:59:43Z' },
    ],
    ['k: !!str 123\nm: !!int "42"\nq: "true"', { k: '123', m: '42', q: 'true' }],
    ['v: ~\nw: null\ne:', { v: null, w: null, e: null }],
    ['1.0: a\ntrue: b', { '1': 'a', true: 'b' }],
  ])('%j', (yaml, value) => {
    expect(plain(run('yamldecode(doc)', { doc: yaml }))).toEqual(value);
  });

  it('refuses NaN, forward aliases and unknown tags', () => {
    expect(failure(() => run('yamldecode("a: .nan")')).message).toContain('NaN is not supported');
    expect(failure(() => run('yamldecode("a: *x\\nb: &x 1")')).message).toContain('undefined anchor');
    expect(failure(() => run('yamldecode("a: !!foo 1")')).message).toContain('unsupported tag');
  });
});

describe('found by the expression fuzzer (seeds 5000-5021), each checked with tofu 1.12.6 console', () => {
  const scope = { variables: {}, functions: standardFunctions() };
  const cases: [string, string][] = [
    // Strings sort by code point (cty compares UTF-8 bytes), not by UTF-16 code units: U+FB01 before U+1F600.
    ['jsonencode(sort(["ﬁne", "😀 smile"]))', '["ﬁne","😀 smile"]'],
    ['jsonencode(tolist(toset(["ﬁne", "😀 smile", "a"])))', '["a","ﬁne","😀 smile"]'],
    ['jsonencode(keys({ "😀" = 1, "ﬁ" = 2 }))', '["ﬁ","😀"]'],
    // merge of maps with different element types is an object, not a map of a unified type.
    ['jsonencode(merge(tomap({ k0 = "Hello World", k1 = "x" }), tomap({ k0 = 0.1 })))', '{"k0":0.1,"k1":"x"}'],
    ['jsonencode(merge(tomap({ k0 = "a" }), tomap({ k1 = "b" })))', '{"k0":"a","k1":"b"}'],
  ];
  it.each(cases)('%s', (expression, expected) => {
    expect(evaluateSource(expression, scope)).toBe(expected);
  });
});
