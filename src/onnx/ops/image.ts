import { TensorData } from '../../core/data.js';
import { BurnError } from '../../core/errors.js';
import * as F from '../../tensor/functional/index.js';
import { Tensor } from '../../tensor/tensor.js';
import type { AnyTensor, FloatT, OpContext, OpFamily } from './types.js';
import { asF, axisOf, filled, tensorAt } from './util.js';

const OP = 'onnx';

/** Col2Im (opset 18): sums sliding blocks back into an image, 2-d, with any padding (folded onto the padded image, then cropped). */
function col2im(ctx: OpContext, cols: FloatT): FloatT {
  const image = ctx.ints(1)!;
  const block = ctx.ints(2)!;
  if (image.length !== 2)
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (Col2Im) has a ${image.length}-d image_shape; only 2-d images are supported`,
    );
  const strides = ctx.attrs.ints('strides') ?? [1, 1];
  const dilations = ctx.attrs.ints('dilations') ?? [1, 1];
  const pads = ctx.attrs.ints('pads') ?? [0, 0, 0, 0];
  const padded = [image[0]! + pads[0]! + pads[2]!, image[1]! + pads[1]! + pads[3]!];
  const out = F.fold4d(cols as Tensor<3>, padded, block, { stride: strides, dilation: dilations }) as FloatT;
  if (pads.every((p) => p === 0)) return out;
  return out.slice([null, null, [pads[0]!, pads[0]! + image[0]!], [pads[1]!, pads[1]! + image[1]!]]);
}

/**
 * AffineGrid (opset 20): the normalized sampling grid of 2-d (`[N, 2, 3]`) or 3-d (`[N, 3, 4]`)
 * affine transforms, `[N, H, W, 2]` or `[N, D, H, W, 3]`, pixel centers with align_corners 0.
 */
function affineGrid(ctx: OpContext, theta: FloatT): FloatT {
  const size = ctx.ints(1)!;
  const spatial = size.slice(2);
  const nd = spatial.length;
  const align = ctx.attrs.int('align_corners', 0) === 1;
  const coord = (i: number, n: number) => (n === 1 ? 0 : align ? -1 + (2 * i) / (n - 1) : (2 * i + 1) / n - 1);
  const count = spatial.reduce((a, b) => a * b, 1);
  const base = new Float64Array(count * (nd + 1));
  for (let p = 0; p < count; p++) {
    let rest = p;
    const idx = new Array<number>(nd);
    for (let d = nd - 1; d >= 0; d--) {
      idx[d] = rest % spatial[d]!;
      rest = Math.floor(rest / spatial[d]!);
    }
    // (x, y[, z], 1): the fastest dim first.
    for (let d = 0; d < nd; d++) base[p * (nd + 1) + d] = coord(idx[nd - 1 - d]!, spatial[nd - 1 - d]!);
    base[p * (nd + 1) + nd] = 1;
  }
  const grid = Tensor.fromData(
    new TensorData(base, [1, count, nd + 1], 'f64').convert(theta.dtype()),
    theta.device(),
  ) as FloatT;
  const out = grid.expand([size[0]!, count, nd + 1]).matmul(theta.swapDims(1, 2));
  return out.reshape([size[0]!, ...spatial, nd]);
}

/** CenterCropPad (opset 18): crops or zero-pads each listed axis to its size around the center. */
function centerCropPad(ctx: OpContext, x: AnyTensor): AnyTensor {
  const shape = ctx.ints(1)!;
  const rank = x.rank();
  const axes = (ctx.attrs.ints('axes') ?? shape.map((_, i) => i)).map((a) => axisOf(ctx, a, rank));
  let t = x;
  axes.forEach((a, i) => {
    const n = t.dims()[a]!;
    const m = shape[i]!;
    if (m < n) {
      const start = Math.floor((n - m) / 2);
      t = t.sliceDim(a, [start, start + m]);
    } else if (m > n) {
      const before = Math.floor((m - n) / 2);
      const dims = t.dims();
      const zeros = (k: number) =>
        filled(
          dims.map((d, j) => (j === a ? k : d)),
          0,
          t.dtype(),
          t.device(),
        );
      t = Tensor.cat(
        [zeros(before), t, zeros(m - n - before)].filter((p) => p.dims()[a]! > 0),
        a,
      );
    }
  });
  return t;
}

/** Image ops: Col2Im, AffineGrid, CenterCropPad. */
export const imageOps: OpFamily = {
  Col2Im: { run: (ctx, inputs) => [col2im(ctx, asF(tensorAt(ctx, inputs, 0))) as AnyTensor], hostInputs: [1, 2] },
  AffineGrid: { run: (ctx, inputs) => [affineGrid(ctx, asF(tensorAt(ctx, inputs, 0))) as AnyTensor], hostInputs: [1] },
  CenterCropPad: { run: (ctx, inputs) => [centerCropPad(ctx, tensorAt(ctx, inputs, 0))], hostInputs: [1] },
};
