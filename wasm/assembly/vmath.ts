// Vectorized f32 transcendental functions (Cephes-style range reduction + minimax polynomials,
// about 1 ulp, with IEEE special values: NaN propagates, overflow gives ±inf, log(0) = -inf,
// log(x < 0) = NaN).
//
// The constants live in a static table read with `v128.load32_splat` (one broadcast load each):
// V8 builds a `v128.const` from general registers with three instructions per use inside a loop,
// which made these functions 2-3× slower. Clamps use pmin/pmax (plain minps/maxps; NaN lanes are
// restored at the end) instead of min/max, whose NaN and ±0 rules cost V8 several instructions.

// prettier-ignore
const K = memory.data<f32>([
  88.72283935546875, -103.97208404541015625, 1.44269504088896341, 0.693359375, -2.12194440e-4, // 0-4: exp bounds, log2(e), ln2 hi/lo
  1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1, 1, // 5-11: exp polynomial, 1
  Infinity, 0, -Infinity, NaN, 1.17549435e-38, 33554432, 0.707106781186547524, 0.5, 25, // 12-20
  7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1, // 21-25: log polynomial
  -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1, // 26-29
  -5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1, 0.625, 2, // 30-36: tanh
  -87.33654475055310898, 12582912, // 37-38: expNeg lower bound, 1.5·2^23 (round-to-nearest by addition)
], 16);
// prettier-ignore
const KI = memory.data<i32>([127, 0x007fffff, 0x3f000000, 126, 0x80000000], 16);

/** Constant `i` of the f32 table in every lane. */
@inline function k(i: usize): v128 {
  return v128.load32_splat(K + i * 4);
}

/** Constant `i` of the i32 table in every lane. */
@inline function ki(i: usize): v128 {
  return v128.load32_splat(KI + i * 4);
}

/** e^x for four lanes. */
@inline export function exp4(x: v128): v128 {
  // Outside [-103.97, 88.72] the result is 0 or inf (or a NaN input).
  const hi = k(0), lo = k(1);
  const xc = f32x4.pmax(f32x4.pmin(x, hi), lo);
  // n = round(x / ln 2); r = x - n ln 2 in two steps (Cody-Waite).
  const fn = f32x4.nearest(f32x4.mul(xc, k(2)));
  let r = f32x4.sub(xc, f32x4.mul(fn, k(3)));
  r = f32x4.sub(r, f32x4.mul(fn, k(4)));
  const r2 = f32x4.mul(r, r);
  let p = k(5);
  p = f32x4.add(f32x4.mul(p, r), k(6));
  p = f32x4.add(f32x4.mul(p, r), k(7));
  p = f32x4.add(f32x4.mul(p, r), k(8));
  p = f32x4.add(f32x4.mul(p, r), k(9));
  p = f32x4.add(f32x4.mul(p, r), k(10));
  p = f32x4.add(f32x4.add(f32x4.mul(p, r2), r), k(11));
  // Scale by 2^n as 2^(n - n/2) · 2^(n/2): both factors are normal for n in [-150, 128], so
  // results near the overflow bound and subnormal results come out right.
  const n = i32x4.trunc_sat_f32x4_s(fn);
  const n1 = i32x4.shr_s(n, 1);
  const n2 = i32x4.sub(n, n1);
  const bias = ki(0);
  const s1 = i32x4.shl(i32x4.add(n1, bias), 23);
  const s2 = i32x4.shl(i32x4.add(n2, bias), 23);
  let y = f32x4.mul(f32x4.mul(p, s1), s2);
  y = v128.bitselect(k(12), y, f32x4.gt(x, hi));
  y = v128.andnot(y, f32x4.lt(x, lo));
  return v128.bitselect(x, y, f32x4.ne(x, x));
}

/**
 * e^x for x <= 0 (or NaN): what softmax (x - max), sigmoid and tanh need. Results below 2^-126
 * are flushed to 0 (the exact values are subnormal), so the scale by 2^n is a single exponent
 * add, and n comes from the rounding addition itself: about half the work of {@link exp4}.
 */
@inline export function expNeg4(x: v128): v128 {
  const lo = k(37), magic = k(38);
  const xc = f32x4.pmax(x, lo);
  const t = f32x4.add(f32x4.mul(xc, k(2)), magic);
  const fn = f32x4.sub(t, magic);
  let r = f32x4.sub(xc, f32x4.mul(fn, k(3)));
  r = f32x4.sub(r, f32x4.mul(fn, k(4)));
  const r2 = f32x4.mul(r, r);
  let p = k(5);
  p = f32x4.add(f32x4.mul(p, r), k(6));
  p = f32x4.add(f32x4.mul(p, r), k(7));
  p = f32x4.add(f32x4.mul(p, r), k(8));
  p = f32x4.add(f32x4.mul(p, r), k(9));
  p = f32x4.add(f32x4.mul(p, r), k(10));
  p = f32x4.add(f32x4.add(f32x4.mul(p, r2), r), k(11));
  // The low bits of t hold n (t = 1.5·2^23 + n): shift them into the exponent of p.
  const y = i32x4.add(p, i32x4.shl(i32x4.sub(t, magic), 23));
  return v128.andnot(y, f32x4.lt(x, lo));
}

/** Natural logarithm for four lanes. */
@inline export function log4(x: v128): v128 {
  // Subnormal inputs are scaled by 2^25 first.
  const sub = f32x4.lt(x, k(16));
  const bits = v128.bitselect(f32x4.mul(x, k(17)), x, sub);
  // x = m · 2^e with m in [sqrt(1/2), sqrt(2)).
  let e = i32x4.sub(i32x4.shr_u(bits, 23), ki(3));
  let m = v128.or(v128.and(bits, ki(1)), ki(2)); // [0.5, 1)
  const lt = f32x4.lt(m, k(18));
  e = i32x4.add(e, lt); // lt lanes are -1: e - 1
  m = f32x4.add(f32x4.sub(m, k(11)), v128.and(m, lt)); // m - 1 (+ m where m < sqrt(1/2))
  let fe = f32x4.convert_i32x4_s(e);
  fe = f32x4.sub(fe, v128.and(k(20), sub));
  const z = f32x4.mul(m, m);
  let p = k(21);
  p = f32x4.add(f32x4.mul(p, m), k(22));
  p = f32x4.add(f32x4.mul(p, m), k(23));
  p = f32x4.add(f32x4.mul(p, m), k(24));
  p = f32x4.add(f32x4.mul(p, m), k(25));
  p = f32x4.add(f32x4.mul(p, m), k(26));
  p = f32x4.add(f32x4.mul(p, m), k(27));
  p = f32x4.add(f32x4.mul(p, m), k(28));
  p = f32x4.add(f32x4.mul(p, m), k(29));
  let y = f32x4.mul(f32x4.mul(p, m), z);
  y = f32x4.add(y, f32x4.mul(fe, k(4)));
  y = f32x4.sub(y, f32x4.mul(z, k(19)));
  y = f32x4.add(f32x4.add(m, y), f32x4.mul(fe, k(3)));
  // Special values: log(0) = -inf, log(x < 0) = NaN, log(inf) = inf, NaN stays NaN.
  const zero = k(13);
  y = v128.bitselect(k(14), y, f32x4.eq(x, zero));
  y = v128.bitselect(k(15), y, f32x4.lt(x, zero));
  y = v128.bitselect(x, y, f32x4.eq(x, k(12)));
  return v128.bitselect(x, y, f32x4.ne(x, x));
}

/** Hyperbolic tangent for four lanes. */
@inline export function tanh4(x: v128): v128 {
  const ax = f32x4.abs(x);
  // |x| < 0.625: odd polynomial; otherwise (1 - e) / (1 + e) with e = e^(-2|x|), sign restored.
  const z = f32x4.mul(x, x);
  let p = k(30);
  p = f32x4.add(f32x4.mul(p, z), k(31));
  p = f32x4.add(f32x4.mul(p, z), k(32));
  p = f32x4.add(f32x4.mul(p, z), k(33));
  p = f32x4.add(f32x4.mul(p, z), k(34));
  const small = f32x4.add(x, f32x4.mul(f32x4.mul(p, z), x));
  const one = k(11);
  const e = expNeg4(f32x4.neg(f32x4.add(ax, ax)));
  const large = f32x4.div(f32x4.sub(one, e), f32x4.add(one, e));
  const signed = v128.or(large, v128.and(x, ki(4)));
  const y = v128.bitselect(small, signed, f32x4.lt(ax, k(35)));
  return v128.bitselect(x, y, f32x4.ne(x, x));
}

/** Logistic sigmoid 1 / (1 + e^-x) for four lanes, as e / (1 + e) with e = e^-|x| for x < 0. */
@inline export function sigmoid4(x: v128): v128 {
  const one = k(11);
  const e = expNeg4(f32x4.neg(f32x4.abs(x)));
  const inv = f32x4.div(one, f32x4.add(one, e));
  return v128.bitselect(f32x4.mul(e, inv), inv, f32x4.lt(x, k(13)));
}
