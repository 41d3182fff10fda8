import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float, Int } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';
import { expectClassIndices, expectFloatArg, expectIntArg, expectRank } from './check.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/**
 * Configuration of {@link MultiMarginLoss} (Burn's `MultiMarginLossConfig`, plus PyTorch's
 * per-class `weights`, which Burn lacks).
 */
export class MultiMarginLossConfig extends Config.define({
  /** Required gap between the target score and every other score (non-negative). */
  margin: z.number().nonnegative().default(1),
  /** Exponent of each hinge term: 1 or 2. */
  p: z.union([z.literal(1), z.literal(2)]).default(1),
  /** Per-class weights: a sample's loss is scaled by the weight of its target class. */
  weights: z.array(z.number()).optional(),
}) {
  /** Creates the loss (on `device` when it has weights). */
  init(device?: Device): MultiMarginLoss {
    return new MultiMarginLoss(this, device);
  }
}

/**
 * Multi-class hinge loss (Burn's `MultiMarginLoss`, PyTorch's `multi_margin_loss`): per sample,
 * `Σ_{i ≠ y} max(0, margin - x[y] + x[i])^p / classes`, times `weights[y]` when weighted.
 */
export class MultiMarginLoss extends Module {
  /** Required gap between the target score and every other score. */
  readonly margin: number;
  /** Exponent of each hinge term. */
  readonly p: 1 | 2;
  /** Per-class weights. */
  readonly weights: Tensor<1, Float> | undefined;

  constructor(config: MultiMarginLossConfig = new MultiMarginLossConfig(), device?: Device) {
    super();
    this.margin = config.margin;
    this.p = config.p;
    this.weights = config.weights ? Tensor.fromFloats(config.weights, device) : undefined;
  }

  /** The reduced loss (`mean`/`auto` or `sum`; default `mean`, as PyTorch). */
  forward(input: Tensor<2, Float>, target: Tensor<1, Int>, reduction: Reduction = 'mean'): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(input, target), reduction, 'MultiMarginLoss');
  }

  /** The per-sample loss `[batch]` for scores `[batch, classes]` and class indices `[batch]`. */
  forwardNoReduction(input: Tensor<2, Float>, target: Tensor<1, Int>): Tensor<1, Float> {
    const L = 'MultiMarginLoss';
    expectFloatArg(input, L, 'input');
    expectRank(input, 2, L, 'input', '[batch, classes]');
    expectIntArg(target, L, 'target', 'class indices');
    const [batch, classes] = input.dims() as [number, number];
    if (target.dims().length !== 1 || target.dims()[0] !== batch)
      throw new BurnError(
        L,
        `target of shape ${fmt(target.dims())} for input of shape ${fmt(input.dims())}; expected [${batch}]`,
      );
    target = expectClassIndices(target, classes, L);
    if (this.weights && this.weights.dims()[0] !== classes)
      throw new BurnError(L, `${this.weights.dims()[0]} class weights for ${classes} classes`);
    const index = target.reshape([batch, 1]);
    const correct = input.gather(1, index);
    let terms = input.sub(correct).add(this.margin).clampMin(0);
    if (this.p === 2) terms = terms.square();
    // The target class itself is excluded from the sum.
    const isTarget = Tensor.arange(0, classes, input.device()).reshape([1, classes]).equal(index);
    let perSample = terms.maskFill(isTarget, 0).sumDim(1).reshape([batch]).div(classes) as Tensor<1, Float>;
    if (this.weights) perSample = perSample.mul(this.weights.toDevice(input.device()).gather(0, target));
    return perSample;
  }

  override displayAttributes(): Record<string, unknown> {
    return { margin: this.margin, p: this.p, weights: this.weights?.dims() };
  }
}
