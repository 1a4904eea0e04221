/**
 * The strict file parser: a fast path in front of hcl2json. It reads a file's structure (attributes, blocks, one-line
 * blocks, comments, heredocs, the newline rules) as hclsyntax does and gives the JSON hcl2json would give, plus the
 * positions of the top-level blocks, in one pass over the lexer's tokens. It answers only when it is certain: a
 * syntax error, a shape hcl2json converts in its own way (a repeated attribute, an attribute and a block of one
 * name, blocks of one type with different label counts) or anything it does not handle makes it decline, and the
 * file goes to hcl2json, which stays the parser of record (its error messages, the mixed-include fallback).
 */
import { lexFile } from './lexer.js';
import type { LexedFile, Token } from './lexer.js';
import {
  Cursor,
  Decline,
  NON_ASCII,
  attributeExpression,
  checkKey,
  convert,
  plainText,
  sortedObject,
} from './file-expression.js';
import { markWithoutLossyNumbers } from './number-literals.js';

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

/**
 * The positions of a file's top-level blocks as source offsets, turned into {@link BlockPosition}s by
 * {@link blockPositions} when asked for. Most files' positions never are (in the 5,000-unit benchmark repository 1,252
 * of 5,007 files' are), and kept as objects they took 1.1 KB a file (5.5 MB for 5,000 units, more than their
 * JSON), alive for the whole run. Packed, they are one string of about 50 bytes a file: per block, the type's start
 * and end, the number of labels and each label text's start and end, the number of attributes and each name's start
 * and end, each number one UTF-16 code unit (two, high half first, in a source of 64 K characters or more).
 */
export type PackedPositions = string & { readonly packedPositions: true };

export type FileParse =
  | { readonly ok: true; readonly json: Record<string, unknown>; readonly positions: PackedPositions }
  /**
   * Declined: hcl2json must parse the file. `reason` and `offset` say what stopped the fast path (for tests); `bug`
   * is the exception when a bug in this parser stopped it, not something in the file.
   */
  | { readonly ok: false; readonly reason: string; readonly offset: number; readonly bug?: Error };

/** A block as the positions need it (its JSON is built as it is parsed). */
interface Block {
  readonly type: Token;
  /** Each label's name or text token: its value is the label, its range in the source exactly that text. */
  readonly labels: readonly Token[];
  /** The names of its attributes, in order. */
  readonly attributes: readonly Token[];
}

/** A body parsed: its JSON as hcl2json writes it, and (for positions) its attribute names and blocks. */
interface Body {
  readonly json: Record<string, unknown>;
  readonly attributes: readonly Token[];
  readonly blocks: readonly Block[];
}

/**
 * Parses a whole HCL native-syntax file, or declines it. Never throws. Phases: tokenize, check what the tokens alone
 * rule out, parse the body (building its JSON as it goes), then the positions of the top-level blocks.
 */
export function parseHclFile(source: string): FileParse {
  try {
    const lexed = lexFile(source);
    const cursor = new Cursor(source, lexed.tokens);
    cursor.ascii = checkTokens(source, lexed);
    const body = parseBody(cursor, false);
    if (!cursor.lossyNumber) markWithoutLossyNumbers(body.json);
    return { ok: true, json: body.json, positions: packPositions(source, body.blocks) };
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
 * comments that span lines (hclsyntax's newline rules around them are subtle). Returns whether the source is ASCII.
 */
function checkTokens(source: string, lexed: LexedFile): boolean {
  const cr = source.indexOf('\r');
  if (cr >= 0) throw new Decline('a carriage return', cr);
  // Most files are ASCII: then there is no surrogate and no name beyond ASCII to look for, and the lexer has noted
  // the only token that matters, the first invalid one or the first after a comment spanning lines.
  if (!NON_ASCII.test(source)) {
    // Compared before indexing: tokens[-1] is a lookup of the property "-1", slow in every file.
    if (lexed.suspect === -1) return true;
    const suspect = lexed.tokens[lexed.suspect] as Token;
    if (suspect.type === 'invalid') throw new Decline(suspect.value, suspect.start);
    throw new Decline('a comment spanning lines', lexed.tokens[lexed.suspect - 1]?.end ?? 0);
  }
  // Text decoded from UTF-8 never has a lone surrogate; text built otherwise may (hcl2json would see U+FFFD).
  const lone = LONE_SURROGATE.exec(source);
  if (lone) throw new Decline('a lone surrogate', lone.index);
  // A newline between two tokens is one no token holds: it is inside a comment, and only a `/* */` comment can hold
  // one (the others end before their newline). A file without one has no such gap to look for.
  const blockComments = source.includes('/*');
  let gapStart = 0;
  let newline = blockComments ? source.indexOf('\n') : -1;
  for (const token of lexed.tokens) {
    if (token.type === 'invalid') throw new Decline(token.value, token.start);
    if (token.type === 'ident' && NON_ASCII.test(token.value)) throw new Decline('a non-ASCII name', token.start);
    while (newline !== -1 && newline < gapStart) newline = source.indexOf('\n', newline + 1);
    if (newline !== -1 && newline < token.start) throw new Decline('a comment spanning lines', gapStart);
    gapStart = token.end;
  }
  return false;
}

/**
 * Items up to the end of the file (top level) or to the `}` closing a block (not consumed), and the body's JSON as
 * hcl2json writes it: attributes, then blocks nested one object per label, each ending in a list; keys sorted.
 */
function parseBody(c: Cursor, inBlock: boolean): Body {
  const keys: string[] = [];
  const values: unknown[] = [];
  const attributes: Token[] = [];
  const blocks: Block[] = [];
  /** Blocks by type, in the order their types first appear (made on the first block: most bodies have none). */
  let blockTypes: Map<string, BlockType> | undefined;
  for (;;) {
    const token = c.raw();
    if (token.type === 'newline') {
      c.index += 1;
      continue;
    }
    if (token.type === 'eof' || (token.type === 'punct' && token.value === '}')) {
      if (inBlock !== (token.type !== 'eof')) throw new Decline('an unbalanced brace', token.start);
      break;
    }
    if (token.type !== 'ident') throw new Decline('expected an attribute or a block', token.start);
    if (c.isPunct(c.raw(1), '=')) {
      const value = attributeExpression(c);
      attributes.push(token);
      keys.push(checkKey(c, token.value, token));
      values.push(convert(c, value));
    } else {
      const block = parseBlock(c, token);
      blocks.push(block.block);
      blockTypes ??= new Map();
      addBlock(c, blockTypes, block.block, block.json);
    }
    endOfItem(c, inBlock);
  }
  checkAttributeNames(keys, attributes, blockTypes);
  if (blockTypes !== undefined) {
    for (const [type, blocksOfType] of blockTypes) {
      keys.push(type);
      values.push(blocksOfType.tree instanceof Map ? sortTree(blocksOfType.tree) : blocksOfType.tree);
    }
  }
  return { json: sortedObject(keys, values), attributes, blocks };
}

/** Each attribute name is used once, and by no block type: hcl2json converts those its own way. */
function checkAttributeNames(
  keys: readonly string[],
  names: readonly Token[],
  blockTypes: ReadonlyMap<string, BlockType> | undefined,
): void {
  // Written in increasing order (the common case), no two are equal: the set below is not needed.
  let increasing = true;
  for (let i = 1; i < keys.length && increasing; i += 1) increasing = (keys[i - 1] as string) < (keys[i] as string);
  if (increasing && blockTypes === undefined) return;
  const seen = increasing ? undefined : new Set<string>();
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i] as string;
    const at = (names[i] as Token).start;
    if (seen?.has(key)) throw new Decline('an attribute set twice', at);
    seen?.add(key);
    if (blockTypes?.has(key)) throw new Decline('blocks hcl2json converts in its own way', at);
  }
}

/** An item ends with a newline, or the end of the file at the top level. */
function endOfItem(c: Cursor, inBlock: boolean): void {
  const token = c.raw();
  if (token.type === 'newline') c.index += 1;
  else if (inBlock || token.type !== 'eof') throw new Decline('expected a newline after an item', token.start);
}

function parseBlock(c: Cursor, type: Token): { block: Block; json: Record<string, unknown> } {
  c.index += 1;
  const labels: Token[] = [];
  for (let token = c.raw(); !c.isPunct(token, '{'); token = c.raw()) {
    labels.push(label(c, token));
  }
  c.index += 1;
  const first = c.raw();
  if (first.type === 'newline') {
    const body = parseBody(c, true);
    c.index += 1;
    return { block: { type, labels, attributes: body.attributes }, json: body.json };
  }
  // A one-line block: `type label { }` or `type label { name = value }`.
  const attributes: Token[] = [];
  const json: Record<string, unknown> = {};
  if (first.type === 'ident' && c.isPunct(c.raw(1), '=')) {
    const value = attributeExpression(c);
    attributes.push(first);
    json[checkKey(c, first.value, first)] = convert(c, value);
  }
  if (!c.isPunct(c.raw(), '}')) throw new Decline('a one-line block not closed on its line', c.raw().start);
  c.index += 1;
  return { block: { type, labels, attributes }, json };
}

/**
 * A block label: a name, or a quoted string of plain text (no escapes, no `$` or `%`). Returns the token holding its
 * value, whose range is exactly that text in the source.
 */
function label(c: Cursor, token: Token): Token {
  c.index += 1;
  if (token.type === 'ident') return token;
  if (token.type === 'oquote') {
    const text = c.raw();
    const close = text.type === 'literal' ? c.raw(1) : text;
    if (text.type === 'literal' && close.type === 'cquote' && plainText(c.source, token.end, close.start)) {
      c.index += 2;
      return text;
    }
  }
  throw new Decline('an unsupported block label', token.start);
}

/** The blocks of one type: how many labels they all have, and their bodies under their labels. */
interface BlockType {
  readonly labels: number;
  tree: Tree;
}

/** A map per label level, a list of bodies at the end. */
type Tree = Record<string, unknown>[] | Map<string, Tree>;

function addBlock(c: Cursor, blockTypes: Map<string, BlockType>, block: Block, body: Record<string, unknown>): void {
  const type = checkKey(c, block.type.value, block.type);
  const labels = block.labels;
  const known = blockTypes.get(type);
  if (known !== undefined && known.labels !== labels.length) {
    throw new Decline('blocks hcl2json converts in its own way', block.type.start);
  }
  if (labels.length === 0) {
    if (known === undefined) blockTypes.set(type, { labels: 0, tree: [body] });
    else (known.tree as Record<string, unknown>[]).push(body);
    return;
  }
  let map: Map<string, Tree>;
  if (known === undefined) {
    map = new Map();
    blockTypes.set(type, { labels: labels.length, tree: map });
  } else map = known.tree as Map<string, Tree>;
  for (let i = 0; i < labels.length; i += 1) {
    const key = checkKey(c, (labels[i] as Token).value, block.type);
    const last = i === labels.length - 1;
    const next = map.get(key);
    if (last) {
      if (next === undefined) map.set(key, [body]);
      else (next as Record<string, unknown>[]).push(body);
    } else if (next === undefined) {
      const inner = new Map<string, Tree>();
      map.set(key, inner);
      map = inner;
    } else map = next as Map<string, Tree>;
  }
}

function sortTree(tree: Map<string, Tree>): Record<string, unknown> {
  const keys: string[] = [];
  const values: unknown[] = [];
  for (const [key, value] of tree) {
    keys.push(key);
    values.push(value instanceof Map ? sortTree(value) : value);
  }
  return sortedObject(keys, values);
}

/** Offsets beyond what one UTF-16 code unit holds: a source this long packs each number in two. */
const WIDE = 0x10000;
/** Code units given to String.fromCharCode at once (far below the engine's limit on arguments). */
const CHUNK = 4096;

/** The top-level blocks' positions, packed (see {@link PackedPositions}). */
function packPositions(source: string, blocks: readonly Block[]): PackedPositions {
  const numbers: number[] = [];
  for (const block of blocks) {
    numbers.push(block.type.start, block.type.end, block.labels.length);
    for (const label of block.labels) numbers.push(label.start, label.end);
    numbers.push(block.attributes.length);
    for (const name of block.attributes) numbers.push(name.start, name.end);
  }
  const units = source.length < WIDE ? numbers : numbers.flatMap((n) => [Math.floor(n / WIDE), n % WIDE]);
  // A file's few numbers at once, without a copy; a file with thousands of blocks and attributes in chunks.
  if (units.length <= CHUNK) return String.fromCharCode(...units) as PackedPositions;
  let packed = '';
  for (let i = 0; i < units.length; i += CHUNK) packed += String.fromCharCode(...units.slice(i, i + CHUNK));
  return packed as PackedPositions;
}

/** Positions of the top-level blocks and of their attributes (the first of each name), from the file's source. */
export function blockPositions(source: string, packed: PackedPositions): BlockPosition[] {
  // Offsets come in increasing order, so the line search only moves forward, one newline at a time.
  const lines = new LineCounter(source);
  const wide = source.length >= WIDE;
  let i = 0;
  const next = (): number => {
    const high = packed.charCodeAt(i++);
    return wide ? high * WIDE + packed.charCodeAt(i++) : high;
  };
  const out: BlockPosition[] = [];
  while (i < packed.length) {
    const start = next();
    const type = source.slice(start, next());
    const line = lines.lineOf(start);
    const column = start - lines.lineStart + 1;
    const labels: string[] = [];
    for (let count = next(); count > 0; count -= 1) labels.push(source.slice(next(), next()));
    const attributes: Record<string, [number, number]> = {};
    for (let count = next(); count > 0; count -= 1) {
      const nameStart = next();
      const name = source.slice(nameStart, next());
      attributes[name] ??= [lines.lineOf(nameStart), nameStart - lines.lineStart + 1];
    }
    out.push({ type, labels, line, column, attributes });
  }
  return out;
}

/** 1-based lines of offsets given in increasing order. */
class LineCounter {
  readonly #source: string;
  #line = 1;
  lineStart = 0;
  #newline: number;

  constructor(source: string) {
    this.#source = source;
    this.#newline = source.indexOf('\n');
  }

  /** The line of `offset`; `lineStart` is then that line's first offset. */
  lineOf(offset: number): number {
    while (this.#newline !== -1 && this.#newline < offset) {
      this.#line += 1;
      this.lineStart = this.#newline + 1;
      this.#newline = this.#source.indexOf('\n', this.lineStart);
    }
    return this.#line;
  }
}
