/**
 * The HCL native-syntax lexer. HCL lexing is modal: a quoted string or heredoc is a template whose `${ }` and
 * `%{ }` sequences contain expressions, which may contain strings again. A stack of modes follows that nesting,
 * as HCL's own scanner does, so the parser sees one flat token stream.
 *
 * The lexer never throws: malformed input becomes `invalid` tokens, which the parser reports and the outline
 * scanner steps over.
 */

export type TokenType =
  /** A name: `local`, `for`, `true`, `provider::aws::arn_parse`. */
  | 'ident'
  /** A number literal, raw text in `value`. */
  | 'number'
  /** An operator or bracket, in `value`. */
  | 'punct'
  /** `"` opening a quoted template. */
  | 'oquote'
  /** `"` closing it. */
  | 'cquote'
  /** `<<EOT` or `<<-EOT` and its newline; the anchor is in `value`, `flush` tells `<<-`. */
  | 'oheredoc'
  /** The heredoc's closing anchor line (without its newline). */
  | 'cheredoc'
  /** Literal template text, escapes already decoded, in `value`. */
  | 'literal'
  /** `${` (or `${~`, then `strip`). */
  | 'interp'
  /** `%{` (or `%{~`, then `strip`). */
  | 'control'
  /** The `}` (or `~}`, then `strip`) ending an interpolation or directive. */
  | 'seqend'
  | 'newline'
  /** Something malformed; the message is in `value`. */
  | 'invalid'
  | 'eof';

export interface Token {
  readonly type: TokenType;
  /** 0-based offsets into the source, end exclusive. */
  readonly start: number;
  readonly end: number;
  readonly value: string;
  /** A strip marker `~` on this template delimiter. */
  readonly strip?: boolean;
  /** `<<-`: strip the common indentation. */
  readonly flush?: boolean;
}

/** `expression`: HCL native syntax. `template`: a bare template, as in hcl2json strings and templatefile(). */
export type LexMode = 'expression' | 'template';

type Frame =
  | { readonly kind: 'root' }
  | { readonly kind: 'brace' }
  | { readonly kind: 'sequence' }
  | { readonly kind: 'quoted' }
  | { readonly kind: 'template' }
  | { readonly kind: 'heredoc'; readonly anchor: RegExp; lineStart: boolean };

const IDENT = /[\p{ID_Start}_][\p{ID_Continue}-]*/uy;
const NAMESPACE_PART = /::[\p{ID_Start}_][\p{ID_Continue}-]*/uy;
const NUMBER = /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const INTEGER = /\d+/y;
const HEREDOC_OPEN = /<<(-?)([\p{ID_Start}_][\p{ID_Continue}-]*)\r?\n/uy;

const THREE_CHAR = new Set(['...']);
const TWO_CHAR = new Set(['=>', '==', '!=', '<=', '>=', '&&', '||']);
const ONE_CHAR = new Set(['=', '!', '<', '>', '+', '-', '*', '/', '%', ',', ':', '?', '(', ')', '[', ']', '.']);

/** Splits HCL source into tokens (always ending with one `eof`). */
export function tokenize(source: string, mode: LexMode = 'expression'): Token[] {
  return new Lexer(source, mode).run();
}

class Lexer {
  readonly #source: string;
  readonly #tokens: Token[] = [];
  readonly #frames: Frame[];
  #pos = 0;

  constructor(source: string, mode: LexMode) {
    this.#source = source;
    this.#frames = [mode === 'template' ? { kind: 'template' } : { kind: 'root' }];
  }

  run(): Token[] {
    const length = this.#source.length;
    while (this.#pos < length) {
      const frame = this.#frames[this.#frames.length - 1] ?? { kind: 'root' };
      switch (frame.kind) {
        case 'quoted':
        case 'template':
        case 'heredoc':
          this.#template(frame);
          break;
        case 'root':
        case 'brace':
        case 'sequence':
          this.#expression(frame);
          break;
      }
    }
    const open = this.#frames[this.#frames.length - 1];
    if (open?.kind === 'quoted') this.#emit('invalid', length, length, 'unterminated quoted string');
    if (open?.kind === 'heredoc') this.#emit('invalid', length, length, 'unterminated heredoc');
    this.#emit('eof', length, length, '');
    return this.#tokens;
  }

  #emit(
    type: TokenType,
    start: number,
    end: number,
    value: string,
    extra?: { strip?: boolean; flush?: boolean },
  ): void {
    this.#tokens.push(extra ? { type, start, end, value, ...extra } : { type, start, end, value });
  }

  #match(pattern: RegExp, at: number): string | undefined {
    pattern.lastIndex = at;
    const match = pattern.exec(this.#source);
    return match ? match[0] : undefined;
  }

  #expression(frame: Frame): void {
    const src = this.#source;
    const start = this.#pos;
    const c = src[start] ?? '';
    const next = src[start + 1] ?? '';

    if (c === ' ' || c === '\t' || (c === '\r' && next !== '\n')) {
      this.#pos++;
      return;
    }
    if (c === '\n' || c === '\r') {
      const end = start + (c === '\r' ? 2 : 1);
      this.#emit('newline', start, end, '\n');
      this.#pos = end;
      return;
    }
    if (c === '#' || (c === '/' && next === '/')) {
      const newline = src.indexOf('\n', start);
      // Leave the newline itself: it still ends an attribute.
      this.#pos = newline === -1 ? src.length : src[newline - 1] === '\r' ? newline - 1 : newline;
      return;
    }
    if (c === '/' && next === '*') {
      const close = src.indexOf('*/', start + 2);
      if (close === -1) {
        this.#emit('invalid', start, src.length, 'unterminated /* comment');
        this.#pos = src.length;
      } else {
        this.#pos = close + 2;
      }
      return;
    }

    const ident = this.#match(IDENT, start);
    if (ident !== undefined) {
      let end = start + ident.length;
      // Provider functions: provider::name::function is one name.
      for (let part = this.#match(NAMESPACE_PART, end); part !== undefined; part = this.#match(NAMESPACE_PART, end)) {
        end += part.length;
      }
      this.#emit('ident', start, end, src.slice(start, end));
      this.#pos = end;
      return;
    }

    if (c >= '0' && c <= '9') {
      // After a dot, digits are a legacy index (`list.0.1` is two steps, not the number 0.1).
      const previous = this.#tokens[this.#tokens.length - 1];
      const afterDot = previous?.type === 'punct' && previous.value === '.';
      const text = this.#match(afterDot ? INTEGER : NUMBER, start) ?? c;
      this.#emit('number', start, start + text.length, text);
      this.#pos = start + text.length;
      return;
    }

    if (c === '"') {
      this.#emit('oquote', start, start + 1, '"');
      this.#frames.push({ kind: 'quoted' });
      this.#pos++;
      return;
    }

    if (c === '<' && next === '<') {
      HEREDOC_OPEN.lastIndex = start;
      const heredoc = HEREDOC_OPEN.exec(src);
      if (heredoc) {
        const anchor = heredoc[2] ?? '';
        const end = start + heredoc[0].length;
        this.#emit('oheredoc', start, end, anchor, { flush: heredoc[1] === '-' });
        this.#frames.push({ kind: 'heredoc', anchor: closingAnchor(anchor), lineStart: true });
        this.#pos = end;
        return;
      }
    }

    if (c === '{') {
      this.#emit('punct', start, start + 1, '{');
      this.#frames.push({ kind: 'brace' });
      this.#pos++;
      return;
    }
    if (c === '}') {
      if (frame.kind === 'sequence') {
        this.#frames.pop();
        this.#emit('seqend', start, start + 1, '}');
      } else {
        if (frame.kind === 'brace') this.#frames.pop();
        this.#emit('punct', start, start + 1, '}');
      }
      this.#pos++;
      return;
    }
    if (c === '~' && next === '}' && frame.kind === 'sequence') {
      this.#frames.pop();
      this.#emit('seqend', start, start + 2, '}', { strip: true });
      this.#pos += 2;
      return;
    }

    const three = src.slice(start, start + 3);
    if (THREE_CHAR.has(three)) {
      this.#emit('punct', start, start + 3, three);
      this.#pos += 3;
      return;
    }
    const two = c + next;
    if (TWO_CHAR.has(two)) {
      this.#emit('punct', start, start + 2, two);
      this.#pos += 2;
      return;
    }
    if (ONE_CHAR.has(c)) {
      this.#emit('punct', start, start + 1, c);
      this.#pos++;
      return;
    }

    const width = (src.codePointAt(start) ?? 0) > 0xffff ? 2 : 1;
    const shown = src.slice(start, start + width);
    const hint =
      c === "'" ? '; use double quotes (") for strings' : c === '&' || c === '|' ? `; did you mean "${c}${c}"?` : '';
    this.#emit('invalid', start, start + width, `unexpected character ${JSON.stringify(shown)}${hint}`);
    this.#pos += width;
  }

  #template(frame: Frame & { kind: 'quoted' | 'template' | 'heredoc' }): void {
    const src = this.#source;
    const length = src.length;

    if (frame.kind === 'heredoc' && frame.lineStart) {
      frame.anchor.lastIndex = this.#pos;
      const close = frame.anchor.exec(src);
      if (close) {
        const end = this.#pos + close[0].length;
        this.#emit('cheredoc', this.#pos, end, close[0].trim());
        this.#frames.pop();
        this.#pos = end;
        return;
      }
      frame.lineStart = false;
    }

    const start = this.#pos;
    let text = '';
    let pos = start;
    let chunk = pos;
    const flush = (): void => {
      text += src.slice(chunk, pos);
    };

    while (pos < length) {
      const c = src[pos];
      const next = src[pos + 1];
      if ((c === '$' || c === '%') && next === '{') break;
      if ((c === '$' || c === '%') && next === c && src[pos + 2] === '{') {
        // `$${` and `%%{` are escapes for a literal `${` and `%{`.
        flush();
        text += `${c}{`;
        pos += 3;
        chunk = pos;
        continue;
      }
      if (frame.kind === 'quoted') {
        if (c === '"' || c === '\n' || (c === '\r' && next === '\n')) break;
        if (c === '\\') {
          flush();
          const escape = decodeEscape(src, pos);
          if (escape.error !== undefined) {
            if (text.length > 0) this.#emit('literal', start, pos, text);
            this.#emit('invalid', pos, pos + escape.length, escape.error);
            pos += escape.length;
            this.#pos = pos;
            return;
          }
          text += escape.text;
          pos += escape.length;
          chunk = pos;
          continue;
        }
      } else if (frame.kind === 'heredoc' && c === '\n') {
        // One literal per line, as HCL's scanner does: the flush (`<<-`) rule works line by line.
        pos++;
        frame.lineStart = true;
        break;
      }
      pos++;
    }
    flush();
    if (pos > start) this.#emit('literal', start, pos, text);
    this.#pos = pos;
    if (pos >= length) return;

    const c = src[pos];
    if (frame.kind === 'heredoc' && frame.lineStart) return;
    if (c === '$' || c === '%') {
      const strip = src[pos + 2] === '~';
      const end = pos + (strip ? 3 : 2);
      this.#emit(c === '$' ? 'interp' : 'control', pos, end, src.slice(pos, end), strip ? { strip } : undefined);
      this.#frames.push({ kind: 'sequence' });
      this.#pos = end;
      return;
    }
    if (frame.kind === 'quoted') {
      if (c === '"') {
        this.#emit('cquote', pos, pos + 1, '"');
        this.#frames.pop();
        this.#pos = pos + 1;
        return;
      }
      // A newline inside quotes: report it and end the string there (a zero-width closing quote keeps the
      // token stream balanced for the outline scanner), so later lines still lex sensibly.
      this.#emit(
        'invalid',
        pos,
        pos,
        'quoted strings may not be split over multiple lines; use "\\n" or a heredoc (<<EOT)',
      );
      this.#emit('cquote', pos, pos, '');
      this.#frames.pop();
    }
  }
}

/** A sticky pattern for a heredoc's closing line: optional indentation, the anchor, then end of line or input. */
function closingAnchor(anchor: string): RegExp {
  const escaped = anchor.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
  return new RegExp(`[ \\t]*${escaped}(?=\\r?\\n|$)`, 'y');
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

function decodeEscape(src: string, at: number): { text: string; length: number; error?: string } {
  const kind = src[at + 1];
  if (kind === undefined) return { text: '', length: 1, error: 'a backslash at the end of the input' };
  const simple = SIMPLE_ESCAPES[kind];
  if (simple !== undefined) return { text: simple, length: 2 };
  if (kind === 'u' || kind === 'U') {
    const digits = kind === 'u' ? 4 : 8;
    const hex = src.slice(at + 2, at + 2 + digits);
    const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === digits ? Number.parseInt(hex, 16) : NaN;
    if (Number.isNaN(code) || code > 0x10ffff) {
      return { text: '', length: 2, error: `invalid escape: \\${kind} needs ${digits} hex digits` };
    }
    return { text: String.fromCodePoint(code), length: 2 + digits };
  }
  return {
    text: '',
    length: 2,
    error: `invalid escape sequence "\\${kind}" (valid: \\n \\r \\t \\" \\\\ \\uNNNN \\UNNNNNNNN)`,
  };
}

/** 1-based line and column of an offset. */
export function lineColumn(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = source.indexOf('\n'); i !== -1 && i < offset; i = source.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
