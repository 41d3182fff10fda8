/**
 * WGSL helper functions shared by the generated kernels: NaN/inf tests on bit patterns (shader
 * compilers may assume finite math), half-precision rounding, saturating casts, and f32 math
 * functions written out (range reduction + minimax polynomials, after Cephes) so results match
 * the CPU backend to a few ulp on every GPU, including special values — WGSL's builtins only
 * promise absolute errors of about 2^-11 for sin/cos and leave NaN/inf behaviour open.
 */

interface Helper {
  readonly deps: readonly string[];
  readonly code: string;
}

const H: Record<string, Helper> = {
  is_nan: { deps: [], code: 'fn is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }' },
  is_inf: { deps: [], code: 'fn is_inf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }' },
  is_finite: {
    deps: [],
    code: 'fn is_finite(x: f32) -> bool { return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u; }',
  },
  // Read through private variables: a constant bitcast to a non-finite value is a compile error.
  nan: { deps: [], code: 'var<private> k_nan: u32 = 0x7fc00000u;\nfn nan() -> f32 { return bitcast<f32>(k_nan); }' },
  inf: { deps: [], code: 'var<private> k_inf: u32 = 0x7f800000u;\nfn inf() -> f32 { return bitcast<f32>(k_inf); }' },
  copy_sign: {
    deps: [],
    code: 'fn copy_sign(m: f32, s: f32) -> f32 { return bitcast<f32>((bitcast<u32>(m) & 0x7fffffffu) | (bitcast<u32>(s) & 0x80000000u)); }',
  },
  round_f16: {
    deps: [],
    code: `fn round_f16(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  let s = b & 0x80000000u;
  let a = b & 0x7fffffffu;
  if (a >= 0x7f800000u) { return x; }
  if (a >= 0x477ff000u) { return bitcast<f32>(s | 0x7f800000u); }
  if (a < 0x38800000u) {
    let q = round(bitcast<f32>(a) * 16777216.0) * 5.9604644775390625e-8;
    return bitcast<f32>(s | bitcast<u32>(q));
  }
  let r = (a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u;
  return bitcast<f32>(s | r);
}`,
  },
  round_bf16: {
    deps: [],
    code: `fn round_bf16(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) { return bitcast<f32>((b | 0x00400000u) & 0xffff0000u); }
  return bitcast<f32>((b + 0x7fffu + ((b >> 16u) & 1u)) & 0xffff0000u);
}`,
  },
  sat_i32: {
    deps: ['is_nan'],
    code: `fn sat_i32(x: f32) -> i32 {
  if (is_nan(x)) { return 0; }
  if (x >= 2147483648.0) { return 2147483647; }
  if (x <= -2147483648.0) { return -2147483647 - 1; }
  return i32(x);
}`,
  },
  sat_u32: {
    deps: ['is_nan'],
    code: `fn sat_u32(x: f32) -> u32 {
  if (is_nan(x) || x <= 0.0) { return 0u; }
  if (x >= 4294967296.0) { return 0xffffffffu; }
  return u32(x);
}`,
  },
  sat_small: {
    deps: ['is_nan'],
    code: `fn sat_small(x: f32, lo: f32, hi: f32) -> i32 {
  if (is_nan(x)) { return 0; }
  return i32(clamp(trunc(x), lo, hi));
}`,
  },
  f_max: {
    deps: ['is_nan'],
    code: 'fn f_max(x: f32, y: f32) -> f32 { if (is_nan(x)) { return x; } if (is_nan(y)) { return y; } return select(y, x, x > y || (x == y && (bitcast<u32>(x) == 0u))); }',
  },
  f_min: {
    deps: ['is_nan'],
    code: 'fn f_min(x: f32, y: f32) -> f32 { if (is_nan(x)) { return x; } if (is_nan(y)) { return y; } return select(y, x, x < y || (x == y && (bitcast<u32>(x) == 0x80000000u))); }',
  },
  f_exp: {
    deps: ['is_nan', 'inf'],
    code: `fn f_exp(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  if (x > 88.72284) { return inf(); }
  if (x < -103.972084) { return 0.0; }
  let k = round(x * 1.4426950408889634);
  let r = (x - k * 0.693145751953125) - k * 1.428606765330187e-06;
  let r2 = r * r;
  let p = 1.0 + r + r2 * (0.5 + r * (0.16666666666666666 + r * (0.041666666666666664 + r * (0.008333333333333333 + r * (0.001388888888888889 + r * 0.0001984126984126984)))));
  let ki = i32(k);
  if (ki > 127) { return ldexp(ldexp(p, 127), ki - 127); }
  if (ki < -126) { return ldexp(ldexp(p, -126), ki + 126); }
  return ldexp(p, ki);
}`,
  },
  f_expm1: {
    deps: ['f_exp'],
    code: `fn f_expm1(x: f32) -> f32 {
  if (abs(x) < 0.5) {
    return x + x * x * (0.5 + x * (0.16666666666666666 + x * (0.041666666666666664 + x * (0.008333333333333333 + x * (0.001388888888888889 + x * (0.0001984126984126984 + x * 2.48015873015873e-05))))));
  }
  return f_exp(x) - 1.0;
}`,
  },
  f_log: {
    deps: ['is_nan', 'nan', 'inf'],
    code: `fn f_log(x: f32) -> f32 {
  if (is_nan(x) || x < 0.0) { return nan(); }
  if (x == 0.0) { return -inf(); }
  if (x == inf()) { return x; }
  var fe = frexp(x);
  var m = fe.fract;
  var e = fe.exp;
  if (m < 0.70710678118654752) { m = m * 2.0; e = e - 1; }
  let f = m - 1.0;
  let s = f / (2.0 + f);
  let z = s * s;
  let t = z * (0.6666666666666735 + z * (0.3999999999940942 + z * (0.2857142874366239 + z * (0.22222198432149784 + z * (0.1818357216161805 + z * 0.15313837699209373)))));
  let l = f - s * (f - t);
  return f32(e) * 0.693145751953125 + (l + f32(e) * 1.428606765330187e-06);
}`,
  },
  f_log1p: {
    deps: ['f_log', 'nan', 'inf', 'is_nan'],
    code: `fn f_log1p(x: f32) -> f32 {
  if (is_nan(x) || x < -1.0) { return nan(); }
  if (x == -1.0) { return -inf(); }
  if (abs(x) < 1e-4) { return x * (1.0 - x * (0.5 - x * 0.3333333333333333)); }
  let u = 1.0 + x;
  if (u == inf()) { return u; }
  return f_log(u) - ((u - 1.0) - x) / u;
}`,
  },
  f_sqrt: { deps: ['nan'], code: 'fn f_sqrt(x: f32) -> f32 { if (x < 0.0) { return nan(); } return sqrt(x); }' },
  f_sincos: {
    deps: ['is_finite', 'nan'],
    code: `// Returns vec2(sin x, cos x): reduction by pi/4 (3-part Cody-Waite), Cephes polynomials.
fn f_sincos(x: f32) -> vec2<f32> {
  if (!is_finite(x)) { return vec2<f32>(nan(), nan()); }
  let ax = abs(x);
  if (ax > 8192.0) { return vec2<f32>(sin(x), cos(x)); }
  var j = u32(ax * 1.2732395447351628);
  j = (j + 1u) & 0xfffffffeu;
  let y = f32(j);
  let r = ((ax - y * 0.78515625) - y * 2.4187564849853515625e-4) - y * 3.77489497744594108e-8;
  let z = r * r;
  let sp = r + r * z * (-1.6666654611e-1 + z * (8.3321608736e-3 + z * -1.9515295891e-4));
  let cp = 1.0 - 0.5 * z + z * z * (4.166664568298827e-2 + z * (-1.388731625493765e-3 + z * 2.443315711809948e-5));
  let q = (j >> 1u) & 3u;
  var s = sp;
  var c = cp;
  if (q == 1u) { s = cp; c = -sp; }
  if (q == 2u) { s = -sp; c = -cp; }
  if (q == 3u) { s = -cp; c = sp; }
  if (x < 0.0) { s = -s; }
  return vec2<f32>(s, c);
}`,
  },
  f_sin: { deps: ['f_sincos'], code: 'fn f_sin(x: f32) -> f32 { if (x == 0.0) { return x; } return f_sincos(x).x; }' },
  f_cos: { deps: ['f_sincos'], code: 'fn f_cos(x: f32) -> f32 { return f_sincos(x).y; }' },
  f_tan: {
    deps: ['f_sincos'],
    code: 'fn f_tan(x: f32) -> f32 { if (x == 0.0) { return x; } let v = f_sincos(x); return v.x / v.y; }',
  },
  f_asin: {
    deps: ['nan', 'is_nan'],
    code: `fn f_asin(x: f32) -> f32 {
  let a = abs(x);
  if (is_nan(x) || a > 1.0) { return nan(); }
  var z: f32;
  var v: f32;
  let big = a > 0.5;
  if (big) { z = 0.5 * (1.0 - a); v = sqrt(z); } else { z = a * a; v = a; }
  var r = ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z + 1.6666752422e-1) * z * v + v;
  if (big) { r = 1.5707963267948966 - 2.0 * r; }
  return select(r, -r, x < 0.0);
}`,
  },
  f_acos: {
    deps: ['f_asin', 'nan', 'is_nan'],
    code: `fn f_acos(x: f32) -> f32 {
  if (is_nan(x) || abs(x) > 1.0) { return nan(); }
  if (x < -0.5) { return 3.141592653589793 - 2.0 * f_asin(sqrt(0.5 * (1.0 + x))); }
  if (x > 0.5) { return 2.0 * f_asin(sqrt(0.5 * (1.0 - x))); }
  return 1.5707963267948966 - f_asin(x);
}`,
  },
  f_atan: {
    deps: ['is_nan'],
    code: `fn f_atan(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  let a = abs(x);
  var y0 = 0.0;
  var t = a;
  if (a > 2.414213562373095) { y0 = 1.5707963267948966; t = -1.0 / a; }
  else if (a > 0.4142135623730950) { y0 = 0.7853981633974483; t = (a - 1.0) / (a + 1.0); }
  let z = t * t;
  let r = y0 + ((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * t + t);
  return select(r, -r, x < 0.0);
}`,
  },
  f_atan2: {
    deps: ['f_atan', 'is_nan', 'is_inf', 'nan', 'copy_sign'],
    code: `fn f_atan2(y: f32, x: f32) -> f32 {
  if (is_nan(x) || is_nan(y)) { return nan(); }
  let xneg = (bitcast<u32>(x) & 0x80000000u) != 0u;
  var r: f32;
  if (is_inf(x) && is_inf(y)) { r = select(0.7853981633974483, 2.356194490192345, xneg); }
  else if (y == 0.0 || is_inf(x)) { r = select(0.0, 3.141592653589793, xneg); }
  else if (x == 0.0 || is_inf(y)) { r = 1.5707963267948966; }
  else {
    let a = f_atan(abs(y) / abs(x));
    r = select(a, 3.141592653589793 - a, xneg);
  }
  return copy_sign(r, y);
}`,
  },
  f_hypot: {
    deps: ['is_nan', 'is_inf', 'inf'],
    // Scaled by the larger magnitude, so the squares neither overflow nor underflow; ±∞ wins over NaN (IEEE hypot).
    code: `fn f_hypot(x: f32, y: f32) -> f32 {
  if (is_inf(x) || is_inf(y)) { return inf(); }
  if (is_nan(x) || is_nan(y)) { return x + y; }
  let a = abs(x);
  let b = abs(y);
  let big = max(a, b);
  if (big == 0.0) { return 0.0; }
  let r = min(a, b) / big;
  return big * sqrt(1.0 + r * r);
}`,
  },
  f_sinh: {
    deps: ['f_expm1', 'f_exp', 'is_nan'],
    code: `fn f_sinh(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  let a = abs(x);
  var r: f32;
  if (a < 1.0) { let e = f_expm1(a); r = 0.5 * (e + e / (e + 1.0)); }
  else if (a < 88.0) { let e = f_exp(a); r = 0.5 * (e - 1.0 / e); }
  else { let e = f_exp(0.5 * a); r = 0.5 * e * e; }
  return select(r, -r, x < 0.0);
}`,
  },
  f_cosh: {
    deps: ['f_exp'],
    code: `fn f_cosh(x: f32) -> f32 {
  let a = abs(x);
  if (a < 88.0) { let e = f_exp(a); return 0.5 * (e + 1.0 / e); }
  let e = f_exp(0.5 * a);
  return 0.5 * e * e;
}`,
  },
  f_tanh: {
    deps: ['f_expm1', 'is_nan'],
    code: `fn f_tanh(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  let a = abs(x);
  var r = 1.0;
  if (a < 9.1) { let e = f_expm1(2.0 * a); r = e / (e + 2.0); }
  return select(r, -r, x < 0.0);
}`,
  },
  f_asinh: {
    deps: ['f_log1p', 'f_log', 'is_nan', 'is_inf'],
    code: `fn f_asinh(x: f32) -> f32 {
  if (is_nan(x) || is_inf(x) || x == 0.0) { return x; }
  let a = abs(x);
  var r: f32;
  if (a > 1e18) { r = f_log(a) + 0.6931471805599453; }
  else { let a2 = a * a; r = f_log1p(a + a2 / (1.0 + sqrt(1.0 + a2))); }
  return select(r, -r, x < 0.0);
}`,
  },
  f_acosh: {
    deps: ['f_log1p', 'f_log', 'nan', 'is_nan', 'is_inf'],
    code: `fn f_acosh(x: f32) -> f32 {
  if (is_nan(x) || x < 1.0) { return nan(); }
  if (is_inf(x)) { return x; }
  if (x > 1e18) { return f_log(x) + 0.6931471805599453; }
  let t = x - 1.0;
  return f_log1p(t + sqrt(t * (x + 1.0)));
}`,
  },
  f_atanh: {
    deps: ['f_log1p', 'nan', 'inf', 'is_nan'],
    code: `fn f_atanh(x: f32) -> f32 {
  let a = abs(x);
  if (is_nan(x) || a > 1.0) { return nan(); }
  if (a == 1.0) { return select(inf(), -inf(), x < 0.0); }
  if (x == 0.0) { return x; }
  let r = 0.5 * f_log1p(2.0 * a / (1.0 - a));
  return select(r, -r, x < 0.0);
}`,
  },
  f_erf: {
    deps: ['f_exp', 'is_nan'],
    code: `fn f_erf(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  let a = abs(x);
  if (a < 0.5) {
    let z = x * x;
    return 1.1283791670955126 * x * (1.0 + z * (-0.3333333333333333 + z * (0.1 + z * (-0.023809523809523808 + z * (0.004629629629629629 + z * (-0.0007575757575757576 + z * 0.00010683760683760684))))));
  }
  if (a >= 6.0) { return select(1.0, -1.0, x < 0.0); }
  let t = 1.0 / (1.0 + 0.5 * a);
  let erfc = t * f_exp(-a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  let r = 1.0 - erfc;
  return select(r, -r, x < 0.0);
}`,
  },
  f_sigmoid: { deps: ['f_exp'], code: 'fn f_sigmoid(x: f32) -> f32 { return 1.0 / (1.0 + f_exp(-x)); }' },
  f_pow: {
    deps: ['is_nan', 'is_inf', 'nan', 'inf', 'f_exp', 'f_log'],
    code: `fn f_pow(x: f32, y: f32) -> f32 {
  if (y == 0.0) { return 1.0; }
  if (is_nan(x) || is_nan(y)) { return nan(); }
  let ax = abs(x);
  if (is_inf(y)) {
    if (ax == 1.0) { return nan(); }
    return select(0.0, inf(), (ax > 1.0) == (y > 0.0));
  }
  let isInt = trunc(y) == y;
  let ay = abs(y);
  let odd = isInt && ay < 16777216.0 && (u32(ay) & 1u) == 1u;
  let xneg = (bitcast<u32>(x) & 0x80000000u) != 0u;
  if (x == 0.0 || is_inf(x)) {
    let big = is_inf(x) == (y > 0.0);
    let m = select(0.0, inf(), big);
    return select(m, -m, xneg && odd);
  }
  if (x < 0.0 && !isInt) { return nan(); }
  var r: f32;
  if (isInt && ay <= 64.0) {
    var n = u32(ay);
    var b = ax;
    r = 1.0;
    loop {
      if ((n & 1u) == 1u) { r = r * b; }
      n = n >> 1u;
      if (n == 0u) { break; }
      b = b * b;
    }
    if (y < 0.0) { r = 1.0 / r; }
  } else {
    r = f_exp(y * f_log(ax));
  }
  return select(r, -r, x < 0.0 && odd);
}`,
  },
  f_fmod: {
    deps: ['is_inf', 'is_finite'],
    code: `fn f_fmod(x: f32, y: f32) -> f32 {
  if (is_inf(y) && is_finite(x)) { return x; }
  return x - y * trunc(x / y);
}`,
  },
  i_pow: {
    deps: [],
    code: `fn i_pow(x: i32, y: i32) -> i32 {
  if (y < 0) {
    if (x == 1) { return 1; }
    if (x == -1) { return select(1, -1, (y & 1) == 1); }
    return 0;
  }
  var n = u32(y);
  var b = x;
  var r = 1;
  loop {
    if (n == 0u) { break; }
    if ((n & 1u) == 1u) { r = r * b; }
    n = n >> 1u;
    b = b * b;
  }
  return r;
}`,
  },
  u_pow: {
    deps: [],
    code: `fn u_pow(x: u32, y: u32) -> u32 {
  var n = y;
  var b = x;
  var r = 1u;
  loop {
    if (n == 0u) { break; }
    if ((n & 1u) == 1u) { r = r * b; }
    n = n >> 1u;
    b = b * b;
  }
  return r;
}`,
  },
};

/** The WGSL source of the named helpers and everything they use, dependencies first. */
export function helperSource(names: Iterable<string>): string {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const h = H[name];
    if (!h) throw new Error(`webgpu: unknown WGSL helper ${name}`);
    for (const d of h.deps) visit(d);
    out.push(h.code);
  };
  for (const n of names) visit(n);
  return out.join('\n');
}
