import { Module } from '../../module/module.js';
import { softplus } from '../../tensor/activation/smooth.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { expectPair } from './check.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/**
 * Soft margin loss (Burn's `SoftMarginLoss`, PyTorch's `soft_margin_loss`): the logistic loss
 * `log(1 + e^(-target · logit))` for targets 1 or -1, computed as a stable softplus.
 */
export class SoftMarginLoss extends Module {
  /** The reduced loss (`mean`/`auto` or `sum`; default `mean`, as PyTorch). */
  forward<D extends number>(
    logits: Tensor<D, Float>,
    targets: Tensor<D, Float>,
    reduction: Reduction = 'mean',
  ): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(logits, targets), reduction, 'SoftMarginLoss');
  }

  /** The elementwise loss. */
  forwardNoReduction<D extends number>(logits: Tensor<D, Float>, targets: Tensor<D, Float>): Tensor<D, Float> {
    expectPair(logits, targets, 'SoftMarginLoss', 'logits', 'targets');
    return softplus(targets.mul(logits).neg());
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}
