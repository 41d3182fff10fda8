import { Module } from '../../module/module.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { expectPair } from './check.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/** Mean squared error (Burn's `MseLoss`): `(logits - targets)²`, then reduced. */
export class MseLoss extends Module {
  /** The reduced loss as a 1-element tensor (`mean`/`auto` or `sum`, default `mean` as PyTorch; `batchMean` is a BurnError, as in Burn). */
  forward<D extends number>(
    logits: Tensor<D, Float>,
    targets: Tensor<D, Float>,
    reduction: Reduction = 'mean',
  ): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(logits, targets), reduction, 'MseLoss');
  }

  /** The elementwise squared errors (same shape as the inputs, which must match). */
  forwardNoReduction<D extends number>(logits: Tensor<D, Float>, targets: Tensor<D, Float>): Tensor<D, Float> {
    expectPair(logits, targets, 'MseLoss', 'logits', 'targets');
    return logits.sub(targets).square();
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}
