import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../core/errors.js';
import { avgPool1d } from '../../tensor/functional/pool.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';

/** Configuration of a {@link LocalResponseNorm} layer (Burn's `LocalResponseNormConfig`). */
export class LocalResponseNormConfig extends Config.define({
  /** Number of channels in the window. */
  size: z.number().int().positive(),
  /** Scale (default 1e-4). */
  alpha: z.number().default(0.0001),
  /** Exponent (default 0.75). */
  beta: z.number().default(0.75),
  /** Additive constant (ONNX's `bias`; default 1). */
  k: z.number().default(1),
}) {
  /** Creates the layer. */
  init(): LocalResponseNorm {
    return new LocalResponseNorm(this);
  }
}

/**
 * Local response normalization across channels (Burn's `LocalResponseNorm`):
 * `y = x / (k + alpha · avg(x²))^beta`, the average taken over a window of `size` channels
 * (zeros beyond the edges count). An odd window is centred; an even one reaches one channel further
 * forward than back, as Burn (PyTorch reaches one further back).
 */
export class LocalResponseNorm extends Module {
  /** Number of channels in the window. */
  readonly size: number;
  /** Scale. */
  readonly alpha: number;
  /** Exponent. */
  readonly beta: number;
  /** Additive constant. */
  readonly k: number;

  constructor(config: LocalResponseNormConfig) {
    super();
    this.size = config.size;
    this.alpha = config.alpha;
    this.beta = config.beta;
    this.k = config.k;
  }

  /** `[batch, channels, d1, ..., dk]` (rank >= 3) → same shape. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    const dims = input.dims();
    if (dims.length < 3)
      throw new BurnError(
        'LocalResponseNorm',
        `input of shape ${fmt(dims)} has rank ${dims.length}; expected [batch, channels, d1, ...] (rank >= 3)`,
      );
    const [n, c] = dims as [number, number];
    const rest = dims.slice(2).reduce((a, b) => a * b, 1);
    // Channels last, every position a row: [n · rest, 1, c]; average x² over a window of channels.
    const rows = input
      .square()
      .reshape([n, c, rest])
      .swapDims(1, 2)
      .reshape([n * rest, 1, c]);
    const padded = rows.pad([[(this.size - 1) >> 1, this.size >> 1]], 0);
    const avg = avgPool1d(padded, this.size, { stride: 1 })
      .reshape([n, rest, c])
      .swapDims(1, 2)
      .reshape(dims) as unknown as Tensor<D, Float>;
    return input.div(avg.mul(this.alpha).add(this.k).powf(this.beta));
  }

  override displayAttributes(): Record<string, unknown> {
    return { size: this.size, alpha: this.alpha, beta: this.beta, k: this.k };
  }
}
