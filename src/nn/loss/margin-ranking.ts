import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { expectPair } from './check.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/** Configuration of {@link MarginRankingLoss} (Burn's `MarginRankingLossConfig`). */
export class MarginRankingLossConfig extends Config.define({
  /** Required gap between the ranked scores (non-negative). */
  margin: z.number().nonnegative().default(0),
}) {
  /** Creates the loss. */
  init(): MarginRankingLoss {
    return new MarginRankingLoss(this);
  }
}

/**
 * Margin ranking loss (Burn's `MarginRankingLoss`, PyTorch's `margin_ranking_loss`):
 * `max(0, -target · (first - second) + margin)`, with targets 1 (first should rank higher) or -1.
 */
export class MarginRankingLoss extends Module {
  /** Required gap between the ranked scores. */
  readonly margin: number;

  constructor(config: MarginRankingLossConfig = new MarginRankingLossConfig()) {
    super();
    this.margin = config.margin;
  }

  /** The reduced loss (`mean`/`auto` or `sum`; default `mean`, as PyTorch). */
  forward<D extends number>(
    first: Tensor<D, Float>,
    second: Tensor<D, Float>,
    target: Tensor<D, Float>,
    reduction: Reduction = 'mean',
  ): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(first, second, target), reduction, 'MarginRankingLoss');
  }

  /** The elementwise loss. */
  forwardNoReduction<D extends number>(
    first: Tensor<D, Float>,
    second: Tensor<D, Float>,
    target: Tensor<D, Float>,
  ): Tensor<D, Float> {
    expectPair(first, second, 'MarginRankingLoss', 'first', 'second');
    expectPair(first, target, 'MarginRankingLoss', 'first', 'target');
    return target.mul(first.sub(second)).neg().add(this.margin).relu();
  }

  override displayAttributes(): Record<string, unknown> {
    return { margin: this.margin };
  }
}
