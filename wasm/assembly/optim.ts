// One fused Adam step over f32 values (see `Backend.adamStep`), rounding where the op-by-op update
// (src/optim/adam.ts) rounds, so the values are identical to it: products and sums of two f32
// values are computed in f32 (the same as rounding their f64 result), and every operation with an
// f64 constant (β, 1 − β, the step factor, ε) in f64, rounded once.

// Argument block: u32 n, p, g, m, v (m = v = 0: the first step, zero moments), outP, outM, outV;
// f64 β₁, 1 − β₁, β₂, 1 − β₂, factor, ε from byte 32.
const COUNT = 0, P = 4, G = 8, M = 12, V = 16, OUT_P = 20, OUT_M = 24, OUT_V = 28;
const BETA1 = 32, C1 = 40, BETA2 = 48, C2 = 56, FACTOR = 64, EPS = 72;

/** `x · k` for f32 lanes and an f64 `k`, each product rounded to f32 once. */
@inline function scale(x: v128, k: v128): v128 {
  const lo = f64x2.mul(f64x2.promote_low_f32x4(x), k);
  const hi = f64x2.mul(f64x2.promote_low_f32x4(v128.shuffle<f32>(x, x, 2, 3, 0, 1)), k);
  return v128.shuffle<f32>(f32x4.demote_f64x2_zero(lo), f32x4.demote_f64x2_zero(hi), 0, 1, 4, 5);
}

/** `x + k` for f32 lanes and an f64 `k`, each sum rounded to f32 once. */
@inline function shift(x: v128, k: v128): v128 {
  const lo = f64x2.add(f64x2.promote_low_f32x4(x), k);
  const hi = f64x2.add(f64x2.promote_low_f32x4(v128.shuffle<f32>(x, x, 2, 3, 0, 1)), k);
  return v128.shuffle<f32>(f32x4.demote_f64x2_zero(lo), f32x4.demote_f64x2_zero(hi), 0, 1, 4, 5);
}

/** The whole step at `args` (one job: the caller streams blocks through the memory). */
export function adamJob(args: usize): void {
  const n = load<i32>(args, COUNT);
  const p = <usize>load<u32>(args, P), g = <usize>load<u32>(args, G), m = <usize>load<u32>(args, M), v = <usize>load<u32>(args, V);
  const outP = <usize>load<u32>(args, OUT_P), outM = <usize>load<u32>(args, OUT_M), outV = <usize>load<u32>(args, OUT_V);
  const b1 = load<f64>(args, BETA1), k1 = load<f64>(args, C1), b2 = load<f64>(args, BETA2), k2 = load<f64>(args, C2);
  const f = load<f64>(args, FACTOR), e = load<f64>(args, EPS);
  const beta1 = f64x2.splat(b1), c1 = f64x2.splat(k1), beta2 = f64x2.splat(b2), c2 = f64x2.splat(k2);
  const factor = f64x2.splat(f), eps = f64x2.splat(e);
  const first = m == 0;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const at = <usize>i * 4;
    const gi = v128.load(g + at);
    let mi = scale(gi, c1), vi = scale(f32x4.mul(gi, gi), c2);
    if (!first) {
      mi = f32x4.add(scale(v128.load(m + at), beta1), mi);
      vi = f32x4.add(scale(v128.load(v + at), beta2), vi);
    }
    const step = f32x4.div(scale(mi, factor), shift(f32x4.sqrt(vi), eps));
    v128.store(outP + at, f32x4.sub(v128.load(p + at), step));
    v128.store(outM + at, mi);
    v128.store(outV + at, vi);
  }
  for (; i < n; i++) {
    const at = <usize>i * 4;
    const gi = load<f32>(g + at);
    let mi = <f32>(<f64>gi * k1), vi = <f32>(<f64>(gi * gi) * k2);
    if (!first) {
      mi = <f32>(<f64>load<f32>(m + at) * b1) + mi;
      vi = <f32>(<f64>load<f32>(v + at) * b2) + vi;
    }
    const step = <f32>(<f64>mi * f) / <f32>(<f64>Mathf.sqrt(vi) + e);
    store<f32>(outP + at, load<f32>(p + at) - step);
    store<f32>(outM + at, mi);
    store<f32>(outV + at, vi);
  }
}
