/**
 * `pow` and `log` as OpenTofu computes them: with Go's math.Pow and math.Log on float64s. JavaScript's Math.pow and
 * Math.log are other algorithms (V8 ports fdlibm's pow, Go multiplies by repeated squaring), and the two disagree in
 * the last bit often enough to move a path built from `pow(1.5, 70)`. These follow the algorithms Go documents in
 * its math package (themselves from FreeBSD's msun), written anew here.
 */

const F64 = new DataView(new ArrayBuffer(8));

/** x = frac * 2^exp with 0.5 <= |frac| < 1 (Go's math.Frexp); zero, infinities and NaN come back as they are. */
export function frexp(x: number): { frac: number; exp: number } {
  if (x === 0 || !Number.isFinite(x)) return { frac: x, exp: 0 };
  let value = x;
  let exp = 0;
  if (Math.abs(value) < 2 ** -1022) {
    // Subnormal: scale into the normal range first.
    value *= 2 ** 52;
    exp = -52;
  }
  F64.setFloat64(0, value);
  const hi = F64.getUint32(0);
  exp += ((hi >>> 20) & 0x7ff) - 1022;
  // Set the biased exponent to 1022 (a magnitude in [0.5, 1)).
  F64.setUint32(0, (hi & 0x800fffff) | (1022 << 20));
  return { frac: F64.getFloat64(0), exp };
}

/** frac * 2^exp (Go's math.Ldexp), rounding once when the result is subnormal. */
export function ldexp(frac: number, exp: number): number {
  if (frac === 0 || !Number.isFinite(frac)) return frac;
  const { frac: f, exp: e } = frexp(frac);
  let total = exp + e;
  if (total > 1024) return f < 0 ? -Infinity : Infinity;
  if (total < -1074 - 53) return f < 0 ? -0 : 0;
  // f * 2^total, in steps that keep every intermediate exact until the last.
  let result = f;
  while (total > 1000) {
    result *= 2 ** 1000;
    total -= 1000;
  }
  if (total < -1000) {
    result *= 2 ** -1000;
    total += 1000;
    // A second step may round (subnormal result): Go rounds once there too.
    if (total < -1000) {
      result *= 2 ** -1000;
      total += 1000;
    }
  }
  return result * 2 ** total;
}

const LN2_HI = 6.9314718036912381649e-1;
const LN2_LO = 1.90821492927058770002e-10;
const L1 = 6.66666666666673513e-1;
const L2 = 3.999999999940941908e-1;
const L3 = 2.857142874366239149e-1;
const L4 = 2.222219843214978396e-1;
const L5 = 1.818357216161805012e-1;
const L6 = 1.531383769920937332e-1;
const L7 = 1.479819860511658591e-1;

/** The natural logarithm, as Go's math.Log computes it. */
export function goLog(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x < 0) return NaN;
  if (x === 0) return -Infinity;
  let { frac: f1, exp: ki } = frexp(x);
  if (f1 < Math.SQRT2 / 2) {
    f1 *= 2;
    ki--;
  }
  const f = f1 - 1;
  const k = ki;
  const s = f / (2 + f);
  const s2 = s * s;
  const s4 = s2 * s2;
  const t1 = s2 * (L1 + s4 * (L3 + s4 * (L5 + s4 * L7)));
  const t2 = s4 * (L2 + s4 * (L4 + s4 * L6));
  const r = t1 + t2;
  const hfsq = 0.5 * f * f;
  return k * LN2_HI - (hfsq - (s * (hfsq + r) + k * LN2_LO) - f);
}

function isOddInteger(x: number): boolean {
  if (Math.abs(x) >= 2 ** 53) return false;
  return Number.isInteger(x) && Math.abs(x % 2) === 1;
}

/** x to the power y, as Go's math.Pow computes it (repeated squaring for the integer part of y). */
export function goPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (y === 1) return x;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === 0) {
    if (y < 0) {
      if (Object.is(x, -0) && isOddInteger(y)) return -Infinity;
      return Infinity;
    }
    if (Object.is(x, -0) && isOddInteger(y)) return x;
    return 0;
  }
  if (!Number.isFinite(y)) {
    if (x === -1) return 1;
    if (Math.abs(x) < 1 === (y === Infinity)) return 0;
    return Infinity;
  }
  if (!Number.isFinite(x)) {
    if (x === -Infinity) return goPow(1 / x, -y);
    return y < 0 ? 0 : Infinity;
  }
  if (y === 0.5) return Math.sqrt(x);
  if (y === -0.5) return 1 / Math.sqrt(x);

  let yi = Math.trunc(Math.abs(y));
  let yf = Math.abs(y) - yi;
  if (yf !== 0 && x < 0) return NaN;
  if (yi >= 2 ** 63) {
    // A huge even integer power: overflows or underflows except for -1.
    if (x === -1) return 1;
    if (Math.abs(x) < 1 === y > 0) return 0;
    return Infinity;
  }

  let a1 = 1;
  let ae = 0;
  if (yf !== 0) {
    if (yf > 0.5) {
      yf--;
      yi++;
    }
    a1 = Math.exp(yf * goLog(x));
  }

  let { frac: x1, exp: xe } = frexp(x);
  for (let i = BigInt(yi); i !== 0n; i >>= 1n) {
    if (xe < -(1 << 12) || 1 << 12 < xe) {
      // Catastrophic overflow: the exponent alone decides.
      ae += xe;
      break;
    }
    if ((i & 1n) === 1n) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe <<= 1;
    if (x1 < 0.5) {
      x1 += x1;
      xe--;
    }
  }
  if (y < 0) {
    a1 = 1 / a1;
    ae = -ae;
  }
  return ldexp(a1, ae);
}
