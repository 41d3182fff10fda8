import { BurnError } from '../../core/errors.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { Reduction } from './reduction.js';

/** Options of {@link reduceLoss}. */
export interface ReduceOptions {
  /** Whether `batchMean` is supported (Burn: KL divergence only); otherwise it is a BurnError. */
  readonly batchMean?: boolean;
  /** What `auto` means (default `'mean'`). */
  readonly auto?: 'mean' | 'batchMean';
}

/**
 * Reduces an elementwise loss to a 1-element tensor as Burn does: `mean` (and `auto`, unless the
 * loss says otherwise), `sum`, and `batchMean` (the sum divided by dim 0) where supported.
 */
export function reduceLoss(
  loss: Tensor<number, Float>,
  reduction: Reduction,
  layer: string,
  options: ReduceOptions = {},
): Tensor<1, Float> {
  const r = reduction === 'auto' ? (options.auto ?? 'mean') : reduction;
  switch (r) {
    case 'mean':
      return loss.mean();
    case 'sum':
      return loss.sum();
    case 'batchMean':
      if (!options.batchMean)
        throw new BurnError(layer, `reduction 'batchMean' is not supported; expected 'mean', 'sum' or 'auto'`);
      return loss.sum().div(loss.dims()[0] ?? 1);
    default:
      throw new BurnError(
        layer,
        `unknown reduction ${JSON.stringify(reduction)}; expected ${options.batchMean ? "'mean', 'sum', 'batchMean' or 'auto'" : "'mean', 'sum' or 'auto'"}`,
      );
  }
}
