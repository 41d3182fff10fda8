import type { FloatDType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../kind.js';
import { broadcastShapes, checkNumel, normDim, sameShape } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';
import { minPositiveOf } from './util.js';
import { lpNormAt } from './vector-norm.js';

/**
 * Cosine similarity along `dim` (kept with size 1): `Σ x1·x2 / (max(‖x1‖, ε) · max(‖x2‖, ε))`.
 * The other dims broadcast. `epsilon` defaults to the smallest positive normal value of the
 * dtype (Burn's default), so a zero vector gives 0.
 */
export function cosineSimilarity<D extends number>(
  x1: Tensor<D, Float>,
  x2: Tensor<D, Float>,
  dim: number,
  epsilon?: number,
): Tensor<D, Float> {
  x1.expectFloat('cosineSimilarity');
  x2.expectFloat('cosineSimilarity');
  if (x1.rank() !== x2.rank()) {
    throw new BurnError(
      'cosineSimilarity',
      `inputs of shapes ${fmt(x1.dims())} and ${fmt(x2.dims())}; expected the same rank`,
    );
  }
  if (epsilon !== undefined && (typeof epsilon !== 'number' || Number.isNaN(epsilon))) {
    throw new BurnError('cosineSimilarity', `epsilon = ${String(epsilon)}; expected a number`);
  }
  const d = normDim(dim, x1.rank(), 'cosineSimilarity');
  x1.sameDevice(x2, 'cosineSimilarity');
  if (!sameShape(x1.dims(), x2.dims()))
    checkNumel(broadcastShapes(x1.dims(), x2.dims(), 'cosineSimilarity'), 'cosineSimilarity');
  const eps = epsilon ?? minPositiveOf(x1.dtype() as FloatDType);
  const dot = x1.mul(x2).sumDim(d);
  const n1 = lpNormAt(x1, 2, d, 'cosineSimilarity').clampMin(eps);
  const n2 = lpNormAt(x2, 2, d, 'cosineSimilarity').clampMin(eps);
  // Divided one norm at a time: the product of two clamped norms can be subnormal, which GPUs flush to 0.
  return dot.div(n1).div(n2);
}
