/**
 * A recursive-descent parser for HCL native-syntax expressions and bare templates, following the HCL native
 * syntax specification (hashicorp/hcl hclsyntax/spec.md): operator precedence, newline sensitivity inside
 * braces, traversals, splats, for expressions and templates.
 *
 * Results are memoised by source text: discovery parses the same few expression strings thousands of times.
 */
import type { BinaryOperator, Expression, ObjectKey, SplatItemNode, TemplatePart } from './ast.js';
import { lineColumn, tokenize } from './lexer.js';
import { parseNumber } from './number.js';
import type { Num } from './number.js';
import type { LexMode, Token } from './lexer.js';
import { SyntaxFailure, assembleTemplate } from './template.js';
import type { FlatItem } from './template.js';

/** Where and why parsing failed. Offsets are 0-based, line and column 1-based. */
export interface ParseError {
  readonly message: string;
  readonly offset: number;
  readonly end: number;
  readonly line: number;
  readonly column: number;
}

export type ParseResult =
  | { readonly ok: true; readonly ast: Expression }
  | { readonly ok: false; readonly reason: 'parse-error'; readonly error: ParseError };

/** Binary operators by precedence level, lowest first (HCL spec, "Operations"). */
const LEVELS: readonly (readonly BinaryOperator[])[] = [
  ['||'],
  ['&&'],
  ['==', '!='],
  ['<', '<=', '>', '>='],
  ['+', '-'],
  ['*', '/', '%'],
];

const CACHE_LIMIT = 50_000;
const expressionCache = new Map<string, ParseResult>();
const templateCache = new Map<string, ParseResult>();

/**
 * Parses one HCL expression (`dirname(local.root)`, `"${a}/b"`, `[for x in y : x]`, heredocs included).
 * Memoised by source text; the returned tree is shared and must not be mutated.
 */
export function parseExpression(source: string): ParseResult {
  return memoised(expressionCache, source, 'expression');
}

/**
 * Parses a bare template: text with `${ }` interpolations and `%{ }` directives but no surrounding quotes and no
 * backslash escapes. This is the form of every string in hcl2json's output and of templatefile() files. A
 * template that is exactly one interpolation parses to that expression, so its value keeps its type (HCL's
 * template-wrap rule: `"${local.list}"` is the list, not a string).
 */
export function parseTemplate(source: string): ParseResult {
  return memoised(templateCache, source, 'template');
}

function memoised(cache: Map<string, ParseResult>, source: string, mode: LexMode): ParseResult {
  const cached = cache.get(source);
  if (cached) return cached;
  const result = parseUncached(source, mode);
  // A crude bound: a repository has far fewer distinct expressions than this; the bound only guards memory.
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(source, result);
  return result;
}

function parseUncached(source: string, mode: LexMode): ParseResult {
  try {
    const parser = new Parser(source, tokenize(source, mode));
    const ast = mode === 'template' ? parser.bareTemplate() : parser.wholeExpression();
    return { ok: true, ast };
  } catch (error) {
    if (!(error instanceof SyntaxFailure)) throw error;
    const { line, column } = lineColumn(source, error.start);
    return {
      ok: false,
      reason: 'parse-error',
      error: { message: error.message, offset: error.start, end: error.end, line, column },
    };
  }
}

class Parser {
  readonly #source: string;
  readonly #tokens: Token[];
  #index = 0;
  /** Whether newlines are significant where the parser is (inside `{ }` of an object), innermost last. */
  readonly #newlines: boolean[] = [false];

  constructor(source: string, tokens: Token[]) {
    this.#source = source;
    this.#tokens = tokens;
  }

  wholeExpression(): Expression {
    const expression = this.#expression();
    const after = this.#peek();
    if (after.type !== 'eof') this.#fail(`unexpected ${describeToken(after)} after the expression`, after);
    return expression;
  }

  bareTemplate(): Expression {
    const items = this.#templateItems(['eof']);
    const end = this.#source.length;
    return this.#templateExpression(assembleTemplate(items, false), 0, end);
  }

  // --- token access -------------------------------------------------------------------------------------

  #peek(): Token {
    let token = this.#tokens[this.#index] ?? this.#eof();
    if (!this.#newlines[this.#newlines.length - 1]) {
      while (token.type === 'newline') token = this.#tokens[++this.#index] ?? this.#eof();
    }
    if (token.type === 'invalid') throw new SyntaxFailure(token.value, token.start, token.end);
    return token;
  }

  /** The token after the next one, skipping newlines where they do not count. */
  #peekSecond(): Token {
    this.#peek();
    const skipNewlines = !this.#newlines[this.#newlines.length - 1];
    let i = this.#index + 1;
    let token = this.#tokens[i] ?? this.#eof();
    while (skipNewlines && token.type === 'newline') token = this.#tokens[++i] ?? this.#eof();
    return token;
  }

  #next(): Token {
    const token = this.#peek();
    if (token.type !== 'eof') this.#index++;
    return token;
  }

  #eof(): Token {
    const end = this.#source.length;
    return { type: 'eof', start: end, end, value: '' };
  }

  #isPunct(token: Token, value: string): boolean {
    return token.type === 'punct' && token.value === value;
  }

  #isKeyword(token: Token, value: string): boolean {
    return token.type === 'ident' && token.value === value;
  }

  #expectPunct(value: string, context: string): Token {
    const token = this.#next();
    if (!this.#isPunct(token, value))
      this.#fail(`expected "${value}" ${context}, found ${describeToken(token)}`, token);
    return token;
  }

  #expectIdent(context: string): Token {
    const token = this.#next();
    if (token.type !== 'ident') this.#fail(`expected a name ${context}, found ${describeToken(token)}`, token);
    return token;
  }

  #fail(message: string, token: Token): never {
    throw new SyntaxFailure(message, token.start, token.end);
  }

  #withNewlines<T>(significant: boolean, body: () => T): T {
    this.#newlines.push(significant);
    try {
      return body();
    } finally {
      this.#newlines.pop();
    }
  }

  // --- expressions --------------------------------------------------------------------------------------

  #expression(): Expression {
    const condition = this.#binary(0);
    if (!this.#isPunct(this.#peek(), '?')) return condition;
    this.#next();
    const trueResult = this.#expression();
    this.#expectPunct(':', 'in the conditional expression');
    const falseResult = this.#expression();
    return { type: 'conditional', condition, trueResult, falseResult, start: condition.start, end: falseResult.end };
  }

  #binary(level: number): Expression {
    const operators = LEVELS[level];
    if (!operators) return this.#unary();
    let left = this.#binary(level + 1);
    for (;;) {
      const token = this.#peek();
      if (token.type !== 'punct' || !operators.includes(token.value as BinaryOperator)) return left;
      this.#next();
      const right = this.#binary(level + 1);
      left = {
        type: 'binary',
        operator: token.value as BinaryOperator,
        left,
        right,
        start: left.start,
        end: right.end,
      };
    }
  }

  #unary(): Expression {
    const token = this.#peek();
    if (this.#isPunct(token, '-') || this.#isPunct(token, '!')) {
      this.#next();
      const operand = this.#unary();
      return { type: 'unary', operator: token.value as '-' | '!', operand, start: token.start, end: operand.end };
    }
    return this.#postfix(this.#primary());
  }

  /** Attribute access, indexing and splats after a term. */
  #postfix(term: Expression, attributeOnly = false): Expression {
    let node = term;
    for (;;) {
      const token = this.#peek();
      if (this.#isPunct(token, '.')) {
        const after = this.#peekSecond();
        if (after.type === 'ident') {
          this.#next();
          this.#next();
          node = { type: 'getattr', object: node, name: after.value, start: node.start, end: after.end };
          continue;
        }
        if (attributeOnly) return node;
        if (after.type === 'number') {
          this.#next();
          this.#next();
          const key = {
            type: 'literal' as const,
            value: numberLiteral(after.value),
            start: after.start,
            end: after.end,
          };
          node = { type: 'index', object: node, key, start: node.start, end: after.end };
          continue;
        }
        if (this.#isPunct(after, '*')) {
          this.#next();
          this.#next();
          node = this.#splat(node, 'attribute', after.end);
          continue;
        }
        this.#next();
        this.#fail(`expected an attribute name after ".", found ${describeToken(after)}`, after);
      }
      if (this.#isPunct(token, '[') && !attributeOnly) {
        this.#next();
        const star = this.#withNewlines(false, () => this.#peek());
        if (this.#isPunct(star, '*')) {
          this.#withNewlines(false, () => {
            this.#next();
            this.#expectPunct(']', 'to close the splat "[*]"');
          });
          node = this.#splat(node, 'full', star.end + 1);
          continue;
        }
        const key = this.#withNewlines(false, () => {
          const inner = this.#expression();
          return inner;
        });
        const close = this.#withNewlines(false, () => this.#expectPunct(']', 'to close the index'));
        node = { type: 'index', object: node, key, start: node.start, end: close.end };
        continue;
      }
      return node;
    }
  }

  #splat(source: Expression, form: 'full' | 'attribute', markerEnd: number): Expression {
    const item: SplatItemNode = { type: 'splat-item', start: markerEnd, end: markerEnd };
    // A full splat applies every following step to each element; an attribute-only splat just `.name` steps.
    const each = this.#postfix(item, form === 'attribute');
    return { type: 'splat', form, source, each, start: source.start, end: Math.max(each.end, markerEnd) };
  }

  #primary(): Expression {
    const token = this.#next();
    if (token.type === 'number') {
      return { type: 'literal', value: numberLiteral(token.value), start: token.start, end: token.end };
    }
    if (token.type === 'ident') return this.#identifier(token);
    if (token.type === 'oquote') return this.#quoted(token);
    if (token.type === 'oheredoc') return this.#heredoc(token);
    if (this.#isPunct(token, '(')) {
      const expression = this.#withNewlines(false, () => this.#expression());
      const close = this.#withNewlines(false, () => this.#expectPunct(')', 'to close the parenthesis'));
      return { type: 'paren', expression, start: token.start, end: close.end };
    }
    if (this.#isPunct(token, '[')) return this.#withNewlines(false, () => this.#tuple(token));
    if (this.#isPunct(token, '{')) return this.#withNewlines(true, () => this.#object(token));
    return this.#fail(`expected an expression, found ${describeToken(token)}`, token);
  }

  #identifier(token: Token): Expression {
    switch (token.value) {
      case 'true':
        return { type: 'literal', value: true, start: token.start, end: token.end };
      case 'false':
        return { type: 'literal', value: false, start: token.start, end: token.end };
      case 'null':
        return { type: 'literal', value: null, start: token.start, end: token.end };
    }
    // A call's "(" must follow on the same line in newline-sensitive places, as in HCL.
    const open = this.#tokens[this.#index];
    if (open && this.#isPunct(open, '(')) {
      this.#index++;
      return this.#withNewlines(false, () => this.#call(token));
    }
    return { type: 'variable', name: token.value, start: token.start, end: token.end };
  }

  #call(name: Token): Expression {
    const args: Expression[] = [];
    let expandFinal = false;
    for (;;) {
      const token = this.#peek();
      if (this.#isPunct(token, ')')) {
        this.#next();
        return { type: 'call', name: name.value, args, expandFinal, start: name.start, end: token.end };
      }
      if (expandFinal) this.#fail('the "..." expansion must be on the last argument', token);
      args.push(this.#expression());
      const separator = this.#peek();
      if (this.#isPunct(separator, '...')) {
        this.#next();
        expandFinal = true;
        continue;
      }
      if (this.#isPunct(separator, ',')) {
        this.#next();
        continue;
      }
      if (!this.#isPunct(separator, ')')) {
        this.#fail(
          `expected "," or ")" in the arguments of ${name.value}(), found ${describeToken(separator)}`,
          separator,
        );
      }
    }
  }

  #tuple(open: Token): Expression {
    if (this.#isKeyword(this.#peek(), 'for')) return this.#for(open, 'tuple');
    const items: Expression[] = [];
    for (;;) {
      const token = this.#peek();
      if (this.#isPunct(token, ']')) {
        this.#next();
        return { type: 'tuple', items, start: open.start, end: token.end };
      }
      items.push(this.#expression());
      const separator = this.#peek();
      if (this.#isPunct(separator, ',')) {
        this.#next();
      } else if (!this.#isPunct(separator, ']')) {
        this.#fail(`expected "," or "]" in the tuple, found ${describeToken(separator)}`, separator);
      }
    }
  }

  #object(open: Token): Expression {
    this.#skipNewlines();
    if (this.#isKeyword(this.#peek(), 'for')) return this.#withNewlines(false, () => this.#for(open, 'object'));
    const items: { key: ObjectKey; value: Expression }[] = [];
    for (;;) {
      this.#skipNewlines();
      const token = this.#peek();
      if (this.#isPunct(token, '}')) {
        this.#next();
        return { type: 'object', items, start: open.start, end: token.end };
      }
      const key = this.#objectKey();
      const equals = this.#next();
      if (!this.#isPunct(equals, '=') && !this.#isPunct(equals, ':')) {
        this.#fail(`expected "=" or ":" after the object key, found ${describeToken(equals)}`, equals);
      }
      const value = this.#expression();
      items.push({ key, value });
      const separator = this.#peek();
      if (this.#isPunct(separator, ',') || separator.type === 'newline') {
        this.#next();
      } else if (!this.#isPunct(separator, '}')) {
        this.#fail(
          `expected ",", a newline or "}" after the object item, found ${describeToken(separator)}`,
          separator,
        );
      }
    }
  }

  #objectKey(): ObjectKey {
    const token = this.#peek();
    const after = this.#peekSecond();
    if (token.type === 'ident' && (this.#isPunct(after, '=') || this.#isPunct(after, ':'))) {
      this.#next();
      return { kind: 'name', name: token.value, start: token.start, end: token.end };
    }
    const expression = this.#expression();
    if (expression.type === 'getattr' || expression.type === 'index' || expression.type === 'splat') {
      // HCL refuses a bare traversal as a key: a key with dots would be ambiguous. Parentheses say "evaluate".
      throw new SyntaxFailure(
        'ambiguous object key: to use a value as a key, wrap it in parentheses; to use a literal key, quote it',
        expression.start,
        expression.end,
      );
    }
    return { kind: 'expression', expression };
  }

  #skipNewlines(): void {
    while (this.#tokens[this.#index]?.type === 'newline') this.#index++;
  }

  /**
   * `k, v in collection` (or `v in collection`) after `for`: the same in a for expression and a `%{ for }` directive.
   * `where` ends the error messages (e.g. " in the for expression").
   */
  #forIntro(where: string): { keyVar?: string; valueVar: string; collection: Expression } {
    const first = this.#expectIdent('after "for"');
    let keyVar: string | undefined;
    let valueVar = first.value;
    if (this.#isPunct(this.#peek(), ',')) {
      this.#next();
      keyVar = first.value;
      valueVar = this.#expectIdent(`after ","${where}`).value;
    }
    const inToken = this.#next();
    if (!this.#isKeyword(inToken, 'in')) this.#fail(`expected "in"${where}, found ${describeToken(inToken)}`, inToken);
    const collection = this.#expression();
    return { ...(keyVar !== undefined ? { keyVar } : {}), valueVar, collection };
  }

  #for(open: Token, form: 'tuple' | 'object'): Expression {
    this.#next(); // for
    const intro = this.#forIntro(' in the for expression');
    this.#expectPunct(':', 'after the collection of the for expression');
    let key: Expression | undefined;
    if (form === 'object') {
      key = this.#expression();
      this.#expectPunct('=>', 'between key and value of the for expression');
    }
    const value = this.#expression();
    let group = false;
    if (form === 'object' && this.#isPunct(this.#peek(), '...')) {
      this.#next();
      group = true;
    }
    let condition: Expression | undefined;
    if (this.#isKeyword(this.#peek(), 'if')) {
      this.#next();
      condition = this.#expression();
    }
    const close = this.#next();
    const closer = form === 'tuple' ? ']' : '}';
    if (!this.#isPunct(close, closer))
      this.#fail(`expected "${closer}" to close the for expression, found ${describeToken(close)}`, close);
    return {
      type: 'for',
      form,
      ...intro,
      ...(key ? { key } : {}),
      value,
      group,
      ...(condition ? { condition } : {}),
      start: open.start,
      end: close.end,
    };
  }

  // --- templates ----------------------------------------------------------------------------------------

  #quoted(open: Token): Expression {
    const items = this.#templateItems(['cquote']);
    const close = this.#next();
    return this.#templateExpression(assembleTemplate(items, false), open.start, close.end);
  }

  #heredoc(open: Token): Expression {
    const items = this.#templateItems(['cheredoc']);
    const close = this.#next();
    const parts = assembleTemplate(items, open.flush === true);
    // A heredoc is always a string, even when it is only an interpolation (plus its final newline).
    return this.#templateExpression(parts, open.start, close.end, false);
  }

  #templateExpression(parts: TemplatePart[], start: number, end: number, unwrap = true): Expression {
    const only = parts[0];
    if (parts.length === 0) return { type: 'literal', value: '', start, end };
    if (parts.length === 1 && only?.kind === 'literal') return { type: 'literal', value: only.value, start, end };
    if (unwrap && parts.length === 1 && only?.kind === 'interpolation') return only.expression;
    return { type: 'template', parts, start, end };
  }

  /** Reads literals, interpolations and directives up to (not including) a closing token. */
  #templateItems(closers: readonly Token['type'][]): FlatItem[] {
    const items: FlatItem[] = [];
    // Inside a template, newlines are text (they arrive in literal tokens); none are skipped here.
    this.#newlines.push(true);
    try {
      for (;;) {
        const token = this.#tokens[this.#index] ?? this.#eof();
        if (token.type === 'invalid') this.#fail(token.value, token);
        if (closers.includes(token.type)) return items;
        this.#index++;
        if (token.type === 'literal') {
          items.push({ kind: 'literal', value: token.value, start: token.start, end: token.end });
        } else if (token.type === 'interp') {
          const expression = this.#withNewlines(false, () => this.#expression());
          const close = this.#sequenceEnd('interpolation');
          items.push({
            kind: 'interpolation',
            expression,
            start: token.start,
            end: close.end,
            stripBefore: token.strip === true,
            stripAfter: close.strip === true,
          });
        } else if (token.type === 'control') {
          items.push(this.#directive(token));
        } else if (token.type === 'eof') {
          return this.#fail('unterminated template', token);
        } else {
          return this.#fail(`unexpected ${describeToken(token)} in a template`, token);
        }
      }
    } finally {
      this.#newlines.pop();
    }
  }

  #sequenceEnd(what: string): Token {
    return this.#withNewlines(false, () => {
      const close = this.#next();
      if (close.type !== 'seqend')
        this.#fail(`expected "}" to close the ${what}, found ${describeToken(close)}`, close);
      return close;
    });
  }

  #directive(open: Token): FlatItem {
    return this.#withNewlines(false, () => {
      const keyword = this.#expectIdent('after "%{"');
      const marks = (close: Token) => ({
        start: open.start,
        end: close.end,
        stripBefore: open.strip === true,
        stripAfter: close.strip === true,
      });
      switch (keyword.value) {
        case 'if': {
          const condition = this.#expression();
          return { kind: 'if', condition, ...marks(this.#sequenceEnd('%{ if }')) };
        }
        case 'else':
        case 'endif':
        case 'endfor':
          return { kind: keyword.value, ...marks(this.#sequenceEnd(`%{ ${keyword.value} }`)) };
        case 'for':
          return { kind: 'for', ...this.#forIntro(''), ...marks(this.#sequenceEnd('%{ for }')) };
        default:
          return this.#fail(
            `unknown template directive "${keyword.value}" (expected if, else, endif, for, endfor)`,
            keyword,
          );
      }
    });
  }
}

/** A number literal's value, as HCL reads it (cty.ParseNumberVal: 512 bits). */
function numberLiteral(text: string): Num {
  return parseNumber(text) ?? Number(text);
}

function describeToken(token: Token): string {
  switch (token.type) {
    case 'eof':
      return 'the end of the expression';
    case 'newline':
      return 'a newline';
    case 'ident':
      return `"${token.value}"`;
    case 'number':
      return `the number ${token.value}`;
    case 'punct':
      return `"${token.value}"`;
    case 'oquote':
    case 'cquote':
      return 'a quote';
    case 'oheredoc':
      return 'a heredoc';
    case 'cheredoc':
      return 'the end of a heredoc';
    case 'literal':
      return 'template text';
    case 'interp':
      return '"${"';
    case 'control':
      return '"%{"';
    case 'seqend':
      return '"}"';
    case 'invalid':
      return token.value;
  }
}
