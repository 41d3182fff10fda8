// Elementwise kernels over contiguous f32 arrays, one chunk of elements per job.
import { binary2d, binary4, tailLoad, tailStore, unary4 } from './ops4';

// Op codes; the JavaScript side reads them by name from the module's exports.
export const UNARY_neg: i32 = 0;
export const UNARY_abs: i32 = 1;
export const UNARY_sqrt: i32 = 2;
export const UNARY_recip: i32 = 3;
export const UNARY_exp: i32 = 4;
export const UNARY_log: i32 = 5;
export const UNARY_sigmoid: i32 = 6;
export const UNARY_tanh: i32 = 7;
export const UNARY_floor: i32 = 8;
export const UNARY_ceil: i32 = 9;
export const UNARY_trunc: i32 = 10;
export const UNARY_round: i32 = 11;
export const UNARY_sign: i32 = 12;

export const BINARY_add: i32 = 0;
export const BINARY_sub: i32 = 1;
export const BINARY_mul: i32 = 2;
export const BINARY_div: i32 = 3;
export const BINARY_max: i32 = 4;
export const BINARY_min: i32 = 5;
/** The ReLU input gradient from the output `a` and the gradient `b`: b where a > 0 or a is NaN, else 0. */
export const BINARY_reluGrad: i32 = 6;

// Argument block (u32 fields): op, n, out, a, b (binary), scalar (f64, binaryScalar), chunk.
const OP = 0, COUNT = 4, OUT = 8, A = 12, B = 16, CHUNK = 20, SCALAR = 24;

/** The element range [start, end) of chunk `job`. */
@inline function range(args: usize, job: i32): u64 {
  const n = load<i32>(args, COUNT), chunk = load<i32>(args, CHUNK);
  const start = job * chunk;
  return (<u64>start << 32) | <u64>min(n, start + chunk);
}

/** out[i] = op(a[i]) over one chunk. */
export function unaryJob(args: usize, job: i32): void {
  const r = range(args, job);
  const start = <i32>(r >> 32), end = <i32>r;
  const out = <usize>load<u32>(args, OUT) + <usize>start * 4, a = <usize>load<u32>(args, A) + <usize>start * 4;
  const n = end - start;
  switch (load<i32>(args, OP)) {
    case UNARY_neg: unaryLoop(UNARY_neg, out, a, n); break;
    case UNARY_abs: unaryLoop(UNARY_abs, out, a, n); break;
    case UNARY_sqrt: unaryLoop(UNARY_sqrt, out, a, n); break;
    case UNARY_recip: unaryLoop(UNARY_recip, out, a, n); break;
    case UNARY_exp: unaryLoop(UNARY_exp, out, a, n); break;
    case UNARY_log: unaryLoop(UNARY_log, out, a, n); break;
    case UNARY_sigmoid: unaryLoop(UNARY_sigmoid, out, a, n); break;
    case UNARY_tanh: unaryLoop(UNARY_tanh, out, a, n); break;
    case UNARY_floor: unaryLoop(UNARY_floor, out, a, n); break;
    case UNARY_ceil: unaryLoop(UNARY_ceil, out, a, n); break;
    case UNARY_trunc: unaryLoop(UNARY_trunc, out, a, n); break;
    case UNARY_round: unaryLoop(UNARY_round, out, a, n); break;
    default: unaryLoop(UNARY_sign, out, a, n); break;
  }
}

@inline function unaryLoop(op: i32, out: usize, a: usize, n: i32): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    v128.store(out, unary4(op, v128.load(a)));
    out += 16; a += 16;
  }
  if (i < n) tailStore(out, unary4(op, tailLoad(a, n - i)), n - i);
}

/** out[i] = a[i] (op) b[i] over one chunk. */
export function binaryJob(args: usize, job: i32): void {
  const r = range(args, job);
  const start = <i32>(r >> 32), end = <i32>r;
  const out = <usize>load<u32>(args, OUT) + <usize>start * 4;
  const a = <usize>load<u32>(args, A) + <usize>start * 4, b = <usize>load<u32>(args, B) + <usize>start * 4;
  const n = end - start;
  switch (load<i32>(args, OP)) {
    case BINARY_add: binaryLoop(BINARY_add, out, a, b, n); break;
    case BINARY_sub: binaryLoop(BINARY_sub, out, a, b, n); break;
    case BINARY_mul: binaryLoop(BINARY_mul, out, a, b, n); break;
    case BINARY_div: binaryLoop(BINARY_div, out, a, b, n); break;
    case BINARY_max: binaryLoop(BINARY_max, out, a, b, n); break;
    case BINARY_reluGrad: binaryLoop(BINARY_reluGrad, out, a, b, n); break;
    default: binaryLoop(BINARY_min, out, a, b, n); break;
  }
}

@inline function binaryLoop(op: i32, out: usize, a: usize, b: usize, n: i32): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    v128.store(out, binary4(op, v128.load(a), v128.load(b)));
    out += 16; a += 16; b += 16;
  }
  if (i < n) tailStore(out, binary4(op, tailLoad(a, n - i), tailLoad(b, n - i)), n - i);
}

/**
 * out[i] = a[i] (op) s over one chunk. A scalar that is an f32 is applied in f32; any other is
 * applied in f64 and the result rounded once (as the JavaScript kernels do).
 */
export function scalarJob(args: usize, job: i32): void {
  const r = range(args, job);
  const start = <i32>(r >> 32), end = <i32>r;
  const op = load<i32>(args, OP);
  const s = load<f64>(args, SCALAR);
  let out = <usize>load<u32>(args, OUT) + <usize>start * 4, a = <usize>load<u32>(args, A) + <usize>start * 4;
  let i = start;
  if (<f64><f32>s == s || s != s) {
    const sv = f32x4.splat(<f32>s);
    for (; i + 4 <= end; i += 4) {
      v128.store(out, binary4(op, v128.load(a), sv));
      out += 16; a += 16;
    }
    if (i < end) tailStore(out, binary4(op, tailLoad(a, end - i), sv), end - i);
  } else {
    const sd = f64x2.splat(s);
    for (; i + 4 <= end; i += 4) {
      const x = v128.load(a);
      const lo = binary2d(op, f64x2.promote_low_f32x4(x), sd);
      const hi = binary2d(op, f64x2.promote_low_f32x4(v128.shuffle<f32>(x, x, 2, 3, 0, 1)), sd);
      v128.store(out, v128.shuffle<f32>(f32x4.demote_f64x2_zero(lo), f32x4.demote_f64x2_zero(hi), 0, 1, 4, 5));
      out += 16; a += 16;
    }
    for (; i < end; i++) {
      const lo = binary2d(op, f64x2.splat(<f64>load<f32>(a)), sd);
      store<f32>(out, <f32>f64x2.extract_lane(lo, 0));
      out += 4; a += 4;
    }
  }
}

// Strided binary argument block (u32 fields; strides are signed element counts). Shapes have
// rank 3 (leading dims of size 1 pad smaller ones); a job is a range of the first dim.
const S_OP = 0, S_D0 = 4, S_D1 = 8, S_D2 = 12, S_A = 16, S_AS0 = 20, S_AS1 = 24, S_AS2 = 28;
const S_B = 32, S_BS0 = 36, S_BS1 = 40, S_BS2 = 44, S_OUT = 48, S_PER_JOB = 52;

/**
 * out = a (op) b for strided (broadcast: stride 0) operands over a rank-3 shape into a contiguous
 * output; the inner loop is vectorized when both inner strides are 1 or one of them is 0.
 */
export function stridedJob(args: usize, job: i32): void {
  const op = load<i32>(args, S_OP), d0 = load<i32>(args, S_D0), d1 = load<i32>(args, S_D1), d2 = load<i32>(args, S_D2);
  const a = <usize>load<u32>(args, S_A), as0 = load<i32>(args, S_AS0), as1 = load<i32>(args, S_AS1), as2 = load<i32>(args, S_AS2);
  const b = <usize>load<u32>(args, S_B), bs0 = load<i32>(args, S_BS0), bs1 = load<i32>(args, S_BS1), bs2 = load<i32>(args, S_BS2);
  const out = <usize>load<u32>(args, S_OUT), per = load<i32>(args, S_PER_JOB);
  const r1 = min(d0, (job + 1) * per);
  for (let i0 = job * per; i0 < r1; i0++) {
    for (let i1 = 0; i1 < d1; i1++) {
      let pa = a + <usize>(i0 * as0 + i1 * as1) * 4, pb = b + <usize>(i0 * bs0 + i1 * bs1) * 4;
      let po = out + <usize>((i0 * d1 + i1) * d2) * 4;
      let i = 0;
      if (as2 == 1 && bs2 == 1) {
        for (; i + 4 <= d2; i += 4) {
          v128.store(po, binary4(op, v128.load(pa), v128.load(pb)));
          po += 16; pa += 16; pb += 16;
        }
      } else if (as2 == 1 && bs2 == 0) {
        const y = v128.load32_splat(pb);
        for (; i + 4 <= d2; i += 4) {
          v128.store(po, binary4(op, v128.load(pa), y));
          po += 16; pa += 16;
        }
      } else if (as2 == 0 && bs2 == 1) {
        const x = v128.load32_splat(pa);
        for (; i + 4 <= d2; i += 4) {
          v128.store(po, binary4(op, x, v128.load(pb)));
          po += 16; pb += 16;
        }
      }
      // The rest (and any other strides) one element at a time, through the same vector op.
      const sa = <usize>as2 * 4, sb = <usize>bs2 * 4;
      for (; i < d2; i++) {
        store<f32>(po, f32x4.extract_lane(binary4(op, f32x4.splat(load<f32>(pa)), f32x4.splat(load<f32>(pb))), 0));
        po += 4; pa += sa; pb += sb;
      }
    }
  }
}
