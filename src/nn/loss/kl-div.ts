import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import type { FloatDType } from '../../core/dtype.js';
import type { Float } from '../../tensor/kind.js';
import { minPositiveOf } from '../../tensor/linalg/util.js';
import type { Tensor } from '../../tensor/tensor.js';
import { expectPair } from './check.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/** Configuration of {@link KLDivLoss} (Burn's `KLDivLossConfig`). */
export class KLDivLossConfig extends Config.define({
  /** Whether the targets are log-probabilities (default: probabilities). */
  logTarget: z.boolean().default(false),
}) {
  /** Creates the loss. */
  init(): KLDivLoss {
    return new KLDivLoss(this);
  }
}

/**
 * Kullback-Leibler divergence (Burn's `KLDivLoss`, PyTorch's `kl_div`) between log-probability
 * `predictions` and `targets`: `targets · (log(targets) - predictions)` elementwise (with
 * `targets` clamped into [smallest positive normal, 1] inside the log, so a 0 target adds 0), or
 * `e^targets · (targets - predictions)` when `logTarget`.
 */
export class KLDivLoss extends Module {
  /** Whether the targets are log-probabilities. */
  readonly logTarget: boolean;

  constructor(config: KLDivLossConfig = new KLDivLossConfig()) {
    super();
    this.logTarget = config.logTarget;
  }

  /**
   * The reduced loss: `batchMean` (the sum divided by the batch size, dim 0 — the mathematical
   * KL divergence, and what `auto` means here), `mean` over every element, or `sum`. The default
   * is `mean`, as PyTorch's (which warns that `batchMean` is the true divergence: pass it).
   */
  forward<D extends number>(
    predictions: Tensor<D, Float>,
    targets: Tensor<D, Float>,
    reduction: Reduction = 'mean',
  ): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(predictions, targets), reduction, 'KLDivLoss', {
      batchMean: true,
      auto: 'batchMean',
    });
  }

  /** The elementwise loss. */
  forwardNoReduction<D extends number>(predictions: Tensor<D, Float>, targets: Tensor<D, Float>): Tensor<D, Float> {
    expectPair(predictions, targets, 'KLDivLoss', 'predictions', 'targets');
    if (this.logTarget) return targets.exp().mul(targets.sub(predictions));
    const logTarget = targets.clamp(minPositiveOf(targets.dtype() as FloatDType), 1).log();
    return targets.mul(logTarget.sub(predictions));
  }

  override displayAttributes(): Record<string, unknown> {
    return { logTarget: this.logTarget };
  }
}
