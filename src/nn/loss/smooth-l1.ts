import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { expectPair } from './check.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/** Configuration of {@link SmoothL1Loss} (Burn's `SmoothL1LossConfig`). */
export class SmoothL1LossConfig extends Config.define({
  /** Where the loss changes from L2 to L1 (positive). */
  beta: z.number().positive().default(1),
}) {
  /** Creates the loss. */
  init(): SmoothL1Loss {
    return new SmoothL1Loss(this);
  }
}

/**
 * Smooth L1 loss (Burn's `SmoothL1Loss`, PyTorch's `smooth_l1_loss`): for `e = predictions - targets`,
 * `0.5 · e² / beta` where `|e| < beta`, `|e| - 0.5 · beta` elsewhere. As in Burn, `forward`
 * returns the elementwise loss; `forwardWithReduction` reduces it.
 */
export class SmoothL1Loss extends Module {
  /** Where the loss changes from L2 to L1. */
  readonly beta: number;

  constructor(config: SmoothL1LossConfig = new SmoothL1LossConfig()) {
    super();
    this.beta = config.beta;
  }

  /** The elementwise loss (same shape as the inputs). */
  forward<D extends number>(predictions: Tensor<D, Float>, targets: Tensor<D, Float>): Tensor<D, Float> {
    expectPair(predictions, targets, 'SmoothL1Loss', 'predictions', 'targets');
    const error = predictions.sub(targets);
    const absError = error.abs();
    const l1 = absError.sub(0.5 * this.beta);
    const l2 = error.square().mul(0.5).div(this.beta);
    return l1.maskWhere(absError.lower(this.beta), l2);
  }

  /** The reduced loss (`mean`/`auto` or `sum`; default `mean`, as PyTorch). */
  forwardWithReduction<D extends number>(
    predictions: Tensor<D, Float>,
    targets: Tensor<D, Float>,
    reduction: Reduction = 'mean',
  ): Tensor<1, Float> {
    return reduceLoss(this.forward(predictions, targets), reduction, 'SmoothL1Loss');
  }

  /** The elementwise loss averaged over `dims` (kept with size 1; negative dims count from the end). */
  forwardReduceDims<D extends number>(
    predictions: Tensor<D, Float>,
    targets: Tensor<D, Float>,
    dims: readonly number[],
  ): Tensor<D, Float> {
    return this.forward(predictions, targets).meanDims(dims);
  }

  override displayAttributes(): Record<string, unknown> {
    return { beta: this.beta };
  }
}
