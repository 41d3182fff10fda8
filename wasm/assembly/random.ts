// Random draws: Philox4x32-10 exactly as src/backend/rng.ts defines the stream, so the values are
// the JavaScript engine's bit for bit. Element i of a draw is word i % 4 of block i / 4 (counter
// [block, stream, 0, 0]); u = (word >> 8)·2⁻²⁴, then the distribution's f64 arithmetic, rounded to
// f32 once. Four blocks run side by side in the lanes of i32x4 vectors; the 32×32-bit products
// come from the widening multiplies (exact 64-bit lanes).

/** Draw kinds (the argument block's first field). */
export const RANDOM_default: i32 = 0;
export const RANDOM_uniform: i32 = 1;
export const RANDOM_bernoulli: i32 = 2;

// Argument block: u32 kind, n, out, key0, key1, stream, chunk (a multiple of 16), then f64 a (low
// or prob) at 32 and f64 b (high) at 40.
const KIND = 0, COUNT = 4, OUT = 8, KEY0 = 12, KEY1 = 16, STREAM = 20, CHUNK = 24, A = 32, B = 40;

const M0: u32 = 0xd2511f53, M1: u32 = 0xcd9e8d57, W0: u32 = 0x9e3779b9, W1: u32 = 0xbb67ae85;
/** 2⁻²⁴: a word's top 24 bits as a fraction. */
const UNIT: f64 = 5.960464477539063e-8;

/** Values [job·chunk, …) of the draw at `args`. */
export function randomJob(args: usize, job: i32): void {
  const n = load<i32>(args, COUNT), chunk = load<i32>(args, CHUNK);
  const start = job * chunk, end = min(n, start + chunk);
  const kind = load<i32>(args, KIND);
  const key0 = load<u32>(args, KEY0), key1 = load<u32>(args, KEY1), stream = load<u32>(args, STREAM);
  const a = load<f64>(args, A), b = load<f64>(args, B);
  const out = <usize>load<u32>(args, OUT);
  const m0 = i32x4.splat(<i32>M0), m1 = i32x4.splat(<i32>M1), lanes = i32x4(0, 1, 2, 3);
  let i = start;
  for (; i + 16 <= end; i += 16) {
    let c0 = i32x4.add(i32x4.splat(i >>> 2), lanes), c1 = i32x4.splat(<i32>stream), c2 = i32x4.splat(0), c3 = i32x4.splat(0);
    let k0 = key0, k1 = key1;
    for (let r = 0; r < 10; r++) {
      const p0l = i64x2.extmul_low_i32x4_u(c0, m0), p0h = i64x2.extmul_high_i32x4_u(c0, m0);
      const p1l = i64x2.extmul_low_i32x4_u(c2, m1), p1h = i64x2.extmul_high_i32x4_u(c2, m1);
      c0 = v128.xor(v128.xor(v128.shuffle<i32>(p1l, p1h, 1, 3, 5, 7), c1), i32x4.splat(<i32>k0));
      c2 = v128.xor(v128.xor(v128.shuffle<i32>(p0l, p0h, 1, 3, 5, 7), c3), i32x4.splat(<i32>k1));
      c1 = v128.shuffle<i32>(p1l, p1h, 0, 2, 4, 6);
      c3 = v128.shuffle<i32>(p0l, p0h, 0, 2, 4, 6);
      k0 += W0;
      k1 += W1;
    }
    // c_j holds word j of the four blocks: transpose so each vector is one block's four words.
    const t0 = v128.shuffle<i32>(c0, c1, 0, 4, 1, 5), t1 = v128.shuffle<i32>(c0, c1, 2, 6, 3, 7);
    const t2 = v128.shuffle<i32>(c2, c3, 0, 4, 1, 5), t3 = v128.shuffle<i32>(c2, c3, 2, 6, 3, 7);
    const p = out + <usize>i * 4;
    v128.store(p, values4(kind, v128.shuffle<i64>(t0, t2, 0, 2), a, b));
    v128.store(p, values4(kind, v128.shuffle<i64>(t0, t2, 1, 3), a, b), 16);
    v128.store(p, values4(kind, v128.shuffle<i64>(t1, t3, 0, 2), a, b), 32);
    v128.store(p, values4(kind, v128.shuffle<i64>(t1, t3, 1, 3), a, b), 48);
  }
  // The last (partial) blocks one at a time.
  for (; i < end; i += 4) {
    let c0 = <u64>(<u32>(i >>> 2)), c1 = <u64>stream, c2: u64 = 0, c3: u64 = 0, k0 = <u64>key0, k1 = <u64>key1;
    for (let r = 0; r < 10; r++) {
      const p0 = c0 * M0, p1 = c2 * M1;
      c0 = (p1 >> 32) ^ c1 ^ k0;
      c2 = (p0 >> 32) ^ c3 ^ k1;
      c1 = p1 & 0xffffffff;
      c3 = p0 & 0xffffffff;
      k0 = (k0 + W0) & 0xffffffff;
      k1 = (k1 + W1) & 0xffffffff;
    }
    for (let j = 0; j < min(4, end - i); j++) {
      const word = j == 0 ? c0 : j == 1 ? c1 : j == 2 ? c2 : c3;
      const u = <f64>(word >> 8) * UNIT;
      store<f32>(out + <usize>(i + j) * 4, <f32>(kind == RANDOM_default ? u : kind == RANDOM_uniform ? a + (b - a) * u : u < a ? 1.0 : 0.0));
    }
  }
}

/** Four words (u32 lanes) as values of the draw, rounded to f32. */
@inline function values4(kind: i32, words: v128, a: f64, b: f64): v128 {
  const top = i32x4.shr_u(words, 8);
  // Below 2²⁴, so exact in f32: the default draw needs no f64.
  if (kind == RANDOM_default) return f32x4.mul(f32x4.convert_i32x4_u(top), f32x4.splat(<f32>UNIT));
  const unit = f64x2.splat(UNIT);
  const lo = f64x2.mul(f64x2.convert_low_i32x4_u(top), unit);
  const hi = f64x2.mul(f64x2.convert_low_i32x4_u(v128.shuffle<i32>(top, top, 2, 3, 0, 1)), unit);
  if (kind == RANDOM_uniform) {
    const span = f64x2.splat(b - a), low = f64x2.splat(a);
    const vlo = f32x4.demote_f64x2_zero(f64x2.add(low, f64x2.mul(span, lo)));
    const vhi = f32x4.demote_f64x2_zero(f64x2.add(low, f64x2.mul(span, hi)));
    return v128.shuffle<i32>(vlo, vhi, 0, 1, 4, 5);
  }
  const prob = f64x2.splat(a);
  const mask = v128.shuffle<i32>(f64x2.lt(lo, prob), f64x2.lt(hi, prob), 0, 2, 4, 6);
  return v128.and(mask, f32x4.splat(1));
}
