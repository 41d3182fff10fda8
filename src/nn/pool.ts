import { z } from 'zod';
import { Config } from '../config/config.js';
import { Module } from '../module/module.js';
import type { Float } from '../tensor/kind.js';
import {
  avgPool1d,
  avgPool2d,
  maxPool1d,
  maxPool2d,
  type AvgPoolFnOptions,
  type MaxPoolFnOptions,
} from '../tensor/functional/pool.js';
import type { PerDim } from '../tensor/functional/check.js';
import type { Tensor } from '../tensor/tensor.js';
import {
  checkPadding,
  displayPadding,
  isSymmetric,
  paddingSchema,
  resolvePadding,
  type Padding,
  type ResolvedPadding,
} from './padding.js';
import { expectSpatialInput, listOf, pair, padSpatial, perDimDisplay } from './spatial.js';

const positive = z.number().int().positive();

type AnyMaxPool = (x: Tensor<number, Float>, k: PerDim, o: MaxPoolFnOptions) => Tensor<number, Float>;
type AnyAvgPool = (x: Tensor<number, Float>, k: PerDim, o: AvgPoolFnOptions) => Tensor<number, Float>;
const MAX_FNS = [undefined, maxPool1d, maxPool2d] as unknown as readonly AnyMaxPool[];
const AVG_FNS = [undefined, avgPool1d, avgPool2d] as unknown as readonly AnyAvgPool[];

/**
 * Resolves the padding for one input; asymmetric padding (and, for max pooling, padding wider than
 * half the window) is applied to the input first with `fill`, as Burn does.
 */
function padInput<D extends number>(
  input: Tensor<D, Float>,
  p: ResolvedPadding,
  kernel: readonly number[],
  fill: number,
  prePadWide: boolean,
): [Tensor<D, Float>, number[]] {
  const wide = prePadWide && p.start.some((s, i) => s > Math.floor(kernel[i]! / 2));
  if (isSymmetric(p) && !wide) return [input, p.start];
  return [padSpatial(input, p, fill), p.start.map(() => 0)];
}

/** The N-d max pooling shared by {@link MaxPool1d} and {@link MaxPool2d}. */
export abstract class MaxPoolNd<D extends number, S extends readonly number[]> extends Module {
  /** Window size. */
  readonly kernelSize: S;
  /** Step between windows. */
  readonly stride: S;
  /** Padding (padded positions never win the max). */
  readonly padding: Padding;
  /** Spacing between window taps. */
  readonly dilation: S;
  /** Round the output size up instead of down. */
  readonly ceilMode: boolean;

  protected constructor(
    kernelSize: readonly number[],
    stride: readonly number[] | undefined,
    padding: Padding,
    dilation: readonly number[],
    ceilMode: boolean,
    op: string,
  ) {
    super();
    checkPadding(padding, kernelSize.length, op);
    this.kernelSize = [...kernelSize] as unknown as S;
    this.stride = [...(stride ?? kernelSize)] as unknown as S;
    this.padding = padding;
    this.dilation = [...dilation] as unknown as S;
    this.ceilMode = ceilMode;
  }

  /** `[batch, channels, ...spatial]` → `[batch, channels, ...spatial']`. */
  forward(input: Tensor<D, Float>): Tensor<D, Float> {
    const nd = this.kernelSize.length;
    const layer = this.constructor.name;
    const dims = expectSpatialInput(input, nd, undefined, layer);
    const p = resolvePadding(this.padding, dims.slice(2), this.kernelSize, this.stride, this.dilation, layer);
    const [x, padding] = padInput(input, p, this.kernelSize, -Infinity, true);
    return MAX_FNS[nd]!(x, nd === 1 ? this.kernelSize[0]! : this.kernelSize, {
      stride: this.stride,
      padding,
      dilation: this.dilation,
      ceilMode: this.ceilMode,
    }) as Tensor<D, Float>;
  }

  override displayAttributes(): Record<string, unknown> {
    return {
      kernelSize: perDimDisplay(this.kernelSize),
      stride: perDimDisplay(this.stride),
      padding: displayPadding(this.padding),
      dilation: perDimDisplay(this.dilation),
      ceilMode: this.ceilMode,
    };
  }
}

/** The N-d average pooling shared by {@link AvgPool1d} and {@link AvgPool2d}. */
export abstract class AvgPoolNd<D extends number, S extends readonly number[]> extends Module {
  /** Window size. */
  readonly kernelSize: S;
  /** Step between windows. */
  readonly stride: S;
  /** Padding (zeros). */
  readonly padding: Padding;
  /** Count the padding zeros in the divisor (asymmetric padding is always counted, as Burn). */
  readonly countIncludePad: boolean;
  /** Round the output size up instead of down. */
  readonly ceilMode: boolean;

  protected constructor(
    kernelSize: readonly number[],
    stride: readonly number[] | undefined,
    padding: Padding,
    countIncludePad: boolean,
    ceilMode: boolean,
    op: string,
  ) {
    super();
    checkPadding(padding, kernelSize.length, op);
    this.kernelSize = [...kernelSize] as unknown as S;
    this.stride = [...(stride ?? kernelSize)] as unknown as S;
    this.padding = padding;
    this.countIncludePad = countIncludePad;
    this.ceilMode = ceilMode;
  }

  /** `[batch, channels, ...spatial]` → `[batch, channels, ...spatial']`. */
  forward(input: Tensor<D, Float>): Tensor<D, Float> {
    const nd = this.kernelSize.length;
    const layer = this.constructor.name;
    const dims = expectSpatialInput(input, nd, undefined, layer);
    const p = resolvePadding(
      this.padding,
      dims.slice(2),
      this.kernelSize,
      this.stride,
      this.kernelSize.map(() => 1),
      layer,
    );
    const [x, padding] = padInput(input, p, this.kernelSize, 0, false);
    return AVG_FNS[nd]!(x, nd === 1 ? this.kernelSize[0]! : this.kernelSize, {
      stride: this.stride,
      padding,
      countIncludePad: this.countIncludePad,
      ceilMode: this.ceilMode,
    }) as Tensor<D, Float>;
  }

  override displayAttributes(): Record<string, unknown> {
    return {
      kernelSize: perDimDisplay(this.kernelSize),
      stride: perDimDisplay(this.stride),
      padding: displayPadding(this.padding),
      countIncludePad: this.countIncludePad,
      ceilMode: this.ceilMode,
    };
  }
}

/** Configuration of {@link MaxPool1d} (Burn's `MaxPool1dConfig`). */
export class MaxPool1dConfig extends Config.define({
  /** Window size. */
  kernelSize: positive,
  /** Step between windows (default: the kernel size). */
  stride: positive.optional(),
  /** Padding (default `'valid'`; `PaddingConfig1d`). */
  padding: paddingSchema.default('valid'),
  /** Spacing between window taps (default 1). */
  dilation: positive.default(1),
  /** Round the output size up (default false). */
  ceilMode: z.boolean().default(false),
}) {
  /** Creates the layer. */
  init(): MaxPool1d {
    return new MaxPool1d(this);
  }
}

/** 1-d max pooling over `[batch, channels, length]` (Burn's `MaxPool1d`). */
export class MaxPool1d extends MaxPoolNd<3, [number]> {
  constructor(config: MaxPool1dConfig) {
    super(
      [config.kernelSize],
      config.stride === undefined ? undefined : [config.stride],
      config.padding,
      listOf(config.dilation),
      config.ceilMode,
      'MaxPool1dConfig',
    );
  }
}

/** Configuration of {@link MaxPool2d} (Burn's `MaxPool2dConfig`). */
export class MaxPool2dConfig extends Config.define({
  /** `[kernelHeight, kernelWidth]`. */
  kernelSize: pair,
  /** Step between windows (default: the kernel size). */
  strides: pair.optional(),
  /** Padding (default `'valid'`; `PaddingConfig2d`). */
  padding: paddingSchema.default('valid'),
  /** Spacing between window taps (default [1, 1]). */
  dilation: pair.default([1, 1]),
  /** Round the output size up (default false). */
  ceilMode: z.boolean().default(false),
}) {
  /** Creates the layer. */
  init(): MaxPool2d {
    return new MaxPool2d(this);
  }
}

/** 2-d max pooling over `[batch, channels, height, width]` (Burn's `MaxPool2d`). */
export class MaxPool2d extends MaxPoolNd<4, [number, number]> {
  constructor(config: MaxPool2dConfig) {
    super(config.kernelSize, config.strides, config.padding, config.dilation, config.ceilMode, 'MaxPool2dConfig');
  }
}

/** Configuration of {@link AvgPool1d} (Burn's `AvgPool1dConfig`). */
export class AvgPool1dConfig extends Config.define({
  /** Window size. */
  kernelSize: positive,
  /** Step between windows (default: the kernel size). */
  stride: positive.optional(),
  /** Padding (default `'valid'`; `PaddingConfig1d`). */
  padding: paddingSchema.default('valid'),
  /** Count the padding zeros in the divisor (default true). */
  countIncludePad: z.boolean().default(true),
  /** Round the output size up (default false). */
  ceilMode: z.boolean().default(false),
}) {
  /** Creates the layer. */
  init(): AvgPool1d {
    return new AvgPool1d(this);
  }
}

/** 1-d average pooling over `[batch, channels, length]` (Burn's `AvgPool1d`). */
export class AvgPool1d extends AvgPoolNd<3, [number]> {
  constructor(config: AvgPool1dConfig) {
    super(
      [config.kernelSize],
      config.stride === undefined ? undefined : [config.stride],
      config.padding,
      config.countIncludePad,
      config.ceilMode,
      'AvgPool1dConfig',
    );
  }
}

/** Configuration of {@link AvgPool2d} (Burn's `AvgPool2dConfig`). */
export class AvgPool2dConfig extends Config.define({
  /** `[kernelHeight, kernelWidth]`. */
  kernelSize: pair,
  /** Step between windows (default: the kernel size). */
  strides: pair.optional(),
  /** Padding (default `'valid'`; `PaddingConfig2d`). */
  padding: paddingSchema.default('valid'),
  /** Count the padding zeros in the divisor (default true). */
  countIncludePad: z.boolean().default(true),
  /** Round the output size up (default false). */
  ceilMode: z.boolean().default(false),
}) {
  /** Creates the layer. */
  init(): AvgPool2d {
    return new AvgPool2d(this);
  }
}

/** 2-d average pooling over `[batch, channels, height, width]` (Burn's `AvgPool2d`). */
export class AvgPool2d extends AvgPoolNd<4, [number, number]> {
  constructor(config: AvgPool2dConfig) {
    super(
      config.kernelSize,
      config.strides,
      config.padding,
      config.countIncludePad,
      config.ceilMode,
      'AvgPool2dConfig',
    );
  }
}
