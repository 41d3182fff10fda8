import type { Dec, Kind } from '../kind.js';
import { Tensor } from '../tensor.js';
import { expectMatrix } from './util.js';

/**
 * The main diagonal of the last two dims: `[..., R, C]` gives `[..., min(R, C)]`, for every kind
 * of tensor, keeping the leading (batch) dims.
 */
export function diag<D extends number, K extends Kind>(x: Tensor<D, K>): Tensor<Dec<D>, K> {
  expectMatrix(x, 'diag');
  const shape = x.dims();
  const rank = shape.length;
  const [rows, cols] = shape.slice(-2) as [number, number];
  const len = Math.min(rows, cols);
  const flat = x.reshape([...shape.slice(0, rank - 2), rows * cols]) as Tensor<number, K>;
  const indices = Tensor.arangeStep(0, len * (cols + 1), cols + 1, x.device());
  return flat.select(rank - 2, indices) as unknown as Tensor<Dec<D>, K>;
}
