import { z } from 'zod';
import { Config } from '../config/config.js';
import { Module } from '../module/module.js';
import { adaptiveAvgPool1d, adaptiveAvgPool2d, adaptiveAvgPool3d } from '../tensor/functional/pool.js';
import type { PerDim } from '../tensor/functional/check.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { expectSpatialInput, pair, perDimDisplay, triple } from './spatial.js';

type AnyAdaptive = (x: Tensor<number, Float>, size: PerDim) => Tensor<number, Float>;
const FNS = [undefined, adaptiveAvgPool1d, adaptiveAvgPool2d, adaptiveAvgPool3d] as unknown as readonly AnyAdaptive[];

/** The N-d adaptive average pooling shared by {@link AdaptiveAvgPool1d}, `2d` and `3d`. */
export abstract class AdaptiveAvgPoolNd<D extends number, S extends readonly number[]> extends Module {
  /** The output's spatial size. */
  readonly outputSize: S;

  protected constructor(outputSize: readonly number[]) {
    super();
    this.outputSize = [...outputSize] as unknown as S;
  }

  /** `[batch, channels, ...spatial]` → `[batch, channels, ...outputSize]` (PyTorch's window bounds). */
  forward(input: Tensor<D, Float>): Tensor<D, Float> {
    const nd = this.outputSize.length;
    expectSpatialInput(input, nd, undefined, this.constructor.name);
    return FNS[nd]!(input, nd === 1 ? this.outputSize[0]! : this.outputSize) as Tensor<D, Float>;
  }

  override displayAttributes(): Record<string, unknown> {
    return { outputSize: perDimDisplay(this.outputSize) };
  }
}

/** Configuration of {@link AdaptiveAvgPool1d}. */
export class AdaptiveAvgPool1dConfig extends Config.define({
  /** The output length. */
  outputSize: z.number().int().positive(),
}) {
  /** Creates the layer. */
  init(): AdaptiveAvgPool1d {
    return new AdaptiveAvgPool1d(this);
  }
}

/** 1-d adaptive average pooling over `[batch, channels, length]` (Burn's `AdaptiveAvgPool1d`). */
export class AdaptiveAvgPool1d extends AdaptiveAvgPoolNd<3, [number]> {
  constructor(config: AdaptiveAvgPool1dConfig) {
    super([config.outputSize]);
  }
}

/** Configuration of {@link AdaptiveAvgPool2d}. */
export class AdaptiveAvgPool2dConfig extends Config.define({
  /** `[heightOut, widthOut]`. */
  outputSize: pair,
}) {
  /** Creates the layer. */
  init(): AdaptiveAvgPool2d {
    return new AdaptiveAvgPool2d(this);
  }
}

/** 2-d adaptive average pooling over `[batch, channels, height, width]` (Burn's `AdaptiveAvgPool2d`). */
export class AdaptiveAvgPool2d extends AdaptiveAvgPoolNd<4, [number, number]> {
  constructor(config: AdaptiveAvgPool2dConfig) {
    super(config.outputSize);
  }
}

/** Configuration of {@link AdaptiveAvgPool3d}. */
export class AdaptiveAvgPool3dConfig extends Config.define({
  /** `[depthOut, heightOut, widthOut]`. */
  outputSize: triple,
}) {
  /** Creates the layer. */
  init(): AdaptiveAvgPool3d {
    return new AdaptiveAvgPool3d(this);
  }
}

/** 3-d adaptive average pooling over `[batch, channels, depth, height, width]` (Burn's `AdaptiveAvgPool3d`). */
export class AdaptiveAvgPool3d extends AdaptiveAvgPoolNd<5, [number, number, number]> {
  constructor(config: AdaptiveAvgPool3dConfig) {
    super(config.outputSize);
  }
}
