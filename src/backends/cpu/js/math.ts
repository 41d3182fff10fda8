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

/** 64-bit integer bit operations on integer-valued doubles (the i64 compute representation). */
export const i64 = {
  and: (x: number, y: number): number => fromBig(big(x) & big(y)),
  or: (x: number, y: number): number => fromBig(big(x) | big(y)),
  xor: (x: number, y: number): number => fromBig(big(x) ^ big(y)),
  shl: (x: number, y: number): number => fromBig(big(x) << big(y)),
  shr: (x: number, y: number): number => fromBig(big(x) >> big(y)),
};

/** Everything generated kernels can call. */
export const helpers = { erf, roundHalfEven, saturate, i64 };
