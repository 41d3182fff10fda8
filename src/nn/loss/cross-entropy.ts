import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Bool, Float, Int } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';
import { expectClassIndices, expectFloatArg, expectIntArg, expectRank } from './check.js';

/** The square root of f32's smallest positive normal value: Burn's clamp of probabilities before the log. */
const PROB_EPS = Math.sqrt(1.1754943508222875e-38);

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

/**
 * Cross-entropy between `[batch, classes]` scores and `[batch]` class indices (Burn's
 * `CrossEntropyLoss`), as a 1-element tensor. With `l_i = -log p_i[y_i]` (or, with smoothing,
 * `-Σ_c s_ic · log p_ic` over the smoothed targets `s`):
 * - unweighted: `Σ_i l_i / batch`;
 * - weighted: `Σ_i w[y_i] · l_i / Σ_i w[y_i]` (with smoothing each class term carries its own weight).
 *
 * Padding rows contribute 0 to the numerator but, as in Burn, still count in the denominator
 * (`batch`, or the sum of the weights of every row) — PyTorch's `ignore_index` leaves them out of
 * the denominator too. Probabilities (`logits: false`) are clamped at √(f32 min positive) before
 * the log, except with smoothing (Burn takes their plain log there).
 */
export class CrossEntropyLoss extends Module {
  /** Target values whose rows are ignored. */
  readonly padTokens: readonly number[] | undefined;
  /** Per-class weights. */
  readonly weights: Tensor<1, Float> | undefined;
  /** Label smoothing α. */
  readonly smoothing: number | undefined;
  /** Whether the inputs are logits. */
  readonly logits: boolean;

  constructor(config: CrossEntropyLossConfig, device: Device) {
    super();
    this.padTokens = config.padTokens;
    this.weights = config.weights ? Tensor.fromFloats(config.weights, device) : undefined;
    this.smoothing = config.smoothing;
    this.logits = config.logits;
  }

  /** The loss of `logits` `[batch, classes]` against class indices `targets` `[batch]`. */
  forward(logits: Tensor<2, Float>, targets: Tensor<1, Int>): Tensor<1, Float> {
    const L = 'CrossEntropyLoss';
    expectFloatArg(logits, L, 'logits');
    expectRank(logits, 2, L, 'logits', '[batch, classes]');
    expectIntArg(targets, L, 'targets', 'class indices');
    const [batch, classes] = logits.dims() as [number, number];
    if (targets.dims().length !== 1 || targets.dims()[0] !== batch) {
      throw new BurnError(
        L,
        `targets of shape ${fmt(targets.dims())} for logits of shape ${fmt(logits.dims())}; expected [${batch}]`,
      );
    }
    if (this.weights && this.weights.dims()[0] !== classes) {
      throw new BurnError(L, `${this.weights.dims()[0]} class weights for ${classes} classes`);
    }
    // Checked on the device where they cannot be read here (WebGPU, remote).
    targets = expectClassIndices(targets, classes, L);
    const weights = this.weights?.toDevice(logits.device());
    const pad = this.padMask(targets);
    if (this.smoothing !== undefined) {
      const alpha = this.smoothing;
      const logProbs = this.logits ? logits.logSoftmax(1) : logits.log();
      const smoothed = targets
        .oneHot(classes)
        .float(logits.dtype())
        .mul(1 - alpha)
        .add(alpha / classes);
      let perClass = logProbs.mul(smoothed as Tensor<2, Float>);
      if (weights) perClass = perClass.mul(weights.reshape([1, classes]) as Tensor<2, Float>);
      if (pad) perClass = perClass.maskFill(pad.reshape([batch, 1]).expand([batch, classes]) as Tensor<2, Bool>, 0);
      if (weights) return perClass.sum().neg().div(weights.gather(0, targets).sum());
      return perClass.sumDim(1).mean().neg();
    }
    const index = targets.reshape([batch, 1]);
    const picked = (
      this.logits ? logits.logSoftmax(1).gather(1, index) : logits.clampMin(PROB_EPS).gather(1, index).log()
    ).reshape([batch]) as Tensor<1, Float>;
    let loss = picked;
    const w = weights?.gather(0, targets);
    if (w) loss = loss.mul(w);
    if (pad) loss = loss.maskFill(pad, 0);
    return w ? loss.sum().neg().div(w.sum()) : loss.mean().neg();
  }

  /** True for padding rows (undefined without pad tokens). */
  private padMask(targets: Tensor<1, Int>): Tensor<1, Bool> | undefined {
    const pads = this.padTokens ?? [];
    if (pads.length === 0) return undefined;
    let mask = targets.equal(pads[0]!);
    for (const pad of pads.slice(1)) mask = mask.boolOr(targets.equal(pad));
    return mask;
  }

  override displayAttributes(): Record<string, unknown> {
    return { padTokens: this.padTokens, weights: this.weights?.dims(), smoothing: this.smoothing, logits: this.logits };
  }
}
