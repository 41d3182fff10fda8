import { z } from 'zod';
import { Config } from '../config/config.js';
import { Module } from '../module/module.js';
import { Distribution } from '../core/distribution.js';
import type { Float } from '../tensor/kind.js';
import { Tensor } from '../tensor/tensor.js';

/** Configuration of {@link GaussianNoise} (Burn's `GaussianNoiseConfig`). */
export class GaussianNoiseConfig extends Config.define({
  /** Standard deviation of the noise (non-negative). */
  std: z.number().nonnegative(),
}) {
  /** Creates the layer. */
  init(): GaussianNoise {
    return new GaussianNoise(this.std);
  }
}

/**
 * Adds `N(0, std²)` noise — only on an autodiff device (training), as Burn; elsewhere it is the
 * identity. A regularizer and a simple data augmentation.
 */
export class GaussianNoise extends Module {
  constructor(
    /** Standard deviation of the noise. */
    readonly std: number,
  ) {
    super();
  }

  /** `[...]` → same shape. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    if (!input.device().isAutodiff() || this.std === 0) return input;
    const noise = Tensor.random(input.dims(), Distribution.Normal(0, this.std), {
      device: input.device(),
      dtype: input.dtype(),
    }) as unknown as Tensor<D, Float>;
    return input.add(noise);
  }

  override displayAttributes(): Record<string, unknown> {
    return { std: this.std };
  }
}
