import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { expectPair } from './check.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/** Configuration of {@link LpLoss} (Burn's `LpLossConfig`). */
export class LpLossConfig extends Config.define({
  /** The exponent (positive): 1 gives L1 (MAE with `mean`), 2 gives L2 (MSE with `mean`). */
  p: z.number().positive(),
}) {
  /** Creates the loss. */
  init(): LpLoss {
    return new LpLoss(this);
  }

  /** The L1 loss (`p = 1`). */
  static l1(): LpLoss {
    return new LpLossConfig({ p: 1 }).init();
  }

  /** The L2 loss (`p = 2`). */
  static l2(): LpLoss {
    return new LpLossConfig({ p: 2 }).init();
  }
}

/** `|predictions - targets|^p` elementwise, then reduced (Burn's `LpLoss`; not the p-norm). */
export class LpLoss extends Module {
  /** The exponent. */
  readonly p: number;

  constructor(config: LpLossConfig) {
    super();
    this.p = config.p;
  }

  /** The reduced loss (`mean`/`auto` or `sum`; default `mean`, as PyTorch). */
  forward<D extends number>(
    predictions: Tensor<D, Float>,
    targets: Tensor<D, Float>,
    reduction: Reduction = 'mean',
  ): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(predictions, targets), reduction, 'LpLoss');
  }

  /** The elementwise `|error|^p`. */
  forwardNoReduction<D extends number>(predictions: Tensor<D, Float>, targets: Tensor<D, Float>): Tensor<D, Float> {
    expectPair(predictions, targets, 'LpLoss', 'predictions', 'targets');
    const error = predictions.sub(targets);
    if (this.p === 1) return error.abs();
    if (this.p === 2) return error.mul(error);
    return error.abs().powf(this.p);
  }

  /** The elementwise loss averaged over `dims` (kept with size 1). */
  forwardReduceDims<D extends number>(
    predictions: Tensor<D, Float>,
    targets: Tensor<D, Float>,
    dims: readonly number[],
  ): Tensor<D, Float> {
    return this.forwardNoReduction(predictions, targets).meanDims(dims);
  }

  override displayAttributes(): Record<string, unknown> {
    return { p: this.p };
  }
}
