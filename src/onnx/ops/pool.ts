import { intRange, isFloatDType, type IntDType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import { dilatedKernel, poolOutputSize, poolOverhang, poolPaddingFits } from '../../core/geometry.js';
import * as F from '../../tensor/functional/index.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Dim } from '../ir/types.js';
import { padSpatial, windowOf, type Window } from './conv.js';
import type { AnyTensor, InferContext, OpContext, OpDef, OpFamily } from './types.js';
import { asF, asI, asN, castTo, i64Tensor, inShape, sameElem, tensorAt } from './util.js';

const OP = 'onnx';

/** Output size of one pooled dim (ceil mode keeps a last partial window that starts inside the input or left padding). */
function pooledSize(n: number, win: Window, d: number, ceil: boolean): number {
  // An input smaller than the window pools to nothing (no negative sizes).
  if (n + win.begin[d]! + win.end[d]! < dilatedKernel(win.kernel[d]!, win.dilations[d]!)) return 0;
  return poolOutputSize(n, win.kernel[d]!, win.strides[d]!, win.begin[d]!, win.dilations[d]!, ceil, win.end[d]!);
}

/**
 * Every pooling window of `x` as trailing dims: `[N, C, ...out, ...kernel]`. The input is padded
 * with `padValue` (`ceilValue` for the extra right padding ceil mode needs), then unfolded dim by
 * dim; dilated windows keep every `dilation`-th tap.
 */
function windows(
  x: AnyTensor,
  win: Window,
  ceil: boolean,
  padValue: number,
  ceilValue = padValue,
): { w: AnyTensor; out: number[] } {
  const spatial = x.dims().slice(2);
  const nd = spatial.length;
  const out = spatial.map((n, d) => pooledSize(n, win, d, ceil));
  const spans = win.kernel.map((k, d) => dilatedKernel(k, win.dilations[d]!));
  const extra = spatial.map((n, d) =>
    poolOverhang(n, out[d]!, win.kernel[d]!, win.strides[d]!, win.begin[d]!, win.dilations[d]!, win.end[d]!),
  );
  let t = padSpatial(x, win.begin, win.end, padValue);
  if (extra.some((e) => e > 0))
    t = padSpatial(
      t,
      extra.map(() => 0),
      extra,
      ceilValue,
    );
  for (let d = 0; d < nd; d++) t = t.unfold(2 + d, spans[d]!, win.strides[d]!) as AnyTensor;
  // unfold leaves [N, C, o1, .., ond, s1, .., snd] with the windows trailing; windows past `out` (none) are trimmed.
  const dims = t.dims();
  const ranges = dims.map((size, i) => {
    if (i >= 2 && i < 2 + nd) return [0, out[i - 2]!] as [number, number];
    if (i >= 2 + nd) return [0, size, win.dilations[i - 2 - nd]!] as [number, number, number];
    return null;
  });
  return { w: t.slice(ranges), out };
}

function lowest(t: AnyTensor): number {
  const dt = t.dtype();
  return isFloatDType(dt) ? -Infinity : dt === 'bool' ? 0 : intRange(dt as IntDType)[0];
}

function poolWindow(ctx: OpContext, x: AnyTensor): Window {
  const nd = x.rank() - 2;
  if (nd < 1)
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (${ctx.node.opType}) got an input of rank ${x.rank()}; expected [N, C, ...spatial]`,
    );
  const kernel = ctx.attrs.ints('kernel_shape');
  if (!kernel || kernel.length !== nd)
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (${ctx.node.opType}) has kernel_shape ${kernel ? `[${kernel.join(', ')}]` : 'missing'}; expected ${nd} sizes`,
    );
  return windowOf(ctx.node, ctx.attrs, x.dims().slice(2), kernel);
}

/** True when Burn's own 1-d/2-d pooling kernels cover the node (symmetric padding of at most half the kernel). */
function native(win: Window, nd: number): boolean {
  return nd <= 2 && win.begin.every((p, d) => p === win.end[d] && poolPaddingFits(p, win.kernel[d]!));
}

function trailing(rank: number, nd: number): number[] {
  return Array.from({ length: nd }, (_, i) => rank - nd + i);
}

function maxPool(ctx: OpContext, x: AnyTensor, wantIndices: boolean): AnyTensor[] {
  const win = poolWindow(ctx, x);
  const nd = win.kernel.length;
  const ceil = ctx.attrs.int('ceil_mode', 0) === 1;
  const f = asF(x);
  if (!wantIndices && native(win, nd) && isFloatDType(x.dtype())) {
    const o = { stride: win.strides, padding: win.begin, dilation: win.dilations, ceilMode: ceil };
    return [
      (nd === 1
        ? F.maxPool1d(f as Tensor<3>, win.kernel[0]!, o)
        : F.maxPool2d(f as Tensor<4>, win.kernel, o)) as AnyTensor,
    ];
  }
  const { w, out } = windows(x, win, ceil, lowest(x));
  const dims = w.dims();
  const flat = w.reshape([...dims.slice(0, 2 + nd), win.kernel.reduce((a, b) => a * b, 1)]);
  const [values, local] = asN(flat).maxDimWithIndices(2 + nd);
  const y = values.squeezeDim(2 + nd) as AnyTensor;
  if (!wantIndices) return [y];
  return [y, maxIndices(ctx, x, win, out, asI(local.squeezeDim(2 + nd) as AnyTensor))];
}

/** ONNX MaxPool indices: flat positions in the input tensor (row-major, or column-major over the spatial dims with `storage_order` 1). */
function maxIndices(
  ctx: OpContext,
  x: AnyTensor,
  win: Window,
  out: number[],
  local: ReturnType<typeof asI>,
): AnyTensor {
  const [n, c, ...spatial] = x.dims() as [number, number, ...number[]];
  const nd = spatial.length;
  const dev = x.device();
  let rest = castTo(local as AnyTensor, 'i64');
  const coords: AnyTensor[] = [];
  // Window-local index -> per-dim tap, last dim fastest.
  for (let d = nd - 1; d >= 0; d--) {
    const k = win.kernel[d]!;
    const tap = asN(rest).remainder(k);
    rest = asN(asN(rest).sub(tap)).div(k) as AnyTensor;
    const shape = [1, 1, ...out.map((o, i) => (i === d ? o : 1))];
    const origin = i64Tensor(
      Array.from({ length: out[d]! }, (_, o) => o * win.strides[d]! - win.begin[d]!),
      dev,
      shape,
    );
    coords[d] = asN(asN(tap).mul(win.dilations[d]!)).add(asN(origin)) as AnyTensor;
  }
  const colMajor = ctx.attrs.int('storage_order', 0) === 1;
  let flat = i64Tensor([0], dev, [1, 1, ...out.map(() => 1)]);
  const order = colMajor ? coords.map((_, i) => nd - 1 - i) : coords.map((_, i) => i);
  let stride = 1;
  const strides = new Array<number>(nd);
  for (let i = order.length - 1; i >= 0; i--) {
    strides[order[i]!] = stride;
    stride *= spatial[order[i]!]!;
  }
  coords.forEach((cd, d) => {
    flat = asN(flat).add(asN(asN(cd).mul(strides[d]!))) as AnyTensor;
  });
  const plane = spatial.reduce((a, b) => a * b, 1);
  const base = i64Tensor(
    Array.from({ length: n * c }, (_, i) => i * plane),
    dev,
    [n, c, ...out.map(() => 1)],
  );
  return asN(flat).add(asN(base)) as AnyTensor;
}

function avgPool(ctx: OpContext, x: AnyTensor): AnyTensor {
  const win = poolWindow(ctx, x);
  const nd = win.kernel.length;
  const ceil = ctx.attrs.int('ceil_mode', 0) === 1;
  const includePad = ctx.attrs.int('count_include_pad', 0) === 1;
  const f = asF(x);
  if (native(win, nd) && !ceil && win.dilations.every((d) => d === 1)) {
    const o = { stride: win.strides, padding: win.begin, countIncludePad: includePad };
    return (
      nd === 1 ? F.avgPool1d(f as Tensor<3>, win.kernel[0]!, o) : F.avgPool2d(f as Tensor<4>, win.kernel, o)
    ) as AnyTensor;
  }
  const { w } = windows(x, win, ceil, 0);
  const axes = trailing(w.rank(), nd);
  const sums = asN(w)
    .sumDims(axes)
    .reshape(w.dims().slice(0, 2 + nd));
  // The divisor: window taps inside the input (or inside the explicit padding with count_include_pad).
  const ones = Tensor.ones([1, 1, ...x.dims().slice(2)], { device: x.device(), dtype: x.dtype() }) as AnyTensor;
  const { w: cw } = windows(ones, win, ceil, includePad ? 1 : 0, 0);
  const counts = asN(cw)
    .sumDims(axes)
    .reshape(cw.dims().slice(0, 2 + nd));
  return asN(sums).div(asN(counts)) as AnyTensor;
}

function lpPool(ctx: OpContext, x: AnyTensor): AnyTensor {
  const win = poolWindow(ctx, x);
  const nd = win.kernel.length;
  const p = ctx.attrs.int('p', 2);
  const { w } = windows(x, win, ctx.attrs.int('ceil_mode', 0) === 1, 0);
  const axes = trailing(w.rank(), nd);
  return asF(w)
    .abs()
    .powf(p)
    .sumDims(axes)
    .reshape(w.dims().slice(0, 2 + nd))
    .powf(1 / p) as AnyTensor;
}

function globalAxes(x: AnyTensor): number[] {
  return Array.from({ length: x.rank() - 2 }, (_, i) => i + 2);
}

function inferPool(ctx: InferContext): ReturnType<NonNullable<OpDef['infer']>> {
  const x = inShape(ctx, 0);
  const kernel = ctx.attrs.ints('kernel_shape');
  if (!x || !kernel) return [sameElem(ctx, 0, undefined)];
  const spatial = x.slice(2);
  const out: Dim[] = [x[0], x[1]];
  if (spatial.every((s) => typeof s === 'number')) {
    const win = windowOf(ctx.node, ctx.attrs, spatial as number[], kernel);
    const ceil = ctx.attrs.int('ceil_mode', 0) === 1;
    spatial.forEach((n, d) => out.push(pooledSize(n as number, win, d, ceil)));
  } else out.push(...spatial.map(() => undefined));
  return [sameElem(ctx, 0, out)];
}

function inferGlobal(ctx: InferContext): ReturnType<NonNullable<OpDef['infer']>> {
  const x = inShape(ctx, 0);
  return [sameElem(ctx, 0, x ? x.map((d, i) => (i < 2 ? d : 1)) : undefined)];
}

/** Pooling: max (with indices), average, Lp, their global forms, and MaxUnpool. */
export const poolOps: OpFamily = {
  MaxPool: {
    run: (ctx, inputs) =>
      maxPool(ctx, tensorAt(ctx, inputs, 0), ctx.node.outputs.length > 1 && ctx.node.outputs[1] !== ''),
    infer: inferPool,
  },
  AveragePool: {
    run: (ctx, inputs) => [avgPool(ctx, tensorAt(ctx, inputs, 0))],
    infer: inferPool,
  },
  LpPool: {
    run: (ctx, inputs) => [lpPool(ctx, tensorAt(ctx, inputs, 0))],
    infer: inferPool,
  },
  GlobalAveragePool: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      return [asN(x).meanDims(globalAxes(x)) as AnyTensor];
    },
    infer: inferGlobal,
  },
  GlobalMaxPool: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      return [asN(x).maxDims(globalAxes(x)) as AnyTensor];
    },
    infer: inferGlobal,
  },
  GlobalLpPool: {
    run: (ctx, inputs) => {
      const x = asF(tensorAt(ctx, inputs, 0));
      const p = ctx.attrs.int('p', 2);
      return [
        x
          .abs()
          .powf(p)
          .sumDims(globalAxes(x as AnyTensor))
          .powf(1 / p) as AnyTensor,
      ];
    },
    infer: inferGlobal,
  },
  MaxUnpool: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const idx = tensorAt(ctx, inputs, 1);
      const [n, c, ...spatial] = x.dims() as [number, number, ...number[]];
      const kernel = ctx.attrs.ints('kernel_shape', []);
      const strides = ctx.attrs.ints('strides') ?? kernel.map(() => 1);
      const pads = ctx.attrs.ints('pads') ?? new Array<number>(2 * kernel.length).fill(0);
      const given = ctx.ints(2);
      const natural = spatial.map((s, d) => (s - 1) * strides[d]! + kernel[d]! - pads[d]! - pads[d + kernel.length]!);
      const outSpatial = given ? given.slice(2) : natural;
      const total = n * c * outSpatial.reduce((a, b) => a * b, 1);
      let flatIdx = castTo(idx, 'i64').reshape([idx.numel()]);
      if (outSpatial.some((d, i) => d !== natural[i])) {
        // Indices address the natural output; keep each value's coordinates in the larger output_shape.
        const plane = natural.reduce((a, b) => a * b, 1);
        const newPlane = outSpatial.reduce((a, b) => a * b, 1);
        let rest = asN(flatIdx).remainder(plane) as AnyTensor;
        let moved = asN(asN(asN(flatIdx).sub(asN(rest))).div(plane)).mul(newPlane) as AnyTensor;
        let stride = 1;
        for (let d = natural.length - 1; d >= 0; d--) {
          const coord = asN(rest).remainder(natural[d]!) as AnyTensor;
          rest = asN(asN(asN(rest).sub(asN(coord))).div(natural[d]!)) as AnyTensor;
          moved = asN(moved).add(asN(coord).mul(stride)) as AnyTensor;
          stride *= outSpatial[d]!;
        }
        flatIdx = moved;
      }
      const flat = Tensor.zeros([total], { device: x.device(), dtype: x.dtype() }) as AnyTensor;
      const out = flat.scatter(0, asI(flatIdx), x.reshape([x.numel()]), 'assign');
      return [out.reshape([n, c, ...outSpatial])];
    },
    hostInputs: [2],
  },
};
