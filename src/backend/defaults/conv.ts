import type { Backend, TensorPrimitive } from '../backend.js';
import type { ConvOptions, UnfoldOptions } from '../options.js';
import { convOutputSizes } from '../../core/geometry.js';
import { padSpatial, prod, windows } from './spatial.js';

/**
 * N-d convolution as im2col + batched matmul: the zero-padded input is cut into one strided view
 * per kernel offset, concatenated into columns `[N, groups, C_in/groups · kvol, L]` and multiplied
 * by the weight `[C_out, C_in/groups, ...k]` reshaped per group. Works for any number of spatial
 * dims; the layout is `[N, C, ...spatial]`.
 */
export function conv<P extends TensorPrimitive>(
  b: Backend<P>,
  x: P,
  weight: P,
  bias: P | undefined,
  o: ConvOptions,
): P {
  const [n, cIn, ...spatial] = x.shape as [number, number, ...number[]];
  const [cOut, cInG, ...kernel] = weight.shape as [number, number, ...number[]];
  const g = o.groups;
  const out = convOutputSizes(spatial, kernel, o);
  const xp = padSpatial(b, x, o.padding, o.padding, 0);
  const cols = windows(b, xp, kernel, { stride: o.stride, dilation: o.dilation, out }); // [N, C_in, kvol, ...out]
  const kvol = prod(kernel);
  const colsG = b.reshape(cols, [n, g, (cIn / g) * kvol, prod(out)]);
  const w = b.reshape(weight, [1, g, cOut / g, cInG * kvol]);
  const y = b.reshape(b.matmul(w, colsG), [n, cOut, ...out]);
  return bias === undefined ? y : b.binary('add', y, b.reshape(bias, [1, cOut, ...out.map(() => 1)]));
}

/** im2col for `[N, C, H, W]`: `[N, C · kh · kw, L]`, channel-major as PyTorch's `unfold`. */
export function unfold4d<P extends TensorPrimitive>(
  b: Backend<P>,
  x: P,
  kernelSize: readonly number[],
  o: UnfoldOptions,
): P {
  const [n, c, ...spatial] = x.shape as [number, number, ...number[]];
  const out = convOutputSizes(spatial, kernelSize, o);
  const xp = padSpatial(b, x, o.padding, o.padding, 0);
  const cols = windows(b, xp, kernelSize, { stride: o.stride, dilation: o.dilation, out });
  return b.reshape(cols, [n, c * prod(kernelSize), prod(out)]);
}
