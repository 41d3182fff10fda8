import { BurnError, fmt } from '../../core/errors.js';
import type { Inc, Numeric } from '../kind.js';
import { broadcastShapes, checkNumel, normDim } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';

/**
 * Outer product of the last dims: `result[..., i, j] = lhs[..., i] · rhs[..., j]`, broadcasting
 * the leading (batch) dims. Both operands have the same rank; the result has one more.
 */
export function outer<D extends number, K extends Numeric>(lhs: Tensor<D, K>, rhs: Tensor<D, K>): Tensor<Inc<D>, K> {
  return outerDim(lhs, rhs, -1);
}

/**
 * Outer product along `dim` (negative counts from the end), broadcasting the other dims: that dim
 * becomes two dims of sizes `M × N` at `dim, dim + 1`:
 * `result[..., i, j, ...] = lhs[..., i, ...] · rhs[..., j, ...]`.
 */
export function outerDim<D extends number, K extends Numeric>(
  lhs: Tensor<D, K>,
  rhs: Tensor<D, K>,
  dim: number,
): Tensor<Inc<D>, K> {
  const a = lhs.dims(),
    b = rhs.dims();
  if (a.length !== b.length || a.length === 0) {
    throw new BurnError(
      'outer',
      `operands of shapes ${fmt(a)} and ${fmt(b)}; expected two tensors of the same rank >= 1`,
    );
  }
  const d = normDim(dim, a.length, 'outer');
  lhs.sameDevice(rhs, 'outer');
  const batch = broadcastShapes(
    a.filter((_, i) => i !== d),
    b.filter((_, i) => i !== d),
    'outer',
  );
  checkNumel([...batch.slice(0, d), a[d]!, b[d]!, ...batch.slice(d)], 'outer');
  const x = lhs.unsqueezeDim(d + 1) as unknown as Tensor<Inc<D>, Numeric>;
  const y = rhs.unsqueezeDim(d) as unknown as Tensor<Inc<D>, K>;
  return x.mul(y as never) as unknown as Tensor<Inc<D>, K>;
}
