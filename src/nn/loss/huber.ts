import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { expectPair } from './check.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/** Configuration of {@link HuberLoss} (Burn's `HuberLossConfig`). */
export class HuberLossConfig extends Config.define({
  /** Where the loss changes from quadratic to linear (non-negative). */
  delta: z.number().nonnegative(),
}) {
  /** Creates the loss. */
  init(): HuberLoss {
    return new HuberLoss(this);
  }
}

/**
 * Huber loss (Burn's `HuberLoss`): for residuals `r = targets - predictions`,
 * `0.5 · r²` where `|r| <= delta`, `delta · (|r| - 0.5 · delta)` elsewhere.
 */
export class HuberLoss extends Module {
  /** Where the loss changes from quadratic to linear. */
  readonly delta: number;
  /** `0.5 · delta²`, precomputed. */
  readonly linBias: number;

  constructor(config: HuberLossConfig) {
    super();
    this.delta = config.delta;
    this.linBias = config.delta * config.delta * 0.5;
  }

  /** The reduced loss (`mean`/`auto` or `sum`; default `mean`, as PyTorch). */
  forward<D extends number>(
    predictions: Tensor<D, Float>,
    targets: Tensor<D, Float>,
    reduction: Reduction = 'mean',
  ): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(predictions, targets), reduction, 'HuberLoss');
  }

  /** The elementwise loss. */
  forwardNoReduction<D extends number>(predictions: Tensor<D, Float>, targets: Tensor<D, Float>): Tensor<D, Float> {
    expectPair(predictions, targets, 'HuberLoss', 'predictions', 'targets');
    return this.forwardResiduals(targets.sub(predictions));
  }

  /** The elementwise loss of residuals `targets - predictions`. */
  forwardResiduals<D extends number>(residuals: Tensor<D, Float>): Tensor<D, Float> {
    const isLarge = residuals.abs().greater(this.delta);
    // delta · sign(r) · r - 0.5 · delta² outside the bound; clamp gives delta · sign(r) there.
    const outside = residuals.clamp(-this.delta, this.delta).mul(residuals).sub(this.linBias);
    const inside = residuals.square().mul(0.5);
    return inside.maskWhere(isLarge, outside);
  }

  override displayAttributes(): Record<string, unknown> {
    return { delta: this.delta, linBias: this.linBias };
  }
}
