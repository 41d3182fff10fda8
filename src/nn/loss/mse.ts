import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../tensor/errors.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/** Mean squared error (Burn's `MseLoss`). */
export class MseLoss extends Module {
  /** `(logits - targets)²` reduced by `reduction`. */
  forward<D extends number>(logits: Tensor<D, Float>, targets: Tensor<D, Float>, reduction: Reduction): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(logits, targets), reduction, 'MseLoss');
  }

  /** The elementwise squared errors. */
  forwardNoReduction<D extends number>(logits: Tensor<D, Float>, targets: Tensor<D, Float>): Tensor<D, Float> {
    if (logits.dims().join(',') !== targets.dims().join(',')) {
      throw new BurnError('MseLoss', `logits of shape ${fmt(logits.dims())} and targets of shape ${fmt(targets.dims())}; expected equal shapes`);
    }
    return logits.sub(targets).square();
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}
