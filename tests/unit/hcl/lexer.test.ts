import { describe, expect, it } from 'vitest';
import { lineColumn, tokenize, type Token } from '../../../discover/hcl/index.js';

function kinds(tokens: Token[]): string[] {
  return tokens.map((t) => (t.type === 'punct' || t.type === 'ident' || t.type === 'number' ? t.value : t.type));
}

describe('tokenize (expression mode)', () => {
  it('splits operators, names and numbers', () => {
    const tokens = tokenize('a.b[0] >= 1.5e3 && !c || d != "x" ... =>');
    expect(kinds(tokens)).toEqual([
      'a',
      '.',
      'b',
      '[',
      '0',
      ']',
      '>=',
      '1.5e3',
      '&&',
      '!',
      'c',
      '||',
      'd',
      '!=',
      'oquote',
      'literal',
      'cquote',
      '...',
      '=>',
      'eof',
    ]);
  });

  it('keeps dashes inside identifiers, as HCL does', () => {
    expect(kinds(tokens('my-name - 1'))).toEqual(['my-name', '-', '1', 'eof']);
  });

  it('lexes provider function names as one identifier', () => {
    expect(kinds(tokens('provider::aws::arn_parse(x)'))).toEqual(['provider::aws::arn_parse', '(', 'x', ')', 'eof']);
  });

  it('reads digits after a dot as a legacy index, not a fraction', () => {
    expect(kinds(tokens('list.0.1'))).toEqual(['list', '.', '0', '.', '1', 'eof']);
    expect(kinds(tokens('0.1'))).toEqual(['0.1', 'eof']);
  });

  it('skips all three comment styles but keeps line ends', () => {
    expect(kinds(tokens('a # one\nb // two\nc /* three\nfour */ d'))).toEqual([
      'a',
      'newline',
      'b',
      'newline',
      'c',
      'd',
      'eof',
    ]);
  });

  it('decodes quoted-string escapes and keeps $${ and %%{ literal', () => {
    const literal = tokens('"a\\n\\t\\"\\\\\\u00e9\\U0001F600 $${x} %%{y}"').find((t) => t.type === 'literal');
    expect(literal?.value).toBe('a\n\t"\\é😀 ${x} %{y}');
  });

  it('follows template nesting: strings inside interpolations inside strings', () => {
    const tokens = tokenize('"a${f("}", "${b}")}c"');
    expect(tokens.map((t) => t.type)).toEqual([
      'oquote',
      'literal',
      'interp',
      'ident',
      'punct',
      'oquote',
      'literal',
      'cquote',
      'punct',
      'oquote',
      'interp',
      'ident',
      'seqend',
      'cquote',
      'punct',
      'seqend',
      'literal',
      'cquote',
      'eof',
    ]);
  });

  it('tracks braces of objects inside interpolations', () => {
    const tokens = tokenize('"${ {a = 1}.a }"');
    expect(tokens.filter((t) => t.type === 'seqend')).toHaveLength(1);
    expect(tokens.filter((t) => t.type === 'punct' && t.value === '}')).toHaveLength(1);
  });

  it('marks strip markers', () => {
    const tokens = tokenize('"${~ x ~}%{~ if y ~}"');
    const marked = tokens.filter((t) => t.strip === true).map((t) => t.type);
    expect(marked).toEqual(['interp', 'seqend', 'control', 'seqend']);
  });

  it('lexes heredocs line by line, with an indented closing anchor', () => {
    const tokens = tokenize('<<-EOT\n  one\n  ${x}\n  EOT\nnext');
    expect(tokens.map((t) => t.type)).toEqual([
      'oheredoc',
      'literal',
      'literal',
      'interp',
      'ident',
      'seqend',
      'literal',
      'cheredoc',
      'newline',
      'ident',
      'eof',
    ]);
    expect(tokens[0]).toMatchObject({ value: 'EOT', flush: true });
    expect(tokens[1]?.value).toBe('  one\n');
  });

  it('does not take a line that only starts with the anchor as the end', () => {
    const tokens = tokenize('<<EOT\nEOTX\nEOT');
    expect(tokens.filter((t) => t.type === 'literal').map((t) => t.value)).toEqual(['EOTX\n']);
  });

  it('turns malformed input into invalid tokens instead of throwing', () => {
    expect(tokens("'single'").some((t) => t.type === 'invalid' && t.value.includes('double quotes'))).toBe(true);
    expect(tokens('"unterminated').some((t) => t.value === 'unterminated quoted string')).toBe(true);
    expect(tokens('"line\nbreak"').some((t) => t.value.includes('may not be split'))).toBe(true);
    expect(tokens('"\\q"').some((t) => t.value.includes('invalid escape sequence'))).toBe(true);
    expect(tokens('<<EOT\nnever closed').some((t) => t.value === 'unterminated heredoc')).toBe(true);
    expect(tokens('a /* open').some((t) => t.value === 'unterminated /* comment')).toBe(true);
    expect(tokens('a & b').some((t) => t.value.includes('did you mean "&&"'))).toBe(true);
  });

  it('records offsets that slice back to the source text', () => {
    const source = 'dirname(local.root)';
    for (const token of tokenize(source)) {
      if (token.type === 'ident') expect(source.slice(token.start, token.end)).toBe(token.value);
    }
  });
});

describe('tokenize (template mode)', () => {
  it('treats backslashes literally and decodes the two template escapes', () => {
    const tokens = tokenize('a\\b $${x} %%{y} ${z}', 'template');
    expect(tokens.map((t) => t.type)).toEqual(['literal', 'interp', 'ident', 'seqend', 'eof']);
    expect(tokens[0]?.value).toBe('a\\b ${x} %{y} ');
  });

  it('takes a lone $ or % as text', () => {
    const tokens = tokenize('100% $5 $$', 'template');
    expect(tokens[0]).toMatchObject({ type: 'literal', value: '100% $5 $$' });
  });
});

describe('lineColumn', () => {
  it('gives 1-based positions', () => {
    expect(lineColumn('ab\ncd\nef', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn('ab\ncd\nef', 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumn('ab\ncd\nef', 6)).toEqual({ line: 3, column: 1 });
  });
});

function tokens(source: string): Token[] {
  return tokenize(source);
}
