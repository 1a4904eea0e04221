/**
 * A light structural scan of a whole HCL file: blocks, their labels, their attributes, and where each is written.
 * hcl2json gives no positions, so discovery uses this to report `file:line` for a `dependency "vpc"` block or its
 * `config_path`. It reuses the expression lexer, so strings, heredocs, template sequences and all three comment
 * styles are skipped correctly; it never throws, and on malformed input it returns what it could recognise.
 */
import { tokenize } from './lexer.js';
import type { Token } from './lexer.js';

export interface OutlineAttribute {
  readonly name: string;
  /** 1-based position of the attribute name. */
  readonly line: number;
  readonly column: number;
  /** The expression as written (after `=`), comments after it excluded. */
  readonly source: string;
  /** 1-based position where the expression starts. */
  readonly valueLine: number;
  readonly valueColumn: number;
}

export interface OutlineBlock {
  readonly type: string;
  readonly labels: readonly string[];
  /** 1-based position of the block type. */
  readonly line: number;
  readonly column: number;
  /** Line of the closing brace (the last line scanned when it is missing). */
  readonly endLine: number;
  readonly attributes: readonly OutlineAttribute[];
  readonly blocks: readonly OutlineBlock[];
}

/** A file's top level: attributes (`inputs = {...}`) and blocks. */
export interface OutlineBody {
  readonly attributes: readonly OutlineAttribute[];
  readonly blocks: readonly OutlineBlock[];
}

/** The top-level blocks of an HCL file, with their attributes and nested blocks. Never throws. */
export function outline(source: string): OutlineBlock[] {
  return [...outlineBody(source).blocks];
}

/** The top-level attributes and blocks of an HCL file. Never throws. */
export function outlineBody(source: string): OutlineBody {
  try {
    return new Scanner(source).file();
  } catch {
    // Best effort by contract: a bug here must not take discovery down.
    return { attributes: [], blocks: [] };
  }
}

const OPENERS = new Set(['oquote', 'oheredoc', 'interp', 'control']);
const CLOSERS = new Set(['cquote', 'cheredoc', 'seqend']);

class Scanner {
  readonly #source: string;
  readonly #tokens: Token[];
  readonly #lineStarts: number[] = [0];
  #index = 0;

  constructor(source: string) {
    this.#source = source;
    this.#tokens = tokenize(source, 'expression');
    for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) this.#lineStarts.push(i + 1);
  }

  file(): OutlineBody {
    const attributes: OutlineAttribute[] = [];
    const blocks: OutlineBlock[] = [];
    while (!this.#atEnd()) {
      this.#body(attributes, blocks);
      // A stray "}" at the top level: step over it and keep going.
      if (!this.#atEnd()) this.#index++;
    }
    return { attributes, blocks };
  }

  #token(offset = 0): Token | undefined {
    return this.#tokens[this.#index + offset];
  }

  #atEnd(): boolean {
    const token = this.#token();
    return !token || token.type === 'eof';
  }

  #position(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.#lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.#lineStarts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - (this.#lineStarts[low] ?? 0) + 1 };
  }

  /** Reads items until a "}" closing the enclosing block (not consumed) or the end. */
  #body(attributes: OutlineAttribute[], blocks: OutlineBlock[]): void {
    for (;;) {
      const token = this.#token();
      if (!token || token.type === 'eof') return;
      if (token.type === 'punct' && token.value === '}') return;
      if (token.type === 'newline' || token.type === 'invalid') {
        this.#index++;
        continue;
      }
      if (token.type === 'ident') {
        const after = this.#token(1);
        if (after?.type === 'punct' && after.value === '=') {
          attributes.push(this.#attribute(token));
          continue;
        }
        const block = this.#block(token);
        if (block) {
          blocks.push(block);
          continue;
        }
      }
      this.#skipItem();
    }
  }

  #attribute(name: Token): OutlineAttribute {
    this.#index += 2;
    const first = this.#token();
    let last: Token | undefined;
    let depth = 0;
    for (let token = this.#token(); token && token.type !== 'eof'; token = this.#token()) {
      if (depth === 0 && token.type === 'newline') break;
      const delta = depthChange(token);
      if (depth + delta < 0) break;
      depth += delta;
      if (token.type !== 'newline' && token.type !== 'invalid') last = token;
      this.#index++;
    }
    const namePosition = this.#position(name.start);
    const valueStart = first && last ? first.start : name.end;
    const valuePosition = this.#position(valueStart);
    return {
      name: name.value,
      line: namePosition.line,
      column: namePosition.column,
      source: last ? this.#source.slice(valueStart, last.end) : '',
      valueLine: valuePosition.line,
      valueColumn: valuePosition.column,
    };
  }

  /** A block if the tokens from `type` on are `type label* {`; otherwise nothing is consumed. */
  #block(type: Token): OutlineBlock | undefined {
    const start = this.#index;
    this.#index++;
    const labels: string[] = [];
    for (;;) {
      const token = this.#token();
      if (token?.type === 'ident') {
        labels.push(token.value);
        this.#index++;
        continue;
      }
      if (token?.type === 'oquote') {
        const label = this.#label(token);
        if (label === undefined) break;
        labels.push(label);
        continue;
      }
      break;
    }
    const open = this.#token();
    if (!(open?.type === 'punct' && open.value === '{')) {
      this.#index = start;
      return undefined;
    }
    this.#index++;
    const attributes: OutlineAttribute[] = [];
    const blocks: OutlineBlock[] = [];
    this.#body(attributes, blocks);
    const close = this.#token();
    const endOffset = close && close.type !== 'eof' ? close.start : this.#source.length;
    if (close?.type === 'punct' && close.value === '}') this.#index++;
    const position = this.#position(type.start);
    return {
      type: type.value,
      labels,
      line: position.line,
      column: position.column,
      endLine: this.#position(endOffset).line,
      attributes,
      blocks,
    };
  }

  /** A quoted label's text; undefined (nothing consumed) when the quote is not closed on its line. */
  #label(open: Token): string | undefined {
    let text = '';
    let plain = true;
    for (let offset = 1; ; offset++) {
      const token = this.#token(offset);
      if (!token || token.type === 'eof' || token.type === 'newline' || token.type === 'invalid') return undefined;
      if (token.type === 'cquote') {
        this.#index += offset + 1;
        return plain ? text : this.#source.slice(open.end, token.start);
      }
      if (token.type === 'literal') text += token.value;
      else plain = false;
    }
  }

  /** Steps over something unrecognised: up to the end of its line, or to a "}" closing the enclosing block. */
  #skipItem(): void {
    let depth = 0;
    let moved = false;
    for (let token = this.#token(); token && token.type !== 'eof'; token = this.#token()) {
      if (depth === 0 && token.type === 'newline') break;
      const delta = depthChange(token);
      if (depth + delta < 0) break;
      depth += delta;
      this.#index++;
      moved = true;
    }
    if (!moved && !this.#atEnd()) {
      const token = this.#token();
      // Never stop on a "}" here: the caller decides about closing braces.
      if (!(token?.type === 'punct' && token.value === '}')) this.#index++;
    }
  }
}

function depthChange(token: Token): number {
  if (token.type === 'punct') {
    if (token.value === '(' || token.value === '[' || token.value === '{') return 1;
    if (token.value === ')' || token.value === ']' || token.value === '}') return -1;
    return 0;
  }
  if (OPENERS.has(token.type)) return 1;
  if (CLOSERS.has(token.type)) return -1;
  return 0;
}
