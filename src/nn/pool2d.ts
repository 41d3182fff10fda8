import { z } from 'zod';
import { Config } from '../config/config.js';
import { Module } from '../module/module.js';
import { BurnError, fmt } from '../tensor/errors.js';
import { adaptiveAvgPool2d, maxPool2d } from '../tensor/functional/pool.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { displayPadding, paddingSchema, resolvePadding, type Padding } from './padding.js';

const pair = z.tuple([z.number().int().positive(), z.number().int().positive()]);

function expect4d(input: Tensor<4, Float>, layer: string): void {
  if (input.dims().length !== 4) throw new BurnError(layer, `input of shape ${fmt(input.dims())}; expected [batch, channels, height, width]`);
}

/** Configuration of {@link MaxPool2d} (Burn's `MaxPool2dConfig`: strides default to [1, 1]). */
export class MaxPool2dConfig extends Config.define({
  kernelSize: pair,
  strides: pair.default([1, 1]),
  padding: paddingSchema.default('valid'),
  dilation: pair.default([1, 1]),
  ceilMode: z.boolean().default(false),
}) {
  /** Creates the layer. */
  init(): MaxPool2d {
    return new MaxPool2d(this);
  }
}

/** 2-d max pooling (Burn's `MaxPool2d`). */
export class MaxPool2d extends Module {
  readonly kernelSize: [number, number];
  readonly strides: [number, number];
  readonly padding: Padding;
  readonly dilation: [number, number];
  readonly ceilMode: boolean;

  constructor(config: MaxPool2dConfig) {
    super();
    this.kernelSize = [...config.kernelSize];
    this.strides = [...config.strides];
    this.padding = config.padding;
    this.dilation = [...config.dilation];
    this.ceilMode = config.ceilMode;
  }

  /** `[N, C, H, W]` → `[N, C, H', W']`. */
  forward(input: Tensor<4, Float>): Tensor<4, Float> {
    expect4d(input, 'MaxPool2d');
    const padding = resolvePadding(this.padding, this.kernelSize, this.strides, this.dilation, 'MaxPool2d');
    return maxPool2d(input, this.kernelSize, { stride: this.strides, padding, dilation: this.dilation, ceilMode: this.ceilMode });
  }

  override displayAttributes(): Record<string, unknown> {
    return { kernelSize: this.kernelSize, strides: this.strides, padding: displayPadding(this.padding), dilation: this.dilation, ceilMode: this.ceilMode };
  }
}

/** Configuration of {@link AdaptiveAvgPool2d}. */
export class AdaptiveAvgPool2dConfig extends Config.define({
  outputSize: pair,
}) {
  /** Creates the layer. */
  init(): AdaptiveAvgPool2d {
    return new AdaptiveAvgPool2d(this.outputSize);
  }
}

/** 2-d adaptive average pooling to a fixed output size (Burn's `AdaptiveAvgPool2d`). */
export class AdaptiveAvgPool2d extends Module {
  constructor(readonly outputSize: readonly [number, number]) {
    super();
  }

  /** `[N, C, H, W]` → `[N, C, ...outputSize]`. */
  forward(input: Tensor<4, Float>): Tensor<4, Float> {
    expect4d(input, 'AdaptiveAvgPool2d');
    return adaptiveAvgPool2d(input, [...this.outputSize]);
  }

  override displayAttributes(): Record<string, unknown> {
    return { outputSize: this.outputSize };
  }
}
