/** Scalar math helpers shared by the generated JS kernels (they are passed in as `H`). */

const TWO_OVER_SQRT_PI = 1.1283791670955126;

/**
 * Error function to double precision: a positive-term series `erf(x) = 2/√π e^{-x²} Σ 2ⁿx^{2n+1}/(2n+1)!!`
 * below 3, Lentz's continued fraction for erfc above.
 */
export function erf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const ax = Math.abs(x);
  if (ax >= 6) return x > 0 ? 1 : -1;
  if (ax < 3) {
    const x2 = x * x;
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n++) {
      term *= (2 * x2) / (2 * n + 1);
      sum += term;
      if (Math.abs(term) < 1e-17 * Math.abs(sum)) break;
    }
    return TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
  }
  // erfc(x) = e^{-x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …)))))
  const tiny = 1e-300;
  let f = ax;
  let c = ax;
  let d = 0;
  for (let n = 1; n < 300; n++) {
    const an = n / 2;
    d = ax + an * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = ax + an / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  const erfc = Math.exp(-ax * ax) / (Math.sqrt(Math.PI) * f);
  return x > 0 ? 1 - erfc : erfc - 1;
}

/** Rounds half to even (banker's rounding), as Burn and PyTorch do. */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d < 0.5) return f;
  if (d > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/** Float to integer the way Burn casts: truncate, saturate to [lo, hi], NaN to 0. */
export function saturate(x: number, lo: number, hi: number): number {
  if (x !== x) return 0;
  const t = Math.trunc(x);
  return t < lo ? lo : t > hi ? hi : t;
}

const big = (x: number): bigint => BigInt(x);
const fromBig = (x: bigint): number => Number(BigInt.asIntN(64, x));

/** An integer `x` to a negative integer power `y`, as PyTorch gives it: 1 for 1, ±1 for -1, else 0. */
function negativePower(x: number, y: number): number {
  return x === 1 ? 1 : x === -1 ? (y % 2 === 0 ? 1 : -1) : 0;
}

/**
 * `x^y` for 32-bit (and narrower) integers, wrapping like repeated multiplication in the dtype
 * (PyTorch's repeated squaring): squares through Math.imul, whose low 32 bits are exact, where
 * Math.pow loses them past 2^53. The narrower typed arrays keep the low bits of the result, which
 * is their own wrapping.
 */
export function powInt32(x: number, y: number): number {
  if (y < 0) return negativePower(x, y);
  let r = 1,
    b = x | 0,
    n = y;
  while (n > 0) {
    if (n % 2 === 1) r = Math.imul(r, b);
    n = Math.floor(n / 2);
    b = Math.imul(b, b);
  }
  return r;
}

/**
 * `x^y` for i64 values (integer-valued doubles), wrapping modulo 2^64 as PyTorch does: exact
 * doubles while every product stays within 2^53, else BigInt squaring; the result is then stored
 * as the nearest double, like every i64 value of the js engine.
 */
function powInt64(x: number, y: number): number {
  if (y < 0) return negativePower(x, y);
  let r = 1,
    b = x,
    n = y;
  for (;;) {
    // An integer product whose true value is within 2^53 is exact in doubles; past it, BigInt.
    if (n % 2 === 1 && !(Math.abs((r *= b)) <= Number.MAX_SAFE_INTEGER)) break;
    n = Math.floor(n / 2);
    if (n === 0) return r;
    if (!(Math.abs((b *= b)) <= Number.MAX_SAFE_INTEGER)) break;
  }
  let rb = 1n,
    bb = big(x),
    nb = big(y);
  while (nb > 0n) {
    if (nb & 1n) rb = BigInt.asIntN(64, rb * bb);
    nb >>= 1n;
    bb = BigInt.asIntN(64, bb * bb);
  }
  return Number(rb);
}

/** 64-bit integer bit operations on integer-valued doubles (the i64 compute representation). */
export const i64 = {
  and: (x: number, y: number): number => fromBig(big(x) & big(y)),
  or: (x: number, y: number): number => fromBig(big(x) | big(y)),
  xor: (x: number, y: number): number => fromBig(big(x) ^ big(y)),
  shl: (x: number, y: number): number => fromBig(big(x) << big(y)),
  shr: (x: number, y: number): number => fromBig(big(x) >> big(y)),
  pow: powInt64,
};

/** Everything generated kernels can call. */
/**
 * IEEE `hypot`: `√(x² + y²)` from the plain sum of squares where it neither overflows nor
 * underflows (always for f32, f16 and bf16 values held in doubles), else `Math.hypot`, which
 * scales (and is several times slower); ±∞ wins over NaN.
 */
export function hypot(x: number, y: number): number {
  const s = x * x + y * y;
  return s < Infinity && s >= 2.2250738585072014e-308 ? Math.sqrt(s) : Math.hypot(x, y);
}

export const helpers = { erf, roundHalfEven, saturate, powInt32, hypot, i64 };
