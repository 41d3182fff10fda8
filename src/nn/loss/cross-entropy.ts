import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { isIntDType } from '../../tensor/dtype.js';
import { BurnError, fmt } from '../../tensor/errors.js';
import type { Float, Int } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';

/** Configuration of {@link CrossEntropyLoss} (Burn's `CrossEntropyLossConfig`). */
export class CrossEntropyLossConfig extends Config.define({
  /** Target values whose rows are ignored (e.g. padding tokens). */
  padTokens: z.array(z.number().int().nonnegative()).optional(),
  /** Per-class weights (positive); the loss is then a weighted mean. */
  weights: z.array(z.number().positive()).optional(),
  /** Label smoothing α in [0, 1]: targets become (1 - α)·one-hot + α / classes. */
  smoothing: z.number().min(0).max(1).optional(),
  /** True when the inputs are logits (log-softmax is applied); false for probabilities. */
  logits: z.boolean().default(true),
}) {
  /** Creates the loss on `device`. */
  init(device: Device): CrossEntropyLoss {
    return new CrossEntropyLoss(this, device);
  }
}

/** Cross-entropy between `[batch, classes]` scores and `[batch]` class indices (Burn's `CrossEntropyLoss`). */
export class CrossEntropyLoss extends Module {
  readonly padTokens: readonly number[] | undefined;
  readonly weights: Tensor<1, Float> | undefined;
  readonly smoothing: number | undefined;
  readonly logits: boolean;

  constructor(config: CrossEntropyLossConfig, device: Device) {
    super();
    this.padTokens = config.padTokens;
    this.weights = config.weights ? Tensor.fromFloats(config.weights, device) : undefined;
    this.smoothing = config.smoothing;
    this.logits = config.logits;
  }

  /** The mean (or class-weighted mean) loss over the non-padding rows, as a 1-element tensor. */
  forward(logits: Tensor<2, Float>, targets: Tensor<1, Int>): Tensor<1, Float> {
    const dims = logits.dims();
    if (dims.length !== 2) throw new BurnError('CrossEntropyLoss', `logits of shape ${fmt(dims)}; expected [batch, classes]`);
    if (!isIntDType(targets.dtype())) throw new BurnError('CrossEntropyLoss', `targets must be an Int tensor of class indices, got ${targets.dtype()}`);
    const [batch, classes] = dims as [number, number];
    if (targets.dims().length !== 1 || targets.dims()[0] !== batch) {
      throw new BurnError('CrossEntropyLoss', `targets of shape ${fmt(targets.dims())} for logits of shape ${fmt(dims)}; expected [${batch}]`);
    }
    if (this.weights && this.weights.dims()[0] !== classes) {
      throw new BurnError('CrossEntropyLoss', `${this.weights.dims()[0]} class weights for ${classes} classes`);
    }
    const logProbs = this.logits ? logits.logSoftmax(1) : logits.clampMin(Math.sqrt(1.1754943508222875e-38)).log();
    const keep = this.keepMask(targets);
    if (this.smoothing !== undefined) {
      const alpha = this.smoothing;
      const smoothed = targets.oneHot(classes).float(logits.dtype()).mul(1 - alpha).add(alpha / classes);
      let perClass = logProbs.mul(smoothed as Tensor<2, Float>);
      if (this.weights) {
        perClass = perClass.mul(this.weights.reshape([1, classes]) as Tensor<2, Float>);
        const w = this.weights.gather(0, targets);
        return perClass.mul(keep.unsqueezeDim(1) as Tensor<2, Float>).sum().neg().div(w.mul(keep).sum());
      }
      return perClass.sumDim(1).squeezeDim(1).mul(keep).sum().neg().div(keep.sum());
    }
    const picked = logProbs.gather(1, targets.reshape([batch, 1])).reshape([batch]);
    if (this.weights) {
      const w = this.weights.gather(0, targets);
      return picked.mul(w).mul(keep).sum().neg().div(w.mul(keep).sum());
    }
    return picked.mul(keep).sum().neg().div(keep.sum());
  }

  /** 1 for rows that count, 0 for padding rows. */
  private keepMask(targets: Tensor<1, Int>): Tensor<1, Float> {
    let keep = targets.onesLike().float();
    for (const pad of this.padTokens ?? []) keep = keep.maskFill(targets.equal(pad), 0);
    return keep;
  }

  override displayAttributes(): Record<string, unknown> {
    return { padTokens: this.padTokens, weights: this.weights?.dims(), smoothing: this.smoothing, logits: this.logits };
  }
}
