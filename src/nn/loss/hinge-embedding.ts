import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { expectPair } from './check.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/** Configuration of {@link HingeEmbeddingLoss} (Burn's `HingeEmbeddingLossConfig`). */
export class HingeEmbeddingLossConfig extends Config.define({
  /** Distance beyond which dissimilar inputs cost nothing. */
  margin: z.number().default(1),
}) {
  /** Creates the loss. */
  init(): HingeEmbeddingLoss {
    return new HingeEmbeddingLoss(this);
  }
}

/**
 * Hinge embedding loss (Burn's `HingeEmbeddingLoss`, PyTorch's `hinge_embedding_loss`) of
 * distances `input` with labels `target` (1 or -1): `x` where the target is 1,
 * `max(0, margin - x)` otherwise.
 */
export class HingeEmbeddingLoss extends Module {
  /** Distance beyond which dissimilar inputs cost nothing. */
  readonly margin: number;

  constructor(config: HingeEmbeddingLossConfig = new HingeEmbeddingLossConfig()) {
    super();
    this.margin = config.margin;
  }

  /** The reduced loss (`mean`/`auto` or `sum`; default `mean`, as PyTorch). */
  forward<D extends number>(
    input: Tensor<D, Float>,
    target: Tensor<D, Float>,
    reduction: Reduction = 'mean',
  ): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(input, target), reduction, 'HingeEmbeddingLoss');
  }

  /** The elementwise loss. */
  forwardNoReduction<D extends number>(input: Tensor<D, Float>, target: Tensor<D, Float>): Tensor<D, Float> {
    expectPair(input, target, 'HingeEmbeddingLoss', 'input', 'target');
    const negative = input.neg().add(this.margin).clampMin(0);
    return negative.maskWhere(target.equal(1), input);
  }

  override displayAttributes(): Record<string, unknown> {
    return { margin: this.margin };
  }
}
