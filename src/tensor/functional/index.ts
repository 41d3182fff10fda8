/**
 * The module operations as free functions over tensors (Burn's `burn::tensor::module::*`): the
 * building blocks of the `nn` layers. Layouts are channels-first (`[N, C, ...spatial]`); options
 * objects take one number or one per spatial dim.
 *
 * ```ts
 * import { functional, Tensor } from 'burn-ts';
 * const y = functional.conv2d(x, weight, bias, { stride: 2, padding: 1 });
 * const p = functional.maxPool2d(y, 2);
 * ```
 */
export type { PerDim } from './check.js';
export { linear, embedding } from './linear.js';
export {
  conv1d,
  conv2d,
  conv3d,
  convTranspose1d,
  convTranspose2d,
  convTranspose3d,
  type ConvFnOptions,
  type ConvTransposeFnOptions,
} from './conv.js';
export { deformConv2d, type DeformConvFnOptions } from './deform-conv.js';
export { unfold4d, fold4d, type UnfoldFnOptions } from './unfold.js';
export {
  maxPool1d,
  maxPool2d,
  maxPool1dWithIndices,
  maxPool2dWithIndices,
  avgPool1d,
  avgPool2d,
  adaptiveAvgPool1d,
  adaptiveAvgPool2d,
  adaptiveAvgPool3d,
  type MaxPoolFnOptions,
  type AvgPoolFnOptions,
} from './pool.js';
export { interpolate, type InterpolateFnOptions, type InterpolateFnMode } from './interpolate.js';
export { attention, attentionFallback, type AttentionFnOptions } from './attention.js';
export { ctcLoss } from './ctc.js';
export {
  batchNorm,
  batchNormWithStats,
  layerNorm,
  type BatchNormFnOptions,
  type BatchNormOutput,
  type LayerNormFnOptions,
} from './norm.js';
