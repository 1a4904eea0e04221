/**
 * OpenTofu's built-in functions, as far as offline discovery needs them, with OpenTofu's semantics: objects in
 * lexical key order, Go's path and regular-expression rules, `jsonencode` escaping like Go's encoder.
 *
 * Functions that cannot give a reproducible answer (uuid, timestamp, bcrypt) return an Unknown. Functions that
 * touch the filesystem come from {@link fsBuiltins}, bound to a host the caller supplies. `try` and `can` are
 * special forms implemented by the evaluator.
 */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { evaluateExpression } from './evaluate.js';
import type { CallInfo, HclFunction, Scope } from './evaluate.js';
import { parseTemplate } from './parser.js';
import { YamlDecodeError, decodeYaml } from './yaml.js';
import { YamlEncodeError, encodeYaml } from './yaml-encode.js';
import {
  HclEvalError,
  Unknown,
  compareStrings,
  findUnknown,
  formatNumber,
  hasKey,
  isObject,
  primitiveToString,
  setKey,
  sortedKeys,
  toBool,
  toNumber,
  typeName,
} from './values.js';
import {
  ConversionError,
  asList,
  asMap,
  collectionKind,
  convert,
  equals as valuesEqual,
  typeLabel,
  sameType,
  typeOf,
  unify,
} from './types.js';
import type { Type } from './types.js';
import type { Value, ValueObject } from './values.js';
import {
  absolute,
  add,
  compare,
  formatNum,
  fromBigInt,
  fromFloat64,
  fromInt64,
  fromJsonNumber,
  infinity,
  isInfinite,
  isNegative,
  isNum,
  parseNumber,
  sign,
  toFloat64,
  truncate,
  withPrecision,
} from './number.js';
import type { Num } from './number.js';
import { goLog, goPow } from './go-math.js';

type Impl = (args: Value[], call: CallInfo) => Value;

// --- argument helpers ----------------------------------------------------------------------------------

function misuse(call: CallInfo, message: string): HclEvalError {
  return new HclEvalError(`${call.name}(): ${message}`, { reason: 'invalid-call' });
}

function arity(call: CallInfo, args: Value[], min: number, max: number = min): void {
  if (args.length >= min && args.length <= max) return;
  const wanted =
    min === max
      ? `${min} argument${min === 1 ? '' : 's'}`
      : max === Infinity
        ? `at least ${min} argument${min === 1 ? '' : 's'}`
        : `${min} to ${max} arguments`;
  throw misuse(call, `takes ${wanted}, got ${args.length}`);
}

function ordinal(index: number): string {
  return `argument ${index + 1}`;
}

function present(call: CallInfo, args: Value[], index: number): Value {
  const value = args[index];
  if (value === undefined) throw misuse(call, `${ordinal(index)} is missing`);
  if (value === null) throw misuse(call, `${ordinal(index)} must not be null`);
  return value;
}

function str(call: CallInfo, args: Value[], index: number): string {
  const value = present(call, args, index);
  const text = primitiveToString(value);
  if (text === undefined) throw misuse(call, `${ordinal(index)} must be a string, got ${typeName(value)}`);
  return text;
}

function num(call: CallInfo, args: Value[], index: number): Num {
  const value = present(call, args, index);
  const number = toNumber(value);
  if (number === undefined) throw misuse(call, `${ordinal(index)} must be a number, got ${describeArg(value)}`);
  return number;
}

/** 2^63: cty reads whole-number arguments as a Go int, which holds -2^63 .. 2^63-1. */
const INT64_LIMIT = 2n ** 63n;

/** A whole-number argument, exactly (cty's conversion to a Go int: exact and within int64, else an error). */
function bigInt(call: CallInfo, args: Value[], index: number): bigint {
  const number = num(call, args, index);
  const whole = isInfinite(number) ? undefined : truncate(number);
  if (!whole?.exact || whole.value >= INT64_LIMIT || whole.value < -INT64_LIMIT)
    throw misuse(
      call,
      `${ordinal(index)} must be a whole number, between -9223372036854775808 and 9223372036854775807, got ${formatNumber(number)}`,
    );
  return whole.value;
}

/** A whole-number argument as a JavaScript number (counts, offsets and lengths, where beyond 2^53 only the sign and size matter). */
function int(call: CallInfo, args: Value[], index: number): number {
  return Number(bigInt(call, args, index));
}

function bool(call: CallInfo, args: Value[], index: number): boolean {
  const value = present(call, args, index);
  const result = toBool(value);
  if (result === undefined) throw misuse(call, `${ordinal(index)} must be a bool, got ${describeArg(value)}`);
  return result;
}

function list(call: CallInfo, args: Value[], index: number): Value[] {
  const value = present(call, args, index);
  if (!Array.isArray(value)) throw misuse(call, `${ordinal(index)} must be a list, got ${typeName(value)}`);
  return value;
}

function object(call: CallInfo, args: Value[], index: number): ValueObject {
  const value = present(call, args, index);
  if (!isObject(value)) throw misuse(call, `${ordinal(index)} must be a map or object, got ${typeName(value)}`);
  return value;
}

/** An argument converted to a parameter type, as OpenTofu converts arguments before calling a function. */
function converted(call: CallInfo, args: Value[], index: number, type: Type): Value {
  try {
    return convert(present(call, args, index), type);
  } catch (error) {
    if (error instanceof ConversionError) throw misuse(call, `${ordinal(index)}: ${error.message}`);
    throw error;
  }
}

/** An argument as a list of the unified element type (a `list(any)` parameter). */
function asListArg(call: CallInfo, args: Value[], index: number): Value[] {
  return converted(call, args, index, { list: 'dynamic' }) as Value[];
}

/** The element type of a list, set or map value ('dynamic' when not known). */
function elementType(value: Value): Type {
  const type = typeOf(value);
  if (typeof type === 'object' && ('list' in type || 'set' in type || 'map' in type)) {
    return 'list' in type ? type.list : 'set' in type ? type.set : type.map;
  }
  return 'dynamic';
}

/** The element type of a list or set, or of a tuple when its items unify ('dynamic' when empty or not). */
function sequenceElementType(value: Value): Type {
  const type = typeOf(value);
  if (typeof type === 'object' && 'tuple' in type) {
    return type.tuple.length === 0 ? 'dynamic' : (unify(type.tuple, true) ?? 'dynamic');
  }
  return elementType(value);
}

/** A result shaped like an input sequence: a list stays a list (of the same elements), a tuple a tuple. */
function sameSequence(source: Value, items: Value[]): Value[] {
  const kind = collectionKind(source);
  return kind === 'list' || kind === 'set' ? asList(items, elementType(source)) : items;
}

function describeArg(value: Value): string {
  return typeof value === 'string' ? JSON.stringify(value) : typeName(value);
}

function elementString(call: CallInfo, value: Value, where: string): string {
  if (value === null) throw misuse(call, `${where} is null`);
  const text = primitiveToString(value);
  if (text === undefined) throw misuse(call, `${where} must be a string, got ${typeName(value)}`);
  return text;
}

/** A function whose result depends on every part of its arguments: any Unknown inside makes it Unknown. */
function pure(impl: Impl): HclFunction {
  return (args, call) => {
    for (const arg of args) {
      const unknown = findUnknown(arg);
      if (unknown) return unknown;
    }
    return impl(args, call);
  };
}

/** A function that only rearranges its arguments: Unknowns inside them are carried along. */
function shallow(impl: Impl): HclFunction {
  return impl;
}

/** A function that sees Unknown arguments itself. */
function seesUnknown(impl: Impl): HclFunction {
  return Object.assign((args: Value[], call: CallInfo) => impl(args, call), { acceptsUnknown: true });
}

/**
 * Terraform functions in Terragrunt v1.1.3 that platctl does not implement (none is needed to find edges in the
 * repositories it was checked against).
 */
const NOT_EVALUATED = [
  'base64gzip',
  'cidrhost',
  'cidrnetmask',
  'cidrsubnet',
  'cidrsubnets',
  'filebase64',
  'filebase64sha256',
  'filebase64sha512',
  'filemd5',
  'filesha1',
  'filesha256',
  'filesha512',
  'formatdate',
  'matchkeys',
  'rsadecrypt',
  'textdecodebase64',
  'textencodebase64',
  'timeadd',
  'timecmp',
  'uuidv5',
];

function needsRun(reason: string): HclFunction {
  return seesUnknown((_args, call) => new Unknown(`${call.name}() ${reason}`, call.name));
}

// --- numbers -------------------------------------------------------------------------------------------

/** Rounds toward +Inf (up) or -Inf (down) to a whole number, at the argument's precision (cty's ceil and floor). */
function toWhole(value: Num, up: boolean): Num {
  if (isInfinite(value)) return value;
  const { value: whole, exact } = truncate(value);
  let result = whole;
  if (!exact && up && !isNegative(value)) result += 1n;
  if (!exact && !up && isNegative(value)) result -= 1n;
  return withPrecision(result, value);
}

/** A float64 result of a Go math function as cty holds it (NumberFloatVal); NaN is an error there. */
function floatResult(call: CallInfo, result: number): Num {
  if (Number.isNaN(result)) throw misuse(call, 'the result is not a number');
  return fromFloat64(result);
}

const numberFunctions: Record<string, HclFunction> = {
  abs: pure((args, call) => {
    arity(call, args, 1);
    return absolute(num(call, args, 0));
  }),
  ceil: pure((args, call) => {
    arity(call, args, 1);
    // cty rounds to a whole big.Int, which has no negative zero: ceil(-0.5) is 0.
    return toWhole(num(call, args, 0), true);
  }),
  floor: pure((args, call) => {
    arity(call, args, 1);
    return toWhole(num(call, args, 0), false);
  }),
  max: pure((args, call) => {
    arity(call, args, 1, Infinity);
    // cty keeps the first of equal arguments, with its own precision.
    let best: Num = infinity(true);
    args.forEach((_, i) => {
      const value = num(call, args, i);
      if (compare(value, best) > 0) best = value;
    });
    return best;
  }),
  min: pure((args, call) => {
    arity(call, args, 1, Infinity);
    let best: Num = infinity(false);
    args.forEach((_, i) => {
      const value = num(call, args, i);
      if (compare(value, best) < 0) best = value;
    });
    return best;
  }),
  pow: pure((args, call) => {
    arity(call, args, 2);
    return floatResult(call, goPow(toFloat64(num(call, args, 0)), toFloat64(num(call, args, 1))));
  }),
  signum: pure((args, call) => {
    arity(call, args, 1);
    // cty's signum reads its argument as a Go int: a fraction is an error.
    return fromInt64(sign(fromBigInt(bigInt(call, args, 0))));
  }),
  log: pure((args, call) => {
    arity(call, args, 2);
    const value = toFloat64(num(call, args, 0));
    const base = toFloat64(num(call, args, 1));
    return floatResult(call, goLog(value) / goLog(base));
  }),
  parseint: pure((args, call) => {
    arity(call, args, 2);
    const text = str(call, args, 0);
    const base = int(call, args, 1);
    if (base < 2 || base > 62) throw misuse(call, `base must be between 2 and 62, got ${base}`);
    // Go's big.Int SetString: an optional sign, then digits; letters are case-blind up to base 36, above it
    // lower case comes before upper case. No prefixes, no underscores.
    const digits = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'.slice(0, base);
    const match = /^([+-]?)(.+)$/.exec(text);
    const body = match?.[2] ?? '';
    let result = 0n;
    for (const char of body) {
      const digit = digits.indexOf(base <= 36 ? char.toLowerCase() : char);
      if (digit === -1) throw misuse(call, `cannot parse ${JSON.stringify(text)} as a base ${base} integer`);
      result = result * BigInt(base) + BigInt(digit);
    }
    if (body === '') throw misuse(call, `cannot parse ${JSON.stringify(text)} as a base ${base} integer`);
    return fromBigInt(match?.[1] === '-' ? -result : result);
  }),
};

// --- strings -------------------------------------------------------------------------------------------

/** Go's strings.Title notion of a word separator. */
function isSeparator(char: string): boolean {
  if (char.charCodeAt(0) < 0x80) return !/[A-Za-z0-9_]/.test(char);
  if (/[\p{L}\p{N}]/u.test(char)) return false;
  return /\s/u.test(char);
}

/** Made on first use: building one loads ICU's segmentation data, some 18 ms of every cold evaluation otherwise. */
let graphemeSegmenter: Intl.Segmenter | undefined;

/**
 * A string's user-perceived characters (grapheme clusters), which is what length(), substr() and strrev() count,
 * as cty does: "e" plus a combining accent, or a flag emoji, is one character.
 */
function graphemes(text: string): string[] {
  graphemeSegmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  return Array.from(graphemeSegmenter.segment(text), (part) => part.segment);
}

/**
 * Go's strings.ToUpper/ToLower: each code point mapped on its own by Unicode's simple case mapping, so "ß" stays
 * "ß" and "ﬁ" stays "ﬁ" (JavaScript's full mapping would give "SS" and "FI"), and no final-sigma context rule.
 */
function simpleCase(text: string, upper: boolean): string {
  let out = '';
  for (const char of text) {
    const mapped = upper ? char.toUpperCase() : char.toLowerCase();
    if (mapped.length === char.length || [...mapped].length === 1) out += mapped;
    else if (!upper && char === '\u0130') out += 'i';
    else out += char;
  }
  return out;
}

/** The letters whose title case differs from their upper case (the Latin digraphs): Go's unicode.ToTitle. */
const TITLE_CASE: Readonly<Record<string, string>> = {
  Ǆ: 'ǅ',
  ǅ: 'ǅ',
  ǆ: 'ǅ',
  Ǉ: 'ǈ',
  ǈ: 'ǈ',
  ǉ: 'ǈ',
  Ǌ: 'ǋ',
  ǋ: 'ǋ',
  ǌ: 'ǋ',
  Ǳ: 'ǲ',
  ǲ: 'ǲ',
  ǳ: 'ǲ',
};

function chars(text: string): string[] {
  return [...text];
}

/** RE2's ASCII classes (`[[:upper:]]`), which JavaScript lacks, as the ranges they stand for inside a class. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/**
 * RE2's character classes in JavaScript's syntax: `[:upper:]` inside a class becomes its ASCII range, and `\s` is
 * RE2's ASCII whitespace (JavaScript's `\s` also matches Unicode spaces).
 */
function re2Classes(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '\\') {
      const next = pattern[i + 1] ?? '';
      out += next === 's' ? (inClass ? '\\t\\n\\f\\r ' : '[\\t\\n\\f\\r ]') : char + next;
      i += 1;
      continue;
    }
    if (inClass && char === '[') {
      const posix = /^\[:([a-z]+):\]/.exec(pattern.slice(i));
      const range = posix ? POSIX_CLASSES[posix[1] ?? ''] : undefined;
      if (posix && range !== undefined) {
        out += range;
        i += posix[0].length - 1;
        continue;
      }
    }
    if (!inClass && char === '[') {
      inClass = true;
      out += char;
      // A "]" right after "[" or "[^" is a literal member of the class.
      if (pattern[i + 1] === '^') out += pattern[++i];
      if (pattern[i + 1] === ']') {
        out += '\\]';
        i += 1;
      }
      continue;
    }
    if (inClass && char === ']') inClass = false;
    out += char;
  }
  return out;
}

/**
 * Compiles an RE2 pattern (OpenTofu's syntax) as a JavaScript RegExp: leading inline flags become RegExp flags,
 * `(?P<name>` becomes `(?<name>`, `\A` and `\z` become anchors.
 */
function compileRegex(call: CallInfo, pattern: string, global: boolean): RegExp {
  let source = pattern;
  let flags = global ? 'g' : '';
  const inline = /^\(\?([imsU]+)\)/.exec(source);
  if (inline) {
    for (const flag of inline[1] ?? '') {
      if (flag === 'U') throw misuse(call, 'the (?U) ungreedy flag is not supported');
      if (!flags.includes(flag)) flags += flag;
    }
    source = source.slice(inline[0].length);
  }
  source = re2Classes(source)
    .replace(/\(\?P</g, '(?<')
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '$(?![\\s\\S])');
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    // RE2 accepts escapes (such as "\-" outside a class) that Unicode-mode RegExps refuse.
    try {
      return new RegExp(source, flags);
    } catch (error) {
      throw misuse(call, `invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`);
    }
  }
}

/**
 * What the type conversion functions (tostring, tonumber, tobool, tolist, toset, tomap) make of a null: Terragrunt
 * v1.x's copies of them convert no untyped null (the literal `null`, a null read from an object or a file) and give an
 * unknown value instead, which Terragrunt then refuses where a dependency path needs it ("value must be known").
 * Values here carry no type with a null, so every null is taken as untyped (a null that went through a typed list is
 * the one case that differs: Terragrunt converts that one).
 */
function untypedNull(call: CallInfo): Unknown {
  return new Unknown(
    `${call.name}(null) has no value in Terragrunt (it converts no untyped null): use null itself`,
    call.name,
  );
}

/**
 * The type cty gives one match of a pattern, known from the pattern alone (so an empty regexall() is a list of it
 * too): a string without capture groups, an object of strings with named groups, a tuple of strings with unnamed ones.
 * A pattern with both kinds is refused, as cty refuses it.
 */
function matchType(call: CallInfo, pattern: RegExp): Type {
  // A pattern that also matches the empty string: its match shows every group, participating or not.
  const groups = new RegExp(`${pattern.source}|`, pattern.flags.replace('g', '')).exec('') as RegExpExecArray;
  const names = Object.keys(groups.groups ?? {});
  const unnamed = groups.length - 1 - names.length;
  if (names.length > 0 && unnamed > 0) {
    throw misuse(call, 'invalid regexp pattern: cannot mix both named and unnamed capture groups');
  }
  if (names.length > 0) return { object: Object.fromEntries(names.map((name) => [name, 'string' as const])) };
  return unnamed > 0 ? { tuple: Array.from({ length: unnamed }, () => 'string' as const) } : 'string';
}

function matchResult(match: RegExpMatchArray): Value {
  const groups = match.groups;
  if (groups && Object.keys(groups).length > 0) {
    const out: ValueObject = {};
    for (const [name, value] of Object.entries(groups)) setKey(out, name, value ?? null);
    return out;
  }
  if (match.length > 1) return match.slice(1).map((group) => group ?? null);
  return match[0];
}

/** Expands Go's regexp replacement template ($1, ${1}, $name, ${name}, $$). */
function expandReplacement(template: string, match: RegExpMatchArray): string {
  return template.replace(/\$(?:(\$)|\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/g, (_all, dollar, braced, bare) => {
    if (dollar) return '$';
    const name = (braced ?? bare) as string;
    if (/^\d+$/.test(name)) return match[Number(name)] ?? '';
    return match.groups?.[name] ?? '';
  });
}

/** Go fmt verbs as OpenTofu's format() supports them. */
function formatString(call: CallInfo, spec: string, args: Value[]): string {
  let out = '';
  let next = 0;
  let used = 0;
  const verbPattern = /%([-+# 0]*)(?:\[(\d+)\])?(\d+)?(?:\.(\d+))?([a-zA-Z%])/y;
  for (let i = 0; i < spec.length;) {
    const char = spec[i] ?? '';
    if (char !== '%') {
      out += char;
      i++;
      continue;
    }
    verbPattern.lastIndex = i;
    const match = verbPattern.exec(spec);
    if (!match) throw misuse(call, `unfinished format verb at offset ${i} of ${JSON.stringify(spec)}`);
    i += match[0].length;
    const [, flags = '', explicit, widthText, precisionText, verb = ''] = match;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (explicit !== undefined) next = Number(explicit) - 1;
    if (next >= args.length) throw misuse(call, `not enough arguments for the format verb "%${verb}"`);
    const value = args[next] as Value;
    next++;
    used = Math.max(used, next);
    const precision = precisionText === undefined ? undefined : Number(precisionText);
    let text = formatVerb(call, verb, flags, precision, value);
    const width = widthText === undefined ? 0 : Number(widthText);
    const length = chars(text).length;
    if (length < width) {
      const pad = width - length;
      if (flags.includes('-')) text += ' '.repeat(pad);
      else if (flags.includes('0') && 'dbfeEgGxXo'.includes(verb)) {
        const sign = /^[+-]/.test(text) ? (text[0] ?? '') : '';
        text = sign + '0'.repeat(pad) + text.slice(sign.length);
      } else text = ' '.repeat(pad) + text;
    }
    out += text;
  }
  if (used < args.length) throw misuse(call, `too many arguments: the format string uses ${used} of ${args.length}`);
  return out;
}

function formatVerb(call: CallInfo, verb: string, flags: string, precision: number | undefined, value: Value): string {
  const plus = flags.includes('+');
  const sharp = flags.includes('#');
  const numeric = (): Num => {
    const number = toNumber(value);
    if (number === undefined || value === null) {
      throw misuse(call, `"%${verb}" needs a number, got ${describeArg(value)}`);
    }
    return number;
  };
  /** An integer verb's argument (cty: an exact integer, else "an integer is required"). */
  const integer = (): bigint => {
    const number = numeric();
    const whole = isInfinite(number) ? undefined : truncate(number);
    if (!whole?.exact) throw misuse(call, `"%${verb}" needs a whole number, got ${formatNumber(number)}`);
    return whole.value;
  };
  const signed = (negative: boolean, text: string): string => (plus && !negative ? `+${text}` : text);
  switch (verb) {
    case 'v':
      if (sharp || (value !== null && typeof value === 'object' && !isNum(value))) return jsonEncode(call, value);
      // cty prints a number for %v with Go's %g at the shortest precision (1e+06, 1.5e-07).
      if (isNum(value)) return formatNum(value, 'g');
      return value === null ? 'null' : (primitiveToString(value) ?? '');
    case 't': {
      const result = toBool(value);
      if (result === undefined) throw misuse(call, `"%t" needs a bool, got ${describeArg(value)}`);
      return String(result);
    }
    case 's':
    case 'q': {
      if (value === null) throw misuse(call, `"%${verb}" cannot format null`);
      const text = primitiveToString(value);
      if (text === undefined) throw misuse(call, `"%${verb}" needs a string, got ${typeName(value)}`);
      const cut = precision === undefined ? text : chars(text).slice(0, precision).join('');
      return verb === 'q' ? JSON.stringify(cut) : cut;
    }
    case 'd': {
      const whole = integer();
      return signed(whole < 0n, whole.toString());
    }
    case 'b':
    case 'o':
    case 'x':
    case 'X': {
      if (verb !== 'b' && typeof value === 'string' && toNumber(value) === undefined) {
        const hex = Buffer.from(value, 'utf8').toString('hex');
        return verb === 'X' ? hex.toUpperCase() : hex;
      }
      const whole = integer();
      const base = verb === 'b' ? 2 : verb === 'o' ? 8 : 16;
      const digits = (whole < 0n ? -whole : whole).toString(base);
      const prefix = sharp ? (verb === 'o' ? '0' : verb === 'b' ? '0b' : '0x') : '';
      const text = `${whole < 0n ? '-' : ''}${prefix}${verb === 'X' ? digits.toUpperCase() : digits}`;
      return signed(whole < 0n, text);
    }
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G': {
      // Go's fmt on a big.Float: %e and %f default to 6 digits, %g to the shortest; exact digits, rounded half
      // to even.
      const number = numeric();
      const format = verb === 'F' ? 'f' : verb;
      const digits = precision ?? (format === 'g' || format === 'G' ? -1 : 6);
      const text = formatNum(number, format, digits);
      return signed(isNegative(number), text.startsWith('+') ? text.slice(1) : text);
    }
    default:
      throw misuse(call, `unsupported format verb "%${verb}"`);
  }
}

const stringFunctions: Record<string, HclFunction> = {
  format: pure((args, call) => {
    arity(call, args, 1, Infinity);
    return formatString(call, str(call, args, 0), args.slice(1));
  }),
  formatlist: pure((args, call) => {
    arity(call, args, 1, Infinity);
    const spec = str(call, args, 0);
    const rest = args.slice(1);
    let length: number | undefined;
    rest.forEach((arg, i) => {
      if (!Array.isArray(arg)) return;
      if (length !== undefined && arg.length !== length) {
        throw misuse(
          call,
          `all list arguments must have the same length (argument ${i + 2} has ${arg.length}, not ${length})`,
        );
      }
      length = arg.length;
    });
    const rows = length ?? 1;
    const out: Value[] = [];
    for (let row = 0; row < rows; row++) {
      out.push(
        formatString(
          call,
          spec,
          rest.map((arg) => (Array.isArray(arg) ? (arg[row] as Value) : arg)),
        ),
      );
    }
    // cty's formatlist returns a list of string, never a tuple.
    return asList(out, 'string');
  }),
  join: pure((args, call) => {
    arity(call, args, 2, Infinity);
    const separator = str(call, args, 0);
    const parts: string[] = [];
    for (let i = 1; i < args.length; i++) {
      list(call, args, i).forEach((item, j) => parts.push(elementString(call, item, `element ${j} of ${ordinal(i)}`)));
    }
    return parts.join(separator);
  }),
  split: pure((args, call) => {
    arity(call, args, 2);
    const separator = str(call, args, 0);
    const text = str(call, args, 1);
    return asList(separator === '' ? chars(text) : text.split(separator), 'string');
  }),
  replace: pure((args, call) => {
    arity(call, args, 3);
    const text = str(call, args, 0);
    const search = str(call, args, 1);
    const replacement = str(call, args, 2);
    if (search.length >= 2 && search.startsWith('/') && search.endsWith('/')) {
      const pattern = compileRegex(call, search.slice(1, -1), true);
      let out = '';
      let last = 0;
      for (const match of text.matchAll(pattern)) {
        out += text.slice(last, match.index) + expandReplacement(replacement, match);
        last = match.index + match[0].length;
      }
      return out + text.slice(last);
    }
    return search === '' ? text : text.split(search).join(replacement);
  }),
  regex: pure((args, call) => {
    arity(call, args, 2);
    const pattern = str(call, args, 0);
    const text = str(call, args, 1);
    const compiled = compileRegex(call, pattern, false);
    // Its type is not needed, only its check: a pattern mixing named and unnamed groups is refused.
    matchType(call, compiled);
    const match = compiled.exec(text);
    if (!match) throw misuse(call, `pattern ${JSON.stringify(pattern)} does not match ${JSON.stringify(text)}`);
    return matchResult(match);
  }),
  regexall: pure((args, call) => {
    arity(call, args, 2);
    const pattern = compileRegex(call, str(call, args, 0), true);
    return asList(
      [...str(call, args, 1).matchAll(pattern)].map((match) => matchResult(match)),
      matchType(call, pattern),
    );
  }),
  lower: pure((args, call) => {
    arity(call, args, 1);
    return simpleCase(str(call, args, 0), false);
  }),
  upper: pure((args, call) => {
    arity(call, args, 1);
    return simpleCase(str(call, args, 0), true);
  }),
  title: pure((args, call) => {
    arity(call, args, 1);
    let previous = ' ';
    let out = '';
    for (const char of str(call, args, 0)) {
      out += isSeparator(previous) ? (TITLE_CASE[char] ?? simpleCase(char, true)) : char;
      previous = char;
    }
    return out;
  }),
  trim: pure((args, call) => {
    arity(call, args, 2);
    const cut = new Set(chars(str(call, args, 1)));
    const text = chars(str(call, args, 0));
    let start = 0;
    let end = text.length;
    while (start < end && cut.has(text[start] ?? '')) start++;
    while (end > start && cut.has(text[end - 1] ?? '')) end--;
    return text.slice(start, end).join('');
  }),
  trimspace: pure((args, call) => {
    arity(call, args, 1);
    return str(call, args, 0).trim();
  }),
  trimprefix: pure((args, call) => {
    arity(call, args, 2);
    const text = str(call, args, 0);
    const prefix = str(call, args, 1);
    return text.startsWith(prefix) ? text.slice(prefix.length) : text;
  }),
  trimsuffix: pure((args, call) => {
    arity(call, args, 2);
    const text = str(call, args, 0);
    const suffix = str(call, args, 1);
    return suffix !== '' && text.endsWith(suffix) ? text.slice(0, -suffix.length) : text;
  }),
  // startswith, endswith and strcontains compare bytes, as Go's strings package does (cty strings are NFC already).
  startswith: pure((args, call) => {
    arity(call, args, 2);
    return str(call, args, 0).startsWith(str(call, args, 1));
  }),
  endswith: pure((args, call) => {
    arity(call, args, 2);
    return str(call, args, 0).endsWith(str(call, args, 1));
  }),
  strcontains: pure((args, call) => {
    arity(call, args, 2);
    return str(call, args, 0).includes(str(call, args, 1));
  }),
  strrev: pure((args, call) => {
    arity(call, args, 1);
    return graphemes(str(call, args, 0))
      .reverse()
      .join('');
  }),
  substr: pure((args, call) => {
    arity(call, args, 3);
    const text = graphemes(str(call, args, 0));
    let offset = int(call, args, 1);
    const length = int(call, args, 2);
    // cty's rules, as Terragrunt v1.1.3 runs them: a negative offset counts from the end (clamped to the start) and
    // then a length of 0 reads to the end, like a negative length; an offset past the end gives "".
    const fromEnd = offset < 0;
    if (fromEnd) offset = Math.max(0, text.length + offset);
    else if (length === 0) return '';
    const end = length < 0 || (fromEnd && length === 0) ? text.length : Math.min(text.length, offset + length);
    return text.slice(Math.min(offset, text.length), end).join('');
  }),
  chomp: pure((args, call) => {
    arity(call, args, 1);
    return str(call, args, 0).replace(/(?:\r\n|\n|\r)+$/, '');
  }),
  indent: pure((args, call) => {
    arity(call, args, 2);
    const pad = ' '.repeat(Math.max(0, int(call, args, 0)));
    return str(call, args, 1).replace(/\n/g, `\n${pad}`);
  }),
  urlencode: pure((args, call) => {
    arity(call, args, 1);
    let out = '';
    for (const byte of Buffer.from(str(call, args, 0), 'utf8')) {
      const char = String.fromCharCode(byte);
      if (/[A-Za-z0-9\-_.~]/.test(char)) out += char;
      else if (char === ' ') out += '+';
      else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    return out;
  }),
};

// --- collections ---------------------------------------------------------------------------------------

function distinctValues(items: Value[]): Value[] {
  const out: Value[] = [];
  for (const item of items) {
    if (!out.some((seen) => valuesEqual(seen, item) === true)) out.push(item);
  }
  return out;
}

/** A set of the items' unified type, in cty's order (mixed primitives become strings). */
function setOf(call: CallInfo, items: Value[]): Value[] {
  try {
    return convert(items, { set: 'dynamic' }) as Value[];
  } catch (error) {
    if (error instanceof ConversionError) throw misuse(call, error.message);
    throw error;
  }
}

/**
 * setunion, setintersection and setsubtract as cty runs them: every argument becomes a set, the element types
 * unify (a set of numbers and one of bools do not: an error, even when the set of numbers is empty), every set is
 * converted to that element type, then `op` combines their elements into the result set. Only an empty set of
 * unknown element type (`[]`, `tolist([])`) imposes no type (cty's setOperationReturnType skips those alone).
 */
function setOperation(call: CallInfo, args: Value[], op: (sets: Value[][]) => Value[]): Value[] {
  const sets = args.map((_, i) => setOf(call, list(call, args, i)));
  const types = sets
    .map((set) => ({ set, element: (typeOf(set) as { set: Type }).set }))
    .filter(({ set, element }) => set.length > 0 || element !== 'dynamic')
    .map(({ element }) => element);
  const element = types.length === 0 ? 'dynamic' : unify(types, true);
  if (element === undefined) throw misuse(call, 'given sets must all have compatible element types');
  const typed = sets.map((set) => converted(call, [set], 0, { set: element }) as Value[]);
  return converted(call, [op(typed)], 0, { set: element }) as Value[];
}

function flattenInto(items: Value[], out: Value[]): void {
  for (const item of items) {
    if (Array.isArray(item)) flattenInto(item, out);
    else out.push(item);
  }
}

const collectionFunctions: Record<string, HclFunction> = {
  length: shallow((args, call) => {
    arity(call, args, 1);
    const value = present(call, args, 0);
    // A count is a cty.NumberIntVal: 64-bit precision (see fromInt64).
    if (typeof value === 'string') return fromInt64(graphemes(value).length);
    if (Array.isArray(value)) return fromInt64(value.length);
    if (isObject(value)) return fromInt64(Object.keys(value).length);
    throw misuse(call, `argument 1 must be a string, list or map, got ${typeName(value)}`);
  }),
  concat: shallow((args, call) => {
    arity(call, args, 1, Infinity);
    const out: Value[] = [];
    args.forEach((arg, i) => {
      const kind = collectionKind(present(call, args, i));
      if (kind !== 'list' && kind !== 'tuple') {
        throw misuse(call, `all arguments must be lists or tuples; ${ordinal(i)} is a ${kind ?? typeName(arg)}`);
      }
      out.push(...(arg as Value[]));
    });
    // Lists only: a list of their unified type; otherwise a tuple.
    if (args.every((arg) => collectionKind(arg) === 'list')) return converted(call, [out], 0, { list: 'dynamic' });
    return out;
  }),
  contains: shallow((args, call) => {
    arity(call, args, 2);
    const items = list(call, args, 0);
    let unknown: Unknown | undefined;
    for (const item of items) {
      const equal = valuesEqual(item, args[1] as Value);
      if (equal === true) return true;
      if (equal instanceof Unknown) unknown ??= equal;
    }
    return unknown ?? false;
  }),
  distinct: pure((args, call) => {
    arity(call, args, 1);
    const items = asListArg(call, args, 0);
    return asList(distinctValues(items), elementType(items));
  }),
  element: shallow((args, call) => {
    arity(call, args, 2);
    const items = list(call, args, 0);
    if (collectionKind(items) === 'set') {
      throw misuse(
        call,
        `cannot read elements from a set of ${typeLabel(elementType(items))}: convert it with tolist() first`,
      );
    }
    const position = bigInt(call, args, 1);
    if (items.length === 0) throw misuse(call, 'cannot use element function with an empty list');
    // The index wraps around, negative ones too (cty: index % length, plus length when negative), on the exact
    // Go int (element(x, 9007199254740993) picks by the odd index).
    const wrapped = Number(position % BigInt(items.length));
    return items[wrapped < 0 ? wrapped + items.length : wrapped] as Value;
  }),
  flatten: pure((args, call) => {
    arity(call, args, 1);
    const out: Value[] = [];
    flattenInto(list(call, args, 0), out);
    return out;
  }),
  index: pure((args, call) => {
    arity(call, args, 2);
    const items = list(call, args, 0);
    const found = items.findIndex((item) => valuesEqual(item, args[1] as Value) === true);
    if (found === -1) throw misuse(call, `the list does not contain ${describeArg(args[1] as Value)}`);
    return fromInt64(found);
  }),
  keys: shallow((args, call) => {
    arity(call, args, 1);
    const map = object(call, args, 0);
    return collectionKind(map) === 'map' ? asList(sortedKeys(map), 'string') : sortedKeys(map);
  }),
  values: shallow((args, call) => {
    arity(call, args, 1);
    const map = object(call, args, 0);
    const items = sortedKeys(map).map((key) => map[key] as Value);
    return collectionKind(map) === 'map' ? asList(items, elementType(map)) : items;
  }),
  lookup: shallow((args, call) => {
    arity(call, args, 2, 3);
    const map = object(call, args, 0);
    const key = str(call, args, 1);
    // A map's default converts to the map's element type (lookup(tomap({ a = 1 }), "b", "x") is an error).
    const type = typeOf(map);
    const element = typeof type === 'object' && 'map' in type ? type.map : 'dynamic';
    if (args.length === 3 && element !== 'dynamic' && !(args[2] instanceof Unknown) && args[2] !== null) {
      try {
        args[2] = convert(args[2] as Value, element);
      } catch (error) {
        if (error instanceof ConversionError)
          throw misuse(call, 'the default value must have the same type as the map elements');
        throw error;
      }
    }
    if (hasKey(map, key)) return map[key] as Value;
    if (args.length === 3) return args[2] as Value;
    throw misuse(call, `key ${JSON.stringify(key)} not found and no default given`);
  }),
  merge: shallow((args, call) => {
    const out: ValueObject = {};
    args.forEach((arg, i) => {
      if (arg === null) return;
      const map = object(call, args, i);
      for (const key of Object.keys(map)) setKey(out, key, map[key] as Value);
    });
    // cty's merge keeps the arguments' type when they all have the same one (maps of one element type give that
    // map); any other mix, maps of different element types included, gives an object of every key.
    const given = args.filter((arg) => arg !== null);
    const first = given[0];
    if (first !== undefined && collectionKind(first) === 'map') {
      const type = typeOf(first);
      if (given.every((arg) => collectionKind(arg) === 'map' && sameType(typeOf(arg), type))) {
        return converted(call, [out], 0, { map: 'dynamic' });
      }
    }
    return out;
  }),
  range: pure((args, call) => {
    arity(call, args, 1, 3);
    // cty's range: the values are start, start + step, ... computed with cty's arithmetic (so range(0, 1, 0.1)
    // holds 512-bit sums), a list of numbers.
    const numbers = args.map((_, i) => num(call, args, i));
    const [first = 0, second = 0] = numbers;
    const [start, limit] = numbers.length === 1 ? [0, first] : [first, second];
    const step = numbers[2] ?? (compare(limit, start) < 0 ? -1 : 1);
    if (compare(step, 0) === 0) throw misuse(call, 'step must not be zero');
    const down = compare(step, 0) < 0;
    if (down ? compare(limit, start) > 0 : compare(limit, start) < 0) {
      throw misuse(
        call,
        `step ${formatNumber(step)} cannot go from ${formatNumber(start)} to ${formatNumber(limit)}: end must be ${down ? 'less' : 'greater'} than start when step is ${down ? 'negative' : 'positive'}`,
      );
    }
    const out: Num[] = [];
    for (
      let value: Num = start;
      down ? compare(value, limit) > 0 : compare(value, limit) < 0;
      value = add(value, step)
    ) {
      if (out.length >= 1024) throw misuse(call, 'more than 1024 numbers requested');
      out.push(value);
    }
    return asList(out, 'number');
  }),
  reverse: shallow((args, call) => {
    arity(call, args, 1);
    const items = list(call, args, 0);
    return sameSequence(items, [...items].reverse());
  }),
  slice: shallow((args, call) => {
    arity(call, args, 3);
    const items = list(call, args, 0);
    if (collectionKind(items) === 'set')
      throw misuse(
        call,
        'cannot slice a set, because its elements do not have indices; convert it with tolist() if the order of the result does not matter',
      );
    const start = int(call, args, 1);
    const end = int(call, args, 2);
    if (start < 0 || end > items.length || start > end) {
      throw misuse(call, `cannot slice [${start}:${end}] from a list of ${items.length}`);
    }
    return sameSequence(items, items.slice(start, end));
  }),
  sort: pure((args, call) => {
    arity(call, args, 1);
    return asList(
      list(call, args, 0)
        .map((item, i) => elementString(call, item, `element ${i}`))
        .sort(compareStrings),
      'string',
    );
  }),
  toset: pure((args, call) => {
    arity(call, args, 1);
    if (args[0] === null) return untypedNull(call);
    return converted(call, args, 0, { set: 'dynamic' });
  }),
  tolist: shallow((args, call) => {
    arity(call, args, 1);
    if (args[0] === null) return untypedNull(call);
    return converted(call, args, 0, { list: 'dynamic' });
  }),
  tomap: shallow((args, call) => {
    arity(call, args, 1);
    if (args[0] === null) return untypedNull(call);
    return converted(call, args, 0, { map: 'dynamic' });
  }),
  tostring: shallow((args, call) => {
    arity(call, args, 1);
    if (args[0] === null) return untypedNull(call);
    return str(call, args, 0);
  }),
  tonumber: shallow((args, call) => {
    arity(call, args, 1);
    if (args[0] === null) return untypedNull(call);
    return num(call, args, 0);
  }),
  tobool: shallow((args, call) => {
    arity(call, args, 1);
    if (args[0] === null) return untypedNull(call);
    return converted(call, args, 0, 'bool');
  }),
  coalesce: seesUnknown((args, call) => {
    arity(call, args, 1, Infinity);
    // The arguments are converted to the type they unify to (coalesce(1, "a") is "1"), then the first that is
    // neither null nor "" wins.
    const known = args.filter((arg) => arg !== null && !(arg instanceof Unknown));
    const type = known.length > 0 ? unify(known.map(typeOf), true) : 'dynamic';
    if (type === undefined) throw misuse(call, 'all arguments must have the same type');
    for (const arg of args) {
      // An unknown argument might be null or empty: the result is as unknown as it is.
      if (arg instanceof Unknown) return arg;
      if (arg === null) continue;
      const value = converted(call, [arg], 0, type);
      if (value !== '') return value;
    }
    throw misuse(call, 'no non-null, non-empty-string argument');
  }),
  coalescelist: seesUnknown((args, call) => {
    arity(call, args, 1, Infinity);
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as Value;
      if (arg instanceof Unknown) return arg;
      // Lists and tuples only: a set is refused, as in OpenTofu.
      if (collectionKind(arg) === 'set') throw misuse(call, 'coalescelist arguments must be lists or tuples, not sets');
      if (list(call, args, i).length > 0) return arg;
    }
    throw misuse(call, 'no non-empty list argument');
  }),
  compact: pure((args, call) => {
    arity(call, args, 1);
    return asList(
      list(call, args, 0)
        .filter((item) => item !== null && item !== '')
        .map((item, i) => elementString(call, item, `element ${i}`)),
      'string',
    );
  }),
  zipmap: shallow((args, call) => {
    arity(call, args, 2);
    const keys = list(call, args, 0);
    const values = list(call, args, 1);
    const unknown = findUnknown(keys);
    if (unknown) return unknown;
    if (keys.length !== values.length) {
      throw misuse(call, `${keys.length} keys but ${values.length} values`);
    }
    const out: ValueObject = {};
    keys.forEach((key, i) => setKey(out, elementString(call, key, `key ${i}`), values[i] as Value));
    // A list of values makes a map of their type; a tuple an object.
    return collectionKind(values) === 'list' ? asMap(out, elementType(values)) : out;
  }),
  one: shallow((args, call) => {
    arity(call, args, 1);
    if (args[0] === null) return null;
    const items = list(call, args, 0);
    if (items.length > 1) throw misuse(call, `the list has ${items.length} elements; at most one is allowed`);
    return items[0] ?? null;
  }),
  sum: pure((args, call) => {
    arity(call, args, 1);
    const items = list(call, args, 0);
    if (items.length === 0) throw misuse(call, 'cannot sum an empty list');
    // A tuple's elements convert one by one; a list or set of anything but numbers makes OpenTofu's sum fail (it
    // panics on the first element).
    const type = typeOf(items);
    const element =
      typeof type === 'object' && 'list' in type
        ? type.list
        : typeof type === 'object' && 'set' in type
          ? type.set
          : undefined;
    if (element !== undefined && element !== 'number' && element !== 'dynamic')
      throw misuse(call, `cannot sum a ${typeLabel(type)}: convert the elements with tonumber() first`);
    // Each element converts to a number ("2" is 2), as OpenTofu's sum converts them; null is an error.
    // The sum starts from the first element as it is (its precision counts): Terragrunt's sum converts only the
    // elements after it, and fails (a panic there) when the first is not a number.
    if (items[0] !== null && !isNum(items[0])) {
      throw misuse(call, `element 0 must be a number, got ${typeName(items[0] as Value)}: convert it with tonumber()`);
    }
    const numbers = items.map((item, i) => {
      if (item === null) throw misuse(call, `element ${i} is null; sum needs numbers`);
      const number = toNumber(item);
      if (number === undefined) throw misuse(call, `element ${i} must be a number, got ${typeName(item)}`);
      return number;
    });
    try {
      return numbers.slice(1).reduce<Num>((total, number) => add(total, number), numbers[0] as Num);
    } catch (error) {
      if (error instanceof RangeError) throw misuse(call, error.message);
      throw error;
    }
  }),
  setproduct: pure((args, call) => {
    arity(call, args, 1, Infinity);
    // Lists give a list of tuples, sets a set; a tuple argument makes the result a list of tuples too.
    const sequences = args.map((_, i) => list(call, args, i));
    let rows: Value[][] = [[]];
    for (const items of sequences) rows = rows.flatMap((row) => items.map((item) => [...row, item]));
    if (sequences.some((items) => items.length === 0)) rows = [];
    if (args.every((arg) => collectionKind(arg) === 'set')) return setOf(call, rows);
    // A list of tuples whose item types are the arguments' element types (a tuple argument's unified), even when
    // empty: false ? tolist(["a"]) : setproduct([], [1]) does not unify, as in OpenTofu.
    const element: Type = { tuple: args.map((arg) => sequenceElementType(arg)) };
    return asList(rows, element);
  }),
  transpose: pure((args, call) => {
    arity(call, args, 1);
    const map = object(call, args, 0);
    const out = new Map<string, string[]>();
    for (const key of sortedKeys(map)) {
      const items = map[key];
      if (!Array.isArray(items)) throw misuse(call, `the value of ${JSON.stringify(key)} must be a list of strings`);
      items.forEach((item, i) => {
        const name = elementString(call, item, `element ${i} of ${JSON.stringify(key)}`);
        const list = out.get(name);
        if (list) list.push(key);
        else out.set(name, [key]);
      });
    }
    const result: ValueObject = {};
    for (const [name, keys] of out) setKey(result, name, asList(keys, 'string'));
    return asMap(result, { list: 'string' });
  }),
  alltrue: pure((args, call) => {
    arity(call, args, 1);
    const items = list(call, args, 0);
    return items.every((_, i) => bool(call, items, i));
  }),
  anytrue: pure((args, call) => {
    arity(call, args, 1);
    const items = list(call, args, 0);
    return items.some((_, i) => bool(call, items, i));
  }),
  setunion: pure((args, call) => {
    arity(call, args, 1, Infinity);
    return setOperation(call, args, (sets) => sets.flat());
  }),
  setintersection: pure((args, call) => {
    arity(call, args, 1, Infinity);
    return setOperation(call, args, ([first = [], ...rest]) =>
      first.filter((item) => rest.every((other) => other.some((o) => valuesEqual(o, item) === true))),
    );
  }),
  setsubtract: pure((args, call) => {
    arity(call, args, 2);
    return setOperation(call, args, ([from = [], remove = []]) =>
      from.filter((item) => !remove.some((o) => valuesEqual(o, item) === true)),
    );
  }),
  chunklist: shallow((args, call) => {
    arity(call, args, 2);
    // The parameter is a list: a tuple converts to one (its elements unify; a number and a bool do not).
    list(call, args, 0);
    const items = converted(call, args, 0, { list: 'dynamic' }) as Value[];
    const size = int(call, args, 1);
    if (size < 0) throw misuse(call, 'the chunk size must not be negative');
    if (size === 0) return [items];
    const out: Value[] = [];
    for (let i = 0; i < items.length; i += size) out.push(asList(items.slice(i, i + size), elementType(items)));
    return asList(out);
  }),
  sensitive: shallow((args, call) => {
    arity(call, args, 1);
    return args[0] as Value;
  }),
  nonsensitive: shallow((args, call) => {
    arity(call, args, 1);
    return args[0] as Value;
  }),
};

// --- encoding and hashing ------------------------------------------------------------------------------

/** JSON as Go's encoder writes it: sorted keys, no spaces, `<`, `>`, `&`, U+2028, U+2029 escaped. */
function jsonEncode(call: CallInfo, value: Value): string {
  if (value === null) return 'null';
  // Callers are pure(): an Unknown cannot get here.
  if (value instanceof Unknown) throw misuse(call, `cannot encode an unknown value (${value.reason})`);
  if (typeof value === 'string') {
    return JSON.stringify(value).replace(
      /[<>&\u2028\u2029]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  if (isNum(value)) {
    if (isInfinite(value)) throw misuse(call, `cannot encode ${formatNumber(value)} as JSON`);
    return formatNumber(value);
  }
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((item) => jsonEncode(call, item)).join(',')}]`;
  const map = value;
  return `{${sortedKeys(map)
    .map((key) => `${jsonEncode(call, key)}:${jsonEncode(call, map[key] as Value)}`)
    .join(',')}}`;
}

/** The prefix {@link parseJson} gives a number token's text, as a JSON string. */
const NUMBER_MARK = '\u0000number:';
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * JSON.parse keeping each number's digits: cty's jsondecode reads a number from its text at 512 bits (0.1 is not
 * float64's 0.1, 12345678901234567890 stays exact). Every valid number token outside a string is rewritten as a
 * marked string first, so whatever JSON.parse refuses it still refuses (`01`, `1.`, `-`). Text that spells the
 * mark's escape itself is parsed plainly.
 */
function parseJson(text: string): Value {
  if (text.includes('\\u0000')) return fromData(JSON.parse(text));
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i] as string;
    if (char === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (char === '-' || (char >= '0' && char <= '9')) {
      JSON_NUMBER.lastIndex = i;
      const token = JSON_NUMBER.exec(text)?.[0];
      if (token !== undefined) {
        out += `"\\u0000number:${token}"`;
        i += token.length;
        continue;
      }
    }
    out += char;
    i += 1;
  }
  return fromData(JSON.parse(out));
}

/** Converts decoded JSON into a Value (plain objects, no undefined; marked number strings become numbers). */
function fromData(data: unknown): Value {
  if (data === null || data === undefined) return null;
  if (typeof data === 'string') {
    return data.startsWith(NUMBER_MARK) ? (parseNumber(data.slice(NUMBER_MARK.length)) ?? null) : data;
  }
  if (typeof data === 'number') return fromJsonNumber(data);
  if (typeof data === 'boolean') return data;
  if (Array.isArray(data)) return data.map(fromData);
  const out: ValueObject = {};
  if (typeof data === 'object') {
    for (const [key, item] of Object.entries(data as Record<string, unknown>)) setKey(out, key, fromData(item));
    return out;
  }
  return null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether a CSV record ends at `i` (a newline, or a carriage return before one). */
function recordEnd(text: string, i: number): boolean {
  return text[i] === '\n' || (text[i] === '\r' && text[i + 1] === '\n');
}

/**
 * CSV records as Go's encoding/csv reads them (RFC 4180): `"` quotes a field and `""` is a quote inside one, a bare
 * `"` in an unquoted field is an error, blank lines are skipped, `\r\n` ends a record like `\n`.
 */
function csvRecords(call: CallInfo, text: string): string[][] {
  const records: string[][] = [];
  let line = 1;
  let i = 0;
  const error = (what: string): HclEvalError => misuse(call, `CSV parse error on line ${line}: ${what}`);
  while (i < text.length) {
    if (recordEnd(text, i)) {
      i += text[i] === '\r' ? 2 : 1;
      line += 1;
      continue;
    }
    const record: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i += 1;
        for (;;) {
          if (i >= text.length) throw error('extraneous or missing " in quoted-field');
          if (text[i] === '"' && text[i + 1] === '"') {
            field += '"';
            i += 2;
          } else if (text[i] === '"') {
            i += 1;
            break;
          } else {
            if (text[i] === '\n') line += 1;
            field += text[i];
            i += 1;
          }
        }
        if (i < text.length && text[i] !== ',' && !recordEnd(text, i)) {
          throw error('extraneous or missing " in quoted-field');
        }
      } else {
        while (i < text.length && text[i] !== ',' && !recordEnd(text, i)) {
          if (text[i] === '"') throw error('bare " in non-quoted-field');
          field += text[i];
          i += 1;
        }
      }
      record.push(field);
      if (text[i] !== ',') break;
      i += 1;
    }
    records.push(record);
  }
  return records;
}

/** csvdecode(): a list of objects keyed by the header row, every value a string. */
function csvDecode(call: CallInfo, text: string): Value {
  const [headers, ...rows] = csvRecords(call, text);
  if (!headers) throw misuse(call, 'missing header line');
  const seen = new Set<string>();
  for (const name of headers) {
    if (seen.has(name)) throw misuse(call, `duplicate column name ${JSON.stringify(name)}`);
    seen.add(name);
  }
  const element: Type = { object: Object.fromEntries(headers.map((name) => [name, 'string' as const])) };
  const objects = rows.map((row, r) => {
    if (row.length !== headers.length) throw misuse(call, `CSV parse error on line ${r + 2}: wrong number of fields`);
    const out: ValueObject = {};
    headers.forEach((name, c) => setKey(out, name, row[c] as string));
    return out;
  });
  return asList(objects, element);
}

function hashFunction(algorithm: string, encoding: 'hex' | 'base64'): HclFunction {
  return pure((args, call) => {
    arity(call, args, 1);
    return createHash(algorithm)
      .update(str(call, args, 0), 'utf8')
      .digest(encoding);
  });
}

const encodingFunctions: Record<string, HclFunction> = {
  jsonencode: pure((args, call) => {
    arity(call, args, 1);
    return jsonEncode(call, args[0] as Value);
  }),
  jsondecode: pure((args, call) => {
    arity(call, args, 1);
    const text = str(call, args, 0);
    try {
      return parseJson(text);
    } catch (error) {
      throw misuse(call, `invalid JSON: ${(error as Error).message}`);
    }
  }),
  yamldecode: pure((args, call) => {
    arity(call, args, 1);
    try {
      return decodeYaml(str(call, args, 0));
    } catch (error) {
      if (error instanceof YamlDecodeError) throw misuse(call, `invalid YAML: ${error.message}`);
      throw error;
    }
  }),
  yamlencode: pure((args, call) => {
    arity(call, args, 1);
    try {
      return encodeYaml(args[0] as Value);
    } catch (error) {
      if (error instanceof YamlEncodeError) throw misuse(call, error.message);
      throw error;
    }
  }),
  csvdecode: pure((args, call) => {
    arity(call, args, 1);
    return csvDecode(call, str(call, args, 0));
  }),
  base64encode: pure((args, call) => {
    arity(call, args, 1);
    return Buffer.from(str(call, args, 0), 'utf8').toString('base64');
  }),
  base64decode: pure((args, call) => {
    arity(call, args, 1);
    const text = str(call, args, 0);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
      throw misuse(call, `${JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}...` : text)} is not valid base64`);
    }
    try {
      return utf8.decode(Buffer.from(text, 'base64'));
    } catch {
      throw misuse(call, 'the decoded bytes are not valid UTF-8');
    }
  }),
  md5: hashFunction('md5', 'hex'),
  sha1: hashFunction('sha1', 'hex'),
  sha256: hashFunction('sha256', 'hex'),
  sha512: hashFunction('sha512', 'hex'),
  base64sha256: hashFunction('sha256', 'base64'),
  base64sha512: hashFunction('sha512', 'base64'),
  uuid: needsRun('is random: a new value every run'),
  bcrypt: needsRun('is salted randomly: a new value every run'),
  timestamp: needsRun('reads the clock at apply time'),
  // Functions Terragrunt v1.1.3 has and platctl does not compute: an unknown value, so a unit whose path does not
  // need one is unaffected (locals are evaluated only when read), and one whose path does is refused as a path
  // platctl cannot resolve offline, never as a call to an unknown function.
  ...Object.fromEntries(NOT_EVALUATED.map((name) => [name, needsRun('is not computed by platctl')])),
};

// --- paths ---------------------------------------------------------------------------------------------

/** Go's filepath.Clean for posix paths. */
function cleanPath(path: string): string {
  if (path === '') return '.';
  // A path with nothing to clean (the common case: dirname of an absolute path) is itself, less a trailing slash.
  const body = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  if (body !== '' && !body.endsWith('/') && !body.includes('//') && !/(^|\/)\.\.?(\/|$)/.test(body)) return body;
  const normal = posix.normalize(path);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/** Go's filepath.Dir: everything before the last slash, cleaned ("a/b/" gives "a/b"). */
function goDirname(path: string): string {
  const slash = path.lastIndexOf('/');
  if (slash === -1) return '.';
  return cleanPath(path.slice(0, slash + 1));
}

/** Go's filepath.Base: the last element after trailing slashes are removed ("" gives ".", "/" gives "/"). */
function goBasename(path: string): string {
  if (path === '') return '.';
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

const pathFunctions: Record<string, HclFunction> = {
  dirname: pure((args, call) => {
    arity(call, args, 1);
    return goDirname(str(call, args, 0));
  }),
  basename: pure((args, call) => {
    arity(call, args, 1);
    return goBasename(str(call, args, 0));
  }),
};

/** Every built-in that needs no filesystem, by name. */
export const pureBuiltins: Readonly<Record<string, HclFunction>> = Object.freeze({
  ...numberFunctions,
  ...stringFunctions,
  ...collectionFunctions,
  ...encodingFunctions,
  ...pathFunctions,
});

/** What the filesystem functions may ask of the outside world (posix paths). */
export interface FsHost {
  /** Relative paths in file(), fileexists(), fileset(), templatefile() and abspath() resolve against this. */
  readonly baseDir: string;
  /** The file's text, or undefined when there is no such file. */
  readonly readFile: (path: string) => string | undefined;
  /** Whether a regular file exists at the absolute path. */
  readonly exists: (path: string) => boolean;
  /** Files under `baseDir` matching the glob pattern, relative to `baseDir` (absolute paths are accepted too). */
  readonly glob: (pattern: string, baseDir: string) => readonly string[];
  /** The environment, for pathexpand()'s HOME. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** file, fileexists, fileset, templatefile, abspath and pathexpand, bound to a host. */
export function fsBuiltins(host: FsHost): Record<string, HclFunction> {
  const resolve = (path: string): string => posix.resolve(host.baseDir, path);
  const read = (call: CallInfo, path: string): string => {
    const text = host.readFile(resolve(path));
    if (text === undefined) throw misuse(call, `no file exists at ${JSON.stringify(path)} (from ${host.baseDir})`);
    return text;
  };

  const templatefile: HclFunction = pure((args, call) => {
    arity(call, args, 2);
    const path = str(call, args, 0);
    const variables = object(call, args, 1);
    const parsed = parseTemplate(read(call, path));
    if (!parsed.ok) {
      const { message, line, column } = parsed.error;
      throw misuse(call, `${path}:${line}:${column}: ${message}`);
    }
    // The template sees only the variables passed in; templatefile() may not recurse (as in OpenTofu).
    const functions = { ...call.scope.functions };
    delete functions.templatefile;
    const scope: Scope = { variables: { ...variables }, functions, context: call.scope.context };
    try {
      const result = evaluateExpression(parsed.ast, scope);
      return result instanceof Unknown ? result : (primitiveToString(result) ?? result);
    } catch (error) {
      if (error instanceof HclEvalError) throw misuse(call, `${path}: ${error.message}`);
      throw error;
    }
  });

  return {
    file: pure((args, call) => {
      arity(call, args, 1);
      return read(call, str(call, args, 0));
    }),
    fileexists: pure((args, call) => {
      arity(call, args, 1);
      return host.exists(resolve(str(call, args, 0)));
    }),
    fileset: pure((args, call) => {
      arity(call, args, 2);
      const dir = resolve(str(call, args, 0));
      const pattern = str(call, args, 1);
      const found = host.glob(pattern, dir).map((path) => (path.startsWith('/') ? posix.relative(dir, path) : path));
      return [...new Set(found)].sort(compareStrings);
    }),
    templatefile,
    abspath: pure((args, call) => {
      arity(call, args, 1);
      return resolve(str(call, args, 0));
    }),
    pathexpand: pure((args, call) => {
      arity(call, args, 1);
      const path = str(call, args, 0);
      if (path !== '~' && !path.startsWith('~/')) return path;
      const home = host.env?.HOME;
      if (!home) return new Unknown('pathexpand() needs HOME, which is not set', 'pathexpand');
      return home + path.slice(1);
    }),
  };
}

/**
 * The OpenTofu built-ins: the pure ones, plus the filesystem ones when a host is given. Spread Terragrunt's own
 * functions over the result.
 */
export function standardFunctions(host?: FsHost): Record<string, HclFunction> {
  return host ? { ...pureBuiltins, ...fsBuiltins(host) } : { ...pureBuiltins };
}
