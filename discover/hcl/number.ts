/**
 * HCL's numbers as cty holds them: Go's `big.Float`, a binary fraction with a precision of its own (512 bits for a
 * number parsed from text, 53 for one a function computed as a float64), rounded to nearest, ties to even, and
 * printed as the shortest decimal that reads back to the same value at that precision.
 *
 * Why our own: the packages on the registry either compute in decimal (decimal.js, big.js: `0.1` is exact there but
 * a 512-bit binary fraction in cty, so `1/3` or `0.1 * 3` print other digits), or are MPFR builds that round right
 * but neither keep a precision per value the way `big.Float` does nor print Go's shortest form. cty's results
 * depend on both, so this module implements the few operations cty uses (add, multiply, divide, compare, truncate,
 * parse, print) on a BigInt mantissa and a binary exponent.
 *
 * A plain JavaScript number in a {@link Value} is a cty number of 512-bit precision whose value that float64 holds
 * exactly: every integer up to 2^53, and fractions such as 0.5 or 2.5. Everything else (0.1, 1/3, 2^70 + 1, a
 * float64 result of `pow` with its 53-bit precision) is a {@link BigNumber}. Arithmetic on plain numbers stays on
 * float64 when the float64 result is provably exact (see {@link add}), so a configuration's `length(x) + 1` never
 * touches a BigInt.
 */

/** Bits of precision of a number cty parses from text (cty.ParseNumberVal). */
export const PARSE_PRECISION = 512;
/** Bits of precision of a number cty makes from a float64 (cty.NumberFloatVal). */
export const FLOAT_PRECISION = 53;

/** A cty number a float64 cannot stand for: a finite binary fraction or an infinity, with its precision. */
export class BigNumber {
  /** Sign (true for negative, negative zero included). */
  readonly neg: boolean;
  /** Magnitude's mantissa: odd, or 0n for zero (and for an infinity). */
  readonly mant: bigint;
  /** The magnitude is `mant * 2^exp`. */
  readonly exp: number;
  /** Precision in bits (Go's Float.Prec()). */
  readonly prec: number;
  /** An infinity. */
  readonly inf: boolean;

  constructor(neg: boolean, mant: bigint, exp: number, prec: number, inf = false) {
    this.neg = neg;
    this.mant = mant;
    this.exp = exp;
    this.prec = prec;
    this.inf = inf;
  }

  toString(): string {
    return formatShortest(this);
  }

  /** JSON.stringify (a cache, a message) writes the nearest float64. */
  toJSON(): number {
    return toFloat64(this);
  }
}

/** A cty number: a plain float64 (exact, 512-bit precision) or a {@link BigNumber}. */
export type Num = number | BigNumber;

export function isNum(value: unknown): value is Num {
  return typeof value === 'number' || value instanceof BigNumber;
}

// --- exact values --------------------------------------------------------------------------------------------

/** `(-1)^neg * mant * 2^exp`, mant not necessarily odd. */
interface Exact {
  neg: boolean;
  mant: bigint;
  exp: number;
}

function bitLength(n: bigint): number {
  if (n === 0n) return 0;
  // toString(16) is linear; a hex digit is four bits, the leading one may hold fewer.
  const hex = n.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0] as string, 16)));
}

function trailingZeros(n: bigint): number {
  if (n === 0n) return 0;
  return bitLength(n & -n) - 1;
}

const F64 = new DataView(new ArrayBuffer(8));

/** The exact value of a finite float64. */
function exactOfFloat(x: number): Exact {
  F64.setFloat64(0, x);
  const hi = F64.getUint32(0);
  const lo = F64.getUint32(4);
  const neg = hi >>> 31 === 1;
  const biased = (hi >>> 20) & 0x7ff;
  const fraction = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased === 0) return { neg, mant: fraction, exp: -1074 };
  return { neg, mant: fraction | (1n << 52n), exp: biased - 1075 };
}

/** Rounds an exact value to `prec` bits, ties to even; `sticky` says a nonzero remainder lies below the mantissa. */
function round(value: Exact, prec: number, sticky = false): Exact {
  let { mant, exp } = value;
  if (mant === 0n) return { neg: value.neg, mant: 0n, exp: 0 };
  const bits = bitLength(mant);
  if (bits > prec) {
    const shift = bits - prec;
    const kept = mant >> BigInt(shift);
    const rest = mant - (kept << BigInt(shift));
    const half = 1n << BigInt(shift - 1);
    mant = kept;
    if (rest > half || (rest === half && (sticky || (kept & 1n) === 1n))) mant += 1n;
    exp += shift;
  }
  const zeros = trailingZeros(mant);
  if (zeros > 0) {
    mant >>= BigInt(zeros);
    exp += zeros;
  }
  return { neg: value.neg, mant, exp };
}

function make(value: Exact, prec: number): Num {
  const { neg, mant, exp } = value;
  if (prec === PARSE_PRECISION) {
    // A plain number when a normal float64 holds it exactly: a mantissa of at most 53 bits scaled by a power of two
    // is exact unless it overflows or falls below the normal range.
    if (mant === 0n) return neg ? -0 : 0;
    if (bitLength(mant) <= 53) {
      const magnitude = Number(mant) * 2 ** exp;
      if (Number.isFinite(magnitude) && magnitude >= 2 ** -1022) return neg ? -magnitude : magnitude;
    }
  }
  return new BigNumber(neg, mant, exp, prec);
}

function exactOf(n: Num): Exact {
  if (typeof n === 'number') return exactOfFloat(n);
  return { neg: n.neg, mant: n.mant, exp: n.exp };
}

function precisionOf(n: Num): number {
  return typeof n === 'number' ? PARSE_PRECISION : n.prec;
}

function isInf(n: Num): boolean {
  return typeof n === 'number' ? !Number.isFinite(n) : n.inf;
}

function isZero(n: Num): boolean {
  return typeof n === 'number' ? n === 0 : !n.inf && n.mant === 0n;
}

function isNeg(n: Num): boolean {
  return typeof n === 'number' ? n < 0 || Object.is(n, -0) : n.neg;
}

export function infinity(neg: boolean): BigNumber {
  return new BigNumber(neg, 0n, 0, PARSE_PRECISION, true);
}

/** A cty number from a float64 result of a Go function (cty.NumberFloatVal: 53-bit precision). */
export function fromFloat64(x: number): Num {
  if (Number.isNaN(x)) throw new RangeError('NaN is not a number cty can hold');
  if (!Number.isFinite(x)) return infinity(x < 0);
  const exact = round(exactOfFloat(x), FLOAT_PRECISION);
  return new BigNumber(exact.neg, exact.mant, exact.exp, FLOAT_PRECISION);
}

/** A cty number from an integer (Go's SetInt on a new Float: precision 64, or the integer's length when longer). */
export function fromBigInt(i: bigint): BigNumber {
  const neg = i < 0n;
  const mant = neg ? -i : i;
  const bits = Math.max(64, bitLength(mant));
  const exact = round({ neg, mant, exp: 0 }, bits);
  return new BigNumber(neg, exact.mant, exact.exp, bits);
}

/**
 * A count as cty returns it from length(), index() or signum() (cty.NumberIntVal: 64-bit precision). Its value
 * prints like any integer, but an inexact operation with another number of low precision rounds at 64 bits:
 * `length("ab") / length("abc")` is 0.6666666666666666667 in OpenTofu, `pow(1.5, 53) * length("ab")` prints 20
 * digits.
 */
export function fromInt64(n: number): BigNumber {
  const neg = n < 0 || Object.is(n, -0);
  const exact = round({ neg, mant: BigInt(Math.abs(n)), exp: 0 }, 64);
  return new BigNumber(neg && n !== 0, exact.mant, exact.exp, 64);
}

/** An integer at the precision of `like` (Go's SetInt on a Float that has a precision: rounds when longer). */
export function withPrecision(i: bigint, like: Num): Num {
  const prec = precisionOf(like);
  const neg = i < 0n;
  // A big.Int has no negative zero.
  return make(round({ neg: neg, mant: neg ? -i : i, exp: 0 }, prec), prec);
}

/** The number as the nearest float64 (Go's Float.Float64). */
export function toFloat64(n: Num): number {
  if (typeof n === 'number') return n;
  if (n.inf) return n.neg ? -Infinity : Infinity;
  if (n.mant === 0n) return n.neg ? -0 : 0;
  const rounded = round({ neg: n.neg, mant: n.mant, exp: n.exp }, 53);
  const magnitude = Number(rounded.mant) * 2 ** rounded.exp;
  const scaled = Number.isFinite(magnitude) ? magnitude : Number(rounded.mant) * 2 ** (rounded.exp - 64) * 2 ** 64;
  return n.neg ? -scaled : scaled;
}

/** The number as a float64 when one holds it exactly (undefined otherwise): the fast paths compute with it. */
function exactFloat(n: Num): number | undefined {
  if (typeof n === 'number') return n;
  if (n.inf || n.mant >= 2n ** 53n) return undefined;
  const value = Number(n.mant) * 2 ** n.exp;
  return value >= 2 ** -1022 || n.mant === 0n ? (n.neg ? -value : value) : undefined;
}

/** An exact float64 result at a precision: a plain number at 512 bits, else a BigNumber of that precision. */
function atPrecision(value: number, prec: number): Num {
  if (prec === PARSE_PRECISION) return value;
  if (value === 0) return new BigNumber(Object.is(value, -0), 0n, 0, prec);
  const exact = round(exactOfFloat(value), prec);
  return new BigNumber(exact.neg, exact.mant, exact.exp, prec);
}

/** Dekker's split product: a * b as hi + lo exactly (when nothing overflows), so lo === 0 says hi is exact. */
function productError(a: number, b: number, hi: number): number {
  const split = (x: number): [number, number] => {
    const c = 134217729 * x;
    const high = c - (c - x);
    return [high, x - high];
  };
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  return al * bl - (hi - ah * bh - al * bh - ah * bl);
}

// --- arithmetic ------------------------------------------------------------------------------------------------

function addExact(a: Exact, b: Exact, prec: number): Exact {
  if (a.mant === 0n && b.mant === 0n) return { neg: a.neg && b.neg, mant: 0n, exp: 0 };
  if (a.mant === 0n) return round(b, prec);
  if (b.mant === 0n) return round(a, prec);
  // Keep shifts bounded: an addend far below the other's last bit only decides rounding (a sticky bit).
  const topA = a.exp + bitLength(a.mant);
  const topB = b.exp + bitLength(b.mant);
  const floor = Math.max(topA, topB) - prec - 4;
  const clamp = (x: Exact): Exact => (x.exp + bitLength(x.mant) < floor ? { neg: x.neg, mant: 1n, exp: floor - 1 } : x);
  const x = clamp(a);
  const y = clamp(b);
  const exp = Math.min(x.exp, y.exp);
  const mx = (x.mant << BigInt(x.exp - exp)) * (x.neg ? -1n : 1n);
  const my = (y.mant << BigInt(y.exp - exp)) * (y.neg ? -1n : 1n);
  const sum = mx + my;
  if (sum === 0n) return { neg: false, mant: 0n, exp: 0 };
  return round({ neg: sum < 0n, mant: sum < 0n ? -sum : sum, exp }, prec);
}

/** a + b, as cty adds (the precision is the larger of the two). */
export function add(a: Num, b: Num): Num {
  const x = exactFloat(a);
  const y = exactFloat(b);
  if (x !== undefined && y !== undefined) {
    const sum = x + y;
    // Exact when the rounding error of the float64 sum (Knuth's TwoSum) is zero.
    const bv = sum - x;
    if (Number.isFinite(sum) && x - (sum - bv) + (y - bv) === 0 && (sum === 0 || Math.abs(sum) >= 2 ** -1022)) {
      return atPrecision(sum, Math.max(precisionOf(a), precisionOf(b)));
    }
  }
  if (isInf(a) || isInf(b)) {
    if (isInf(a) && isInf(b) && isNeg(a) !== isNeg(b)) throw new RangeError('infinity minus infinity');
    return infinity(isInf(a) ? isNeg(a) : isNeg(b));
  }
  const prec = Math.max(precisionOf(a), precisionOf(b));
  return make(addExact(exactOf(a), exactOf(b), prec), prec);
}

export function negate(a: Num): Num {
  if (typeof a === 'number') return -a;
  return new BigNumber(!a.neg, a.mant, a.exp, a.prec, a.inf);
}

export function subtract(a: Num, b: Num): Num {
  return add(a, negate(b));
}

export function absolute(a: Num): Num {
  if (typeof a === 'number') return Math.abs(a);
  return new BigNumber(false, a.mant, a.exp, a.prec, a.inf);
}

/** a * b, as cty multiplies: rounded to 512 bits, with the precision of the larger operand or of the product. */
export function multiply(a: Num, b: Num): Num {
  const x = exactFloat(a);
  const y = exactFloat(b);
  if (x !== undefined && y !== undefined) {
    const product = x * y;
    const exact =
      (Number.isSafeInteger(x) && Number.isSafeInteger(y) && Number.isSafeInteger(product)) ||
      (Number.isFinite(product) &&
        Math.abs(product) >= 2 ** -1000 &&
        Math.abs(product) < 2 ** 1000 &&
        productError(x, y, product) === 0);
    if (exact) return atPrecision(product, Math.max(precisionOf(a), precisionOf(b)));
  }
  const neg = isNeg(a) !== isNeg(b);
  if (isInf(a) || isInf(b)) {
    if (isZero(a) || isZero(b)) throw new RangeError('zero times infinity');
    return infinity(neg);
  }
  const ea = exactOf(a);
  const eb = exactOf(b);
  const product = round({ neg, mant: ea.mant * eb.mant, exp: ea.exp + eb.exp }, PARSE_PRECISION);
  const prec = Math.max(precisionOf(a), precisionOf(b), bitLength(product.mant));
  return make(product, prec);
}

function quotient(x: Exact, y: Exact, prec: number): Exact {
  const neg = x.neg !== y.neg;
  if (x.mant === 0n) return { neg, mant: 0n, exp: 0 };
  const shift = Math.max(0, prec + 2 + bitLength(y.mant) - bitLength(x.mant));
  const numerator = x.mant << BigInt(shift);
  const q = numerator / y.mant;
  const r = numerator - q * y.mant;
  return round({ neg, mant: q, exp: x.exp - y.exp - shift }, prec, r !== 0n);
}

/** a / b, as cty divides (b must not be zero; the caller reports that). */
export function divide(a: Num, b: Num): Num {
  const x = exactFloat(a);
  const y = exactFloat(b);
  if (x !== undefined && y !== undefined && y !== 0 && x !== 0) {
    // Exact when quotient times divisor gives the dividend back exactly.
    const q = x / y;
    const back = q * y;
    if (
      Number.isFinite(q) &&
      Math.abs(q) >= 2 ** -1000 &&
      Math.abs(q) < 2 ** 1000 &&
      back === x &&
      productError(q, y, back) === 0
    ) {
      return atPrecision(q, Math.max(precisionOf(a), precisionOf(b)));
    }
  }
  const neg = isNeg(a) !== isNeg(b);
  if (isInf(a)) {
    if (isInf(b)) throw new RangeError('infinity divided by infinity');
    return infinity(neg);
  }
  if (isInf(b)) return make({ neg, mant: 0n, exp: 0 }, Math.max(precisionOf(a), precisionOf(b)));
  if (isZero(b)) {
    if (isZero(a)) throw new RangeError('zero divided by zero');
    return infinity(neg);
  }
  const prec = Math.max(precisionOf(a), precisionOf(b));
  return make(quotient(exactOf(a), exactOf(b), prec), prec);
}

/** The integer part, truncated toward zero (Go's Float.Int), and whether it was exact. */
export function truncate(n: Num): { readonly value: bigint; readonly exact: boolean } {
  if (typeof n === 'number' && Number.isSafeInteger(n)) return { value: BigInt(n), exact: true };
  if (isInf(n)) throw new RangeError('an infinity has no integer part');
  const { neg, mant, exp } = exactOf(n);
  let value: bigint;
  let exact: boolean;
  if (exp >= 0) {
    value = mant << BigInt(exp);
    exact = true;
  } else {
    value = mant >> BigInt(-exp);
    exact = value << BigInt(-exp) === mant;
  }
  return { value: neg ? -value : value, exact };
}

/** a % b, as cty computes it: a - trunc(a / b) * b, at the precision of a (b zero gives a). */
export function modulo(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number' && Number.isSafeInteger(a) && Number.isSafeInteger(b) && b !== 0) {
    const r = a % b;
    return r === 0 && !Object.is(a, -0) ? 0 : r;
  }
  if (isInf(a) || isInf(b)) return multiply(a, b);
  if (isZero(b)) return a;
  const ratio = truncate(divide(a, b)).value;
  const prec = precisionOf(a);
  const whole = round({ neg: ratio < 0n, mant: ratio < 0n ? -ratio : ratio, exp: 0 }, prec);
  const product = round(
    { neg: whole.neg !== isNeg(b), mant: whole.mant * exactOf(b).mant, exp: whole.exp + exactOf(b).exp },
    prec,
  );
  return make(addExact(exactOf(a), { ...product, neg: !product.neg }, prec), prec);
}

/** -1, 0 or 1 as a < b, a == b, a > b (signed zeros are equal). */
export function compare(a: Num, b: Num): number {
  const x = exactFloat(a);
  const y = exactFloat(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  const infA = isInf(a);
  const infB = isInf(b);
  if (infA || infB) {
    const sa = infA ? (isNeg(a) ? -2 : 2) : 0;
    const sb = infB ? (isNeg(b) ? -2 : 2) : 0;
    if (sa !== sb) return sa < sb ? -1 : 1;
    if (infA && infB) return 0;
  }
  const difference = addExact(exactOf(a), { ...exactOf(b), neg: !isNeg(b) }, Number.MAX_SAFE_INTEGER);
  if (difference.mant === 0n) return 0;
  return difference.neg ? -1 : 1;
}

export function isInteger(n: Num): boolean {
  if (typeof n === 'number') return Number.isInteger(n);
  return !n.inf && (n.mant === 0n || n.exp >= 0);
}

/** The number as a JavaScript integer when it is one within ±2^53 (undefined otherwise). */
export function toSafeInteger(n: Num): number | undefined {
  if (typeof n === 'number') return Number.isSafeInteger(n) ? n : undefined;
  if (!isInteger(n)) return undefined;
  const value = truncate(n).value;
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : undefined;
}

export function sign(n: Num): number {
  if (isZero(n)) return 0;
  return isNeg(n) ? -1 : 1;
}

export { isInf as isInfinite, isNeg as isNegative, isZero };

// --- parsing -----------------------------------------------------------------------------------------------------

const NUMBER_TEXT = /^([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:([eEpP])([+-]?\d+))?$/;
/** Decimal exponents beyond this are refused rather than expanded into huge integers. */
const MAX_DECIMAL_EXPONENT = 10_000;

/**
 * Parses a number as cty.ParseNumberVal does (Go's big.ParseFloat, base 10, 512 bits, ties to even): decimal digits
 * with an optional fraction and an `e` exponent, or a `p` exponent (a power of two); a sign; `Inf`. No spaces, no
 * underscores, no `0x`. Undefined when the text is not a number.
 */
export function parseNumber(text: string, prec = PARSE_PRECISION): Num | undefined {
  const inf = /^([+-]?)[Ii]nf$/.exec(text);
  if (inf) return infinity(inf[1] === '-');
  const match = NUMBER_TEXT.exec(text);
  if (!match) return undefined;
  const [, signText, whole = '', fraction = '', bare = '', marker, exponentText] = match;
  const neg = signText === '-';
  const fractionDigits = bare !== '' ? bare : fraction;
  const digits = (bare !== '' ? '' : whole) + fractionDigits;
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  if (!Number.isSafeInteger(exponent)) return undefined;
  let decimal = -fractionDigits.length;
  let binary = 0;
  if (marker === 'e' || marker === 'E') decimal += exponent;
  else if (marker !== undefined) binary = exponent;
  // Fast path: a short integer or a fraction float64 holds exactly parses to a plain number.
  const mant = BigInt(digits);
  if (mant === 0n) return make({ neg, mant: 0n, exp: 0 }, prec);
  if (Math.abs(decimal) > MAX_DECIMAL_EXPONENT || Math.abs(binary) > 2 ** 31) return undefined;
  if (decimal >= 0) {
    return make(round({ neg, mant: mant * 10n ** BigInt(decimal), exp: binary }, prec), prec);
  }
  // mant / 10^k = mant / 5^k * 2^-k
  const k = -decimal;
  return make(quotient({ neg, mant, exp: binary - k }, { neg: false, mant: 5n ** BigInt(k), exp: 0 }, prec), prec);
}

/**
 * A number hcl2json wrote as a JSON number (a literal written as a whole attribute value or inside a literal tuple
 * or object). hcl2json has already made it a float64, so its shortest text is read back as cty reads a literal:
 * `0.1` becomes 512-bit 0.1 again. Digits beyond float64's 17 are lost before platctl sees them.
 */
export function fromJsonNumber(x: number): Num {
  if (Number.isSafeInteger(x) || !Number.isFinite(x)) return x;
  return parseNumber(String(x)) ?? x;
}

// --- printing ------------------------------------------------------------------------------------------------------

/** A decimal: digits without trailing zeros, and the position of the point (value = 0.digits * 10^point). */
interface Decimal {
  digits: string;
  point: number;
}

function toDecimal(mant: bigint, exp: number): Decimal {
  if (mant === 0n) return { digits: '', point: 0 };
  let text: string;
  let point: number;
  if (exp >= 0) {
    text = (mant << BigInt(exp)).toString();
    point = text.length;
  } else {
    text = (mant * 5n ** BigInt(-exp)).toString();
    point = text.length + exp;
  }
  const trimmed = text.replace(/0+$/, '');
  return { digits: trimmed, point };
}

function digitAt(d: Decimal, i: number): string {
  return i < d.digits.length ? (d.digits[i] as string) : '0';
}

function trimZeros(d: Decimal): Decimal {
  const digits = d.digits.replace(/0+$/, '');
  return digits === '' ? { digits: '', point: 0 } : { digits, point: d.point };
}

function roundDown(d: Decimal, n: number): Decimal {
  if (n < 0 || n >= d.digits.length) return d;
  return trimZeros({ digits: d.digits.slice(0, n), point: d.point });
}

function roundUp(d: Decimal, n: number): Decimal {
  if (n < 0 || n >= d.digits.length) return d;
  let i = n;
  while (i > 0 && d.digits[i - 1] === '9') i--;
  if (i === 0) return { digits: '1', point: d.point + 1 };
  const last = String.fromCharCode(d.digits.charCodeAt(i - 1) + 1);
  return { digits: d.digits.slice(0, i - 1) + last, point: d.point };
}

/** Rounds to n digits, half to even on the exact digits (Go's decimal.round). */
function roundDigits(d: Decimal, n: number): Decimal {
  if (n < 0 || n >= d.digits.length) return d;
  const next = d.digits[n] as string;
  const up =
    next === '5' && n + 1 === d.digits.length ? n > 0 && ((d.digits.charCodeAt(n - 1) - 48) & 1) !== 0 : next >= '5';
  return up ? roundUp(d, n) : roundDown(d, n);
}

/** The shortest digits that read back to the value at its precision (Go's roundShortest). */
function shortestDecimal(n: BigNumber): Decimal {
  const d = toDecimal(n.mant, n.exp);
  if (n.mant === 0n) return d;
  // A mantissa of prec + 1 bits whose last bit is half an ulp.
  const shift = bitLength(n.mant) - (n.prec + 1);
  const mant = shift < 0 ? n.mant << BigInt(-shift) : n.mant >> BigInt(shift);
  const exp = n.exp + shift;
  const lower = toDecimal(mant - 1n, exp);
  const upper = toDecimal(mant + 1n, exp);
  const inclusive = (mant & 2n) === 0n;
  for (let i = 0; i < d.digits.length; i++) {
    const m = d.digits[i] as string;
    const l = digitAt(lower, i);
    const u = digitAt(upper, i);
    const okDown = l !== m || (inclusive && i + 1 === lower.digits.length);
    const okUp = m !== u && (inclusive || m.charCodeAt(0) + 1 < u.charCodeAt(0) || i + 1 < upper.digits.length);
    if (okDown && okUp) return roundDigits(d, i + 1);
    if (okDown) return roundDown(d, i + 1);
    if (okUp) return roundUp(d, i + 1);
  }
  return d;
}

function asBig(n: Num): BigNumber {
  if (typeof n !== 'number') return n;
  if (!Number.isFinite(n)) return infinity(n < 0);
  const exact = round(exactOfFloat(n), PARSE_PRECISION);
  return new BigNumber(exact.neg, exact.mant, exact.exp, PARSE_PRECISION);
}

function fixed(d: Decimal, prec: number): string {
  let out = '';
  if (d.point > 0) {
    out = d.digits.slice(0, d.point);
    out += '0'.repeat(Math.max(0, d.point - d.digits.length));
  } else {
    out = '0';
  }
  if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) {
      const j = d.point + i;
      out += j >= 0 && j < d.digits.length ? d.digits[j] : '0';
    }
  }
  return out;
}

function exponential(d: Decimal, prec: number, letter: 'e' | 'E'): string {
  let out = d.digits[0] ?? '0';
  if (prec > 0) {
    out += '.';
    const more = d.digits.slice(1, prec + 1);
    out += more + '0'.repeat(prec - more.length);
  }
  const exp = d.digits.length > 0 ? d.point - 1 : 0;
  const magnitude = Math.abs(exp);
  return `${out}${letter}${exp < 0 ? '-' : '+'}${magnitude < 10 ? '0' : ''}${magnitude}`;
}

/**
 * Go's big.Float Text(format, prec): 'f' (no exponent), 'e'/'E', 'g'/'G'; a negative precision means the shortest
 * digits that read back exactly at the value's precision. This is how cty prints numbers: Text('f', -1) when a
 * number becomes a string or JSON, Text('g', -1) for format's %v.
 */
export function formatNum(n: Num, format: 'f' | 'e' | 'E' | 'g' | 'G', precision = -1): string {
  if (format === 'f' && precision < 0) {
    const fast = shortestFast(n);
    if (fast !== undefined) return fast;
  }
  const big = asBig(n);
  const sign = big.neg ? '-' : '';
  if (big.inf) return big.neg ? '-Inf' : '+Inf';
  let d = toDecimal(big.mant, big.exp);
  let prec = precision;
  const shortest = precision < 0;
  if (shortest) {
    d = shortestDecimal(big);
    if (format === 'e' || format === 'E') prec = d.digits.length - 1;
    else if (format === 'f') prec = Math.max(d.digits.length - d.point, 0);
    else prec = d.digits.length;
  } else if (format === 'e' || format === 'E') {
    d = roundDigits(d, 1 + prec);
  } else if (format === 'f') {
    d = roundDigits(d, d.point + prec);
  } else {
    if (prec === 0) prec = 1;
    d = roundDigits(d, prec);
  }
  if (format === 'e' || format === 'E') return sign + exponential(d, prec, format);
  if (format === 'f') return sign + fixed(d, prec);
  let eprec = prec;
  if (eprec > d.digits.length && d.digits.length >= d.point) eprec = d.digits.length;
  if (shortest) eprec = 6;
  const exp = d.point - 1;
  if (exp < -4 || exp >= eprec) {
    if (prec > d.digits.length) prec = d.digits.length;
    return sign + exponential(d, prec - 1, format === 'g' ? 'e' : 'E');
  }
  if (prec > d.point) prec = d.digits.length;
  return sign + fixed(d, Math.max(prec - d.point, 0));
}

/**
 * Text('f', -1) without the general algorithm where the answer is known: an integer within 2^53 at 53 bits or more
 * prints all its digits; a plain number (512 bits) whose exact expansion is short prints that expansion (a shorter
 * decimal would be far outside half an ulp at 512 bits); a float64 result (53 bits) prints JavaScript's shortest
 * digits, which are Go's except for powers of two (Go's bounds are symmetric there), left to the general path.
 */
function shortestFast(n: Num): string | undefined {
  const value = exactFloat(n);
  if (value === undefined || Object.is(value, -0)) return undefined;
  if (Number.isSafeInteger(value)) return String(value);
  const prec = precisionOf(n);
  // A float64 integer beyond 2^53 at 512 bits: its exact digits.
  if (Number.isInteger(value)) return prec === PARSE_PRECISION ? BigInt(value).toString() : undefined;
  if (Math.abs(value) >= 1e21 || Math.abs(value) < 1e-6) return undefined;
  if (prec === PARSE_PRECISION) {
    const { exp } = exactOfFloat(value);
    if (exp < -100) return undefined;
    return value.toFixed(-exp).replace(/0+$/, '').replace(/\.$/, '');
  }
  if (prec === FLOAT_PRECISION && typeof n !== 'number' && n.mant !== 1n) {
    const text = String(value);
    return text.includes('e') ? undefined : text;
  }
  return undefined;
}

/** The text cty gives a number converted to a string (Text('f', -1)): "0.1", "1e21" in full, "-0". */
export function formatShortest(n: Num): string {
  return formatNum(n, 'f');
}

/** Numbers equal as cty compares them: the same shortest text, with -0 equal to 0. */
export function numbersEqual(a: Num, b: Num): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  const x = formatShortest(a);
  const y = formatShortest(b);
  return (x === '-0' ? '0' : x) === (y === '-0' ? '0' : y);
}
