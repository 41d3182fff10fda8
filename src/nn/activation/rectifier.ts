import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { Param } from '../../module/param.js';
import * as activation from '../../tensor/activation/index.js';
import { Distribution } from '../../core/distribution.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';

// Rectifier-style activation layers (Burn's `Relu`, `Relu6`, `LeakyRelu`, `PRelu`, `RRelu`,
// `Hardtanh`, `Elu`, `Celu`, `Selu`, `Threshold`, `ThresholdedRelu`).

/** `max(x, 0)` as a module (Burn's `Relu`). */
export class Relu extends Module {
  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.relu(input);
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}

/** `min(max(x, 0), 6)` (Burn's `Relu6`). */
export class Relu6 extends Module {
  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.relu6(input);
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}

/** Configuration of {@link LeakyRelu} (Burn's `LeakyReluConfig`). */
export class LeakyReluConfig extends Config.define({
  /** Slope for negative inputs. */
  negativeSlope: z.number().default(0.01),
}) {
  /** Creates the layer. */
  init(): LeakyRelu {
    return new LeakyRelu(this);
  }
}

/** `x` for `x >= 0`, `negativeSlope · x` otherwise (Burn's `LeakyRelu`). */
export class LeakyRelu extends Module {
  /** Slope for negative inputs. */
  readonly negativeSlope: number;

  constructor(config: LeakyReluConfig = new LeakyReluConfig()) {
    super();
    this.negativeSlope = config.negativeSlope;
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.leakyRelu(input, this.negativeSlope);
  }

  override displayAttributes(): Record<string, unknown> {
    return { negativeSlope: this.negativeSlope };
  }
}

/** Configuration of {@link PRelu} (Burn's `PReluConfig`). */
export class PReluConfig extends Config.define({
  /** Number of learnable slopes: 1 (shared) or the number of input channels (dim 1). */
  numParameters: z.number().int().positive().default(1),
  /** Initial value of every slope. */
  alpha: z.number().default(0.25),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): PRelu {
    return new PRelu(this, device);
  }
}

/**
 * Parametric ReLU (Burn's `PRelu`): `x` for `x >= 0`, `alpha · x` otherwise, with `alpha` a
 * learnable `[numParameters]` weight — one per channel (dim 1 of the input) or one shared.
 */
export class PRelu extends Module {
  /** The slopes, `[numParameters]`. */
  alpha: Param<Tensor<1, Float>>;
  /** The initial slope value (kept for display, as Burn). */
  readonly alphaValue: number;

  constructor(config: PReluConfig, device: Device) {
    super();
    this.alpha = new Param(Tensor.full([config.numParameters], config.alpha, device) as Tensor<1, Float>);
    this.alphaValue = config.alpha;
  }

  /** Applies the activation; the input is `[batch, channels, ...]` when there is more than one slope. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    const n = this.alpha.dims()[0]!;
    const dims = input.dims();
    if (n !== 1 && (dims.length < 2 || dims[1] !== n)) {
      throw new BurnError(
        'PRelu',
        `input of shape ${fmt(dims)} for ${n} slopes; expected [batch, ${n}, ...] (one slope per channel, dim 1)`,
      );
    }
    return activation.prelu(input, this.alpha.val());
  }

  override displayAttributes(): Record<string, unknown> {
    return { numParameters: this.alpha.dims()[0], alphaValue: this.alphaValue };
  }
}

/** Configuration of {@link RRelu} (Burn's `RReluConfig`). */
export class RReluConfig extends Config.define({
  /** Lower bound of the random slope. */
  lower: z.number().default(0.125),
  /** Upper bound of the random slope. */
  upper: z.number().default(1 / 3),
}) {
  /** Creates the layer (`lower <= upper`, else a BurnError). */
  init(): RRelu {
    return new RRelu(this);
  }
}

/**
 * Randomized leaky ReLU (Burn's `RRelu`): on an autodiff device (training) each negative element
 * is scaled by its own slope drawn from U(lower, upper); elsewhere (inference) the slope is the
 * fixed `(lower + upper) / 2`, as Burn and PyTorch.
 */
export class RRelu extends Module {
  /** Lower bound of the random slope. */
  readonly lower: number;
  /** Upper bound of the random slope. */
  readonly upper: number;

  constructor(config: RReluConfig = new RReluConfig()) {
    super();
    if (!(config.lower <= config.upper))
      throw new BurnError(
        'RReluConfig',
        `lower bound ${config.lower} is greater than upper bound ${config.upper}; expected lower <= upper`,
      );
    this.lower = config.lower;
    this.upper = config.upper;
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    if (!input.device().isAutodiff()) return activation.leakyRelu(input, (this.lower + this.upper) / 2);
    input.expectFloat('RRelu');
    const slope = input.randomLike(Distribution.Uniform(this.lower, this.upper));
    return input.maskWhere(input.lower(0), input.mul(slope));
  }

  override displayAttributes(): Record<string, unknown> {
    return { lower: this.lower, upper: this.upper };
  }
}

/** Configuration of {@link Hardtanh} (Burn's `HardtanhConfig`). */
export class HardtanhConfig extends Config.define({
  /** Lower clamp. */
  minVal: z.number().default(-1),
  /** Upper clamp. */
  maxVal: z.number().default(1),
}) {
  /** Creates the layer (`minVal <= maxVal`, else a BurnError). */
  init(): Hardtanh {
    return new Hardtanh(this);
  }
}

/** `clamp(x, minVal, maxVal)` (Burn's `Hardtanh`). */
export class Hardtanh extends Module {
  /** Lower clamp. */
  readonly minVal: number;
  /** Upper clamp. */
  readonly maxVal: number;

  constructor(config: HardtanhConfig = new HardtanhConfig()) {
    super();
    if (!(config.minVal <= config.maxVal))
      throw new BurnError(
        'HardtanhConfig',
        `minVal ${config.minVal} is greater than maxVal ${config.maxVal}; expected minVal <= maxVal`,
      );
    this.minVal = config.minVal;
    this.maxVal = config.maxVal;
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.hardtanh(input, this.minVal, this.maxVal);
  }

  override displayAttributes(): Record<string, unknown> {
    return { minVal: this.minVal, maxVal: this.maxVal };
  }
}

/** Configuration of {@link Elu} (Burn's `EluConfig`). */
export class EluConfig extends Config.define({
  /** Scale of the negative part. */
  alpha: z.number().default(1),
}) {
  /** Creates the layer. */
  init(): Elu {
    return new Elu(this);
  }
}

/** `x` for `x > 0`, `alpha · (e^x - 1)` otherwise (Burn's `Elu`). */
export class Elu extends Module {
  /** Scale of the negative part. */
  readonly alpha: number;

  constructor(config: EluConfig = new EluConfig()) {
    super();
    this.alpha = config.alpha;
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.elu(input, this.alpha);
  }

  override displayAttributes(): Record<string, unknown> {
    return { alpha: this.alpha };
  }
}

/** Configuration of {@link Celu} (Burn's `CeluConfig`). */
export class CeluConfig extends Config.define({
  /** Scale of the negative part (non-zero). */
  alpha: z
    .number()
    .refine((v) => v !== 0, 'alpha must be non-zero')
    .default(1),
}) {
  /** Creates the layer. */
  init(): Celu {
    return new Celu(this);
  }
}

/** `x` for `x > 0`, `alpha · (e^(x / alpha) - 1)` otherwise (Burn's `Celu`). */
export class Celu extends Module {
  /** Scale of the negative part. */
  readonly alpha: number;

  constructor(config: CeluConfig = new CeluConfig()) {
    super();
    this.alpha = config.alpha;
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.celu(input, this.alpha);
  }

  override displayAttributes(): Record<string, unknown> {
    return { alpha: this.alpha };
  }
}

/** Scaled ELU with the self-normalizing constants (Burn's `Selu`). */
export class Selu extends Module {
  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.selu(input);
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}

/** Configuration of {@link Threshold} (Burn's `ThresholdConfig`; both fields required). */
export class ThresholdConfig extends Config.define({
  /** Inputs at or below it are replaced. */
  threshold: z.number(),
  /** The replacement value. */
  value: z.number(),
}) {
  /** Creates the layer. */
  init(): Threshold {
    return new Threshold(this);
  }
}

/** `x` where `x > threshold`, `value` otherwise (Burn's `Threshold`). */
export class Threshold extends Module {
  /** Inputs at or below it are replaced. */
  readonly threshold: number;
  /** The replacement value. */
  readonly value: number;

  constructor(config: ThresholdConfig) {
    super();
    this.threshold = config.threshold;
    this.value = config.value;
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.threshold(input, this.threshold, this.value);
  }

  override displayAttributes(): Record<string, unknown> {
    return { threshold: this.threshold, value: this.value };
  }
}

/** Configuration of {@link ThresholdedRelu} (Burn's `ThresholdedReluConfig`). */
export class ThresholdedReluConfig extends Config.define({
  /** Inputs at or below it become 0. */
  alpha: z.number().default(1),
}) {
  /** Creates the layer. */
  init(): ThresholdedRelu {
    return new ThresholdedRelu(this);
  }
}

/** `x` where `x > alpha`, 0 otherwise (Burn's `ThresholdedRelu`). */
export class ThresholdedRelu extends Module {
  /** Inputs at or below it become 0. */
  readonly alpha: number;

  constructor(config: ThresholdedReluConfig = new ThresholdedReluConfig()) {
    super();
    this.alpha = config.alpha;
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.thresholdedRelu(input, this.alpha);
  }

  override displayAttributes(): Record<string, unknown> {
    return { alpha: this.alpha };
  }
}
