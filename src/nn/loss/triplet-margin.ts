import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../../tensor/kind.js';
import { lpNorm } from '../../tensor/linalg/vector-norm.js';
import type { Tensor } from '../../tensor/tensor.js';
import { expectFloatArg, expectRank } from './check.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/**
 * Configuration of {@link TripletMarginLoss} (Burn's `TripletMarginLossConfig` — `margin`, `p` —
 * plus PyTorch's `eps` and `swap`, which Burn lacks).
 */
export class TripletMarginLossConfig extends Config.define({
  /** Required gap between the anchor-negative and anchor-positive distances. */
  margin: z.number().default(1),
  /** Order of the distance norm (positive). */
  p: z.number().positive().default(2),
  /** Added to the differences before the norm (PyTorch's `pairwise_distance`), keeping gradients finite at 0; 0 gives Burn's distance. */
  eps: z.number().nonnegative().default(1e-6),
  /** Use `min(d(anchor, negative), d(positive, negative))` as the negative distance (distance swap). */
  swap: z.boolean().default(false),
}) {
  /** Creates the loss. */
  init(): TripletMarginLoss {
    return new TripletMarginLoss(this);
  }
}

/**
 * Triplet margin loss (Burn's `TripletMarginLoss`, PyTorch's `triplet_margin_loss`):
 * `max(0, d(anchor, positive) - d(anchor, negative) + margin)` per row, with
 * `d(x, y) = ‖x - y + eps‖_p` over the embedding dim.
 */
export class TripletMarginLoss extends Module {
  /** Required gap between the distances. */
  readonly margin: number;
  /** Order of the distance norm. */
  readonly p: number;
  /** Added to the differences before the norm. */
  readonly eps: number;
  /** Whether the distance swap is used. */
  readonly swap: boolean;

  constructor(config: TripletMarginLossConfig = new TripletMarginLossConfig()) {
    super();
    this.margin = config.margin;
    this.p = config.p;
    this.eps = config.eps;
    this.swap = config.swap;
  }

  /** The reduced loss (`mean`/`auto` or `sum`; default `mean`, as PyTorch). */
  forward(
    anchor: Tensor<2, Float>,
    positive: Tensor<2, Float>,
    negative: Tensor<2, Float>,
    reduction: Reduction = 'mean',
  ): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(anchor, positive, negative), reduction, 'TripletMarginLoss');
  }

  /** The per-triplet loss `[batch]` for embeddings `[batch, dim]`. */
  forwardNoReduction(
    anchor: Tensor<2, Float>,
    positive: Tensor<2, Float>,
    negative: Tensor<2, Float>,
  ): Tensor<1, Float> {
    const L = 'TripletMarginLoss';
    for (const [t, name] of [
      [anchor, 'anchor'],
      [positive, 'positive'],
      [negative, 'negative'],
    ] as const) {
      expectFloatArg(t, L, name);
      expectRank(t, 2, L, name, '[batch, dim]');
    }
    const shape = anchor.dims();
    if (fmt(positive.dims()) !== fmt(shape) || fmt(negative.dims()) !== fmt(shape)) {
      throw new BurnError(
        L,
        `anchor ${fmt(shape)}, positive ${fmt(positive.dims())} and negative ${fmt(negative.dims())}; expected equal shapes [batch, dim]`,
      );
    }
    const batch = shape[0]!;
    const distance = (x: Tensor<2, Float>, y: Tensor<2, Float>): Tensor<1, Float> => {
      const diff = this.eps === 0 ? x.sub(y) : x.sub(y).add(this.eps);
      return lpNorm(diff, this.p, 1).reshape([batch]) as Tensor<1, Float>;
    };
    const dPositive = distance(anchor, positive);
    let dNegative = distance(anchor, negative);
    if (this.swap) dNegative = dNegative.minPair(distance(positive, negative));
    return dPositive.sub(dNegative).add(this.margin).clampMin(0);
  }

  override displayAttributes(): Record<string, unknown> {
    return { margin: this.margin, p: this.p, eps: this.eps, swap: this.swap };
  }
}
