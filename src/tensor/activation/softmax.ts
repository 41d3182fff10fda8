import type { Float } from '../kind.js';
import { normDim } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';
import { expectFloat } from './check.js';

// Normalizing activations along one dim (Burn's `softmax`, `softmin`, `quiet_softmax`, `log_softmax`).
// Negative dims count from the end.

/** `softmax(x)_i = e^(x_i) / Σ_j e^(x_j)` along `dim` (shifted by the max, so large inputs are safe). */
export function softmax<D extends number>(x: Tensor<D, Float>, dim: number): Tensor<D, Float> {
  return x.softmax(dim);
}

/** `softmin(x)_i = e^(-x_i) / Σ_j e^(-x_j)` along `dim`. */
export function softmin<D extends number>(x: Tensor<D, Float>, dim: number): Tensor<D, Float> {
  expectFloat(x, 'softmin');
  normDim(dim, x.rank(), 'softmin');
  return x.neg().softmax(dim);
}

/**
 * Quiet softmax (softmax1): `e^(x_i) / (1 + Σ_j e^(x_j))` along `dim`, which lets every output
 * approach zero. Computed with the max shifted out: `e^(x_i - m) / (Σ_j e^(x_j - m) + e^-m)`.
 */
export function quietSoftmax<D extends number>(x: Tensor<D, Float>, dim: number): Tensor<D, Float> {
  expectFloat(x, 'quietSoftmax');
  const d = normDim(dim, x.rank(), 'quietSoftmax');
  const max = x.maxDim(d);
  const e = x.sub(max).exp();
  return e.div(e.sumDim(d).add(max.neg().exp()));
}

/** `log(softmax(x))` along `dim`, computed stably as `x - max - log Σ e^(x - max)`. */
export function logSoftmax<D extends number>(x: Tensor<D, Float>, dim: number): Tensor<D, Float> {
  return x.logSoftmax(dim);
}
