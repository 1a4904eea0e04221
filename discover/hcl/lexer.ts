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
type TemplateFrame = Frame & { kind: 'quoted' | 'template' | 'heredoc' };

const IDENT = /[\p{ID_Start}_][\p{ID_Continue}-]*/uy;
const ASCII_NAME_PART = /[A-Za-z0-9_-]*/y;
/** Template text up to the next character that may end it or start a sequence or an escape, per kind of template. */
const QUOTED_TEXT = /[^$%"\\\n\r]*/y;
const HEREDOC_TEXT = /[^$%\n]*/y;
const BARE_TEXT = /[^$%]*/y;
const HEREDOC_OPEN = /<<(-?)([\p{ID_Start}_][\p{ID_Continue}-]*)\r?\n/uy;

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const BANG = 0x21;
const QUOTE = 0x22;
const HASH = 0x23;
const DOLLAR = 0x24;
const PERCENT = 0x25;
const AMPERSAND = 0x26;
const STAR = 0x2a;
const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const COLON = 0x3a;
const LESS = 0x3c;
const EQUALS = 0x3d;
const GREATER = 0x3e;
const UPPER_E = 0x45;
const BACKSLASH = 0x5c;
const UNDERSCORE = 0x5f;
const LOWER_E = 0x65;
const OPEN_BRACE = 0x7b;
const BAR = 0x7c;
const CLOSE_BRACE = 0x7d;
const TILDE = 0x7e;

function isDigit(c: number): boolean {
  return c >= DIGIT_0 && c <= DIGIT_9;
}

/** ASCII letters and `_`: ID_Start's ASCII part, plus the underscore HCL allows. */
function isAsciiNameStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === UNDERSCORE;
}

function digitsEnd(src: string, at: number): number {
  let end = at;
  while (isDigit(src.charCodeAt(end))) end++;
  return end;
}

/**
 * Where the name starting at `start` ends (its first character already known to start one). A name of ASCII only is
 * read by code; one that starts or goes on beyond ASCII is read again by the Unicode pattern.
 */
function nameEnd(src: string, start: number): number {
  if (src.charCodeAt(start) < 0x80) {
    // A sticky pattern's test() moves lastIndex to the end of the match without building a match array.
    ASCII_NAME_PART.lastIndex = start + 1;
    ASCII_NAME_PART.test(src);
    const end = ASCII_NAME_PART.lastIndex;
    // Past the end charCodeAt is NaN: the name ends there too.
    if (!(src.charCodeAt(end) >= 0x80)) return end;
  }
  IDENT.lastIndex = start;
  const match = IDENT.exec(src);
  return start + (match ? match[0].length : 1);
}

/** The length of the operator at `start` (3, 2 or 1), or 0 when none starts there. */
function operatorLength(src: string, start: number, c: number, next: number): number {
  switch (c) {
    case DOT:
      return next === DOT && src.charCodeAt(start + 2) === DOT ? 3 : 1;
    case EQUALS:
      return next === GREATER || next === EQUALS ? 2 : 1;
    case BANG:
    case LESS:
    case GREATER:
      return next === EQUALS ? 2 : 1;
    case AMPERSAND:
      return next === AMPERSAND ? 2 : 0;
    case BAR:
      return next === BAR ? 2 : 0;
    case PLUS:
    case MINUS:
    case STAR:
    case SLASH:
    case PERCENT:
    case 0x2c: // ,
    case COLON:
    case 0x3f: // ?
    case 0x28: // (
    case 0x29: // )
    case 0x5b: // [
    case 0x5d: // ]
      return 1;
    default:
      return 0;
  }
}

/** Splits HCL source into tokens (always ending with one `eof`). */
export function tokenize(source: string, mode: LexMode = 'expression'): Token[] {
  return new Lexer(source, mode).run();
}

/** A file's tokens (expression mode), and where the first one that needs a second look is. */
export interface LexedFile {
  readonly tokens: Token[];
  /**
   * The index of the first token that is `invalid` or follows a newline outside every token (one inside a
   * multi-line `/* *\/` comment, the only place such a newline can be); -1 when there is none. Noted while lexing,
   * so the file parser need not look at every token again for them.
   */
  readonly suspect: number;
}

/** Splits a file into tokens, noting the first suspect one (see {@link LexedFile}). */
export function lexFile(source: string): LexedFile {
  const lexer = new Lexer(source, 'expression');
  return { tokens: lexer.run(), suspect: lexer.suspect };
}

class Lexer {
  readonly #source: string;
  readonly #tokens: Token[] = [];
  readonly #frames: Frame[];
  #pos = 0;
  /** A `/* *\/` comment with a newline was skipped since the last token. */
  #newlineInGap = false;
  /** See {@link LexedFile.suspect}. */
  suspect = -1;

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
          this.#expression();
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
    if (this.#newlineInGap || type === 'invalid') {
      if (this.suspect === -1) this.suspect = this.#tokens.length;
      this.#newlineInGap = false;
    }
    this.#tokens.push(extra ? { type, start, end, value, ...extra } : { type, start, end, value });
  }

  /**
   * Tokens in expression mode, up to the end of the source or until a quoted string or heredoc starts (or a
   * `}` ends an interpolation), where the template mode takes over. Dispatches on the character code: names,
   * numbers and operators are read by code or with sticky patterns (an ASCII fast path; the Unicode name pattern
   * runs only for a name that starts or goes on beyond ASCII). Lexing the 5,000-unit repository's files once warm
   * went from about 22 to 13 ms; cold, while the code still runs interpreted, the two are about even. It loops here
   * rather than returning to {@link run} after every token or run of spaces: that call and the look at the mode
   * stack per step were a quarter of a cold run's lexing.
   */
  #expression(): void {
    const src = this.#source;
    const length = src.length;
    const frames = this.#frames;
    while (this.#pos < length) {
      const frame = frames[frames.length - 1] as Frame;
      const start = this.#pos;
      const c = src.charCodeAt(start);
      // Names first, tested inline: the most common token (a helper call per token cost more while interpreted).
      if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === UNDERSCORE) {
        this.#name(start);
        continue;
      }
      const next = src.charCodeAt(start + 1);

      switch (c) {
        case SPACE:
        case TAB: {
          // A run of spaces at once (indentation, alignment): one step rather than one per character.
          let end = start + 1;
          for (let code = next; code === SPACE || code === TAB; code = src.charCodeAt(end)) end++;
          this.#pos = end;
          continue;
        }
        case CR:
        case LF:
          this.#newline(start, c, next);
          continue;
        case HASH:
          this.#lineComment(start);
          continue;
        case SLASH:
          if (next === SLASH) {
            this.#lineComment(start);
            continue;
          }
          if (next === STAR) {
            this.#blockComment(start);
            continue;
          }
          break;
        case QUOTE:
          if (this.#plainString(start)) continue;
          return;
        case OPEN_BRACE:
          this.#emit('punct', start, start + 1, '{');
          frames.push({ kind: 'brace' });
          this.#pos++;
          continue;
        case CLOSE_BRACE:
          if (frame.kind === 'sequence') return this.#sequenceEnd(start, false);
          if (frame.kind === 'brace') frames.pop();
          this.#emit('punct', start, start + 1, '}');
          this.#pos++;
          continue;
        case TILDE:
          if (next === CLOSE_BRACE && frame.kind === 'sequence') return this.#sequenceEnd(start, true);
          break;
        case LESS:
          if (next === LESS && this.#heredocOpen(start)) return;
          break;
      }

      if (c >= DIGIT_0 && c <= DIGIT_9) {
        this.#number(start);
        continue;
      }
      const operator = operatorLength(src, start, c, next);
      if (operator === 0) {
        this.#nameOrUnexpected(start, c);
        continue;
      }
      this.#emit('punct', start, start + operator, src.slice(start, start + operator));
      this.#pos += operator;
    }
  }

  /** No operator starts here: a name starting beyond ASCII, or a character no token starts with. */
  #nameOrUnexpected(start: number, c: number): void {
    if (c >= 0x80 && this.#nonAsciiName(start)) this.#name(start);
    else this.#unexpected(start);
  }

  /** A newline token (`\r\n` or `\n`); a `\r` on its own is skipped. */
  #newline(start: number, c: number, next: number): void {
    if (c === CR && next !== LF) {
      this.#pos++;
      return;
    }
    const end = c === CR ? start + 2 : start + 1;
    this.#emit('newline', start, end, '\n');
    this.#pos = end;
  }

  /** A `/* *\/` comment, skipped; a newline inside it is noted (see {@link LexedFile.suspect}). */
  #blockComment(start: number): void {
    const src = this.#source;
    const close = src.indexOf('*/', start + 2);
    if (close === -1) {
      this.#emit('invalid', start, src.length, 'unterminated /* comment');
      this.#pos = src.length;
      return;
    }
    const newline = src.indexOf('\n', start + 2);
    if (newline !== -1 && newline < close) this.#newlineInGap = true;
    this.#pos = close + 2;
  }

  /**
   * The opening quote, and the common string, plain text up to its closing quote, read here (the tokens template
   * mode would give) without a mode pushed and popped and two more steps through run(). False when the string
   * holds more than plain text: the quoted mode is pushed for the template mode to go on.
   */
  #plainString(start: number): boolean {
    const src = this.#source;
    this.#emit('oquote', start, start + 1, '"');
    QUOTED_TEXT.lastIndex = start + 1;
    QUOTED_TEXT.test(src);
    const close = QUOTED_TEXT.lastIndex;
    if (src.charCodeAt(close) === QUOTE) {
      if (close > start + 1) this.#emit('literal', start + 1, close, src.slice(start + 1, close));
      this.#emit('cquote', close, close + 1, '"');
      this.#pos = close + 1;
      return true;
    }
    this.#frames.push({ kind: 'quoted' });
    this.#pos = start + 1;
    return false;
  }

  /** The `}` (or `~}` when `strip`) ending an interpolation or directive: back to the template around it. */
  #sequenceEnd(start: number, strip: boolean): void {
    this.#frames.pop();
    if (strip) this.#emit('seqend', start, start + 2, '}', { strip: true });
    else this.#emit('seqend', start, start + 1, '}');
    this.#pos = start + (strip ? 2 : 1);
  }

  /** A character no token starts with. */
  #unexpected(start: number): void {
    const src = this.#source;
    const width = (src.codePointAt(start) ?? 0) > 0xffff ? 2 : 1;
    const shown = src.slice(start, start + width);
    const ch = src[start];
    const hint =
      ch === "'"
        ? '; use double quotes (") for strings'
        : ch === '&' || ch === '|'
          ? `; did you mean "${ch}${ch}"?`
          : '';
    this.#emit('invalid', start, start + width, `unexpected character ${JSON.stringify(shown)}${hint}`);
    this.#pos += width;
  }

  /** `#` and `//` comments run to the end of the line; the newline itself is left: it still ends an attribute. */
  #lineComment(start: number): void {
    const src = this.#source;
    const newline = src.indexOf('\n', start);
    this.#pos = newline === -1 ? src.length : src.charCodeAt(newline - 1) === CR ? newline - 1 : newline;
  }

  /** Whether a name starts here with a character beyond ASCII (the Unicode pattern decides). */
  #nonAsciiName(start: number): boolean {
    IDENT.lastIndex = start;
    return IDENT.test(this.#source);
  }

  /** A name, `provider::name::function` included (one name), known to start at `start`. */
  #name(start: number): void {
    const src = this.#source;
    let end = nameEnd(src, start);
    // Provider functions: provider::name::function is one name.
    while (src.charCodeAt(end) === COLON && src.charCodeAt(end + 1) === COLON) {
      const c = src.charCodeAt(end + 2);
      if (!isAsciiNameStart(c) && !(c >= 0x80 && this.#nonAsciiName(end + 2))) break;
      end = nameEnd(src, end + 2);
    }
    this.#emit('ident', start, end, src.slice(start, end));
    this.#pos = end;
  }

  /**
   * A number: digits, an optional fraction and exponent. After a dot, digits are a legacy index (`list.0.1` is two
   * steps, not the number 0.1), so only the integer is taken.
   */
  #number(start: number): void {
    const src = this.#source;
    const previous = this.#tokens[this.#tokens.length - 1];
    const afterDot = previous?.type === 'punct' && previous.value === '.';
    let end = digitsEnd(src, start);
    if (!afterDot) {
      if (src.charCodeAt(end) === DOT && isDigit(src.charCodeAt(end + 1))) end = digitsEnd(src, end + 1);
      const e = src.charCodeAt(end);
      if (e === LOWER_E || e === UPPER_E) {
        const sign = src.charCodeAt(end + 1);
        const digits = sign === PLUS || sign === MINUS ? end + 2 : end + 1;
        if (isDigit(src.charCodeAt(digits))) end = digitsEnd(src, digits);
      }
    }
    this.#emit('number', start, end, src.slice(start, end));
    this.#pos = end;
  }

  /** `<<EOT` or `<<-EOT` and its newline; false when `<<` does not open a heredoc here. */
  #heredocOpen(start: number): boolean {
    const src = this.#source;
    HEREDOC_OPEN.lastIndex = start;
    const heredoc = HEREDOC_OPEN.exec(src);
    if (!heredoc) return false;
    const anchor = heredoc[2] ?? '';
    const end = start + heredoc[0].length;
    this.#emit('oheredoc', start, end, anchor, { flush: heredoc[1] === '-' });
    this.#frames.push({ kind: 'heredoc', anchor: closingAnchor(anchor), lineStart: true });
    this.#pos = end;
    return true;
  }

  /**
   * One step in template mode: a heredoc's closing line, or a literal and then what ended it (a sequence opening,
   * the closing quote, a heredoc's end of line).
   */
  #template(frame: TemplateFrame): void {
    if (frame.kind === 'heredoc' && frame.lineStart && this.#heredocClose(frame)) return;
    if (!this.#literal(frame)) return;
    if (this.#pos >= this.#source.length || (frame.kind === 'heredoc' && frame.lineStart)) return;
    this.#templateDelimiter(frame);
  }

  /** At the start of a heredoc's line: true when it is the closing anchor line (the heredoc ends). */
  #heredocClose(frame: Frame & { kind: 'heredoc' }): boolean {
    frame.anchor.lastIndex = this.#pos;
    const close = frame.anchor.exec(this.#source);
    if (!close) {
      frame.lineStart = false;
      return false;
    }
    const end = this.#pos + close[0].length;
    this.#emit('cheredoc', this.#pos, end, close[0].trim());
    this.#frames.pop();
    this.#pos = end;
    return true;
  }

  /**
   * Template text up to a sequence, the closing quote, a newline or the end, as one `literal` with its escapes
   * decoded; false when an invalid escape ended it (reported as an `invalid` token).
   */
  #literal(frame: TemplateFrame): boolean {
    const src = this.#source;
    const length = src.length;
    const start = this.#pos;
    const quoted = frame.kind === 'quoted';
    const heredoc = frame.kind === 'heredoc';
    // The decoded text is built only when an escape makes it differ from the source (rare); `chunk` is where the
    // source not yet copied into it begins.
    let text = '';
    let pos = start;
    let chunk = pos;

    const plain = quoted ? QUOTED_TEXT : heredoc ? HEREDOC_TEXT : BARE_TEXT;
    while (pos < length) {
      // Plain text in one native step (lastIndex moves to its end), then the character after it.
      plain.lastIndex = pos;
      plain.test(src);
      pos = plain.lastIndex;
      if (pos >= length) break;
      const c = src.charCodeAt(pos);
      if (c === DOLLAR || c === PERCENT) {
        const next = src.charCodeAt(pos + 1);
        if (next === OPEN_BRACE) break;
        if (next === c && src.charCodeAt(pos + 2) === OPEN_BRACE) {
          // `$${` and `%%{` are escapes for a literal `${` and `%{`.
          text += src.slice(chunk, pos) + (c === DOLLAR ? '${' : '%{');
          pos += 3;
          chunk = pos;
          continue;
        }
      } else if (quoted) {
        if (c === QUOTE || c === LF || (c === CR && src.charCodeAt(pos + 1) === LF)) break;
        if (c === BACKSLASH) {
          text += src.slice(chunk, pos);
          const escape = decodeEscape(src, pos);
          if (escape.error !== undefined) {
            if (text.length > 0) this.#emit('literal', start, pos, text);
            this.#emit('invalid', pos, pos + escape.length, escape.error);
            pos += escape.length;
            this.#pos = pos;
            return false;
          }
          text += escape.text;
          pos += escape.length;
          chunk = pos;
          continue;
        }
      } else if (heredoc && c === LF) {
        // One literal per line, as HCL's scanner does: the flush (`<<-`) rule works line by line.
        pos++;
        frame.lineStart = true;
        break;
      }
      pos++;
    }
    text = chunk === start ? src.slice(start, pos) : text + src.slice(chunk, pos);
    if (pos > start) this.#emit('literal', start, pos, text);
    this.#pos = pos;
    return true;
  }

  /** What ended a literal: `${` or `%{` (a sequence starts), or in a quoted string its closing quote or a newline. */
  #templateDelimiter(frame: TemplateFrame): void {
    const src = this.#source;
    const pos = this.#pos;
    const c = src.charCodeAt(pos);
    if (c === DOLLAR || c === PERCENT) {
      const strip = src.charCodeAt(pos + 2) === TILDE;
      const end = pos + (strip ? 3 : 2);
      this.#emit(c === DOLLAR ? 'interp' : 'control', pos, end, src.slice(pos, end), strip ? { strip } : undefined);
      this.#frames.push({ kind: 'sequence' });
      this.#pos = end;
      return;
    }
    if (frame.kind === 'quoted') {
      if (c === QUOTE) {
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
