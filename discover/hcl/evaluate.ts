/**
 * Evaluates parsed HCL expressions and hcl2json output against a scope of variables and functions.
 *
 * Semantics follow HCL/OpenTofu where discovery can observe them: template-wrap keeps types, objects iterate in
 * lexical key order, `==` never converts, numbers and bools convert to strings in templates, only the chosen
 * branch of a conditional is evaluated (as HCL reports only its diagnostics), `&&`/`||` short-circuit.
 * Unknown values propagate instead of failing; misspelt names fail loudly, because a silently dropped reference
 * would silently drop a dependency edge.
 */
import { describe } from './ast.js';
import type { Expression, TemplatePart } from './ast.js';
import { parseExpression, parseTemplate } from './parser.js';
import type { ParseResult } from './parser.js';
import {
  HclEvalError,
  Unknown,
  describeValue,
  findUnknown,
  hasKey,
  isObject,
  primitiveToString,
  setKey,
  sortedKeys,
  suggest,
  toBool,
  toNumber,
  typeName,
} from './values.js';
import { ConversionError, asList, collectionKind, convert, equals, typeLabel, typeOf, unify } from './types.js';
import type { Type } from './types.js';
import type { HclErrorReason, Value, ValueObject } from './values.js';
import {
  add,
  compare,
  divide,
  fromInt64,
  fromJsonNumber,
  isZero,
  modulo,
  multiply,
  negate,
  subtract,
  toSafeInteger,
} from './number.js';
import type { Num } from './number.js';

/** What a function call knows about itself. */
export interface CallInfo {
  /** The function's name as written. */
  readonly name: string;
  /** The scope the call is evaluated in (templatefile() needs the functions; Terragrunt functions may read variables). */
  readonly scope: Scope;
}

/**
 * A function callable from HCL. Arguments arrive evaluated (after `...` expansion). Unless `acceptsUnknown` is
 * set, a call with an Unknown argument is not made: the Unknown is the result. Throw an {@link HclEvalError} for
 * misuse; throwing (or returning) an {@link Unknown} makes the call's result that Unknown. Any other exception
 * passes through evaluation untouched (try() does not catch it), so callers can use exceptions for control flow.
 */
export interface HclFunction {
  (args: Value[], call: CallInfo): Value;
  /** Call the function even when an argument is Unknown (it handles Unknowns itself). */
  readonly acceptsUnknown?: boolean;
}

/** A variable's value, or a thunk evaluated on first use (then remembered for this scope's variables object). */
export type LazyValue = Value | (() => Value);

/** Variables (`local`, `include`, `dependency`, ...) and functions visible to an expression. */
export interface Scope {
  variables: Record<string, LazyValue>;
  functions: Record<string, HclFunction>;
  /**
   * What the caller's functions need to know about where they are called (they read it through `CallInfo.scope`):
   * one function table then serves every context. The evaluator never reads it.
   */
  readonly context?: unknown;
}

export type EvaluationResult =
  | { readonly ok: true; readonly value: Value }
  | { readonly ok: false; readonly reason: HclErrorReason; readonly error: HclEvalError };

interface Frame {
  readonly name: string;
  readonly value: Value;
  readonly parent: Frame | undefined;
}

interface Context {
  readonly scope: Scope;
  readonly frame: Frame | undefined;
  /** The element a splat's `each` expression is applied to. */
  readonly splat: Value | undefined;
}

/** Functions the evaluator implements itself, because they need their arguments unevaluated. */
export const SPECIAL_FORMS: readonly string[] = ['try', 'can'];

/**
 * Evaluates a value exactly as hcl2json produced it: strings are bare templates (see index.ts for the
 * conventions), arrays and objects are evaluated element by element, object keys included. Throws
 * {@link HclEvalError}.
 */
export function evaluateJson(value: unknown, scope: Scope): Value {
  return evaluateJsonIn(value, { scope, frame: undefined, splat: undefined });
}

/** {@link evaluateJson} returning a result instead of throwing an HclEvalError. */
export function evaluateJsonSafe(value: unknown, scope: Scope): EvaluationResult {
  return safely(() => evaluateJson(value, scope));
}

/** Evaluates a parsed expression. Throws {@link HclEvalError}. */
export function evaluateExpression(ast: Expression, scope: Scope): Value {
  return evaluate(ast, { scope, frame: undefined, splat: undefined });
}

/** {@link evaluateExpression} returning a result instead of throwing an HclEvalError. */
export function evaluateExpressionSafe(ast: Expression, scope: Scope): EvaluationResult {
  return safely(() => evaluateExpression(ast, scope));
}

/**
 * Parses (memoised) and evaluates HCL expression source, such as an attribute's raw text from `outline()`.
 * A syntax error is thrown as an HclEvalError with reason `parse-error`.
 */
export function evaluateSource(source: string, scope: Scope): Value {
  return evaluateExpression(parsedOrThrow(parseExpression(source), source), scope);
}

function safely(body: () => Value): EvaluationResult {
  try {
    return { ok: true, value: body() };
  } catch (error) {
    if (error instanceof HclEvalError) return { ok: false, reason: error.reason, error };
    if (error instanceof Unknown) return { ok: true, value: error };
    throw error;
  }
}

function parsedOrThrow(result: ParseResult, source: string): Expression {
  if (result.ok) return result.ast;
  const { message, offset, end, column } = result.error;
  const shown = source.length > 80 ? `${source.slice(0, 77)}...` : source;
  throw new HclEvalError(`cannot parse ${JSON.stringify(shown)} (column ${column}): ${message}`, {
    reason: 'parse-error',
    range: { start: offset, end },
  });
}

function evaluateJsonIn(value: unknown, ctx: Context): Value {
  if (typeof value === 'string') return evaluateJsonString(value, ctx);
  if (typeof value === 'number') return fromJsonNumber(value);
  if (typeof value === 'boolean' || value === null) return value;
  if (value instanceof Unknown) return value;
  if (Array.isArray(value)) return value.map((item) => evaluateJsonIn(item, ctx));
  if (typeof value !== 'object') {
    throw new HclEvalError(`cannot evaluate a JavaScript ${typeof value}: hcl2json output holds only JSON values`);
  }
  const out: ValueObject = {};
  let unknownKey: Unknown | undefined;
  for (const [rawKey, rawValue] of Object.entries(value as Record<string, unknown>)) {
    const key = evaluateJsonString(rawKey, ctx);
    const item = evaluateJsonIn(rawValue, ctx);
    if (key instanceof Unknown) {
      unknownKey ??= key;
      continue;
    }
    setKey(out, objectKeyString(key, `object key ${JSON.stringify(rawKey)}`), item);
  }
  return unknownKey ?? out;
}

function evaluateJsonString(text: string, ctx: Context): Value {
  // Every template sequence (`${`, `%{`, and their escapes) contains "{": most strings skip the parser.
  if (!text.includes('{')) return nfc(text);
  return evaluate(parsedOrThrow(parseTemplate(text), text), ctx);
}

/** cty keeps every string in Unicode normal form C (a string becomes a value through NFC normalisation). */
function nfc(text: string): string {
  // Printable ASCII is always normalised: skip the call for the common case.
  return /^[ -~]*$/.test(text) ? text : text.normalize('NFC');
}

/** A function's result with its strings (and a sequence's string elements) in normal form C. */
function normalized(value: Value): Value {
  if (typeof value === 'string') return nfc(value);
  if (Array.isArray(value) && value.some((item) => typeof item === 'string' && item !== nfc(item))) {
    const kind = collectionKind(value);
    const items = value.map((item) => (typeof item === 'string' ? nfc(item) : item));
    return kind === 'list' ? asList(items, typeOf(value) === 'dynamic' ? undefined : 'string') : items;
  }
  return value;
}

function objectKeyString(key: Value, what: string): string {
  if (key === null) throw new HclEvalError(`${what} is null`, { reason: 'type-mismatch' });
  const text = primitiveToString(key);
  if (text === undefined) {
    throw new HclEvalError(`${what} must be a string, got ${typeName(key)}`, { reason: 'type-mismatch' });
  }
  return text;
}

function fail(message: string, node: Expression | { start: number; end: number }, reason: HclErrorReason): never {
  throw new HclEvalError(message, { reason, range: { start: node.start, end: node.end } });
}

/** Lazy variables of variables objects that cannot be written (frozen), remembered per object. */
const forced = new WeakMap<object, Map<string, Value>>();

/**
 * A variable's value; a lazy one is computed once per variables object, and remembered in its place (a WeakMap
 * entry and a Map per scope, as before, were a visible share of what discovery allocated for each unit).
 */
function variableValue(variables: Record<string, LazyValue>, name: string): Value {
  const raw = variables[name] as LazyValue;
  if (typeof raw !== 'function') return raw;
  const known = forced.get(variables)?.get(name);
  if (known !== undefined) return known;
  let value: Value;
  try {
    value = raw();
  } catch (error) {
    if (!(error instanceof Unknown)) throw error;
    value = error;
  }
  if (!Reflect.set(variables, name, value)) {
    let memo = forced.get(variables);
    if (!memo) {
      memo = new Map();
      forced.set(variables, memo);
    }
    memo.set(name, value);
  }
  return value;
}

function evaluate(node: Expression, ctx: Context): Value {
  switch (node.type) {
    case 'literal':
      return typeof node.value === 'string' ? nfc(node.value) : node.value;
    case 'template': {
      const text = evaluateParts(node.parts, ctx);
      return typeof text === 'string' ? nfc(text) : text;
    }
    case 'tuple':
      return node.items.map((item) => evaluate(item, ctx));
    case 'object':
      return evaluateObject(node, ctx);
    case 'variable':
      return lookupVariable(node.name, node, ctx);
    case 'getattr':
      return getAttribute(node.object, node.name, node, ctx);
    case 'index':
      return index(node.object, node.key, node, ctx);
    case 'splat': {
      // A splat over a list (or set) is a list, over a tuple a tuple; a single value becomes a one-element tuple.
      const source = evaluate(node.source, ctx);
      if (source instanceof Unknown) return source;
      if (source === null) return [];
      const items = Array.isArray(source) ? source : [source];
      const result = items.map((item) => evaluate(node.each, { ...ctx, splat: item }));
      const kind = collectionKind(source);
      return kind === 'list' || kind === 'set' ? asList(result) : result;
    }
    case 'splat-item':
      return ctx.splat ?? null;
    case 'paren':
      return evaluate(node.expression, ctx);
    case 'call':
      return call(node, ctx);
    case 'unary':
      return unary(node, ctx);
    case 'binary':
      return binary(node, ctx);
    case 'conditional':
      return conditional(node, ctx);
    case 'for':
      return forExpression(node, ctx);
  }
}

function lookupVariable(name: string, node: Expression, ctx: Context): Value {
  for (let frame = ctx.frame; frame; frame = frame.parent) {
    if (frame.name === name) return frame.value;
  }
  const variables = ctx.scope.variables;
  if (hasKey(variables as ValueObject, name)) return variableValue(variables, name);
  const candidates = [...Object.keys(variables)];
  for (let frame = ctx.frame; frame; frame = frame.parent) candidates.push(frame.name);
  const guess = suggest(name, candidates);
  return fail(`unknown variable "${name}"${guess ? `; did you mean "${guess}"?` : ''}`, node, 'unknown-variable');
}

function missingKey(object: ValueObject, key: string, source: Expression, node: Expression, kind: string): never {
  const keys = Object.keys(object);
  const guess = suggest(key, keys);
  if (source.type === 'variable') {
    // `local.regoin`: for the user, that is one misspelt variable name.
    const hint = guess ? `; did you mean "${source.name}.${guess}"?` : '';
    return fail(`unknown variable "${source.name}.${key}"${hint}`, node, 'unknown-variable');
  }
  const hint = guess
    ? `; did you mean "${guess}"?`
    : keys.length === 0
      ? ` (it is empty)`
      : keys.length <= 8
        ? ` (it has ${sortedKeys(object).join(', ')})`
        : '';
  return fail(`${kind} "${key}" not found in ${describe(source)}${hint}`, node, 'missing-attribute');
}

function getAttribute(source: Expression, name: string, node: Expression, ctx: Context): Value {
  const object = evaluate(source, ctx);
  if (object instanceof Unknown) return object;
  if (isObject(object)) {
    if (hasKey(object, name)) return object[name] as Value;
    return missingKey(object, name, source, node, 'attribute');
  }
  if (object === null) {
    return fail(`cannot read attribute "${name}" of ${describe(source)}: it is null`, node, 'type-mismatch');
  }
  if (Array.isArray(object)) {
    return fail(
      `cannot read attribute "${name}" of ${describe(source)}: it is a tuple; use an index ([0]) or a splat ([*].${name})`,
      node,
      'type-mismatch',
    );
  }
  return fail(
    `cannot read attribute "${name}" of ${describe(source)}: it is a ${typeName(object)} (${describeValue(object)})`,
    node,
    'type-mismatch',
  );
}

function index(source: Expression, keyNode: Expression, node: Expression, ctx: Context): Value {
  const collection = evaluate(source, ctx);
  const key = evaluate(keyNode, ctx);
  if (collection instanceof Unknown) return collection;
  if (key instanceof Unknown) return key;
  if (Array.isArray(collection) && collectionKind(collection) === 'set') {
    return fail(
      `cannot index ${describe(source)}: it is a set, whose elements have no index; convert it with tolist() first`,
      node,
      'invalid-index',
    );
  }
  if (Array.isArray(collection)) {
    const number = toNumber(key);
    const position = number === undefined ? undefined : toSafeInteger(number);
    if (position === undefined) {
      return fail(
        `index into ${describe(source)} must be a whole number, got ${describeValue(key)}`,
        node,
        'invalid-index',
      );
    }
    if (position < 0 || position >= collection.length) {
      return fail(
        `index ${position} is out of range for ${describe(source)} (${collection.length} element${collection.length === 1 ? '' : 's'})`,
        node,
        'invalid-index',
      );
    }
    return collection[position] as Value;
  }
  if (isObject(collection)) {
    if (key === null) return fail(`key into ${describe(source)} is null`, node, 'invalid-index');
    const name = primitiveToString(key);
    if (name === undefined) {
      return fail(`key into ${describe(source)} must be a string, got ${typeName(key)}`, node, 'invalid-index');
    }
    if (hasKey(collection, name)) return collection[name] as Value;
    return missingKey(collection, name, source, node, 'key');
  }
  if (collection === null) return fail(`cannot index ${describe(source)}: it is null`, node, 'type-mismatch');
  return fail(`cannot index ${describe(source)}: it is a ${typeName(collection)}`, node, 'type-mismatch');
}

function evaluateObject(node: Expression & { type: 'object' }, ctx: Context): Value {
  const out: ValueObject = {};
  let unknownKey: Unknown | undefined;
  for (const { key, value } of node.items) {
    let name: string;
    if (key.kind === 'name') {
      name = key.name;
    } else {
      const evaluated = evaluate(key.expression, ctx);
      if (evaluated instanceof Unknown) {
        unknownKey ??= evaluated;
        evaluate(value, ctx);
        continue;
      }
      name = objectKeyString(evaluated, `object key ${describe(key.expression)}`);
    }
    setKey(out, name, evaluate(value, ctx));
  }
  return unknownKey ?? out;
}

function requireBool(value: Value, node: Expression, what: string): boolean {
  const bool = toBool(value);
  if (bool === undefined) {
    return fail(`${what} (${describe(node)}) must be a bool, got ${describeValue(value)}`, node, 'type-mismatch');
  }
  return bool;
}

function requireNumber(value: Value, node: Expression, operator: string): Num {
  const number = toNumber(value);
  if (number === undefined) {
    return fail(
      `operator "${operator}" needs a number, but ${describe(node)} is ${describeValue(value)}`,
      node,
      'type-mismatch',
    );
  }
  return number;
}

function unary(node: Expression & { type: 'unary' }, ctx: Context): Value {
  const operand = evaluate(node.operand, ctx);
  if (operand instanceof Unknown) return operand;
  if (node.operator === '!') return !requireBool(operand, node.operand, 'the operand of "!"');
  return negate(requireNumber(operand, node.operand, '-'));
}

function binary(node: Expression & { type: 'binary' }, ctx: Context): Value {
  const { operator } = node;
  if (operator === '&&' || operator === '||') return logical(node, ctx, operator === '||');
  const left = evaluate(node.left, ctx);
  const right = evaluate(node.right, ctx);
  if (operator === '==' || operator === '!=') {
    const equal = equals(left, right);
    if (equal instanceof Unknown) return equal;
    return operator === '==' ? equal : !equal;
  }
  if (left instanceof Unknown) return left;
  if (right instanceof Unknown) return right;
  const a = requireNumber(left, node.left, operator);
  const b = requireNumber(right, node.right, operator);
  // cty's arithmetic (number.ts): 512-bit binary fractions, so 1 / 3 prints 154 digits as OpenTofu prints them.
  try {
    switch (operator) {
      case '<':
        return compare(a, b) < 0;
      case '<=':
        return compare(a, b) <= 0;
      case '>':
        return compare(a, b) > 0;
      case '>=':
        return compare(a, b) >= 0;
      case '+':
        return add(a, b);
      case '-':
        return subtract(a, b);
      case '*':
        return multiply(a, b);
      case '/':
        // As in cty: x / 0 is an infinity; only 0 / 0 (and infinity / infinity) is an error.
        if (isZero(a) && isZero(b))
          return fail(`cannot divide zero by zero in ${describe(node)}`, node, 'evaluation-error');
        return divide(a, b);
      case '%':
        // As in cty: x % 0 is x.
        return modulo(a, b);
    }
  } catch (error) {
    // An operation cty panics on (infinity minus infinity, zero times infinity).
    if (error instanceof RangeError) return fail(`${error.message} in ${describe(node)}`, node, 'evaluation-error');
    throw error;
  }
}

/** An operand of `&&` or `||`: its bool, an Unknown, or the error evaluating it raised. */
function logicalOperand(node: Expression, ctx: Context, what: string): boolean | Unknown | HclEvalError {
  try {
    const value = evaluate(node, ctx);
    return value instanceof Unknown ? value : requireBool(value, node, what);
  } catch (error) {
    if (error instanceof HclEvalError) return error;
    throw error;
  }
}

/**
 * `a && b`, `a || b`, as HCL 2.24 evaluates them: the right side is not evaluated when the left decides, and when
 * the right side decides (false for `&&`, true for `||`) an error on the left is dropped: `(index(x, "y") == 1) ||
 * true` is true in OpenTofu.
 */
function logical(node: Expression & { type: 'binary' }, ctx: Context, decisive: boolean): Value {
  const operator = node.operator;
  const left = logicalOperand(node.left, ctx, `the left operand of "${operator}"`);
  if (left === decisive) return decisive;
  const right = logicalOperand(node.right, ctx, `the right operand of "${operator}"`);
  if (right === decisive) return decisive;
  if (left instanceof HclEvalError) throw left;
  if (right instanceof HclEvalError) throw right;
  if (left instanceof Unknown) return left;
  if (right instanceof Unknown) return right;
  return right;
}

/**
 * The type of the branch a conditional does not take, as HCL sees it: the branch's errors are dropped, but an
 * object or tuple constructor keeps its shape, with the type of an item that failed unknown (so
 * `false ? { a = 1, b = index(x, "y") } : { a = 0.1, c = "s" }` is still a map of strings); a branch that fails as
 * a whole, or is null or unknown, imposes no type (undefined).
 */
function branchType(node: Expression, ctx: Context): Type | undefined {
  if (node.type === 'paren') return branchType(node.expression, ctx);
  if (node.type === 'tuple') return { tuple: node.items.map((item) => branchType(item, ctx) ?? 'dynamic') };
  if (node.type === 'object') {
    const object: Record<string, Type> = {};
    for (const { key, value } of node.items) {
      let name: string;
      try {
        const evaluated = key.kind === 'name' ? key.name : evaluate(key.expression, ctx);
        if (evaluated instanceof Unknown) return undefined;
        name = objectKeyString(evaluated, 'object key');
      } catch (error) {
        if (error instanceof HclEvalError) return undefined;
        throw error;
      }
      object[name] = branchType(value, ctx) ?? 'dynamic';
    }
    return { object };
  }
  let value: Value;
  try {
    value = evaluate(node, ctx);
  } catch (error) {
    if (error instanceof HclEvalError) return undefined;
    throw error;
  }
  return value === null || value instanceof Unknown ? undefined : typeOf(value);
}

/**
 * `c ? a : b`, as HCL evaluates it: the result has the type both branches unify to (`true ? 1 : "x"` is the string
 * "1"), so the branch not taken is evaluated too, for its type; its errors are not reported (HCL drops them), and
 * a branch that fails or is unknown or null imposes no type.
 */
function conditional(node: Expression & { type: 'conditional' }, ctx: Context): Value {
  const condition = evaluate(node.condition, ctx);
  if (condition instanceof Unknown) return condition;
  const chosen = requireBool(condition, node.condition, 'the condition');
  const resultNode = chosen ? node.trueResult : node.falseResult;
  const result = evaluate(resultNode, ctx);
  if (result === null || result instanceof Unknown) return result;
  const otherType = branchType(chosen ? node.falseResult : node.trueResult, ctx);
  if (otherType === undefined) return result;
  const types = chosen ? [typeOf(result), otherType] : [otherType, typeOf(result)];
  const unified = unify(types, true);
  if (unified === undefined) {
    return fail(
      `inconsistent conditional result types: the true result is ${typeLabel(types[0] ?? 'dynamic')}, the false result ${typeLabel(types[1] ?? 'dynamic')}`,
      node,
      'type-mismatch',
    );
  }
  try {
    return convert(result, unified);
  } catch (error) {
    if (error instanceof ConversionError) {
      return fail(
        `the ${chosen ? 'true' : 'false'} result has the wrong type: ${error.message}`,
        resultNode,
        'type-mismatch',
      );
    }
    throw error;
  }
}

/**
 * The (key, value) pairs a for expression or `%{ for }` iterates: indices for tuples and lists, the elements
 * themselves for sets, sorted keys for objects.
 */
function iterate(collection: Value, node: Expression): [Value, Value][] {
  // A set's elements have no index: the key is the element itself, as in cty.
  if (Array.isArray(collection) && collectionKind(collection) === 'set')
    return collection.map((value) => [value, value]);
  // An index is a cty.NumberIntVal (64-bit precision, see fromInt64).
  if (Array.isArray(collection)) return collection.map((value, i) => [fromInt64(i), value]);
  if (isObject(collection)) return sortedKeys(collection).map((key) => [key, collection[key] as Value]);
  if (collection === null) return fail(`cannot iterate over ${describe(node)}: it is null`, node, 'type-mismatch');
  return fail(
    `cannot iterate over ${describe(node)}: it is a ${typeName(collection)}, not a tuple or object`,
    node,
    'type-mismatch',
  );
}

function bind(ctx: Context, keyVar: string | undefined, key: Value, valueVar: string, value: Value): Context {
  let frame: Frame | undefined = ctx.frame;
  if (keyVar !== undefined) frame = { name: keyVar, value: key, parent: frame };
  frame = { name: valueVar, value, parent: frame };
  return { ...ctx, frame };
}

function forExpression(node: Expression & { type: 'for' }, ctx: Context): Value {
  const collection = evaluate(node.collection, ctx);
  if (collection instanceof Unknown) return collection;
  const entries = iterate(collection, node.collection);
  const tuple: Value[] = [];
  const object: ValueObject = {};
  const grouped = new Map<string, Value[]>();
  let unknown: Unknown | undefined;
  for (const [key, value] of entries) {
    const inner = bind(ctx, node.keyVar, key, node.valueVar, value);
    if (node.condition) {
      const keep = evaluate(node.condition, inner);
      if (keep instanceof Unknown) {
        // Whether this element is in the result is unknown, so the whole result is.
        unknown ??= keep;
        continue;
      }
      if (!requireBool(keep, node.condition, 'the "if" condition of the for expression')) continue;
    }
    if (node.form === 'tuple') {
      tuple.push(evaluate(node.value, inner));
      continue;
    }
    const keyNode = node.key ?? node.value;
    const keyValue = evaluate(keyNode, inner);
    const item = evaluate(node.value, inner);
    if (keyValue instanceof Unknown) {
      unknown ??= keyValue;
      continue;
    }
    const name = objectKeyString(keyValue, `the key ${describe(keyNode)} of the for expression`);
    if (node.group) {
      const list = grouped.get(name);
      if (list) list.push(item);
      else grouped.set(name, [item]);
    } else {
      if (hasKey(object, name)) {
        return fail(
          `duplicate key "${name}" in the for expression; add "..." after the value to group values by key`,
          keyNode,
          'evaluation-error',
        );
      }
      setKey(object, name, item);
    }
  }
  if (unknown) return unknown;
  if (node.form === 'tuple') return tuple;
  for (const [name, list] of grouped) setKey(object, name, list);
  return object;
}

function evaluateParts(parts: readonly TemplatePart[], ctx: Context): string | Unknown {
  let text = '';
  let unknown: Unknown | undefined;
  for (const part of parts) {
    switch (part.kind) {
      case 'literal':
        text += part.value;
        break;
      case 'interpolation': {
        const value = evaluate(part.expression, ctx);
        if (value instanceof Unknown) {
          unknown ??= value;
          break;
        }
        text += interpolated(value, part.expression);
        break;
      }
      case 'if': {
        const condition = evaluate(part.condition, ctx);
        if (condition instanceof Unknown) {
          unknown ??= condition;
          break;
        }
        const chosen = requireBool(condition, part.condition, 'the %{ if } condition') ? part.then : part.else;
        const result = evaluateParts(chosen, ctx);
        if (result instanceof Unknown) unknown ??= result;
        else text += result;
        break;
      }
      case 'for': {
        const collection = evaluate(part.collection, ctx);
        if (collection instanceof Unknown) {
          unknown ??= collection;
          break;
        }
        for (const [key, value] of iterate(collection, part.collection)) {
          const result = evaluateParts(part.body, bind(ctx, part.keyVar, key, part.valueVar, value));
          if (result instanceof Unknown) unknown ??= result;
          else text += result;
        }
        break;
      }
    }
  }
  return unknown ?? text;
}

function interpolated(value: Value, node: Expression): string {
  if (value === null) {
    return fail(`cannot interpolate ${describe(node)} into a string: it is null`, node, 'type-mismatch');
  }
  const text = primitiveToString(value);
  if (text === undefined) {
    return fail(
      `cannot interpolate ${describe(node)} into a string: it is a ${typeName(value)}; use jsonencode() or join()`,
      node,
      'type-mismatch',
    );
  }
  return text;
}

function call(node: Expression & { type: 'call' }, ctx: Context): Value {
  const { name } = node;
  if (name === 'try') return tryForm(node, ctx);
  if (name === 'can') return canForm(node, ctx);
  const functions = ctx.scope.functions;
  if (!hasKey(functions as unknown as ValueObject, name)) {
    const guess = suggest(name, [...Object.keys(functions), ...SPECIAL_FORMS]);
    return fail(`unknown function "${name}"${guess ? `; did you mean "${guess}"?` : ''}`, node, 'unknown-function');
  }
  const fn = functions[name] as HclFunction;
  const args = node.args.map((arg) => evaluate(arg, ctx));
  if (node.expandFinal) {
    const last = args.pop() as Value;
    if (last instanceof Unknown) return last;
    if (!Array.isArray(last)) {
      return fail(
        `the "..." argument of ${name}() must be a tuple or list, got ${typeName(last)}`,
        node.args[node.args.length - 1] ?? node,
        'invalid-call',
      );
    }
    args.push(...last);
  }
  if (!fn.acceptsUnknown) {
    const unknown = args.find((arg): arg is Unknown => arg instanceof Unknown);
    if (unknown) return unknown;
  }
  try {
    return normalized(fn(args, { name, scope: ctx.scope }));
  } catch (error) {
    if (error instanceof Unknown) return error;
    if (error instanceof HclEvalError && !error.range) {
      throw new HclEvalError(error.message, { reason: error.reason, range: { start: node.start, end: node.end } });
    }
    throw error;
  }
}

/** try(a, b, ...): the first argument that evaluates without error to a known value. */
function tryForm(node: Expression & { type: 'call' }, ctx: Context): Value {
  if (node.args.length === 0) return fail('try() needs at least one argument', node, 'invalid-call');
  if (node.expandFinal) return fail('try() does not accept "..." expansion', node, 'invalid-call');
  let firstUnknown: Unknown | undefined;
  let lastError: HclEvalError | undefined;
  for (const arg of node.args) {
    let value: Value;
    try {
      value = evaluate(arg, ctx);
    } catch (error) {
      if (error instanceof HclEvalError) {
        lastError = error;
        continue;
      }
      throw error;
    }
    if (value instanceof Unknown) {
      // Discovery cannot wait for the value, so a known fallback wins (the brief's rule for try()).
      firstUnknown ??= value;
      continue;
    }
    return value;
  }
  if (firstUnknown) return firstUnknown;
  return fail(
    `try(): no argument could be evaluated; the last one failed with: ${lastError?.message ?? 'an error'}`,
    node,
    lastError?.reason ?? 'evaluation-error',
  );
}

/** can(x): whether x evaluates without error (Unknown when x is not wholly known). */
function canForm(node: Expression & { type: 'call' }, ctx: Context): Value {
  const [arg] = node.args;
  if (node.args.length !== 1 || !arg) return fail('can() takes exactly one argument', node, 'invalid-call');
  try {
    const value = evaluate(arg, ctx);
    return findUnknown(value) ?? true;
  } catch (error) {
    if (error instanceof HclEvalError) return false;
    throw error;
  }
}

/**
 * Evaluates a unit's locals lazily: each local is computed on first access (through a getter on the returned
 * object), remembered, and a local that needs itself, directly or through others, fails with the chain
 * (`cycle among locals: local.a -> local.b -> local.a`). `makeScope` receives the returned object, to expose it
 * as the `local` variable; it is called once, on the first access. Locals nobody reads are never evaluated, so a
 * broken local only matters where it is used.
 *
 * @param locals The `locals` block(s) attributes exactly as hcl2json produced them.
 * @param options.name The variable name used in messages (default `local`).
 * @param options.evaluateLocal Computes a local on its first access, given its name and how to evaluate it (by
 *   default, it is evaluated): the caller may answer from what it remembers instead.
 */
export function evaluateLocals(
  locals: Readonly<Record<string, unknown>>,
  makeScope: (local: Record<string, Value>) => Scope,
  options: {
    readonly name?: string;
    readonly evaluateLocal?: (name: string, evaluate: () => Value) => Value;
  } = {},
): Record<string, Value> {
  const prefix = options.name ?? 'local';
  const result: Record<string, Value> = {};
  const done = new Map<string, Value>();
  // Made on the first failure: most locals objects never see one.
  let failed: Map<string, HclEvalError> | undefined;
  const inProgress: string[] = [];
  let scope: Scope | undefined;

  const compute = (name: string): Value => {
    const known = done.get(name);
    if (known !== undefined) return known;
    const failure = failed?.get(name);
    if (failure) throw failure;
    const at = inProgress.indexOf(name);
    if (at !== -1) {
      const chain = [...inProgress.slice(at), name].map((n) => `${prefix}.${n}`).join(' -> ');
      throw new HclEvalError(`cycle among locals: ${chain}`, { reason: 'cycle' });
    }
    inProgress.push(name);
    try {
      const localScope = (scope ??= makeScope(result));
      const evaluate = (): Value => evaluateJson(locals[name], localScope);
      const value = options.evaluateLocal ? options.evaluateLocal(name, evaluate) : evaluate();
      done.set(name, value);
      return value;
    } catch (error) {
      if (error instanceof Unknown) {
        done.set(name, error);
        return error;
      }
      if (!(error instanceof HclEvalError)) throw error;
      // A cycle is reported once, by the local that closes it, without a prefix per step.
      if (error.reason === 'cycle') throw error;
      const wrapped = new HclEvalError(`${prefix}.${name}: ${error.message}`, { reason: error.reason });
      (failed ??= new Map()).set(name, wrapped);
      throw wrapped;
    } finally {
      inProgress.pop();
    }
  };

  for (const name of Object.keys(locals)) {
    Object.defineProperty(result, name, { enumerable: true, configurable: true, get: () => compute(name) });
  }
  return result;
}
