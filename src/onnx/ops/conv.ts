import { BurnError } from '../../core/errors.js';
import { convOutputSize, convTransposeOutputSize, samePadding } from '../../core/geometry.js';
import * as F from '../../tensor/functional/index.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { Dim } from '../ir/types.js';
import type { Attrs } from './attrs.js';
import type { AnyTensor, FloatT, InferContext, OpContext, OpDef, OpFamily } from './types.js';
import { asF, asN, castTo, inShape, optTensorAt, sameElem, tensorAt } from './util.js';

const OP = 'onnx';

/** Resolved window geometry of a conv or pool node over `nd` spatial dims. */
export interface Window {
  kernel: number[];
  strides: number[];
  dilations: number[];
  /** Padding before and after each spatial dim. */
  begin: number[];
  end: number[];
}

/**
 * The padding of a conv/pool node: explicit `pads`, or `auto_pad` SAME_UPPER/SAME_LOWER (output
 * size `ceil(in / stride)`, the odd pixel after or before) or VALID (none).
 */
export function windowOf(
  node: { name: string; opType: string },
  attrs: Attrs,
  spatial: readonly number[],
  kernel: readonly number[],
): Window {
  const nd = spatial.length;
  const strides = attrs.ints('strides')?.slice() ?? new Array<number>(nd).fill(1);
  const dilations = attrs.ints('dilations')?.slice() ?? new Array<number>(nd).fill(1);
  const autoPad = attrs.string('auto_pad', 'NOTSET');
  let begin = new Array<number>(nd).fill(0);
  let end = new Array<number>(nd).fill(0);
  if (autoPad === 'SAME_UPPER' || autoPad === 'SAME_LOWER') {
    spatial.forEach((n, d) => {
      // samePadding puts the odd element after (SAME_UPPER); SAME_LOWER puts it before.
      const [small, large] = samePadding(n, kernel[d]!, strides[d]!, dilations[d]!);
      begin[d] = autoPad === 'SAME_UPPER' ? small : large;
      end[d] = autoPad === 'SAME_UPPER' ? large : small;
    });
  } else if (autoPad === 'NOTSET') {
    const pads = attrs.ints('pads');
    if (pads) {
      if (pads.length !== 2 * nd)
        throw new BurnError(
          OP,
          `node '${node.name}' (${node.opType}) has ${pads.length} pads for ${nd} spatial dims; expected ${2 * nd}`,
        );
      begin = pads.slice(0, nd);
      end = pads.slice(nd);
    }
  } else if (autoPad !== 'VALID') {
    throw new BurnError(
      OP,
      `node '${node.name}' (${node.opType}) has auto_pad '${autoPad}'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID`,
    );
  }
  return { kernel: [...kernel], strides, dilations, begin, end };
}

/** Zero (or `value`) padding of the spatial dims where before and after differ. */
export function padSpatial(x: AnyTensor, begin: readonly number[], end: readonly number[], value: number): AnyTensor {
  if (begin.every((b, i) => b === 0 && end[i] === 0)) return x;
  return x.pad([[0, 0], [0, 0], ...begin.map((b, i) => [b, end[i]!] as [number, number])], value);
}

type ConvFn = (
  x: FloatT,
  w: FloatT,
  b: FloatT | undefined,
  o: { stride: number[]; padding: number[]; dilation: number[]; groups: number },
) => FloatT;
const CONVS: readonly ConvFn[] = [
  (x, w, b, o) => F.conv1d(x as Tensor<3>, w as Tensor<3>, b as Tensor<1> | undefined, o),
  (x, w, b, o) => F.conv2d(x as Tensor<4>, w as Tensor<4>, b as Tensor<1> | undefined, o),
  (x, w, b, o) => F.conv3d(x as Tensor<5>, w as Tensor<5>, b as Tensor<1> | undefined, o),
];
type ConvTFn = (
  x: FloatT,
  w: FloatT,
  o: { stride: number[]; padding: number[]; dilation: number[]; groups: number },
) => FloatT;
const CONV_TS: readonly ConvTFn[] = [
  (x, w, o) => F.convTranspose1d(x as Tensor<3>, w as Tensor<3>, undefined, o),
  (x, w, o) => F.convTranspose2d(x as Tensor<4>, w as Tensor<4>, undefined, o),
  (x, w, o) => F.convTranspose3d(x as Tensor<5>, w as Tensor<5>, undefined, o),
];

function spatialRank(ctx: { node: { name: string; opType: string } }, x: AnyTensor): number {
  const nd = x.rank() - 2;
  if (nd < 1 || nd > 3)
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (${ctx.node.opType}) got an input of rank ${x.rank()}; expected 3 to 5 ([N, C, ...spatial] with 1 to 3 spatial dims)`,
    );
  return nd;
}

/** `Conv`: asymmetric padding is applied to the input first; symmetric padding goes to the kernel. */
export function conv(ctx: OpContext, x: AnyTensor, w: AnyTensor, b: AnyTensor | undefined): AnyTensor {
  const nd = spatialRank(ctx, x);
  const kernel = w.dims().slice(2);
  const win = windowOf(ctx.node, ctx.attrs, x.dims().slice(2), kernel);
  const symmetric = win.begin.every((p, i) => p === win.end[i]);
  const input = symmetric ? x : padSpatial(x, win.begin, win.end, 0);
  const padding = symmetric ? win.begin : new Array<number>(nd).fill(0);
  return CONVS[nd - 1]!(asF(input), asF(w), b && asF(b), {
    stride: win.strides,
    padding,
    dilation: win.dilations,
    groups: ctx.attrs.int('group', 1),
  }) as AnyTensor;
}

/**
 * `ConvTranspose`: the full transposed convolution (no padding), then cropped by `pads` (or the
 * padding `output_shape` implies) and extended by `output_padding`, then the bias.
 */
function convTranspose(ctx: OpContext, x: AnyTensor, w: AnyTensor, b: AnyTensor | undefined): AnyTensor {
  const nd = spatialRank(ctx, x);
  const spatial = x.dims().slice(2);
  const kernel = w.dims().slice(2);
  const a = ctx.attrs;
  const strides = a.ints('strides')?.slice() ?? new Array<number>(nd).fill(1);
  const dilations = a.ints('dilations')?.slice() ?? new Array<number>(nd).fill(1);
  const outPad = a.ints('output_padding')?.slice() ?? new Array<number>(nd).fill(0);
  const full = spatial.map((n, d) => convTransposeOutputSize(n, kernel[d]!, strides[d]!, 0, dilations[d]!, 0));
  let begin = new Array<number>(nd).fill(0);
  let end = new Array<number>(nd).fill(0);
  const outputShape = a.ints('output_shape');
  const autoPad = a.string('auto_pad', 'NOTSET');
  if (outputShape) {
    const target = outputShape.slice(-nd);
    target.forEach((t, d) => {
      const total = full[d]! + outPad[d]! - t;
      const small = Math.floor(total / 2);
      begin[d] = autoPad === 'SAME_UPPER' ? small : total - small;
      end[d] = total - begin[d]!;
    });
  } else if (autoPad === 'SAME_UPPER' || autoPad === 'SAME_LOWER') {
    spatial.forEach((n, d) => {
      const total = Math.max(0, full[d]! + outPad[d]! - n * strides[d]!);
      const small = Math.floor(total / 2);
      begin[d] = autoPad === 'SAME_UPPER' ? small : total - small;
      end[d] = total - begin[d]!;
    });
  } else if (autoPad === 'NOTSET') {
    const pads = a.ints('pads');
    if (pads) {
      begin = pads.slice(0, nd);
      end = pads.slice(nd);
    }
  }
  const groups = a.int('group', 1);
  let y = CONV_TS[nd - 1]!(asF(x), asF(w), {
    stride: strides,
    padding: new Array<number>(nd).fill(0),
    dilation: dilations,
    groups,
  }) as AnyTensor;
  // Crop `begin`, and keep up to `full + output_padding - end` (beyond `full` is zeros).
  const stop = full.map((f, d) => f + outPad[d]! - end[d]!);
  const extra = stop.map((s, d) => Math.max(0, s - full[d]!));
  if (extra.some((e) => e > 0)) y = y.pad([[0, 0], [0, 0], ...extra.map((e) => [0, e] as [number, number])], 0);
  if (begin.some((p) => p > 0) || stop.some((s, d) => s < full[d]! + extra[d]!)) {
    y = y.slice([null, null, ...begin.map((p, d) => [p, stop[d]!] as [number, number])]);
  }
  if (b) y = asN(y).add(asN(b.reshape([1, b.dims()[0]!, ...new Array<number>(nd).fill(1)]))) as AnyTensor;
  return y;
}

function inferConv(ctx: InferContext): ReturnType<NonNullable<OpDef['infer']>> {
  const x = inShape(ctx, 0);
  const w = inShape(ctx, 1);
  if (!x || !w) return [sameElem(ctx, 0, undefined)];
  const spatial = x.slice(2);
  const kernel = ctx.attrs.ints('kernel_shape') ?? w.slice(2);
  const out: Dim[] = [x[0], w[0]];
  if (spatial.every((s) => typeof s === 'number') && kernel.every((k) => typeof k === 'number')) {
    const win = windowOf(ctx.node, ctx.attrs, spatial as number[], kernel as number[]);
    spatial.forEach((n, d) =>
      out.push(
        convOutputSize(n as number, win.kernel[d]!, win.strides[d]!, win.begin[d]!, win.dilations[d]!, win.end[d]!),
      ),
    );
  } else out.push(...spatial.map(() => undefined));
  return [sameElem(ctx, 0, out)];
}

function zeroShifted(ctx: OpContext, inputs: Parameters<OpDef['run']>[1], i: number, zp: number): AnyTensor {
  const t = castTo(tensorAt(ctx, inputs, i), 'f32');
  const z = optTensorAt(ctx, inputs, zp);
  if (!z) return t;
  const zz = castTo(z, 'f32');
  // A per-output-channel weight zero point is a vector over dim 0.
  const shaped =
    zz.rank() === 1 && zz.numel() > 1 ? zz.reshape([zz.numel(), ...new Array<number>(t.rank() - 1).fill(1)]) : zz;
  return asN(t).sub(asN(shaped)) as AnyTensor;
}

/** DeformConv (opset 19), 2-d: Burn's deformable convolution with ONNX's offsets `[N, 2·offset_group·kh·kw, H_out, W_out]`. */
function deformConv(ctx: OpContext, inputs: Parameters<OpDef['run']>[1]): AnyTensor {
  const x = asF(tensorAt(ctx, inputs, 0));
  const w = asF(tensorAt(ctx, inputs, 1));
  const offset = asF(tensorAt(ctx, inputs, 2));
  const b = optTensorAt(ctx, inputs, 3);
  const mask = optTensorAt(ctx, inputs, 4);
  if (x.rank() !== 4)
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (DeformConv) got an input of rank ${x.rank()}; only 2-d deformable convolution is supported`,
    );
  const pads = ctx.attrs.ints('pads') ?? [0, 0, 0, 0];
  let input = x;
  if (pads[0] !== pads[2] || pads[1] !== pads[3])
    input = asF(padSpatial(x as AnyTensor, pads.slice(0, 2), pads.slice(2), 0));
  const padding = pads[0] === pads[2] && pads[1] === pads[3] ? pads.slice(0, 2) : [0, 0];
  return F.deformConv2d(
    input as Tensor<4>,
    offset as Tensor<4>,
    w as Tensor<4>,
    mask && (asF(mask) as Tensor<4>),
    b && (asF(b) as Tensor<1>),
    {
      stride: ctx.attrs.ints('strides')?.slice() ?? [1, 1],
      padding,
      dilation: ctx.attrs.ints('dilations')?.slice() ?? [1, 1],
      weightGroups: ctx.attrs.int('group', 1),
      offsetGroups: ctx.attrs.int('offset_group', 1),
    },
  ) as AnyTensor;
}

/** Convolutions: Conv (1-3 d, groups, dilations, any padding), ConvTranspose, ConvInteger, DeformConv. */
export const convOps: OpFamily = {
  Conv: {
    run: (ctx, inputs) => [conv(ctx, tensorAt(ctx, inputs, 0), tensorAt(ctx, inputs, 1), optTensorAt(ctx, inputs, 2))],
    infer: inferConv,
  },
  ConvTranspose: {
    run: (ctx, inputs) => [
      convTranspose(ctx, tensorAt(ctx, inputs, 0), tensorAt(ctx, inputs, 1), optTensorAt(ctx, inputs, 2)),
    ],
  },
  DeformConv: {
    run: (ctx, inputs) => [deformConv(ctx, inputs)],
  },
  ConvInteger: {
    run: (ctx, inputs) => {
      const y = conv(ctx, zeroShifted(ctx, inputs, 0, 2), zeroShifted(ctx, inputs, 1, 3), undefined);
      return [castTo(asF(y).round() as AnyTensor, 'i32')];
    },
  },
};
