import type { AvgPoolOptions, MaxPoolOptions } from '../../backend/options.js';
import { BurnError } from '../../core/errors.js';
import type { Float, Int } from '../kind.js';
import { dilatedKernel, poolPaddingFits, poolPaddingLimit } from '../../core/geometry.js';
import { checkNumel } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';
import { expectRank, perDim, type PerDim } from './check.js';

/** Options of the max pools (PyTorch's `max_pool*d` arguments). */
export interface MaxPoolFnOptions {
  /** Step between windows (default: the kernel size). */
  readonly stride?: PerDim;
  /** Implicit -inf padding on both sides (default 0; at most half the kernel). */
  readonly padding?: PerDim;
  /** Spacing between window taps (default 1). */
  readonly dilation?: PerDim;
  /** Round the output size up, keeping a last partial window that starts inside the input or left padding (default false). */
  readonly ceilMode?: boolean;
}

/** Options of the average pools. */
export interface AvgPoolFnOptions {
  /** Step between windows (default: the kernel size). */
  readonly stride?: PerDim;
  /** Implicit zero padding on both sides (default 0; at most half the kernel). */
  readonly padding?: PerDim;
  /** Count the padding zeros in the divisor (default true, as Burn and PyTorch). */
  readonly countIncludePad?: boolean;
  /** Round the output size up (default false). */
  readonly ceilMode?: boolean;
}

const LAYOUT = ['', '[N, C, L]', '[N, C, H, W]', '[N, C, D, H, W]'];

function poolOptions(
  op: string,
  nd: number,
  x: Tensor<number, Float>,
  kernelSize: PerDim,
  options: MaxPoolFnOptions,
): MaxPoolOptions {
  x.expectFloat(op);
  expectRank(x, nd + 2, 'input', op, LAYOUT[nd]!);
  const kernel = perDim(kernelSize, 1, nd, 'kernelSize', op, 1);
  const o: MaxPoolOptions = {
    kernelSize: kernel,
    stride: perDim(options.stride, kernel, nd, 'stride', op, 1),
    padding: perDim(options.padding, 0, nd, 'padding', op, 0),
    dilation: perDim(options.dilation, 1, nd, 'dilation', op, 1),
    ceilMode: options.ceilMode ?? false,
  };
  x.primitive.shape.slice(2).forEach((s, d) => {
    const [k, p, dl] = [kernel[d]!, o.padding[d]!, o.dilation[d]!];
    if (!poolPaddingFits(p, k))
      throw new BurnError(
        op,
        `padding ${p} in spatial dim ${d} with kernel size ${k}; expected at most half the kernel size (${poolPaddingLimit(k)})`,
      );
    const span = dilatedKernel(k, dl);
    if (s + 2 * p < span)
      throw new BurnError(
        op,
        `spatial dim ${d} of size ${s} (padding ${p}) is smaller than the window ${span}; expected at least one output position`,
      );
  });
  return o;
}

function maxPoolNd<D extends number>(
  op: string,
  nd: number,
  x: Tensor<D, Float>,
  kernelSize: PerDim,
  options: MaxPoolFnOptions,
): Tensor<D, Float> {
  return x.wrap<D, Float>(x.backend.maxPool(x.primitive, poolOptions(op, nd, x, kernelSize, options)));
}

function maxPoolIndicesNd<D extends number>(
  op: string,
  nd: number,
  x: Tensor<D, Float>,
  kernelSize: PerDim,
  options: MaxPoolFnOptions,
): [Tensor<D, Float>, Tensor<D, Int>] {
  const [v, i] = x.backend.maxPoolWithIndices(x.primitive, poolOptions(op, nd, x, kernelSize, options));
  return [x.wrap<D, Float>(v), x.wrap<D, Int>(i)];
}

function avgPoolNd<D extends number>(
  op: string,
  nd: number,
  x: Tensor<D, Float>,
  kernelSize: PerDim,
  options: AvgPoolFnOptions,
): Tensor<D, Float> {
  const base = poolOptions(op, nd, x, kernelSize, {
    stride: options.stride,
    padding: options.padding,
    ceilMode: options.ceilMode,
  });
  const o: AvgPoolOptions = {
    kernelSize: base.kernelSize,
    stride: base.stride,
    padding: base.padding,
    ceilMode: base.ceilMode,
    countIncludePad: options.countIncludePad ?? true,
  };
  return x.wrap<D, Float>(x.backend.avgPool(x.primitive, o));
}

/** 1-d max pooling of `[N, C, L]`. */
export function maxPool1d(x: Tensor<3, Float>, kernelSize: number, options: MaxPoolFnOptions = {}): Tensor<3, Float> {
  return maxPoolNd('maxPool1d', 1, x, kernelSize, options);
}

/** 2-d max pooling of `[N, C, H, W]`; `kernelSize` is `[kh, kw]` or one number for both. */
export function maxPool2d(x: Tensor<4, Float>, kernelSize: PerDim, options: MaxPoolFnOptions = {}): Tensor<4, Float> {
  return maxPoolNd('maxPool2d', 2, x, kernelSize, options);
}

/** 1-d max pooling with the index (in `[0, L)`) of each window's maximum. */
export function maxPool1dWithIndices(
  x: Tensor<3, Float>,
  kernelSize: number,
  options: MaxPoolFnOptions = {},
): [Tensor<3, Float>, Tensor<3, Int>] {
  return maxPoolIndicesNd('maxPool1dWithIndices', 1, x, kernelSize, options);
}

/** 2-d max pooling with the flat index `h · W + w` of each window's maximum in its channel, as PyTorch. */
export function maxPool2dWithIndices(
  x: Tensor<4, Float>,
  kernelSize: PerDim,
  options: MaxPoolFnOptions = {},
): [Tensor<4, Float>, Tensor<4, Int>] {
  return maxPoolIndicesNd('maxPool2dWithIndices', 2, x, kernelSize, options);
}

/** 1-d average pooling of `[N, C, L]`. */
export function avgPool1d(x: Tensor<3, Float>, kernelSize: number, options: AvgPoolFnOptions = {}): Tensor<3, Float> {
  return avgPoolNd('avgPool1d', 1, x, kernelSize, options);
}

/** 2-d average pooling of `[N, C, H, W]`. */
export function avgPool2d(x: Tensor<4, Float>, kernelSize: PerDim, options: AvgPoolFnOptions = {}): Tensor<4, Float> {
  return avgPoolNd('avgPool2d', 2, x, kernelSize, options);
}

function adaptiveNd<D extends number>(
  op: string,
  nd: number,
  x: Tensor<D, Float>,
  outputSize: PerDim,
): Tensor<D, Float> {
  x.expectFloat(op);
  expectRank(x, nd + 2, 'input', op, LAYOUT[nd]!);
  const out = perDim(outputSize, 1, nd, 'outputSize', op, 1);
  x.primitive.shape.slice(2).forEach((s, d) => {
    if (s < 1) throw new BurnError(op, `spatial dim ${d} is empty; expected a non-empty input`);
  });
  checkNumel([...x.primitive.shape.slice(0, 2), ...out], op);
  return x.wrap<D, Float>(x.backend.adaptiveAvgPool(x.primitive, out));
}

/** Adaptive 1-d average pooling of `[N, C, L]` to `[N, C, outputSize]` (PyTorch's window bounds). */
export function adaptiveAvgPool1d(x: Tensor<3, Float>, outputSize: number): Tensor<3, Float> {
  return adaptiveNd('adaptiveAvgPool1d', 1, x, outputSize);
}

/** Adaptive 2-d average pooling of `[N, C, H, W]` to `[N, C, ...outputSize]`. */
export function adaptiveAvgPool2d(x: Tensor<4, Float>, outputSize: PerDim): Tensor<4, Float> {
  return adaptiveNd('adaptiveAvgPool2d', 2, x, outputSize);
}

/** Adaptive 3-d average pooling of `[N, C, D, H, W]` to `[N, C, ...outputSize]`. */
export function adaptiveAvgPool3d(x: Tensor<5, Float>, outputSize: PerDim): Tensor<5, Float> {
  return adaptiveNd('adaptiveAvgPool3d', 3, x, outputSize);
}
