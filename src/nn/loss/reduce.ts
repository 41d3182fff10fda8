import { BurnError } from '../../tensor/errors.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { Reduction } from './reduction.js';

/** Reduces an elementwise loss: mean (also for `auto`), sum, or sum divided by the batch size (dim 0). */
export function reduceLoss(loss: Tensor<number, Float>, reduction: Reduction, layer: string): Tensor<1, Float> {
  switch (reduction) {
    case 'mean':
    case 'auto':
      return loss.mean();
    case 'sum':
      return loss.sum();
    case 'batchMean':
      return loss.sum().div(loss.dims()[0] ?? 1);
    default:
      throw new BurnError(layer, `unknown reduction ${JSON.stringify(reduction)}; expected mean, sum, batchMean or auto`);
  }
}
