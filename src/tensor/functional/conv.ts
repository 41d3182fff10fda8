import type { ConvOptions, ConvTransposeOptions } from '../../backend/options.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../kind.js';
import { checkNumel } from '../../core/shape.js';
import { convOutputSize, convTransposeOutputSize, dilatedKernel } from '../../core/geometry.js';
import type { Tensor } from '../tensor.js';
import { expectFloatOn, expectRank, expectVector, perDim, positiveInt, windowOut, type PerDim } from './check.js';

/** Options of `conv1d` / `conv2d` / `conv3d` (Burn's `ConvOptions`); each size is one number or one per spatial dim. */
export interface ConvFnOptions {
  /** Step between windows (default 1). */
  readonly stride?: PerDim;
  /**
   * Zeros added before each spatial dim (default 0), and after it too unless `paddingEnd` is
   * given.
   */
  readonly padding?: PerDim;
  /**
   * Zeros added after each spatial dim when they differ from `padding` (Burn's
   * `PaddedConvOptions::asymmetric(stride, padding, paddingEnd, …)`; default: `padding`).
   * `padding: [1, 0], paddingEnd: [2, 1]` pads 1 above, 2 below, none left, 1 right.
   */
  readonly paddingEnd?: PerDim;
  /** Spacing between kernel taps (default 1). */
  readonly dilation?: PerDim;
  /** Number of channel groups (default 1); `groups = C_in` gives a depthwise convolution. */
  readonly groups?: number;
}

/** Options of `convTranspose1d` / `2d` / `3d` (Burn's `ConvTransposeOptions`): symmetric padding only. */
export interface ConvTransposeFnOptions extends Omit<ConvFnOptions, 'paddingEnd'> {
  /** Extra size added to the far side of each output dim (default 0; below max(stride, dilation)). */
  readonly paddingOut?: PerDim;
}

const LAYOUTS = ['', '[N, C_in, L]', '[N, C_in, H, W]', '[N, C_in, D, H, W]'];
const KERNELS = [
  '',
  '[C_out, C_in / groups, k]',
  '[C_out, C_in / groups, kh, kw]',
  '[C_out, C_in / groups, kd, kh, kw]',
];
const T_KERNELS = [
  '',
  '[C_in, C_out / groups, k]',
  '[C_in, C_out / groups, kh, kw]',
  '[C_in, C_out / groups, kd, kh, kw]',
];

function checkInputs(
  op: string,
  nd: number,
  x: Tensor<number, Float>,
  weight: Tensor<number, Float>,
  kernels: readonly string[],
): void {
  x.expectFloat(op);
  expectFloatOn(x, weight, 'weight', op);
  expectRank(x, nd + 2, 'input', op, LAYOUTS[nd]!);
  expectRank(weight, nd + 2, 'weight', op, kernels[nd]!);
}

function convNd<D extends number>(
  op: string,
  nd: number,
  x: Tensor<D, Float>,
  weight: Tensor<D, Float>,
  bias: Tensor<1, Float> | undefined,
  options: ConvFnOptions,
): Tensor<D, Float> {
  checkInputs(op, nd, x, weight, KERNELS);
  const [, cIn, ...spatial] = x.primitive.shape as [number, number, ...number[]];
  const [cOut, cInG, ...kernel] = weight.primitive.shape as [number, number, ...number[]];
  const groups = positiveInt(options.groups ?? 1, 'groups', op);
  if (cIn % groups !== 0 || cOut % groups !== 0 || cInG * groups !== cIn) {
    throw new BurnError(
      op,
      `input ${fmt(x.primitive.shape)} and weight ${fmt(weight.primitive.shape)} with groups ${groups}; expected C_in (${cIn}) and C_out (${cOut}) divisible by groups and weight.shape[1] == C_in / groups`,
    );
  }
  const start = perDim(options.padding, 0, nd, 'padding', op, 0);
  const end = options.paddingEnd === undefined ? start : perDim(options.paddingEnd, 0, nd, 'paddingEnd', op, 0);
  // Asymmetric padding: the kernel pads the part both sides share and an explicit zero pad adds
  // the rest (Burn pads it all explicitly; the sums are the same).
  const shared = start.map((p, d) => Math.min(p, end[d]!));
  const extra = start.map((p, d): [number, number] => [p - shared[d]!, end[d]! - shared[d]!]);
  const o: ConvOptions = {
    stride: perDim(options.stride, 1, nd, 'stride', op, 1),
    padding: shared,
    dilation: perDim(options.dilation, 1, nd, 'dilation', op, 1),
    groups,
  };
  spatial.forEach((s, d) => {
    const window = dilatedKernel(kernel[d]!, o.dilation[d]!);
    if (start[d] === end[d]) windowOut(op, d, s, kernel[d]!, o.stride[d]!, o.padding[d]!, o.dilation[d]!);
    else if (s + start[d]! + end[d]! < window) {
      throw new BurnError(
        op,
        `spatial dim ${d} of size ${s} (padding ${start[d]} before, ${end[d]} after) is smaller than the dilated kernel ${window}; expected at least one output position`,
      );
    }
  });
  expectVector(x, bias, cOut, 'bias', op);
  const n = x.primitive.shape[0]!;
  const outSize = spatial.map((s, d) =>
    convOutputSize(s, kernel[d]!, o.stride[d]!, start[d]!, o.dilation[d]!, end[d]!),
  );
  checkNumel([n, cOut, ...outSize], op);
  const padded = extra.some(([a, b]) => a > 0 || b > 0);
  if (padded) checkNumel([n, cIn, ...spatial.map((s, d) => s + extra[d]![0] + extra[d]![1])], op, 'padded input shape');
  const input = padded ? x.pad(extra) : x;
  return x.wrap<D, Float>(
    x.backend.conv(input.primitive, x.castLike(weight.primitive), bias && x.castLike(bias.primitive), o),
  );
}

function convTransposeNd<D extends number>(
  op: string,
  nd: number,
  x: Tensor<D, Float>,
  weight: Tensor<D, Float>,
  bias: Tensor<1, Float> | undefined,
  options: ConvTransposeFnOptions,
): Tensor<D, Float> {
  checkInputs(op, nd, x, weight, T_KERNELS);
  const [, cIn, ...spatial] = x.primitive.shape as [number, number, ...number[]];
  const [wIn, cOutG, ...kernel] = weight.primitive.shape as [number, number, ...number[]];
  const groups = positiveInt(options.groups ?? 1, 'groups', op);
  if (wIn !== cIn || cIn % groups !== 0) {
    throw new BurnError(
      op,
      `input ${fmt(x.primitive.shape)} and weight ${fmt(weight.primitive.shape)} with groups ${groups}; expected weight.shape[0] == C_in (${cIn}) and C_in divisible by groups`,
    );
  }
  const o: ConvTransposeOptions = {
    stride: perDim(options.stride, 1, nd, 'stride', op, 1),
    padding: perDim(options.padding, 0, nd, 'padding', op, 0),
    dilation: perDim(options.dilation, 1, nd, 'dilation', op, 1),
    paddingOut: perDim(options.paddingOut, 0, nd, 'paddingOut', op, 0),
    groups,
  };
  // As Burn, any paddingOut is accepted (PyTorch wants it below max(stride, dilation)): the extra
  // output cells take no input and hold the bias.
  const outSize = spatial.map((s, d) => {
    const out = convTransposeOutputSize(s, kernel[d]!, o.stride[d]!, o.padding[d]!, o.dilation[d]!, o.paddingOut[d]!);
    if (out < 1)
      throw new BurnError(
        op,
        `spatial dim ${d} of size ${s} gives output size ${out} with padding ${o.padding[d]}; expected a positive size`,
      );
    return out;
  });
  checkNumel([x.primitive.shape[0]!, cOutG * groups, ...outSize], op);
  expectVector(x, bias, cOutG * groups, 'bias', op);
  return x.wrap<D, Float>(
    x.backend.convTranspose(x.primitive, x.castLike(weight.primitive), bias && x.castLike(bias.primitive), o),
  );
}

/**
 * 1-d convolution (cross-correlation, as PyTorch and Burn).
 *
 * @param x `[N, C_in, L]`
 * @param weight `[C_out, C_in / groups, k]`
 * @param bias optional `[C_out]`
 * @returns `[N, C_out, L_out]` with `L_out = floor((L + padding + paddingEnd - dilation·(k - 1) - 1) / stride) + 1`
 */
export function conv1d(
  x: Tensor<3, Float>,
  weight: Tensor<3, Float>,
  bias?: Tensor<1, Float>,
  options: ConvFnOptions = {},
): Tensor<3, Float> {
  return convNd('conv1d', 1, x, weight, bias, options);
}

/**
 * 2-d convolution.
 *
 * @param x `[N, C_in, H, W]`
 * @param weight `[C_out, C_in / groups, kh, kw]`
 * @param bias optional `[C_out]`
 * @returns `[N, C_out, H_out, W_out]`
 */
export function conv2d(
  x: Tensor<4, Float>,
  weight: Tensor<4, Float>,
  bias?: Tensor<1, Float>,
  options: ConvFnOptions = {},
): Tensor<4, Float> {
  return convNd('conv2d', 2, x, weight, bias, options);
}

/**
 * 3-d convolution.
 *
 * @param x `[N, C_in, D, H, W]`
 * @param weight `[C_out, C_in / groups, kd, kh, kw]`
 * @param bias optional `[C_out]`
 * @returns `[N, C_out, D_out, H_out, W_out]`
 */
export function conv3d(
  x: Tensor<5, Float>,
  weight: Tensor<5, Float>,
  bias?: Tensor<1, Float>,
  options: ConvFnOptions = {},
): Tensor<5, Float> {
  return convNd('conv3d', 3, x, weight, bias, options);
}

/**
 * 1-d transposed convolution (the gradient of `conv1d` with respect to its input).
 *
 * @param x `[N, C_in, L]`
 * @param weight `[C_in, C_out / groups, k]` (PyTorch's layout)
 * @param bias optional `[C_out]`
 * @returns `[N, C_out, L_out]` with `L_out = (L - 1)·stride - 2·padding + dilation·(k - 1) + paddingOut + 1`
 */
export function convTranspose1d(
  x: Tensor<3, Float>,
  weight: Tensor<3, Float>,
  bias?: Tensor<1, Float>,
  options: ConvTransposeFnOptions = {},
): Tensor<3, Float> {
  return convTransposeNd('convTranspose1d', 1, x, weight, bias, options);
}

/**
 * 2-d transposed convolution.
 *
 * @param x `[N, C_in, H, W]`
 * @param weight `[C_in, C_out / groups, kh, kw]`
 * @param bias optional `[C_out]`
 * @returns `[N, C_out, H_out, W_out]`
 */
export function convTranspose2d(
  x: Tensor<4, Float>,
  weight: Tensor<4, Float>,
  bias?: Tensor<1, Float>,
  options: ConvTransposeFnOptions = {},
): Tensor<4, Float> {
  return convTransposeNd('convTranspose2d', 2, x, weight, bias, options);
}

/**
 * 3-d transposed convolution.
 *
 * @param x `[N, C_in, D, H, W]`
 * @param weight `[C_in, C_out / groups, kd, kh, kw]`
 * @param bias optional `[C_out]`
 * @returns `[N, C_out, D_out, H_out, W_out]`
 */
export function convTranspose3d(
  x: Tensor<5, Float>,
  weight: Tensor<5, Float>,
  bias?: Tensor<1, Float>,
  options: ConvTransposeFnOptions = {},
): Tensor<5, Float> {
  return convTransposeNd('convTranspose3d', 3, x, weight, bias, options);
}
