// Vectorized f32 transcendental functions (Cephes-style range reduction + minimax polynomials,
// about 1 ulp, with IEEE special values: NaN propagates, overflow gives ±inf, log(0) = -inf,
// log(x < 0) = NaN).

const LN2_HI: f32 = 0.693359375;
const LN2_LO: f32 = -2.12194440e-4;
const LOG2E: f32 = 1.44269504088896341;

/** e^x for four lanes. */
@inline export function exp4(x: v128): v128 {
  // Outside [-103.97, 88.72] the result is 0 or inf (or a NaN input).
  const xc = f32x4.max(f32x4.min(x, f32x4.splat(88.72283935546875)), f32x4.splat(-103.97208404541015625));
  // n = round(x / ln 2); r = x - n ln 2 in two steps (Cody-Waite).
  const fn = f32x4.nearest(f32x4.mul(xc, f32x4.splat(LOG2E)));
  let r = f32x4.sub(xc, f32x4.mul(fn, f32x4.splat(LN2_HI)));
  r = f32x4.sub(r, f32x4.mul(fn, f32x4.splat(LN2_LO)));
  const r2 = f32x4.mul(r, r);
  let p = f32x4.splat(1.9875691500e-4);
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.3981999507e-3));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(8.3334519073e-3));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(4.1665795894e-2));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.6666665459e-1));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(5.0000001201e-1));
  p = f32x4.add(f32x4.add(f32x4.mul(p, r2), r), f32x4.splat(1));
  // Scale by 2^n as 2^(n - n/2) · 2^(n/2): both factors are normal for n in [-150, 128], so
  // results near the overflow bound and subnormal results come out right.
  const n = i32x4.trunc_sat_f32x4_s(fn);
  const n1 = i32x4.shr_s(n, 1);
  const n2 = i32x4.sub(n, n1);
  const s1 = i32x4.shl(i32x4.add(n1, i32x4.splat(127)), 23);
  const s2 = i32x4.shl(i32x4.add(n2, i32x4.splat(127)), 23);
  let y = f32x4.mul(f32x4.mul(p, s1), s2);
  y = v128.bitselect(f32x4.splat(Infinity), y, f32x4.gt(x, f32x4.splat(88.72283935546875)));
  y = v128.bitselect(f32x4.splat(0), y, f32x4.lt(x, f32x4.splat(-103.97208404541015625)));
  return v128.bitselect(x, y, f32x4.ne(x, x));
}

/** Natural logarithm for four lanes. */
@inline export function log4(x: v128): v128 {
  // Subnormal inputs are scaled by 2^25 first.
  const sub = f32x4.lt(x, f32x4.splat(1.17549435e-38));
  const xs = v128.bitselect(f32x4.mul(x, f32x4.splat(33554432)), x, sub);
  const bits = xs;
  // x = m · 2^e with m in [sqrt(1/2), sqrt(2)).
  let e = i32x4.sub(i32x4.shr_u(bits, 23), i32x4.splat(126));
  let m = v128.or(v128.and(bits, i32x4.splat(0x007fffff)), i32x4.splat(0x3f000000)); // [0.5, 1)
  const lt = f32x4.lt(m, f32x4.splat(0.707106781186547524));
  e = i32x4.add(e, lt); // lt lanes are -1: e - 1
  m = f32x4.add(f32x4.sub(m, f32x4.splat(1)), v128.and(m, lt)); // m - 1 (+ m where m < sqrt(1/2))
  let fe = f32x4.convert_i32x4_s(e);
  fe = f32x4.sub(fe, v128.and(f32x4.splat(25), sub));
  const z = f32x4.mul(m, m);
  let p = f32x4.splat(7.0376836292e-2);
  p = f32x4.add(f32x4.mul(p, m), f32x4.splat(-1.1514610310e-1));
  p = f32x4.add(f32x4.mul(p, m), f32x4.splat(1.1676998740e-1));
  p = f32x4.add(f32x4.mul(p, m), f32x4.splat(-1.2420140846e-1));
  p = f32x4.add(f32x4.mul(p, m), f32x4.splat(1.4249322787e-1));
  p = f32x4.add(f32x4.mul(p, m), f32x4.splat(-1.6668057665e-1));
  p = f32x4.add(f32x4.mul(p, m), f32x4.splat(2.0000714765e-1));
  p = f32x4.add(f32x4.mul(p, m), f32x4.splat(-2.4999993993e-1));
  p = f32x4.add(f32x4.mul(p, m), f32x4.splat(3.3333331174e-1));
  let y = f32x4.mul(f32x4.mul(p, m), z);
  y = f32x4.add(y, f32x4.mul(fe, f32x4.splat(LN2_LO)));
  y = f32x4.sub(y, f32x4.mul(z, f32x4.splat(0.5)));
  y = f32x4.add(f32x4.add(m, y), f32x4.mul(fe, f32x4.splat(LN2_HI)));
  // Special values: log(0) = -inf, log(x < 0) = NaN, log(inf) = inf, NaN stays NaN.
  y = v128.bitselect(f32x4.splat(-Infinity), y, f32x4.eq(x, f32x4.splat(0)));
  y = v128.bitselect(f32x4.splat(NaN), y, f32x4.lt(x, f32x4.splat(0)));
  y = v128.bitselect(x, y, f32x4.eq(x, f32x4.splat(Infinity)));
  return v128.bitselect(x, y, f32x4.ne(x, x));
}

/** Hyperbolic tangent for four lanes. */
@inline export function tanh4(x: v128): v128 {
  const ax = f32x4.abs(x);
  // |x| < 0.625: odd polynomial; otherwise 1 - 2 / (e^(2|x|) + 1) with the sign restored.
  const z = f32x4.mul(x, x);
  let p = f32x4.splat(-5.70498872745e-3);
  p = f32x4.add(f32x4.mul(p, z), f32x4.splat(2.06390887954e-2));
  p = f32x4.add(f32x4.mul(p, z), f32x4.splat(-5.37397155531e-2));
  p = f32x4.add(f32x4.mul(p, z), f32x4.splat(1.33314422036e-1));
  p = f32x4.add(f32x4.mul(p, z), f32x4.splat(-3.33332819422e-1));
  const small = f32x4.add(x, f32x4.mul(f32x4.mul(p, z), x));
  const e = exp4(f32x4.add(ax, ax));
  const large = f32x4.sub(f32x4.splat(1), f32x4.div(f32x4.splat(2), f32x4.add(e, f32x4.splat(1))));
  const signed = v128.or(large, v128.and(x, i32x4.splat(0x80000000)));
  const y = v128.bitselect(small, signed, f32x4.lt(ax, f32x4.splat(0.625)));
  return v128.bitselect(x, y, f32x4.ne(x, x));
}

/** Logistic sigmoid 1 / (1 + e^-x) for four lanes. */
@inline export function sigmoid4(x: v128): v128 {
  return f32x4.div(f32x4.splat(1), f32x4.add(f32x4.splat(1), exp4(f32x4.neg(x))));
}
