import type { Dec, Float } from '../kind.js';
import { expectMatrix } from './util.js';
import type { Tensor } from '../tensor.js';
import { diag } from './diag.js';

/**
 * The trace (sum of the main diagonal) of the last two dims, per matrix of the batch:
 * `[..., R, C]` gives `[..., 1]` (Burn keeps the summed dim with size 1).
 */
export function trace<D extends number>(x: Tensor<D, Float>): Tensor<Dec<D>, Float> {
  x.expectFloat('trace');
  expectMatrix(x, 'trace');
  const d = diag(x) as Tensor<number, Float>;
  return d.sumDim(-1) as unknown as Tensor<Dec<D>, Float>;
}
