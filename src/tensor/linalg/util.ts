import type { SliceArg } from '../api/indexing.js';
import type { FloatDType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float, Kind } from '../kind.js';
import type { Tensor } from '../tensor.js';

/** @internal Slice args selecting `rows` and `cols` of the last two dims of a rank-`rank` tensor. */
export function lastTwo(rank: number, rows: SliceArg, cols: SliceArg): SliceArg[] {
  const args: SliceArg[] = new Array<SliceArg>(rank - 2).fill(null);
  args.push(rows, cols);
  return args;
}

/** @internal Checks rank >= `min` (matrices in the last two dims). */
export function expectMatrix(x: Tensor<number, Kind>, op: string, min = 2): void {
  if (x.rank() < min)
    throw new BurnError(
      op,
      `input of shape ${fmt(x.dims())} has rank ${x.rank()}; expected rank >= ${min} (matrices in the last two dims)`,
    );
}

/** @internal Machine epsilon (the gap above 1) of a float dtype. */
export function epsilonOf(dtype: FloatDType): number {
  switch (dtype) {
    case 'f64':
      return Number.EPSILON;
    case 'f32':
      return 2 ** -23;
    case 'f16':
      return 2 ** -10;
    case 'bf16':
      return 2 ** -7;
  }
}

/** @internal Smallest positive normal value of a float dtype. */
export function minPositiveOf(dtype: FloatDType): number {
  switch (dtype) {
    case 'f64':
      return 2 ** -1022;
    case 'f32':
    case 'bf16':
      return 2 ** -126;
    case 'f16':
      return 2 ** -14;
  }
}

/**
 * @internal Runs `fn` in f32 for f16/bf16 inputs (casting the results back), as Burn's `lu` and
 * `det` do; f32 and f64 run as they are.
 */
export function inWorkingPrecision<R extends readonly Tensor<number, Float>[]>(
  x: Tensor<number, Float>,
  fn: (x: Tensor<number, Float>) => R,
): R {
  const dtype = x.dtype();
  if (dtype !== 'f16' && dtype !== 'bf16') return fn(x);
  return fn(x.cast('f32')).map((t) => t.cast(dtype)) as unknown as R;
}
