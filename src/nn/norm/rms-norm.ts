import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { Param } from '../../module/param.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';

/** Configuration of an {@link RmsNorm} layer (Burn's `RmsNormConfig`). */
export class RmsNormConfig extends Config.define({
  /** Size of the last dim (0 is allowed for a `NormalizationConfig` policy sized later). */
  dModel: z.number().int().nonnegative(),
  /** Added to the mean square for numerical stability (default 1e-5; must be positive). */
  epsilon: z.number().positive().default(1e-5),
}) {
  /** Creates the layer on `device`: γ = 1. */
  init(device: Device): RmsNorm {
    return new RmsNorm(this, device);
  }
}

/** Root-mean-square normalization over the last dim (Burn's `RmsNorm`): `x / sqrt(mean(x²) + epsilon) · γ`. */
export class RmsNorm extends Module {
  /** Scale γ `[dModel]`. */
  gamma: Param<Tensor<1, Float>>;
  /** Added to the mean square. */
  readonly epsilon: number;

  constructor(config: RmsNormConfig, device: Device) {
    super();
    this.gamma = new Param(Tensor.ones([config.dModel], device));
    this.epsilon = config.epsilon;
  }

  /** `[..., dModel]` → same shape. Half-precision inputs compute the mean square in f32, as Burn. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    const dims = input.dims();
    const [dModel] = this.gamma.dims() as [number];
    if (dims.length === 0 || dims[dims.length - 1] !== dModel) {
      throw new BurnError('RmsNorm', `input of shape ${fmt(dims)}; expected [..., ${dModel}] (dModel ${dModel})`);
    }
    const dtype = input.dtype();
    const wide = dtype === 'f16' || dtype === 'bf16' ? input.cast('f32') : input;
    const rms = wide
      .square()
      .meanDim(dims.length - 1)
      .add(this.epsilon)
      .sqrt()
      .cast(dtype);
    return input.div(rms).mul(this.gamma.val() as unknown as Tensor<D, Float>);
  }

  override displayAttributes(): Record<string, unknown> {
    return { dModel: this.gamma.dims()[0], epsilon: this.epsilon };
  }
}
