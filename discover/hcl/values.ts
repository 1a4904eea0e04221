/**
 * The values HCL expressions evaluate to, plus the conversions and comparisons HCL applies to them.
 *
 * HCL (cty) distinguishes lists, tuples and sets, and maps and objects. A JavaScript array stands for all three
 * sequence types and a plain object for both mapping types; types.ts registers which arrays are lists or sets and
 * which objects are maps, and holds cty's rules for equality, conversion and unification. What cannot be
 * known offline (command output, dependency outputs, the clock) is an {@link Unknown}, which flows through every
 * operation instead of failing it.
 */

/** An evaluated HCL value. */
export type Value = string | number | boolean | null | Value[] | ValueObject | Unknown;

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
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Unknown);
}

/** The HCL type name of a value, for messages. */
export function typeName(value: Value): TypeName {
  if (value === null) return 'null';
  if (value instanceof Unknown) return 'unknown';
  if (Array.isArray(value)) return 'tuple';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
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

/** Lexical order by UTF-16 code units (cty uses bytes; the two agree outside astral characters). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Formats a number the way HCL converts it to a string: integers in full (no exponent), fractions with at most 15
 * significant digits so binary artefacts (0.1 + 0.2) print as cty's arbitrary-precision arithmetic would.
 */
export function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  // cty keeps the sign of zero (0 * -1, tonumber("-0") and -0.0 in JSON print as "-0").
  if (Object.is(n, -0)) return '-0';
  if (Number.isInteger(n)) {
    if (Math.abs(n) < 1e21) return String(n);
    // A float64 prints as its shortest round-tripping digits, zero-padded (Go's Text('f', -1) at 53 bits): 1e21
    // is "1000000000000000000000", not the binary value's exact expansion.
    return expandExponent(String(n).replace('e+', 'e'));
  }
  const short = String(n);
  if (!short.includes('e') && significantDigits(short) <= 15) return short;
  const precise = n.toPrecision(15);
  if (!precise.includes('e')) return trimFraction(precise);
  // Very small or very large fractions: expand the exponent so the result has no "e".
  return trimFraction(expandExponent(precise));
}

function significantDigits(text: string): number {
  return text.replace(/^-?0*\.?0*/, '').replace('.', '').length;
}

function trimFraction(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

function expandExponent(text: string): string {
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]?\d+)$/.exec(text);
  if (!match) return text;
  const [, sign = '', lead = '', fraction = '', exponentText = '0'] = match;
  const digits = lead + fraction;
  const exponent = Number(exponentText);
  const point = 1 + exponent;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A string, the way HCL converts a primitive (undefined when the value has no string form). */
export function primitiveToString(value: Value): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return undefined;
}

const NUMBER_SYNTAX = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A number from a number or a numeric string, as HCL converts (undefined when not convertible). */
export function toNumber(value: Value): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const text = value.trim() === value ? value : '';
    return NUMBER_SYNTAX.test(text) ? Number(text) : undefined;
  }
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
  if (value === null || typeof value !== 'object') return String(value);
  return typeName(value);
}

/** Levenshtein distance, for "did you mean" suggestions. */
function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0] ?? 0;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      previous[j] = Math.min(above + 1, (previous[j - 1] ?? 0) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length] ?? 0;
}

/** The closest candidate to a misspelt name, if one is close enough to be a plausible typo. */
export function suggest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const limit = Math.max(2, Math.floor(name.length / 3));
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
