import type { Backend, TensorPrimitive } from '../backend.js';
import type { DeformConvOptions } from '../options.js';
import { bilinearSample } from './grid-sample.js';
import { convOutputSize } from '../../core/geometry.js';
import { hostTensor, whole } from './spatial.js';

/**
 * Deformable 2-d convolution (torchvision's `deform_conv2d`): every kernel tap of every output
 * position samples the input bilinearly (zeros outside) at its regular position plus a learned
 * offset `(dy, dx)`, optionally scaled by a mask; the sampled columns then go through the same
 * grouped matmul as a plain convolution.
 *
 * Shapes: `x` `[N, C_in, H, W]`, `offset` `[N, 2 · offsetGroups · kh · kw, H_out, W_out]` (pairs
 * `(dy, dx)` per group and tap), `mask` `[N, offsetGroups · kh · kw, H_out, W_out]`, `weight`
 * `[C_out, C_in / weightGroups, kh, kw]`.
 */
export function deformConv2d<P extends TensorPrimitive>(
  b: Backend<P>,
  x: P,
  offset: P,
  weight: P,
  mask: P | undefined,
  bias: P | undefined,
  o: DeformConvOptions,
): P {
  const [n, cIn, h, w] = x.shape as [number, number, number, number];
  const [cOut, cInW, kh, kw] = weight.shape as [number, number, number, number];
  const ho = convOutputSize(h, kh, o.stride[0]!, o.padding[0]!, o.dilation[0]!);
  const wo = convOutputSize(w, kw, o.stride[1]!, o.padding[1]!, o.dilation[1]!);
  const kvol = kh * kw,
    l = ho * wo,
    og = o.offsetGroups,
    wg = o.weightGroups;

  // Regular sampling positions per (tap, output position), on the host.
  const baseY = new Float64Array(kvol * l),
    baseX = new Float64Array(kvol * l);
  for (let i = 0; i < kh; i++)
    for (let j = 0; j < kw; j++) {
      const k = i * kw + j;
      for (let oh = 0; oh < ho; oh++)
        for (let ow = 0; ow < wo; ow++) {
          baseY[k * l + oh * wo + ow] = oh * o.stride[0]! - o.padding[0]! + i * o.dilation[0]!;
          baseX[k * l + oh * wo + ow] = ow * o.stride[1]! - o.padding[1]! + j * o.dilation[1]!;
        }
    }
  const off = b.reshape(offset, [n, og, kvol, 2, l]);
  const component = (c: number) =>
    b.reshape(b.slice(off, [whole(n), whole(og), whole(kvol), { start: c, size: 1, step: 1 }, whole(l)]), [
      n,
      og,
      1,
      kvol * l,
    ]);
  const py = b.binary('add', component(0), hostTensor(b, baseY, [1, 1, 1, kvol * l], x.dtype));
  const px = b.binary('add', component(1), hostTensor(b, baseX, [1, 1, 1, kvol * l], x.dtype));

  let cols = bilinearSample(b, b.reshape(x, [n, og, cIn / og, h * w]), py, px, h, w); // [N, og, C_in/og, kvol · L]
  if (mask !== undefined) cols = b.binary('mul', cols, b.reshape(mask, [n, og, 1, kvol * l]));
  const colsG = b.reshape(cols, [n, wg, cInW * kvol, l]);
  const wt = b.reshape(weight, [1, wg, cOut / wg, cInW * kvol]);
  const y = b.reshape(b.matmul(wt, colsG), [n, cOut, ho, wo]);
  return bias === undefined ? y : b.binary('add', y, b.reshape(bias, [1, cOut, 1, 1]));
}
