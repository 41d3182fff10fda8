import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float, Int } from '../../tensor/kind.js';
import { cosineSimilarity } from '../../tensor/linalg/cosine-similarity.js';
import type { Tensor } from '../../tensor/tensor.js';
import { expectFloatArg, expectIntArg, expectRank } from './check.js';
import { reduceLoss } from './reduce.js';
import { reductionSchema, type Reduction } from './reduction.js';

/** Configuration of {@link CosineEmbeddingLoss} (Burn's `CosineEmbeddingLossConfig`). */
export class CosineEmbeddingLossConfig extends Config.define({
  /** Similarity below which dissimilar pairs cost nothing. */
  margin: z.number().default(0),
  /** The reduction `forward` applies (part of the config in Burn). */
  reduction: reductionSchema.default('mean'),
}) {
  /** Creates the loss. */
  init(): CosineEmbeddingLoss {
    return new CosineEmbeddingLoss(this);
  }
}

/**
 * Cosine embedding loss (Burn's `CosineEmbeddingLoss`, PyTorch's `cosine_embedding_loss`): for
 * each pair of rows, `1 - cos(x1, x2)` where the target is 1 and `max(0, cos(x1, x2) - margin)`
 * where it is -1 (other targets give 0). The cosine uses Burn's `cosineSimilarity` (norms clamped
 * to the smallest positive normal value; PyTorch adds 1e-12 to the squared norms instead).
 */
export class CosineEmbeddingLoss extends Module {
  /** Similarity below which dissimilar pairs cost nothing. */
  readonly margin: number;
  /** The reduction `forward` applies. */
  readonly reduction: Reduction;

  constructor(config: CosineEmbeddingLossConfig = new CosineEmbeddingLossConfig()) {
    super();
    this.margin = config.margin;
    this.reduction = config.reduction;
  }

  /** The loss reduced with the configured reduction (`mean`/`auto` or `sum`). */
  forward(input1: Tensor<2, Float>, input2: Tensor<2, Float>, target: Tensor<1, Int>): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(input1, input2, target), this.reduction, 'CosineEmbeddingLoss');
  }

  /** The per-pair loss, `[batch]`, for inputs `[batch, dim]` and targets `[batch]` of 1 or -1. */
  forwardNoReduction(input1: Tensor<2, Float>, input2: Tensor<2, Float>, target: Tensor<1, Int>): Tensor<1, Float> {
    const L = 'CosineEmbeddingLoss';
    expectFloatArg(input1, L, 'input1');
    expectFloatArg(input2, L, 'input2');
    expectRank(input1, 2, L, 'input1', '[batch, dim]');
    expectRank(input2, 2, L, 'input2', '[batch, dim]');
    expectIntArg(target, L, 'target', 'labels 1 or -1');
    const [b1, d1] = input1.dims() as [number, number];
    const [b2, d2] = input2.dims() as [number, number];
    if (b1 !== b2 || d1 !== d2)
      throw new BurnError(
        L,
        `input1 of shape ${fmt(input1.dims())} and input2 of shape ${fmt(input2.dims())}; expected equal shapes [batch, dim]`,
      );
    if (target.dims().length !== 1 || target.dims()[0] !== b1)
      throw new BurnError(
        L,
        `target of shape ${fmt(target.dims())} for inputs of shape ${fmt(input1.dims())}; expected [${b1}]`,
      );
    const cos = cosineSimilarity(input1, input2, 1).reshape([b1]) as Tensor<1, Float>;
    const similar = cos.neg().add(1);
    const dissimilar = cos.sub(this.margin).relu();
    return cos.zerosLike().maskWhere(target.equal(1), similar).maskWhere(target.equal(-1), dissimilar);
  }

  override displayAttributes(): Record<string, unknown> {
    return { margin: this.margin, reduction: this.reduction };
  }
}
