/**
 * The expression tree the parser builds and the evaluator walks. Every node keeps its 0-based source offsets
 * (`start` inclusive, `end` exclusive) so errors can point at the failing part.
 */
import { BigNumber } from './number.js';
import type { Num } from './number.js';

interface Span {
  readonly start: number;
  readonly end: number;
}

export type BinaryOperator = '||' | '&&' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '%';

/** A number, bool, null, or a string without any template sequence. */
export interface LiteralNode extends Span {
  readonly type: 'literal';
  /** A number literal is parsed as cty parses it (512-bit precision): see number.ts. */
  readonly value: string | Num | boolean | null;
}

/** A string template with at least one interpolation or directive; always evaluates to a string. */
export interface TemplateNode extends Span {
  readonly type: 'template';
  readonly parts: readonly TemplatePart[];
}

export type TemplatePart =
  | (Span & { readonly kind: 'literal'; readonly value: string })
  | (Span & { readonly kind: 'interpolation'; readonly expression: Expression })
  | (Span & {
      readonly kind: 'if';
      readonly condition: Expression;
      readonly then: readonly TemplatePart[];
      readonly else: readonly TemplatePart[];
    })
  | (Span & {
      readonly kind: 'for';
      readonly keyVar?: string;
      readonly valueVar: string;
      readonly collection: Expression;
      readonly body: readonly TemplatePart[];
    });

export interface TupleNode extends Span {
  readonly type: 'tuple';
  readonly items: readonly Expression[];
}

/** A bare identifier key is the literal name; anything else (a string, `(expr)`) is evaluated. */
export type ObjectKey =
  | (Span & { readonly kind: 'name'; readonly name: string })
  | { readonly kind: 'expression'; readonly expression: Expression };

export interface ObjectNode extends Span {
  readonly type: 'object';
  readonly items: readonly { readonly key: ObjectKey; readonly value: Expression }[];
}

export interface VariableNode extends Span {
  readonly type: 'variable';
  readonly name: string;
}

export interface GetAttrNode extends Span {
  readonly type: 'getattr';
  readonly object: Expression;
  readonly name: string;
}

export interface IndexNode extends Span {
  readonly type: 'index';
  readonly object: Expression;
  readonly key: Expression;
}

/**
 * `source[*].rest` (full) or `source.*.rest` (attribute-only): `each` is `rest` applied to a {@link SplatItemNode}
 * that stands for one element.
 */
export interface SplatNode extends Span {
  readonly type: 'splat';
  readonly form: 'full' | 'attribute';
  readonly source: Expression;
  readonly each: Expression;
}

export interface SplatItemNode extends Span {
  readonly type: 'splat-item';
}

export interface CallNode extends Span {
  readonly type: 'call';
  readonly name: string;
  readonly args: readonly Expression[];
  /** `f(a, list...)`: the last argument's elements are the trailing arguments. */
  readonly expandFinal: boolean;
}

export interface UnaryNode extends Span {
  readonly type: 'unary';
  readonly operator: '-' | '!';
  readonly operand: Expression;
}

export interface BinaryNode extends Span {
  readonly type: 'binary';
  readonly operator: BinaryOperator;
  readonly left: Expression;
  readonly right: Expression;
}

export interface ConditionalNode extends Span {
  readonly type: 'conditional';
  readonly condition: Expression;
  readonly trueResult: Expression;
  readonly falseResult: Expression;
}

/** `[for k, v in coll : value if cond]` or `{for k, v in coll : key => value... if cond}`. */
export interface ForNode extends Span {
  readonly type: 'for';
  readonly form: 'tuple' | 'object';
  readonly keyVar?: string;
  readonly valueVar: string;
  readonly collection: Expression;
  /** Only in the object form. */
  readonly key?: Expression;
  readonly value: Expression;
  /** `...` after the value in the object form: values with the same key are grouped into tuples. */
  readonly group: boolean;
  readonly condition?: Expression;
}

export interface ParenNode extends Span {
  readonly type: 'paren';
  readonly expression: Expression;
}

export type Expression =
  | LiteralNode
  | TemplateNode
  | TupleNode
  | ObjectNode
  | VariableNode
  | GetAttrNode
  | IndexNode
  | SplatNode
  | SplatItemNode
  | CallNode
  | UnaryNode
  | BinaryNode
  | ConditionalNode
  | ForNode
  | ParenNode;

/**
 * A short rendering of an expression for messages: traversals in full (`include.root.locals`), other shapes
 * abbreviated (`dirname(...)`).
 */
export function describe(node: Expression): string {
  switch (node.type) {
    case 'variable':
      return node.name;
    case 'getattr':
      return `${describe(node.object)}.${node.name}`;
    case 'index': {
      const key = node.key.type === 'literal' ? JSON.stringify(node.key.value) : '...';
      return `${describe(node.object)}[${key}]`;
    }
    case 'splat':
      return `${describe(node.source)}${node.form === 'full' ? '[*]' : '.*'}${describe(node.each)}`;
    case 'splat-item':
      return '';
    case 'call':
      return `${node.name}(${node.args.length > 0 ? '...' : ''})`;
    case 'paren':
      return `(${describe(node.expression)})`;
    case 'literal':
      return node.value instanceof BigNumber ? node.value.toString() : JSON.stringify(node.value);
    case 'template':
      return 'string template';
    case 'tuple':
      return 'tuple';
    case 'object':
      return 'object';
    case 'unary':
      return `${node.operator}${describe(node.operand)}`;
    case 'binary':
      return `${describe(node.left)} ${node.operator} ${describe(node.right)}`;
    case 'conditional':
      return 'conditional expression';
    case 'for':
      return 'for expression';
  }
}
