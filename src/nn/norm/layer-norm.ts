import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { Param } from '../../module/param.js';
import { BurnError, fmt } from '../../core/errors.js';
import { layerNorm } from '../../tensor/functional/norm.js';
import type { Float } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';

/** Configuration of a {@link LayerNorm} layer (Burn's `LayerNormConfig`). */
export class LayerNormConfig extends Config.define({
  /** Size of the last dim (0 is allowed for a `NormalizationConfig` policy sized later). */
  dModel: z.number().int().nonnegative(),
  /** Added to the variance for numerical stability (default 1e-5). */
  epsilon: z.number().nonnegative().default(1e-5),
  /** Whether to add the learnable shift β (default true). */
  bias: z.boolean().default(true),
}) {
  /** Creates the layer on `device`: γ = 1, β = 0. */
  init(device: Device): LayerNorm {
    return new LayerNorm(this, device);
  }
}

/** Layer normalization over the last dim (Burn's `LayerNorm`): `(x - mean) / sqrt(var + epsilon) · γ + β`, biased variance. */
export class LayerNorm extends Module {
  /** Scale γ `[dModel]`. */
  gamma: Param<Tensor<1, Float>>;
  /** Shift β `[dModel]`, when `bias` is set. */
  beta: Param<Tensor<1, Float>> | undefined;
  /** Added to the variance. */
  readonly epsilon: number;

  constructor(config: LayerNormConfig, device: Device) {
    super();
    this.gamma = new Param(Tensor.ones([config.dModel], device));
    this.beta = config.bias ? new Param(Tensor.zeros([config.dModel], device)) : undefined;
    this.epsilon = config.epsilon;
  }

  /** `[..., dModel]` → same shape. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    const dims = input.dims();
    const [dModel] = this.gamma.dims() as [number];
    if (dims.length === 0 || dims[dims.length - 1] !== dModel) {
      throw new BurnError('LayerNorm', `input of shape ${fmt(dims)}; expected [..., ${dModel}] (dModel ${dModel})`);
    }
    return layerNorm(input, [dModel], { weight: this.gamma.val(), bias: this.beta?.val(), epsilon: this.epsilon });
  }

  override displayAttributes(): Record<string, unknown> {
    return { dModel: this.gamma.dims()[0], epsilon: this.epsilon, bias: this.beta !== undefined };
  }
}
