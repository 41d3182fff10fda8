import { z } from 'zod';
import { Config } from '../config/config.js';
import { Module } from '../module/module.js';
import { BurnError, fmt } from '../core/errors.js';
import type { Dec, Float } from '../tensor/kind.js';
import { cosineSimilarity } from '../tensor/linalg/cosine-similarity.js';
import { lpNorm } from '../tensor/linalg/vector-norm.js';
import { sameShape } from '../core/shape.js';
import type { Tensor } from '../tensor/tensor.js';

function expectPair(x1: Tensor<number, Float>, x2: Tensor<number, Float>, layer: string, what: string): void {
  if (!sameShape(x1.dims(), x2.dims()) || x1.dims().length === 0) {
    throw new BurnError(
      layer,
      `inputs of shapes ${fmt(x1.dims())} and ${fmt(x2.dims())}; expected two tensors of the same shape ${what}`,
    );
  }
}

/** Configuration of {@link CosineSimilarity} (Burn's `CosineSimilarityConfig`). */
export class CosineSimilarityConfig extends Config.define({
  /** The dim reduced (default 1; negative counts from the end). */
  dim: z.number().int().default(1),
  /** Lower bound of each norm, against division by zero (default 1e-8). */
  eps: z.number().nonnegative().default(1e-8),
}) {
  /** Creates the layer. */
  init(): CosineSimilarity {
    return new CosineSimilarity(this.dim, this.eps);
  }
}

/**
 * Cosine similarity along a dim (Burn's `CosineSimilarity`, PyTorch's):
 * `Σ x1·x2 / (max(‖x1‖, eps) · max(‖x2‖, eps))`, the dim removed.
 */
export class CosineSimilarity extends Module {
  constructor(
    /** The dim reduced. */
    readonly dim: number,
    /** Lower bound of each norm. */
    readonly eps: number,
  ) {
    super();
  }

  /** Two tensors of the same shape (`[batch, features]` with the default dim 1) → the shape without `dim`. */
  forward<D extends number>(x1: Tensor<D, Float>, x2: Tensor<D, Float>): Tensor<Dec<D>, Float> {
    expectPair(x1, x2, 'CosineSimilarity', `with dim ${this.dim}`);
    const rank = x1.dims().length;
    if (this.dim < -rank || this.dim >= rank)
      throw new BurnError(
        'CosineSimilarity',
        `dim ${this.dim} for inputs of shape ${fmt(x1.dims())}; expected a dim in [${-rank}, ${rank})`,
      );
    return cosineSimilarity(x1, x2, this.dim, this.eps).squeezeDim(this.dim);
  }

  override displayAttributes(): Record<string, unknown> {
    return { dim: this.dim, eps: this.eps };
  }
}

/** Configuration of {@link PairwiseDistance} (Burn's `PairwiseDistanceConfig`). */
export class PairwiseDistanceConfig extends Config.define({
  /** Norm degree (default 2). */
  p: z.number().default(2),
  /** Added to the difference for numerical stability (default 1e-6). */
  eps: z.number().default(1e-6),
}) {
  /** Creates the layer. */
  init(): PairwiseDistance {
    return new PairwiseDistance(this.p, this.eps);
  }
}

/** `‖x1 - x2 + eps‖_p` over the last dim (Burn's `PairwiseDistance`, PyTorch's), the dim removed. */
export class PairwiseDistance extends Module {
  constructor(
    /** Norm degree. */
    readonly p: number,
    /** Added to the difference. */
    readonly eps: number,
  ) {
    super();
  }

  /** Two tensors of the same shape (`[batch, features]`) → the shape without the last dim (`[batch]`). */
  forward<D extends number>(x1: Tensor<D, Float>, x2: Tensor<D, Float>): Tensor<Dec<D>, Float> {
    expectPair(x1, x2, 'PairwiseDistance', '[..., features]');
    const last = x1.dims().length - 1;
    return lpNorm(x1.sub(x2).add(this.eps), this.p, last).squeezeDim(last);
  }

  override displayAttributes(): Record<string, unknown> {
    return { p: this.p, eps: this.eps };
  }
}
