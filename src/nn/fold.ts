import { Config } from '../config/config.js';
import { Module } from '../module/module.js';
import { BurnError, fmt } from '../core/errors.js';
import { fold4d, unfold4d } from '../tensor/functional/unfold.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { pair, pair0 } from './spatial.js';

/** Configuration of {@link Unfold4d} (Burn's `Unfold4dConfig`). */
export class Unfold4dConfig extends Config.define({
  /** Block size `[kh, kw]`. */
  kernelSize: pair,
  /** Step between blocks (default [1, 1]). */
  stride: pair.default([1, 1]),
  /** Spacing between block elements (default [1, 1]). */
  dilation: pair.default([1, 1]),
  /** Zeros around the input (default [0, 0]). */
  padding: pair0.default([0, 0]),
}) {
  /** Creates the layer. */
  init(): Unfold4d {
    return new Unfold4d(this);
  }
}

/** Extracts sliding blocks, im2col (Burn's `Unfold4d`, PyTorch's `Unfold`). */
export class Unfold4d extends Module {
  /** Block size. */
  readonly kernelSize: [number, number];
  /** Step between blocks. */
  readonly stride: [number, number];
  /** Spacing between block elements. */
  readonly dilation: [number, number];
  /** Zeros around the input. */
  readonly padding: [number, number];

  constructor(config: Unfold4dConfig) {
    super();
    this.kernelSize = [...config.kernelSize];
    this.stride = [...config.stride];
    this.dilation = [...config.dilation];
    this.padding = [...config.padding];
  }

  /** `[batch, channels, height, width]` → `[batch, channels · kh · kw, blocks]`. */
  forward(input: Tensor<4, Float>): Tensor<3, Float> {
    const dims = input.dims();
    if (dims.length !== 4)
      throw new BurnError(
        'Unfold4d',
        `input of shape ${fmt(dims)} has rank ${dims.length}; expected [batch, channels, height, width]`,
      );
    return unfold4d(input, this.kernelSize, { stride: this.stride, padding: this.padding, dilation: this.dilation });
  }

  override displayAttributes(): Record<string, unknown> {
    return { kernelSize: this.kernelSize, stride: this.stride, dilation: this.dilation, padding: this.padding };
  }
}

/** Configuration of {@link Fold4d} (Burn's `Fold4dConfig`). */
export class Fold4dConfig extends Config.define({
  /** Spatial size `[height, width]` of the output. */
  outputSize: pair,
  /** Block size `[kh, kw]`. */
  kernelSize: pair,
  /** Step between blocks (default [1, 1]). */
  stride: pair.default([1, 1]),
  /** Spacing between block elements (default [1, 1]). */
  dilation: pair.default([1, 1]),
  /** Padding removed from the output's border (default [0, 0]). */
  padding: pair0.default([0, 0]),
}) {
  /** Creates the layer. */
  init(): Fold4d {
    return new Fold4d(this);
  }
}

/** Sums sliding blocks back into a tensor, col2im (Burn's `Fold4d`, PyTorch's `Fold`; the adjoint of {@link Unfold4d}). */
export class Fold4d extends Module {
  /** Spatial size of the output. */
  readonly outputSize: [number, number];
  /** Block size. */
  readonly kernelSize: [number, number];
  /** Step between blocks. */
  readonly stride: [number, number];
  /** Spacing between block elements. */
  readonly dilation: [number, number];
  /** Padding removed from the output's border. */
  readonly padding: [number, number];

  constructor(config: Fold4dConfig) {
    super();
    this.outputSize = [...config.outputSize];
    this.kernelSize = [...config.kernelSize];
    this.stride = [...config.stride];
    this.dilation = [...config.dilation];
    this.padding = [...config.padding];
  }

  /** `[batch, channels · kh · kw, blocks]` → `[batch, channels, ...outputSize]`. */
  forward(input: Tensor<3, Float>): Tensor<4, Float> {
    const dims = input.dims();
    if (dims.length !== 3)
      throw new BurnError(
        'Fold4d',
        `input of shape ${fmt(dims)} has rank ${dims.length}; expected [batch, channels · kh · kw, blocks]`,
      );
    return fold4d(input, this.outputSize, this.kernelSize, {
      stride: this.stride,
      padding: this.padding,
      dilation: this.dilation,
    });
  }

  override displayAttributes(): Record<string, unknown> {
    return {
      outputSize: this.outputSize,
      kernelSize: this.kernelSize,
      stride: this.stride,
      dilation: this.dilation,
      padding: this.padding,
    };
  }
}
