import { contiguousStrides } from '../../../core/shape.js';

/**
 * The CPU kernels' strided odometer: every position of a shape in row-major order, with up to
 * three offsets advanced in step (one add per set and step, a carry only at a dim's end). One
 * walker with three fixed sets instead of a variadic one: offsets in locals, no per-step arrays.
 */

/** Calls `fn(o1, o2, o3)` for each position of `shape`, walking three sets of strides in step. */
export function forEachOffset3(
  shape: readonly number[],
  s1: readonly number[],
  o1: number,
  s2: readonly number[],
  o2: number,
  s3: readonly number[],
  o3: number,
  fn: (a: number, b: number, c: number) => void,
): void {
  const rank = shape.length;
  let n = 1;
  for (const s of shape) n *= s;
  if (n === 0) return;
  const idx = new Int32Array(rank);
  let p = o1,
    q = o2,
    r = o3;
  for (let i = 0; i < n; i++) {
    fn(p, q, r);
    for (let d = rank - 1; d >= 0; d--) {
      p += s1[d]!;
      q += s2[d]!;
      r += s3[d]!;
      if (++idx[d]! < shape[d]!) break;
      idx[d] = 0;
      p -= s1[d]! * shape[d]!;
      q -= s2[d]! * shape[d]!;
      r -= s3[d]! * shape[d]!;
    }
  }
}

/** Calls `fn(offset, i)` for every position of a strided shape, `i` its row-major index. */
export function forEachOffset(
  shape: readonly number[],
  strides: readonly number[],
  offset: number,
  fn: (offset: number, i: number) => void,
): void {
  const dense = contiguousStrides(shape);
  forEachOffset3(shape, strides, offset, dense, 0, dense, 0, fn);
}

/** Calls `fn(o1, o2)` for each position of `shape`, walking two sets of strides in step. */
export function forEachOffset2(
  shape: readonly number[],
  s1: readonly number[],
  o1: number,
  s2: readonly number[],
  o2: number,
  fn: (a: number, b: number) => void,
): void {
  forEachOffset3(shape, s1, o1, s2, o2, s2, o2, fn);
}
