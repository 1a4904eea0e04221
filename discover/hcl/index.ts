/**
 * A self-contained HCL expression language for discovery: parse and evaluate the values `@cdktf/hcl2json`
 * (0.21.0) returns, offline, with OpenTofu's built-in functions and Unknowns for what needs a real run.
 *
 * How hcl2json encodes a file (checked against 0.21.0; tests/unit/hcl/hcl2json.test.ts pins each rule):
 *
 * - Every JSON string is a bare HCL template: `${ }` and `%{ }` are live, `$${` and `%%{` are escapes for a
 *   literal `${` and `%{`, and backslash escapes are already decoded (a `\` in the JSON string is a literal `\`).
 *   hcl2json re-escapes literal text, so `"$${x}"` arrives as `$${x}`, and `"$\u007bx}"` arrives as `$${x}` too.
 * - A literal string comes back unchanged (`"../vpc"`); a template keeps its source form (`"${a}/b"`, `x-${a}`).
 * - A non-literal expression (reference, call, operator, conditional, for, index, splat, parenthesised
 *   expression) comes back as `${` + its exact source text + `}`: `local.x` becomes `${local.x}`,
 *   `dirname(find_in_parent_folders("root.hcl"))` becomes `${dirname(find_in_parent_folders("root.hcl"))}`.
 *   Inner strings keep their HCL source form (backslash escapes and all), and so do comments and heredocs inside
 *   a multi-line call: `${yamldecode(<<EOT\n...\nEOT\n)}`. Hence a whole-string `${...}` evaluates to the
 *   expression's own value and type (HCL's template-wrap rule), while `${a}${b}` or `x-${a}` is a string.
 * - Numbers, bools and null are JSON literals (`42`, `3.14`, `1e3` as 1000, `true`, `null`); a negated literal
 *   too (`-5`), but `-local.n` and `-(2)` are `${...}`. Arithmetic, even on literals, stays `${1 + 2}`.
 * - `"${"a"}"` collapses to `a`, `"${1}"` to the number 1, `"${true}"` to true, `"${[1,2]}"` to `[1,2]`.
 * - Tuples and objects written literally become JSON arrays and objects whose elements follow these rules
 *   (`[1, local.x]` is `[1, "${local.x}"]`); a for expression is a whole `${[for ...]}` string.
 * - Object keys: a bare name stays as written (`k`); a quoted key is a template (`"${local.z}"`, escapes as
 *   above); `(local.k)` becomes `${(local.k)}`; a number key becomes its text (`1` gives `"1"`). So keys are
 *   evaluated like values. (Key order in the JSON is sorted; HCL iterates sorted anyway.)
 * - Heredocs are decoded into plain template strings, indentation already removed for `<<-`:
 *   `<<EOT\nhello\n  ${local.x}\nEOT` gives `hello\n  ${local.x}\n`.
 * - Template directives are re-serialised without spaces or strip markers, which are already applied to the
 *   literal text: `%{ if c }yes%{ else }no%{ endif }` gives `%{if c}yes%{else}no%{endif}`, `%{ for k, v in m ~}`
 *   gives `%{for k, v in m}`, `${~ local.x ~}` gives `${local.x}`. An empty `%{ else }` branch is dropped.
 * - Inside a multi-part template, a conditional interpolation is rewritten as a directive:
 *   `"x-${c ? "a" : "b"}"` gives `x-%{if c}a%{else}b%{endif}` (same string result).
 * - Blocks: `type "a" "b" { }` nests as `{type: {a: {b: [body]}}}`; an unlabelled block is `{type: [body]}`;
 *   repeated blocks append to the same array (`locals` twice is `[{...}, {...}]`, two `dependency "vpc"` blocks
 *   give `{dependency: {vpc: [{...}, {...}]}}`). An empty block is `[{}]`.
 *   Labelled and unlabelled blocks of one type in one file (`include "r" {}` and `include {}`) make hcl2json
 *   fail: `convert to HCL: ... cannot have blocks with and without labels`.
 * - Comments vanish (except inside `${...}` source, see above). Positions are not kept: use {@link outline}.
 * - Syntax errors reject with a plain Error: `parse config: [FILE:LINE,COL-ENDCOL: summary; detail ...]`.
 * - Known lossy spot: a literal `$` or `%` that comes from an interpolation and is followed by `{` merges with
 *   it. `"${"$"}{x}"` arrives as `${x}` (read back: x's value), `"${"$"}${x}"` as `$${x}` (read back: the
 *   literal `${x}`), `"${"%"}{x}"` as `%{x}` (a directive, so an error). Nobody writes that on purpose.
 */
export type { Value, ValueObject, TypeName, HclErrorReason, TextRange } from './values.js';
export {
  Unknown,
  HclEvalError,
  isObject,
  typeName,
  describeValue,
  findUnknown,
  isWhollyKnown,
  formatNumber,
  primitiveToString,
} from './values.js';
export type { Type } from './types.js';
export { equals as valuesEqual, typeOf, convert, unify, asList, asMap, asSetValue, collectionKind } from './types.js';

export type { Token, TokenType, LexMode } from './lexer.js';
export { tokenize, lineColumn } from './lexer.js';

export type {
  Expression,
  TemplatePart,
  ObjectKey,
  BinaryOperator,
  LiteralNode,
  TemplateNode,
  TupleNode,
  ObjectNode,
  VariableNode,
  GetAttrNode,
  IndexNode,
  SplatNode,
  SplatItemNode,
  CallNode,
  UnaryNode,
  BinaryNode,
  ConditionalNode,
  ForNode,
  ParenNode,
} from './ast.js';
export { describe } from './ast.js';

export type { ParseResult, ParseError } from './parser.js';
export { parseExpression, parseTemplate } from './parser.js';

export type { Scope, HclFunction, CallInfo, LazyValue, EvaluationResult } from './evaluate.js';
export {
  evaluateJson,
  evaluateJsonSafe,
  evaluateExpression,
  evaluateExpressionSafe,
  evaluateSource,
  evaluateLocals,
  SPECIAL_FORMS,
} from './evaluate.js';

export type { FsHost } from './builtins.js';
export { pureBuiltins, fsBuiltins, standardFunctions } from './builtins.js';

export type { OutlineAttribute, OutlineBlock, OutlineBody } from './outline.js';
export { outline, outlineBody } from './outline.js';

export type { References } from './references.js';
export { expressionReferences, jsonReferences } from './references.js';
