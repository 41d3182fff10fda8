import { z } from 'zod';
import { Config } from '../config/config.js';
import { Module } from '../module/module.js';
import { Distribution } from '../core/distribution.js';
import type { Float } from '../tensor/kind.js';
import { Tensor } from '../tensor/tensor.js';

/** Configuration of {@link Dropout}. */
export class DropoutConfig extends Config.define({
  /** Probability of zeroing an element. */
  prob: z.number().min(0).max(1),
}) {
  /** Creates the layer. */
  init(): Dropout {
    return new Dropout(this.prob);
  }
}

/**
 * Zeroes elements with probability `prob` and scales the rest by `1 / (1 - prob)` — only on an
 * autodiff device (training), as Burn does; elsewhere it is the identity.
 */
export class Dropout extends Module {
  constructor(readonly prob: number) {
    super();
  }

  /** Applies dropout (training) or passes the input through (inference). */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    if (!input.device().isAutodiff() || this.prob === 0) return input;
    const keep = Tensor.random(input.dims(), Distribution.Bernoulli(1 - this.prob), {
      device: input.device(),
      dtype: input.dtype(),
    }) as unknown as Tensor<D, Float>;
    return input.mul(keep).div(1 - this.prob);
  }

  override displayAttributes(): Record<string, unknown> {
    return { prob: this.prob };
  }
}
