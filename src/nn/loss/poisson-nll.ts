import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import { BurnError } from '../../core/errors.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { expectPair, peekValues } from './check.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/** Configuration of {@link PoissonNllLoss} (Burn's `PoissonNllLossConfig`). */
export class PoissonNllLossConfig extends Config.define({
  /** Whether the predictions are log-rates (`e^x - t·x`) rather than rates (`x - t·log(x + eps)`). */
  logInput: z.boolean().default(true),
  /** Whether to add the Stirling approximation of `log(t!)` (for targets > 1). */
  full: z.boolean().default(false),
  /** Added to the rates inside the log when `logInput` is false (positive). */
  eps: z.number().positive().default(1e-8),
}) {
  /** Creates the loss. */
  init(): PoissonNllLoss {
    return new PoissonNllLoss(this);
  }
}

/**
 * Poisson negative log likelihood (Burn's `PoissonNllLoss`, PyTorch's `poisson_nll_loss`):
 * `e^x - t·x` (log input) or `x - t·log(x + eps)`, plus `t·log(t) - t + 0.5·log(2πt)` where
 * `t > 1` when `full`. Targets must be non-negative, and so must rates when `logInput` is false
 * (checked where the values can be read synchronously, as Burn checks them).
 */
export class PoissonNllLoss extends Module {
  /** Whether the predictions are log-rates. */
  readonly logInput: boolean;
  /** Whether the Stirling term is added. */
  readonly full: boolean;
  /** Added to the rates inside the log. */
  readonly eps: number;

  constructor(config: PoissonNllLossConfig = new PoissonNllLossConfig()) {
    super();
    this.logInput = config.logInput;
    this.full = config.full;
    this.eps = config.eps;
  }

  /** The reduced loss (`mean`/`auto` or `sum`; default `mean`, as PyTorch). */
  forward<D extends number>(
    predictions: Tensor<D, Float>,
    targets: Tensor<D, Float>,
    reduction: Reduction = 'mean',
  ): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(predictions, targets), reduction, 'PoissonNllLoss');
  }

  /** The elementwise loss. */
  forwardNoReduction<D extends number>(predictions: Tensor<D, Float>, targets: Tensor<D, Float>): Tensor<D, Float> {
    expectPair(predictions, targets, 'PoissonNllLoss', 'predictions', 'targets');
    const t = peekValues(targets);
    if (t && t.some((v) => !(v >= 0)))
      throw new BurnError(
        'PoissonNllLoss',
        `targets contain ${t.find((v) => !(v >= 0))}; expected non-negative counts`,
      );
    if (!this.logInput) {
      const p = peekValues(predictions);
      if (p && p.some((v) => !(v >= 0)))
        throw new BurnError(
          'PoissonNllLoss',
          `predictions contain ${p.find((v) => !(v >= 0))} with logInput false; expected non-negative rates`,
        );
    }
    let loss = this.logInput
      ? predictions.exp().sub(targets.mul(predictions))
      : predictions.sub(targets.mul(predictions.add(this.eps).log()));
    if (this.full) {
      const stirling = targets
        .mul(targets.log())
        .sub(targets)
        .add(
          targets
            .mul(2 * Math.PI)
            .log()
            .mul(0.5),
        );
      loss = loss.add(stirling.maskWhere(targets.lowerEqual(1), targets.zerosLike()));
    }
    return loss;
  }

  override displayAttributes(): Record<string, unknown> {
    return { logInput: this.logInput, full: this.full, eps: this.eps };
  }
}
