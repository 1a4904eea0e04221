/**
 * The strict file parser: a fast path in front of hcl2json. It reads a file's structure (attributes, blocks, one-line
 * blocks, comments, heredocs, the newline rules) as hclsyntax does and gives the JSON hcl2json would give, plus the
 * positions of the top-level blocks, in one pass over the lexer's tokens. It answers only when it is certain: a
 * syntax error, a shape hcl2json converts in its own way (a repeated attribute, an attribute and a block of one
 * name, blocks of one type with different label counts) or anything it does not handle makes it decline, and the
 * file goes to hcl2json, which stays the parser of record (its error messages, the mixed-include fallback).
 */
import { tokenize } from './lexer.js';
import type { Token } from './lexer.js';
import { Cursor, Decline, checkKey, convert, expression, sortedObject } from './file-expression.js';
import type { Node } from './file-expression.js';

/**
 * Where a top-level block and its attributes are written (1-based line and column of each name). hcl2json keeps no
 * positions: for files it parses they come from the outline, for HCL JSON files from a search for the keys.
 */
export interface BlockPosition {
  readonly type: string;
  readonly labels: readonly string[];
  readonly line: number;
  readonly column: number;
  readonly attributes: Readonly<Record<string, readonly [number, number]>>;
}

export type FileParse =
  | { readonly ok: true; readonly json: Record<string, unknown>; readonly positions: BlockPosition[] }
  /**
   * Declined: hcl2json must parse the file. `reason` and `offset` say what stopped the fast path (for tests); `bug`
   * is the exception when a bug in this parser stopped it, not something in the file.
   */
  | { readonly ok: false; readonly reason: string; readonly offset: number; readonly bug?: Error };

interface Attribute {
  readonly name: Token;
  readonly value: Node;
}

interface Block {
  readonly type: Token;
  readonly labels: readonly string[];
  readonly body: Body;
}

interface Body {
  readonly attributes: readonly Attribute[];
  readonly blocks: readonly Block[];
}

/** Parses a whole HCL native-syntax file, or declines it. Never throws. */
export function parseHclFile(source: string): FileParse {
  try {
    const tokens = tokenize(source);
    checkTokens(source, tokens);
    const cursor = new Cursor(source, tokens);
    const body = parseBody(cursor, false);
    const json = bodyJson(cursor, body);
    return { ok: true, json, positions: positions(source, body) };
  } catch (error) {
    if (error instanceof Decline) return { ok: false, reason: error.message, offset: error.offset };
    // A bug here must not take discovery down: hcl2json parses the file instead, and the caller reports the bug.
    const bug = error instanceof Error ? error : new Error(`a non-Error value was thrown: ${String(error)}`);
    return { ok: false, reason: `internal: ${bug.message}`, offset: 0, bug };
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What the token stream alone rules out: lexer errors, carriage returns (heredoc and line-ending rules the fast
 * path does not model), names beyond ASCII (HCL's Unicode tables may differ from the engine's) and `/* *\/`
 * comments that span lines (hclsyntax's newline rules around them are subtle).
 */
function checkTokens(source: string, tokens: readonly Token[]): void {
  const cr = source.indexOf('\r');
  if (cr >= 0) throw new Decline('a carriage return', cr);
  // Text decoded from UTF-8 never has a lone surrogate; text built otherwise may (hcl2json would see U+FFFD).
  const lone = LONE_SURROGATE.exec(source);
  if (lone) throw new Decline('a lone surrogate', lone.index);
  let gapStart = 0;
  let newline = source.indexOf('\n');
  for (const token of tokens) {
    if (token.type === 'invalid') throw new Decline(token.value, token.start);
    // eslint-disable-next-line no-control-regex
    if (token.type === 'ident' && /[^\x00-\x7f]/.test(token.value)) throw new Decline('a non-ASCII name', token.start);
    // A newline between two tokens is one no token holds: it is inside a comment.
    while (newline !== -1 && newline < gapStart) newline = source.indexOf('\n', newline + 1);
    if (newline !== -1 && newline < token.start) throw new Decline('a comment spanning lines', gapStart);
    gapStart = token.end;
  }
}

/** Items up to the end of the file (top level) or to the `}` closing a block (not consumed). */
function parseBody(c: Cursor, inBlock: boolean): Body {
  const attributes: Attribute[] = [];
  const blocks: Block[] = [];
  for (;;) {
    const token = c.raw();
    if (token.type === 'newline') {
      c.index += 1;
      continue;
    }
    if (token.type === 'eof' || (token.type === 'punct' && token.value === '}')) {
      if (inBlock !== (token.type !== 'eof')) throw new Decline('an unbalanced brace', token.start);
      return { attributes, blocks };
    }
    if (token.type !== 'ident') throw new Decline('expected an attribute or a block', token.start);
    if (c.isPunct(c.raw(1), '=')) attributes.push(parseAttribute(c));
    else blocks.push(parseBlock(c));
    endOfItem(c, inBlock);
  }
}

/** An item ends with a newline, or the end of the file at the top level. */
function endOfItem(c: Cursor, inBlock: boolean): void {
  const token = c.raw();
  if (token.type === 'newline') c.index += 1;
  else if (inBlock || token.type !== 'eof') throw new Decline('expected a newline after an item', token.start);
}

function parseAttribute(c: Cursor): Attribute {
  const name = c.raw();
  c.index += 2;
  const value = c.with(true, () => expression(c));
  return { name, value };
}

function parseBlock(c: Cursor): Block {
  const type = c.raw();
  c.index += 1;
  const labels: string[] = [];
  for (let token = c.raw(); !c.isPunct(token, '{'); token = c.raw()) {
    labels.push(label(c, token));
  }
  c.index += 1;
  const first = c.raw();
  if (first.type === 'newline') {
    const body = parseBody(c, true);
    c.index += 1;
    return { type, labels, body };
  }
  // A one-line block: `type label { }` or `type label { name = value }`.
  const attributes: Attribute[] = [];
  if (first.type === 'ident' && c.isPunct(c.raw(1), '=')) attributes.push(parseAttribute(c));
  if (!c.isPunct(c.raw(), '}')) throw new Decline('a one-line block not closed on its line', c.raw().start);
  c.index += 1;
  return { type, labels, body: { attributes, blocks: [] } };
}

/** A block label: a name, or a quoted string of plain text (no escapes, no `$` or `%`). */
function label(c: Cursor, token: Token): string {
  c.index += 1;
  if (token.type === 'ident') return token.value;
  if (token.type === 'oquote') {
    const text = c.raw();
    const close = text.type === 'literal' ? c.raw(1) : text;
    const raw = c.source.slice(token.end, close.start);
    if (text.type === 'literal' && close.type === 'cquote' && !/[$%\\]/.test(raw)) {
      c.index += 2;
      return text.value;
    }
  }
  throw new Decline('an unsupported block label', token.start);
}

/** A body as hcl2json writes it: attributes, then blocks nested one object per label, each ending in a list. */
function bodyJson(c: Cursor, body: Body): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  const names = new Set<string>();
  for (const { name, value } of body.attributes) {
    if (names.has(name.value)) throw new Decline('an attribute set twice', name.start);
    names.add(checkKey(name.value, name));
    entries.push([name.value, convert(c, value)]);
  }
  const labelCounts = new Map<string, number>();
  const trees = new Map<string, unknown>();
  for (const block of body.blocks) {
    const type = checkKey(block.type.value, block.type);
    const count = labelCounts.get(type) ?? block.labels.length;
    if (names.has(type) || count !== block.labels.length) {
      throw new Decline('blocks hcl2json converts in its own way', block.type.start);
    }
    labelCounts.set(type, count);
    trees.set(type, addBlock(trees.get(type), block.labels, bodyJson(c, block.body), block.type));
  }
  for (const [type, tree] of trees) entries.push([type, sortTree(tree)]);
  return sortedObject(entries);
}

type Tree = Record<string, unknown>[] | Map<string, unknown>;

/** Adds a block's body under its labels: a map per label level, a list of bodies at the end. */
function addBlock(tree: unknown, labels: readonly string[], body: Record<string, unknown>, at: Token): Tree {
  const [first, ...rest] = labels;
  if (first === undefined) return [...((tree as Record<string, unknown>[] | undefined) ?? []), body];
  const map = (tree as Map<string, unknown> | undefined) ?? new Map<string, unknown>();
  map.set(checkKey(first, at), addBlock(map.get(first), rest, body, at));
  return map;
}

function sortTree(tree: unknown): unknown {
  if (!(tree instanceof Map)) return tree;
  return sortedObject([...(tree as Map<string, unknown>)].map(([key, value]) => [key, sortTree(value)] as const));
}

/** Positions of the top-level blocks and of their attributes (the first of each name). */
function positions(source: string, body: Body): BlockPosition[] {
  const lineStarts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  let line = 0;
  const at = (offset: number): [number, number] => {
    // Offsets come in increasing order, so the line search only moves forward.
    if ((lineStarts[line] ?? 0) > offset) line = 0;
    while (line + 1 < lineStarts.length && (lineStarts[line + 1] ?? 0) <= offset) line += 1;
    return [line + 1, offset - (lineStarts[line] ?? 0) + 1];
  };
  return body.blocks.map((block) => {
    const [blockLine, blockColumn] = at(block.type.start);
    const attributes: Record<string, [number, number]> = {};
    for (const attribute of block.body.attributes) attributes[attribute.name.value] ??= at(attribute.name.start);
    return { type: block.type.value, labels: block.labels, line: blockLine, column: blockColumn, attributes };
  });
}
