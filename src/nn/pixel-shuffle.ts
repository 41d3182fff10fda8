import { z } from 'zod';
import { Config } from '../config/config.js';
import { Module } from '../module/module.js';
import { BurnError, fmt } from '../core/errors.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';

/** Configuration of {@link PixelShuffle} (Burn's `PixelShuffleConfig`). */
export class PixelShuffleConfig extends Config.define({
  /** Factor `r` by which height and width grow. */
  upscaleFactor: z.number().int().positive(),
}) {
  /** Creates the layer. */
  init(): PixelShuffle {
    return new PixelShuffle(this.upscaleFactor);
  }
}

/** Rearranges `[N, C·r², H, W]` into `[N, C, H·r, W·r]` (Burn's and PyTorch's `PixelShuffle`). */
export class PixelShuffle extends Module {
  constructor(
    /** Factor `r` by which height and width grow. */
    readonly upscaleFactor: number,
  ) {
    super();
  }

  /** `[batch, channels · r², height, width]` → `[batch, channels, height · r, width · r]`. */
  forward(input: Tensor<4, Float>): Tensor<4, Float> {
    const dims = input.dims();
    const r = this.upscaleFactor;
    if (dims.length !== 4 || dims[1]! % (r * r) !== 0) {
      throw new BurnError(
        'PixelShuffle',
        `input of shape ${fmt(dims)}; expected [batch, channels · ${r * r}, height, width] (channels divisible by upscaleFactor² = ${r * r})`,
      );
    }
    const [n, c, h, w] = dims as [number, number, number, number];
    const out = c / (r * r);
    return input
      .reshape([n, out, r, r, h, w])
      .permute([0, 1, 4, 2, 5, 3])
      .reshape([n, out, h * r, w * r]);
  }

  override displayAttributes(): Record<string, unknown> {
    return { upscaleFactor: this.upscaleFactor };
  }
}

/** Configuration of {@link PixelUnshuffle} (Burn's `PixelUnshuffleConfig`). */
export class PixelUnshuffleConfig extends Config.define({
  /** Factor `r` by which height and width shrink. */
  downscaleFactor: z.number().int().positive(),
}) {
  /** Creates the layer. */
  init(): PixelUnshuffle {
    return new PixelUnshuffle(this.downscaleFactor);
  }
}

/** Rearranges `[N, C, H·r, W·r]` into `[N, C·r², H, W]` (Burn's and PyTorch's `PixelUnshuffle`; the inverse of {@link PixelShuffle}). */
export class PixelUnshuffle extends Module {
  constructor(
    /** Factor `r` by which height and width shrink. */
    readonly downscaleFactor: number,
  ) {
    super();
  }

  /** `[batch, channels, height · r, width · r]` → `[batch, channels · r², height, width]`. */
  forward(input: Tensor<4, Float>): Tensor<4, Float> {
    const dims = input.dims();
    const r = this.downscaleFactor;
    if (dims.length !== 4 || dims[2]! % r !== 0 || dims[3]! % r !== 0) {
      throw new BurnError(
        'PixelUnshuffle',
        `input of shape ${fmt(dims)}; expected [batch, channels, height, width] with height and width divisible by downscaleFactor ${r}`,
      );
    }
    const [n, c, h, w] = dims as [number, number, number, number];
    const [oh, ow] = [h / r, w / r];
    return input
      .reshape([n, c, oh, r, ow, r])
      .permute([0, 1, 3, 5, 2, 4])
      .reshape([n, c * r * r, oh, ow]);
  }

  override displayAttributes(): Record<string, unknown> {
    return { downscaleFactor: this.downscaleFactor };
  }
}
