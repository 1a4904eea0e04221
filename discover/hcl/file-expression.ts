/**
 * Expressions for the strict file parser (file-parser.ts): recognises HCL native-syntax expressions as hclsyntax
 * does and converts them to the JSON hcl2json writes. It answers only where it is certain: anything it does not
 * handle exactly, and every syntax error, throws {@link Decline}, and the file goes to hcl2json instead.
 *
 * What hcl2json writes for an expression: a literal is its JSON value; a string template of literal text only is
 * the string; a template with interpolations is rebuilt from its parts (literal text as it is, an interpolation
 * as `${<its source>}`); a template that is exactly one interpolation is that expression converted; tuples become
 * arrays and object constructors objects (keys sorted, a repeated key keeps its last value); `-` on a number
 * literal and `!` on a bool literal are folded; anything else is `${<its exact source text>}`, comments and
 * newlines inside kept.
 */
import type { Token } from './lexer.js';
import { mayHaveLostDigits } from './number-literals.js';

/** The file parser met something it does not handle exactly (or a syntax error): hcl2json must parse the file. */
export class Decline extends Error {
  readonly offset: number;

  constructor(reason: string, offset: number) {
    super(reason);
    this.offset = offset;
  }
}

interface Span {
  readonly start: number;
  readonly end: number;
  /** A heredoc somewhere inside: its source range ends are not certain, so such a node is never sliced. */
  readonly heredoc: boolean;
}

/** An expression as far as the conversion needs to know it. */
export type Node = Span &
  /** `text`: a number's source text (a template writes the number from it). */
  (
    | { readonly k: 'literal'; readonly value: number | boolean | null; readonly text?: string }
    /** A template of literal text only (quoted or heredoc). */
    | { readonly k: 'string'; readonly value: string }
    /** A template with interpolations, already rebuilt as hcl2json writes it. */
    | { readonly k: 'template'; readonly text: string }
    /** `"${x}"`: exactly one interpolation, which hcl2json converts as the expression itself. */
    | { readonly k: 'wrap'; readonly inner: Node }
    | { readonly k: 'tuple'; readonly items: readonly Node[] }
    | { readonly k: 'object'; readonly items: readonly (readonly [string, Node])[] }
    | { readonly k: 'unary'; readonly op: '-' | '!'; readonly operand: Node }
    | { readonly k: 'conditional'; readonly condition: Node; readonly then: Node; readonly else: Node }
    /** Any other expression (traversal, call, operation, for, parentheses, splat): kept as source. */
    | { readonly k: 'other' }
  );

/** A character beyond ASCII. */
// eslint-disable-next-line no-control-regex
export const NON_ASCII = /[^\x00-\x7f]/;
/**
 * The checks below run on every key and literal: patterns hoisted here, so each runs compiled code. Loops over the
 * characters in JavaScript ran interpreted for most of a cold run and cost more than the patterns.
 */
const NOT_PLAIN = /[$%\\]/;
const WRITTEN_BACK = /\$\$|%%|\\[uU]/;
/** Either of the two: an escape written back, or text beyond ASCII. */
const UNUSUAL_TEXT = new RegExp(`${WRITTEN_BACK.source}|${NON_ASCII.source}`);
/** From the first surrogate up: JavaScript and Go order such keys differently (UTF-16 against UTF-8). */
const UNUSUAL_KEY = /[\ud800-\uffff]/;
const BINARY = new Set(['||', '&&', '==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%']);
/** A number hcl2json's float64 round trip keeps as JavaScript reads it: no exponent (1e400 becomes null). */
const PLAIN_NUMBER = /^\d+(?:\.\d+)?$/;
/** Beyond this, float64 overflows where hcl2json writes null. */
const LARGEST_NUMBER = 1e300;
/** An object key written as a number: hcl2json prints it back through a number, so only canonical integers. */
const NUMBER_KEY = /^(?:0|[1-9]\d{0,14})$/;

/** The token stream with hclsyntax's newline rules: newlines count at the body level and inside `{ }` objects. */
export class Cursor {
  readonly source: string;
  readonly tokens: readonly Token[];
  index = 0;
  /** The whole source is ASCII (set once checked; false, the cautious answer, until then). */
  ascii = false;
  /** A number that may have lost digits through a float64 was written into the JSON (see number-literals.ts). */
  lossyNumber = false;
  /** Whether newlines count where the cursor is, and the same for each enclosing context (see enter/leave). */
  newlines = true;
  readonly #outer: boolean[] = [];

  constructor(source: string, tokens: readonly Token[]) {
    this.source = source;
    this.tokens = tokens;
  }

  /** The next token as is, newlines included. */
  raw(offset = 0): Token {
    return this.tokens[this.index + offset] ?? (this.tokens[this.tokens.length - 1] as Token);
  }

  /** The next token, skipping newlines where they do not count. */
  peek(): Token {
    if (!this.newlines) {
      while (this.raw().type === 'newline') this.index += 1;
    }
    return this.raw();
  }

  next(): Token {
    const token = this.peek();
    if (token.type !== 'eof') this.index += 1;
    return token;
  }

  isPunct(token: Token, value: string): boolean {
    return token.type === 'punct' && token.value === value;
  }

  expectPunct(value: string): Token {
    const token = this.next();
    if (!this.isPunct(token, value)) throw new Decline(`expected "${value}"`, token.start);
    return token;
  }

  /**
   * Enters a context where newlines count or not, until the matching {@link leave}. No try/finally: a Decline ends
   * the whole parse, and the cursor with it, so no closure and no finally per bracket.
   */
  enter(newlines: boolean): void {
    this.#outer.push(this.newlines);
    this.newlines = newlines;
  }

  leave(): void {
    this.newlines = this.#outer.pop() ?? true;
  }
}

/** Parses one expression at the cursor (conditional, operations, terms). */
/** An attribute's expression, the cursor on its name (followed by `=`). */
export function attributeExpression(c: Cursor): Node {
  c.index += 2;
  c.enter(true);
  const value = expression(c);
  c.leave();
  return value;
}

export function expression(c: Cursor): Node {
  const condition = binary(c);
  if (!c.isPunct(c.peek(), '?')) return condition;
  c.next();
  const then = expression(c);
  c.expectPunct(':');
  const otherwise = expression(c);
  const heredoc = condition.heredoc || then.heredoc || otherwise.heredoc;
  return { k: 'conditional', condition, then, else: otherwise, start: condition.start, end: otherwise.end, heredoc };
}

function binary(c: Cursor): Node {
  const first = unary(c);
  let last = first;
  let heredoc = first.heredoc;
  for (let token = c.peek(); token.type === 'punct' && BINARY.has(token.value); token = c.peek()) {
    c.next();
    last = unary(c);
    heredoc ||= last.heredoc;
  }
  return last === first ? first : { k: 'other', start: first.start, end: last.end, heredoc };
}

function unary(c: Cursor): Node {
  const token = c.peek();
  if (c.isPunct(token, '-') || c.isPunct(token, '!')) {
    c.next();
    const operand = unary(c);
    return {
      k: 'unary',
      op: token.value as '-' | '!',
      operand,
      start: token.start,
      end: operand.end,
      heredoc: operand.heredoc,
    };
  }
  return postfix(c, primary(c));
}

/** Attribute access, indexes and splats after a name, a call or parentheses (at most one splat). */
function postfix(c: Cursor, term: Node): Node {
  let end = term.end;
  let heredoc = term.heredoc;
  let splats = 0;
  for (;;) {
    const token = c.peek();
    if (c.isPunct(token, '.')) {
      const after = c.raw(1);
      if (after.type === 'ident' && !after.value.includes('::')) {
        c.index += 2;
        end = after.end;
        continue;
      }
      if (c.isPunct(after, '*') && splats++ === 0) {
        c.index += 2;
        end = after.end;
        continue;
      }
      throw new Decline('an unsupported traversal step', after.start);
    }
    if (!c.isPunct(token, '[')) return end === term.end ? term : { k: 'other', start: term.start, end, heredoc };
    c.next();
    const star = c.raw();
    if (c.isPunct(star, '*') && c.isPunct(c.raw(1), ']') && splats++ === 0) {
      c.index += 2;
      end = star.end + 1;
      continue;
    }
    c.enter(false);
    const key = expression(c);
    heredoc ||= key.heredoc;
    end = c.expectPunct(']').end;
    c.leave();
  }
}

function primary(c: Cursor): Node {
  const token = c.next();
  const { type, value } = token;
  if (type === 'number') {
    // hclsyntax's scanner takes any run of digits, dots and exponents ending in a digit as one number (`1.e5` is
    // 100000, `1.5.e-7` an invalid number): a number followed by a dot or an `e` is left to it.
    const after = c.source.charCodeAt(token.end);
    if (after === 0x2e || after === 0x65 || after === 0x45)
      throw new Decline('a number as hclsyntax scans it', token.start);
    const number = Number(value);
    if (!(Math.abs(number) < LARGEST_NUMBER)) throw new Decline('a number beyond float64', token.start);
    return { k: 'literal', value: number, text: value, start: token.start, end: token.end, heredoc: false };
  }
  if (type === 'ident') return identifier(c, token);
  if (type === 'oquote' || type === 'oheredoc') return template(c, token);
  if (type === 'punct') {
    if (value === '(') return parentheses(c, token);
    if (value === '[') return tuple(c, token);
    if (value === '{') return object(c, token);
  }
  throw new Decline(`unexpected ${type} "${value}"`, token.start);
}

function identifier(c: Cursor, token: Token): Node {
  const { start, end, value } = token;
  if (value === 'true' || value === 'false')
    return { k: 'literal', value: value === 'true', start, end, heredoc: false };
  if (value === 'null') return { k: 'literal', value: null, start, end, heredoc: false };
  if (value === 'for' || value.includes('::')) throw new Decline('an unsupported name', start);
  if (!c.isPunct(c.peek(), '(')) return { k: 'other', start, end, heredoc: false };
  c.next();
  return call(c, token);
}

function call(c: Cursor, name: Token): Node {
  c.enter(false);
  let heredoc = false;
  for (;;) {
    // Reached with no argument yet, or after a comma: hclsyntax allows `f()` and a trailing comma.
    const token = c.peek();
    if (c.isPunct(token, ')')) {
      c.next();
      c.leave();
      return { k: 'other', start: name.start, end: token.end, heredoc };
    }
    heredoc ||= expression(c).heredoc;
    const separator = c.next();
    if (c.isPunct(separator, '...')) {
      const close = c.expectPunct(')');
      c.leave();
      return { k: 'other', start: name.start, end: close.end, heredoc };
    }
    if (c.isPunct(separator, ')')) {
      c.leave();
      return { k: 'other', start: name.start, end: separator.end, heredoc };
    }
    if (!c.isPunct(separator, ',')) throw new Decline('expected "," or ")" in a call', separator.start);
  }
}

function parentheses(c: Cursor, open: Token): Node {
  c.enter(false);
  const inner = expression(c);
  const close = c.expectPunct(')');
  c.leave();
  return { k: 'other', start: open.start, end: close.end, heredoc: inner.heredoc };
}

function tuple(c: Cursor, open: Token): Node {
  c.enter(false);
  if (isFor(c.peek())) {
    const node = forExpression(c, open, ']');
    c.leave();
    return node;
  }
  const items: Node[] = [];
  let heredoc = false;
  for (;;) {
    const token = c.peek();
    if (c.isPunct(token, ']')) {
      c.next();
      c.leave();
      return { k: 'tuple', items, start: open.start, end: token.end, heredoc };
    }
    const item = expression(c);
    heredoc ||= item.heredoc;
    items.push(item);
    const separator = c.peek();
    if (c.isPunct(separator, ',')) c.next();
    else if (!c.isPunct(separator, ']')) throw new Decline('expected "," or "]" in a tuple', separator.start);
  }
}

function skipNewlines(c: Cursor): void {
  while (c.raw().type === 'newline') c.index += 1;
}

function object(c: Cursor, open: Token): Node {
  skipNewlines(c);
  if (isFor(c.peek())) {
    c.enter(false);
    const node = forExpression(c, open, '}');
    c.leave();
    return node;
  }
  c.enter(true);
  const items: (readonly [string, Node])[] = [];
  let heredoc = false;
  for (;;) {
    skipNewlines(c);
    const token = c.next();
    if (c.isPunct(token, '}')) {
      c.leave();
      return { k: 'object', items, start: open.start, end: token.end, heredoc };
    }
    const key = objectKey(c, token);
    const equals = c.next();
    if (!c.isPunct(equals, '=') && !c.isPunct(equals, ':')) throw new Decline('expected "=" after a key', equals.start);
    const value = expression(c);
    heredoc ||= value.heredoc;
    items.push([key, value]);
    const separator = c.peek();
    if (c.isPunct(separator, ',') || separator.type === 'newline') c.next();
    else if (!c.isPunct(separator, '}')) throw new Decline('expected "," or a newline', separator.start);
  }
}

/** A key hcl2json writes as it is: a name, a quoted literal without `$`, `%` or escapes, or a plain integer. */
function objectKey(c: Cursor, token: Token): string {
  if (token.type === 'ident' && token.value !== 'for' && !token.value.includes('::'))
    return checkKey(c, token.value, token);
  if (token.type === 'number' && NUMBER_KEY.test(token.value)) return token.value;
  // `(expr) = value`: hcl2json writes the key as the expression's source.
  if (c.isPunct(token, '(')) return checkKey(c, wrapSource(c, parentheses(c, token)), token);
  if (token.type === 'oquote') {
    const text = c.next();
    const close = text.type === 'literal' ? c.next() : text;
    const value = text.type === 'literal' ? text.value : '';
    if (close.type === 'cquote' && value !== '' && plainText(c.source, token.end, close.start)) {
      return checkKey(c, value, token);
    }
  }
  throw new Decline('an object key hcl2json may write differently', token.start);
}

/** Whether source[from, to) has no `$`, `%` or backslash: a quoted literal whose text is exactly its source. */
export function plainText(source: string, from: number, to: number): boolean {
  return !NOT_PLAIN.test(source.slice(from, to));
}

/** Keys that JavaScript objects or the sort order would treat differently from hcl2json's Go maps. */
export function checkKey(c: Cursor, key: string, at: { start: number }): string {
  // In a file of ASCII only every key is ASCII: keys are never decoded from escapes (see label and objectKey).
  if (key === '__proto__' || (!c.ascii && UNUSUAL_KEY.test(key))) throw new Decline('an unusual key', at.start);
  return key;
}

function isFor(token: Token): boolean {
  return token.type === 'ident' && token.value === 'for';
}

/**
 * `[for k, v in coll : value if cond]` or `{for k, v in coll : key => value... if cond}`; newlines never count (the
 * caller has entered that context).
 */
function forExpression(c: Cursor, open: Token, closer: ']' | '}'): Node {
  c.next();
  const names = [c.next()];
  if (c.isPunct(c.peek(), ',')) {
    c.next();
    names.push(c.next());
  }
  const inKeyword = c.next();
  if (
    names.some((n) => n.type !== 'ident' || n.value.includes('::')) ||
    inKeyword.value !== 'in' ||
    inKeyword.type !== 'ident'
  ) {
    throw new Decline('a malformed for expression', open.start);
  }
  let heredoc = expression(c).heredoc;
  c.expectPunct(':');
  if (closer === '}') {
    heredoc ||= expression(c).heredoc;
    c.expectPunct('=>');
  }
  heredoc ||= expression(c).heredoc;
  if (closer === '}' && c.isPunct(c.peek(), '...')) c.next();
  const keyword = c.peek();
  if (keyword.type === 'ident' && keyword.value === 'if') {
    c.next();
    heredoc ||= expression(c).heredoc;
  }
  const close = c.expectPunct(closer);
  return { k: 'other', start: open.start, end: close.end, heredoc };
}

/** A quoted string or `<<EOT` heredoc (not `<<-`): literal text and interpolations, no directives or strip marks. */
function template(c: Cursor, open: Token): Node {
  const heredoc = open.type === 'oheredoc';
  if (heredoc && NON_ASCII.test(open.value)) throw new Decline('a non-ASCII heredoc anchor', open.start);
  if (!heredoc) {
    // The common case first: "" or "text" (no parts to gather and join).
    const text = c.raw();
    const close = text.type === 'literal' ? c.raw(1) : text;
    if (close.type === 'cquote') {
      const value = text.type === 'literal' ? literalText(c, text) : '';
      c.index += text === close ? 1 : 2;
      return { k: 'string', value, start: open.start, end: close.end, heredoc: false };
    }
  }
  const closer = heredoc ? 'cheredoc' : 'cquote';
  const parts: (string | Node)[] = [];
  let textOnly = true;
  for (let token = c.raw(); token.type !== closer; token = c.raw()) {
    c.index += 1;
    if (token.type === 'literal') {
      // hclsyntax also ends a heredoc at its anchor followed by spaces or tabs, where the lexer reads on.
      if (heredoc && token.value.trim() === open.value) throw new Decline('an anchor line with spaces', token.start);
      parts.push(literalText(c, token));
    } else if (token.type === 'interp' && !token.strip) {
      parts.push(interpolation(c));
      textOnly = false;
    } else throw new Decline('a template directive or strip marker', token.start);
  }
  const close = c.raw();
  c.index += 1;
  if (heredoc && c.raw().type !== 'newline') throw new Decline('a heredoc not followed by a newline', close.end);
  if (open.flush) flushIndentation(parts, open.start);
  const start = open.start;
  const end = close.end;
  if (textOnly) {
    let value = '';
    for (const part of parts) value += part as string;
    return { k: 'string', value, start, end, heredoc };
  }
  const only = parts[0];
  if (!heredoc && parts.length === 1 && typeof only === 'object')
    return { k: 'wrap', inner: only, start, end, heredoc };
  let text = '';
  for (const part of parts) text += typeof part === 'string' ? part : partText(c, part);
  return { k: 'template', text, start, end, heredoc };
}

/**
 * The `<<-` rule, on the heredoc's parts (one literal per line segment, as the lexer gives them): the smallest
 * indentation among the lines that start with text is removed from each of them; a line of whitespace only
 * neither counts nor changes, and a line that starts with an interpolation allows no indentation. Indentation
 * other than spaces and tabs is declined.
 */
function flushIndentation(parts: (string | Node)[], at: number): void {
  let minimum = Infinity;
  const adjust: number[] = [];
  parts.forEach((part, i) => {
    const previous = parts[i - 1];
    if (i > 0 && !(typeof previous === 'string' && previous.endsWith('\n'))) return;
    if (typeof part !== 'string') {
      minimum = 0;
      return;
    }
    const leading = /^\s*/u.exec(part)?.[0] ?? '';
    if (/[^ \t\n]/.test(leading)) throw new Decline('indentation other than spaces and tabs', at);
    if (leading.length === part.length && part.endsWith('\n')) return;
    minimum = Math.min(minimum, leading.length);
    adjust.push(i);
  });
  if (minimum === Infinity || minimum === 0) return;
  for (const i of adjust) parts[i] = (parts[i] as string).slice(minimum);
}

function interpolation(c: Cursor): Node {
  c.enter(false);
  const inner = expression(c);
  const close = c.next();
  if (close.type !== 'seqend' || close.strip) throw new Decline('an unclosed interpolation', close.start);
  c.leave();
  return inner;
}

/**
 * A literal part's text. hcl2json writes `$${` and `%%{` escapes back in ways that depend on how the parser split
 * the literal, and `\u` escapes and text that Unicode normalisation would change may differ: all declined.
 */
function literalText(c: Cursor, token: Token): string {
  const raw = c.source.slice(token.start, token.end);
  // One pattern for the common case (plain ASCII text), the two checks below only for text it stops at.
  if (!UNUSUAL_TEXT.test(raw)) return token.value;
  if (WRITTEN_BACK.test(raw)) {
    throw new Decline('an escape hcl2json may write back differently', token.start);
  }
  const value = token.value;
  if (NON_ASCII.test(value) && value.normalize('NFC') !== value) {
    throw new Decline('text that is not in Unicode normal form C', token.start);
  }
  return value;
}

/** An interpolation inside a larger template, as hcl2json writes it. */
function partText(c: Cursor, node: Node): string {
  switch (node.k) {
    case 'string':
      return node.value;
    case 'template':
      return node.text;
    case 'literal':
      return node.text === undefined ? String(node.value) : numberText(node.text, node.start);
    case 'wrap':
      return partText(c, node.inner);
    case 'conditional':
      return conditionalText(c, node.condition, partText(c, node.then), partText(c, node.else));
    case 'tuple':
    case 'object':
    case 'unary':
    case 'other':
      return wrapSource(c, node);
  }
}

/** `${a ? b : c}` inside a larger template: hcl2json writes it as an if directive (no else for an empty one). */
function conditionalText(c: Cursor, condition: Node, then: string, otherwise: string): string {
  if (condition.heredoc) throw new Decline('a heredoc inside an expression kept as source', condition.start);
  const test = c.source.slice(condition.start, condition.end);
  return `%{if ${test}}${then}${otherwise === '' ? '' : `%{else}${otherwise}`}%{endif}`;
}

/**
 * A number literal as a template writes it: its exact decimal digits, without leading or trailing zeros. Exponents
 * and very long literals (where the parser's 512-bit precision would round) are declined.
 */
function numberText(text: string, at: number): string {
  if (!PLAIN_NUMBER.test(text) || text.length > 40) throw new Decline('a number written into a template', at);
  const [whole = '', fraction = ''] = text.split('.');
  const integer = whole.replace(/^0+(?=\d)/, '');
  const decimals = fraction.replace(/0+$/, '');
  return decimals === '' ? integer : `${integer}.${decimals}`;
}

function wrapSource(c: Cursor, node: Node): string {
  if (node.heredoc) throw new Decline('a heredoc inside an expression kept as source', node.start);
  return `\${${c.source.slice(node.start, node.end)}}`;
}

/** The JSON hcl2json writes for an expression. */
export function convert(c: Cursor, node: Node): unknown {
  switch (node.k) {
    case 'literal':
      if (typeof node.value === 'number' && mayHaveLostDigits(node.value)) c.lossyNumber = true;
      return node.value;
    case 'string':
      return node.value;
    case 'template':
      return node.text;
    case 'wrap':
      return convert(c, node.inner);
    case 'tuple': {
      const items: unknown[] = [];
      for (const item of node.items) items.push(convert(c, item));
      return items;
    }
    case 'object': {
      const keys: string[] = [];
      const values: unknown[] = [];
      for (const [key, value] of node.items) {
        keys.push(key);
        values.push(convert(c, value));
      }
      return sortedObject(keys, values);
    }
    case 'unary':
      return unaryValue(c, node.op, node.operand, node);
    case 'conditional':
    case 'other':
      return wrapSource(c, node);
  }
}

function unaryValue(c: Cursor, op: '-' | '!', operand: Node, node: Node): unknown {
  if (operand.k !== 'literal') return wrapSource(c, node);
  const value = operand.value;
  if (op === '-' && typeof value === 'number' && value !== 0) {
    if (mayHaveLostDigits(value)) c.lossyNumber = true;
    return -value;
  }
  if (op === '!' && typeof value === 'boolean') return !value;
  throw new Decline('an operator on a literal hcl2json folds or rejects', node.start);
}

/** Up to this many keys are sorted by insertion below; larger objects (rare) by the engine's sort. */
const INSERTION_SORT_MAX = 24;

/**
 * An object with its keys in the order hcl2json's output has them (sorted; a repeated key keeps its last value), from
 * keys and their values. Keys are usually written in order already: that is checked first, and only otherwise sorted.
 * Many bodies are not in order (a unit's attributes come before its block types, and `inputs` rarely lists its keys
 * sorted); their few keys are sorted in place (the arrays are the caller's scratch), with their values beside them:
 * a Map of them, its keys spread and sorted, and a lookup per key took twice as long in a cold run (about 30 ms for
 * 5,000 units).
 */
export function sortedObject(keys: string[], values: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const count = keys.length;
  let inOrder = true;
  for (let i = 1; i < count && inOrder; i += 1) inOrder = (keys[i - 1] as string) < (keys[i] as string);
  if (!inOrder) {
    if (count > INSERTION_SORT_MAX) return sortedLarge(keys, values);
    // A stable insertion sort: a repeated key's values stay in the order written, and the last one written wins.
    for (let i = 1; i < count; i += 1) {
      const key = keys[i] as string;
      const value = values[i];
      let j = i - 1;
      for (; j >= 0 && (keys[j] as string) > key; j -= 1) {
        keys[j + 1] = keys[j] as string;
        values[j + 1] = values[j];
      }
      keys[j + 1] = key;
      values[j + 1] = value;
    }
  }
  for (let i = 0; i < count; i += 1) out[keys[i] as string] = values[i];
  return out;
}

function sortedLarge(keys: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const byKey = new Map<string, unknown>();
  for (let i = 0; i < keys.length; i += 1) byKey.set(keys[i] as string, values[i]);
  for (const key of [...byKey.keys()].sort()) out[key] = byKey.get(key);
  return out;
}
