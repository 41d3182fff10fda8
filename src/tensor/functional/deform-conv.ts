import type { DeformConvOptions } from '../../backend/options.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../kind.js';
import type { Tensor } from '../tensor.js';
import { expectFloatOn, expectRank, expectVector, perDim, positiveInt, windowOut, type PerDim } from './check.js';

/** Options of `deformConv2d` (Burn's `DeformConvOptions`). */
export interface DeformConvFnOptions {
  /** Step between windows (default 1). */
  readonly stride?: PerDim;
  /** Zeros around the input (default 0). */
  readonly padding?: PerDim;
  /** Spacing between kernel taps (default 1). */
  readonly dilation?: PerDim;
  /** Channel groups of the weight (default 1). */
  readonly weightGroups?: number;
  /** Channel groups sharing one set of offsets (default 1). */
  readonly offsetGroups?: number;
}

/**
 * Deformable 2-d convolution (torchvision's `deform_conv2d`, Burn's `deform_conv2d`): each kernel
 * tap samples the input bilinearly at its regular position shifted by a learned `(dy, dx)`
 * offset, optionally scaled by a modulation mask (DCNv2).
 *
 * @param x `[N, C_in, H, W]`
 * @param offset `[N, 2 · offsetGroups · kh · kw, H_out, W_out]`: `(dy, dx)` pairs per group and tap
 * @param weight `[C_out, C_in / weightGroups, kh, kw]`
 * @param mask optional `[N, offsetGroups · kh · kw, H_out, W_out]`
 * @param bias optional `[C_out]`
 * @returns `[N, C_out, H_out, W_out]`
 */
export function deformConv2d(
  x: Tensor<4, Float>,
  offset: Tensor<4, Float>,
  weight: Tensor<4, Float>,
  mask: Tensor<4, Float> | undefined,
  bias: Tensor<1, Float> | undefined,
  options: DeformConvFnOptions = {},
): Tensor<4, Float> {
  const op = 'deformConv2d';
  x.expectFloat(op);
  expectRank(x, 4, 'input', op, '[N, C_in, H, W]');
  expectFloatOn(x, weight, 'weight', op);
  expectRank(weight, 4, 'weight', op, '[C_out, C_in / weightGroups, kh, kw]');
  expectFloatOn(x, offset, 'offset', op);
  expectRank(offset, 4, 'offset', op, '[N, 2 · offsetGroups · kh · kw, H_out, W_out]');
  const [n, cIn, h, w] = x.primitive.shape as [number, number, number, number];
  const [cOut, cInW, kh, kw] = weight.primitive.shape as [number, number, number, number];
  const wg = positiveInt(options.weightGroups ?? 1, 'weightGroups', op);
  const og = positiveInt(options.offsetGroups ?? 1, 'offsetGroups', op);
  if (cIn % wg !== 0 || cOut % wg !== 0 || cInW * wg !== cIn) {
    throw new BurnError(
      op,
      `input ${fmt(x.primitive.shape)} and weight ${fmt(weight.primitive.shape)} with weightGroups ${wg}; expected C_in and C_out divisible by weightGroups and weight.shape[1] == C_in / weightGroups`,
    );
  }
  if (cIn % og !== 0) throw new BurnError(op, `C_in ${cIn} is not divisible by offsetGroups ${og}`);
  const o: DeformConvOptions = {
    stride: perDim(options.stride, 1, 2, 'stride', op, 1),
    padding: perDim(options.padding, 0, 2, 'padding', op, 0),
    dilation: perDim(options.dilation, 1, 2, 'dilation', op, 1),
    weightGroups: wg,
    offsetGroups: og,
  };
  const ho = windowOut(op, 0, h, kh, o.stride[0]!, o.padding[0]!, o.dilation[0]!);
  const wo = windowOut(op, 1, w, kw, o.stride[1]!, o.padding[1]!, o.dilation[1]!);
  const expectShape = (t: Tensor<4, Float>, channels: number, name: string) => {
    const s = t.primitive.shape;
    if (s[0] !== n || s[1] !== channels || s[2] !== ho || s[3] !== wo) {
      throw new BurnError(op, `${name} of shape ${fmt(s)}; expected [${n}, ${channels}, ${ho}, ${wo}]`);
    }
  };
  expectShape(offset, 2 * og * kh * kw, 'offset');
  if (mask !== undefined) {
    expectFloatOn(x, mask, 'mask', op);
    expectShape(mask, og * kh * kw, 'mask');
  }
  expectVector(x, bias, cOut, 'bias', op);
  const p = x.backend.deformConv2d(
    x.primitive,
    x.castLike(offset.primitive),
    x.castLike(weight.primitive),
    mask && x.castLike(mask.primitive),
    bias && x.castLike(bias.primitive),
    o,
  );
  return x.wrap<4, Float>(p);
}
