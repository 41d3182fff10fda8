import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { logSigmoid } from '../../tensor/activation/smooth.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float, Int } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';
import { expectFloatArg, expectIntArg, peekValues } from './check.js';

/** Configuration of {@link BinaryCrossEntropyLoss} (Burn's `BinaryCrossEntropyLossConfig`). */
export class BinaryCrossEntropyLossConfig extends Config.define({
  /**
   * Per-class weights (positive): for multi-label `[batch, classes]` inputs one per class; for
   * binary `[batch]` inputs two, the weights of label 0 and label 1.
   */
  weights: z.array(z.number().positive()).optional(),
  /** Label smoothing α in [0, 1]: targets become `y · (1 - α) + α / classes` (classes = 2 for binary inputs). */
  smoothing: z.number().min(0).max(1).optional(),
  /** Whether the inputs are logits (a sigmoid is applied, stably) rather than probabilities. */
  logits: z.boolean().default(false),
}) {
  /** Creates the loss on `device`. */
  init(device: Device): BinaryCrossEntropyLoss {
    return new BinaryCrossEntropyLoss(this, device);
  }
}

/**
 * Binary cross-entropy (Burn's `BinaryCrossEntropyLoss`): `-(y · log(p) + (1 - y) · log(1 - p))`
 * averaged over every element, with each log clamped at -100 (as Burn and PyTorch), or the
 * stable `(1 - y) · x - logSigmoid(x)` for logits. Inputs are `[batch]` (binary) or
 * `[batch, classes]` (multi-label), targets Int labels 0/1 of the same shape.
 */
export class BinaryCrossEntropyLoss extends Module {
  /** Per-class weights. */
  readonly weights: Tensor<1, Float> | undefined;
  /** Label smoothing α. */
  readonly smoothing: number | undefined;
  /** Whether the inputs are logits. */
  readonly logits: boolean;

  constructor(config: BinaryCrossEntropyLossConfig, device: Device) {
    super();
    this.weights = config.weights ? Tensor.fromFloats(config.weights, device) : undefined;
    this.smoothing = config.smoothing;
    this.logits = config.logits;
  }

  /** The mean loss over every element, as a 1-element tensor. */
  forward<D extends number>(logits: Tensor<D, Float>, targets: Tensor<D, Int>): Tensor<1, Float> {
    const L = 'BinaryCrossEntropyLoss';
    expectFloatArg(logits, L, 'logits');
    expectIntArg(targets, L, 'targets', 'labels 0 or 1');
    const shape = logits.dims();
    if (fmt(shape) !== fmt(targets.dims()))
      throw new BurnError(
        L,
        `logits of shape ${fmt(shape)} and targets of shape ${fmt(targets.dims())}; expected equal shapes`,
      );
    const rank = shape.length;
    if (this.weights) {
      const n = this.weights.dims()[0];
      if (rank > 1 && n !== shape[rank - 1])
        throw new BurnError(
          L,
          `${n} class weights for logits of shape ${fmt(shape)} with ${shape[rank - 1]} classes (last dim)`,
        );
      if (rank === 1 && n !== 2)
        throw new BurnError(
          L,
          `${n} weights for binary logits of shape ${fmt(shape)}; expected 2 (the weights of label 0 and label 1)`,
        );
    }
    const labelError = (v: number) => new BurnError(L, `target label ${v}; expected 0 or 1`);
    const labels = peekValues(targets);
    const bad = labels?.find((v) => v !== 0 && v !== 1);
    if (bad !== undefined) throw labelError(bad);
    // Where they cannot be read here (WebGPU, remote), the device checks them: reads of the loss throw.
    if (!labels && targets.backend.checkIndices)
      targets = targets.wrap(targets.backend.checkIndices(targets.primitive, 0, 2, labelError));

    let y = targets.float(logits.dtype());
    if (this.smoothing !== undefined) {
      const classes = rank > 1 ? shape[rank - 1]! : 2;
      y = y.mul(1 - this.smoothing).add(this.smoothing / classes);
    }
    let loss = this.logits
      ? y.neg().add(1).mul(logits).sub(logSigmoid(logits))
      : y
          .sub(1)
          .mul(logits.neg().log1p().clampMin(-100))
          .sub(y.mul(logits.log().clampMin(-100)));
    if (this.weights) {
      const w = this.weights.toDevice(logits.device());
      const weights =
        rank > 1
          ? w.reshape([...shape.map(() => 1).slice(1), shape[rank - 1]!])
          : w.gather(0, targets as Tensor<1, Int>);
      loss = loss.mul(weights as Tensor<D, Float>);
    }
    return loss.mean();
  }

  override displayAttributes(): Record<string, unknown> {
    return { weights: this.weights?.dims(), smoothing: this.smoothing, logits: this.logits };
  }
}
