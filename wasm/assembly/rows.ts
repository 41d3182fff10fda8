// Row kernels over contiguous [rows, len] f32 blocks: reductions and (log-)softmax. A job is a
// range of rows.
import { expNeg4, log4 } from './vmath';

export const REDUCE_sum: i32 = 0;
export const REDUCE_prod: i32 = 1;
export const REDUCE_max: i32 = 2;
export const REDUCE_min: i32 = 3;

// Argument block (u32 fields): op (or log flag), rows, len, out, a, rows per job.
const OP = 0, ROWS = 4, LEN = 8, OUT = 12, A = 16, PER_JOB = 20;

@inline export function combine(op: i32, x: v128, y: v128): v128 {
  switch (op) {
    case REDUCE_sum: return f32x4.add(x, y);
    case REDUCE_prod: return f32x4.mul(x, y);
    case REDUCE_max: return f32x4.max(x, y);
    default: return f32x4.min(x, y);
  }
}

@inline export function combine1(op: i32, x: f32, y: f32): f32 {
  switch (op) {
    case REDUCE_sum: return x + y;
    case REDUCE_prod: return x * y;
    case REDUCE_max: return max(x, y);
    default: return min(x, y);
  }
}

/** Reduces one contiguous row of `len` (> 0) floats. */
@inline function reduceRow(op: i32, p: usize, len: i32): f32 {
  let j = 0;
  let acc: f32;
  if (len >= 16) {
    // Four independent vector accumulators hide the add latency.
    let v0 = v128.load(p), v1 = v128.load(p, 16), v2 = v128.load(p, 32), v3 = v128.load(p, 48);
    j = 16;
    for (; j + 16 <= len; j += 16) {
      const q = p + <usize>j * 4;
      v0 = combine(op, v0, v128.load(q)); v1 = combine(op, v1, v128.load(q, 16));
      v2 = combine(op, v2, v128.load(q, 32)); v3 = combine(op, v3, v128.load(q, 48));
    }
    for (; j + 4 <= len; j += 4) v0 = combine(op, v0, v128.load(p + <usize>j * 4));
    const v = combine(op, combine(op, v0, v1), combine(op, v2, v3));
    acc = combine1(op, combine1(op, f32x4.extract_lane(v, 0), f32x4.extract_lane(v, 1)), combine1(op, f32x4.extract_lane(v, 2), f32x4.extract_lane(v, 3)));
  } else {
    acc = load<f32>(p);
    j = 1;
  }
  for (; j < len; j++) acc = combine1(op, acc, load<f32>(p + <usize>j * 4));
  return acc;
}

/** out[r] = reduce(a[r, :]) for the rows of job `job`. */
export function reduceJob(args: usize, job: i32): void {
  const op = load<i32>(args, OP), rows = load<i32>(args, ROWS), len = load<i32>(args, LEN), per = load<i32>(args, PER_JOB);
  const out = <usize>load<u32>(args, OUT), a = <usize>load<u32>(args, A);
  const r1 = min(rows, (job + 1) * per);
  for (let r = job * per; r < r1; r++) store<f32>(out + <usize>r * 4, reduceRow(op, a + <usize>r * <usize>len * 4, len));
}

/** Softmax (flag 0) or log-softmax (flag 1) of the rows of job `job`. */
export function softmaxJob(args: usize, job: i32): void {
  const log = load<i32>(args, OP) != 0, rows = load<i32>(args, ROWS), len = load<i32>(args, LEN), per = load<i32>(args, PER_JOB);
  const out = <usize>load<u32>(args, OUT), a = <usize>load<u32>(args, A);
  const r1 = min(rows, (job + 1) * per);
  for (let r = job * per; r < r1; r++) {
    const x = a + <usize>r * <usize>len * 4, y = out + <usize>r * <usize>len * 4;
    const mx = f32x4.splat(reduceRow(REDUCE_max, x, len));
    // Exponentials of x - max (written to the output for softmax) and their sum.
    let s = f32x4.splat(0);
    let j = 0;
    for (; j + 4 <= len; j += 4) {
      const e = expNeg4(f32x4.sub(v128.load(x + <usize>j * 4), mx));
      s = f32x4.add(s, e);
      if (!log) v128.store(y + <usize>j * 4, e);
    }
    let sum = f32x4.extract_lane(s, 0) + f32x4.extract_lane(s, 1) + f32x4.extract_lane(s, 2) + f32x4.extract_lane(s, 3);
    for (; j < len; j++) {
      const e = f32x4.extract_lane(expNeg4(f32x4.splat(load<f32>(x + <usize>j * 4) - f32x4.extract_lane(mx, 0))), 0);
      sum += e;
      if (!log) store<f32>(y + <usize>j * 4, e);
    }
    j = 0;
    if (log) {
      // (x - max) - log(sum): x - max is exact near the max, where the outputs are small.
      const ls = f32x4.splat(f32x4.extract_lane(log4(f32x4.splat(sum)), 0));
      for (; j + 4 <= len; j += 4) v128.store(y + <usize>j * 4, f32x4.sub(f32x4.sub(v128.load(x + <usize>j * 4), mx), ls));
      for (; j < len; j++) store<f32>(y + <usize>j * 4, load<f32>(x + <usize>j * 4) - f32x4.extract_lane(mx, 0) - f32x4.extract_lane(ls, 0));
    } else {
      const inv = f32x4.splat(1 / sum);
      for (; j + 4 <= len; j += 4) v128.store(y + <usize>j * 4, f32x4.mul(v128.load(y + <usize>j * 4), inv));
      for (; j < len; j++) store<f32>(y + <usize>j * 4, load<f32>(y + <usize>j * 4) * f32x4.extract_lane(inv, 0));
    }
  }
}
