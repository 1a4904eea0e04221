/**
 * The values HCL expressions evaluate to, plus the conversions and comparisons HCL applies to them.
 *
 * HCL (cty) distinguishes lists, tuples and sets, and maps and objects. A JavaScript array stands for all three
 * sequence types and a plain object for both mapping types; types.ts registers which arrays are lists or sets and
 * which objects are maps, and holds cty's rules for equality, conversion and unification. What cannot be
 * known offline (command output, dependency outputs, the clock) is an {@link Unknown}, which flows through every
 * operation instead of failing it.
 */

import { BigNumber, formatShortest, isNum, parseNumber } from './number.js';
import type { Num } from './number.js';
import { boundedDistance } from '../../config/errors.js';

/**
 * An evaluated HCL value. A number is a plain JavaScript number or, when a float64 cannot hold it exactly (or its
 * precision is not 512 bits), a {@link BigNumber}: see number.ts.
 */
export type Value = string | number | BigNumber | boolean | null | Value[] | ValueObject | Unknown;

/** An HCL object or map. */
export interface ValueObject {
  [key: string]: Value;
}

/** Value type names as error messages use them (HCL's own words). */
export type TypeName = 'string' | 'number' | 'bool' | 'null' | 'tuple' | 'object' | 'unknown';

/**
 * A value discovery cannot know without running something (run_cmd, AWS calls, dependency outputs, the clock).
 * Operations on an Unknown yield an Unknown, so the reason reaches whoever needed the value.
 */
export class Unknown {
  /** Why the value is not known, e.g. "run_cmd() needs execution". */
  readonly reason: string;
  /** The function or reference that produced it, e.g. "run_cmd" or "dependency.vpc". */
  readonly origin?: string;

  constructor(reason: string, origin?: string) {
    this.reason = reason;
    if (origin !== undefined) this.origin = origin;
  }

  toString(): string {
    return `(unknown: ${this.reason})`;
  }
}

/** Kebab-case causes of an {@link HclEvalError}. */
export type HclErrorReason =
  /** A template or expression does not parse. */
  | 'parse-error'
  /** A variable (or a root's attribute, such as `local.x`) does not exist. */
  | 'unknown-variable'
  /** An object has no such attribute or key. */
  | 'missing-attribute'
  /** No function with that name. */
  | 'unknown-function'
  /** A function was called wrongly: arity, argument types or values. */
  | 'invalid-call'
  /** An operator or construct got a value of the wrong type. */
  | 'type-mismatch'
  /** An index is out of range or of the wrong kind. */
  | 'invalid-index'
  /** Locals refer to each other in a cycle. */
  | 'cycle'
  /** Anything else that makes evaluation fail. */
  | 'evaluation-error';

/** Where in the evaluated text an error is, as 0-based offsets (into the expression or template string). */
export interface TextRange {
  readonly start: number;
  readonly end: number;
}

/**
 * An expression could not be evaluated. The message names the failing part ("unknown variable "local.regoin"; did
 * you mean "local.region"?"), so it can be shown to a user as is.
 */
export class HclEvalError extends Error {
  override readonly name = 'HclEvalError';
  readonly reason: HclErrorReason;
  readonly range?: TextRange;

  constructor(message: string, options: { reason?: HclErrorReason; range?: TextRange } = {}) {
    super(message);
    this.reason = options.reason ?? 'evaluation-error';
    if (options.range) this.range = options.range;
  }
}

/** True for an HCL object (not null, not a tuple, not an Unknown). */
export function isObject(value: Value | undefined): value is ValueObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Unknown) &&
    !(value instanceof BigNumber)
  );
}

/** The HCL type name of a value, for messages. */
export function typeName(value: Value): TypeName {
  if (value === null) return 'null';
  if (value instanceof Unknown) return 'unknown';
  if (Array.isArray(value)) return 'tuple';
  if (typeof value === 'string') return 'string';
  if (isNum(value)) return 'number';
  if (typeof value === 'boolean') return 'bool';
  return 'object';
}

/** Own-property lookup: objects built from HCL keys must not see `Object.prototype` members. */
export function hasKey(object: ValueObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** Sets a key, including `__proto__`, as a plain own property. */
export function setKey(object: ValueObject, key: string, value: Value): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

/**
 * Keys in HCL's iteration order. cty orders object attributes and map keys lexically; JavaScript objects put
 * integer-like keys first, so every iteration that users can observe sorts explicitly.
 */
export function sortedKeys(object: ValueObject): string[] {
  return Object.keys(object).sort(compareStrings);
}

/**
 * Lexical order as cty sorts strings: by their UTF-8 bytes, which is code point order. JavaScript's `<` compares
 * UTF-16 code units, which differs where one string has a surrogate (a character above U+FFFF, such as an emoji)
 * and the other a character from U+E000 to U+FFFF at the same place (`"ﬁ"` sorts before `"😀"` in cty).
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate && !ySurrogate && y >= 0xe000) return 1;
    if (ySurrogate && !xSurrogate && x >= 0xe000) return -1;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

/** Formats a number the way HCL converts it to a string (Go's Text('f', -1) at the number's precision). */
export function formatNumber(n: Num): string {
  return formatShortest(n);
}

/** A string, the way HCL converts a primitive (undefined when the value has no string form). */
export function primitiveToString(value: Value): string | undefined {
  if (typeof value === 'string') return value;
  if (isNum(value)) return formatNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return undefined;
}

/** A number from a number or a numeric string, as cty converts (undefined when not convertible). */
export function toNumber(value: Value): Num | undefined {
  if (isNum(value)) return value;
  if (typeof value === 'string') return parseNumber(value);
  return undefined;
}

/** A bool from a bool or "true"/"false"/"1"/"0", as cty converts (undefined when not convertible). */
export function toBool(value: Value): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return undefined;
}

/** The first Unknown anywhere inside a value, depth first (undefined when the value is wholly known). */
export function findUnknown(value: Value): Unknown | undefined {
  if (value instanceof Unknown) return value;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findUnknown(item);
      if (found) return found;
    }
    return undefined;
  }
  if (isObject(value)) {
    for (const key of Object.keys(value)) {
      const found = findUnknown(value[key] as Value);
      if (found) return found;
    }
  }
  return undefined;
}

/** True when no Unknown is anywhere inside the value. */
export function isWhollyKnown(value: Value): boolean {
  return findUnknown(value) === undefined;
}

/** A short rendering of a value for error messages. */
export function describeValue(value: Value): string {
  if (value instanceof Unknown) return value.toString();
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (isNum(value)) return formatNumber(value);
  if (value === null || typeof value !== 'object') return String(value);
  return typeName(value);
}

/** The closest candidate to a misspelt name, if one is close enough to be a plausible typo. */
export function suggest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const limit = Math.max(2, Math.floor(name.length / 3));
  for (const candidate of candidates) {
    const distance = boundedDistance(name, candidate, limit);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
