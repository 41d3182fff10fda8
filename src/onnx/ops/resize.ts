import { TensorData } from '../../core/data.js';
import { isFloatDType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import { deviceDType } from './device-dtype.js';
import type { AnyTensor, FloatT, OpContext, OpFamily } from './types.js';
import { asB, asF, asI, asN, axisOf, castTo, i64Tensor, tensorAt } from './util.js';

const OP = 'onnx';

/** The interpolation settings of a Resize/Upsample node. */
interface ResizeMode {
  mode: 'nearest' | 'linear' | 'cubic';
  coord: string;
  nearest: string;
  cubicA: number;
  excludeOutside: boolean;
  extrapolation: number;
  antialias: boolean;
}

/**
 * Source coordinate of output index `o` along an axis of `n` inputs resized with scale `s`
 * (`m` outputs). As in ONNX, the transforms use the unrounded resized length `n · s`.
 */
function sourceCoord(
  o: number,
  n: number,
  m: number,
  s: number,
  coord: string,
  roi: [number, number] | undefined,
): number {
  const len = n * s;
  switch (coord) {
    case 'half_pixel':
      return (o + 0.5) / s - 0.5;
    case 'half_pixel_symmetric': {
      const adjustment = m / len;
      const offset = (n / 2) * (1 - adjustment);
      return offset + (o + 0.5) / s - 0.5;
    }
    case 'pytorch_half_pixel':
      return len > 1 ? (o + 0.5) / s - 0.5 : 0;
    case 'align_corners':
      return len === 1 ? 0 : (o * (n - 1)) / (len - 1);
    case 'asymmetric':
      return o / s;
    case 'tf_crop_and_resize': {
      const [a, b] = roi ?? [0, 1];
      return len > 1 ? a * (n - 1) + (o * (b - a) * (n - 1)) / (len - 1) : 0.5 * (a + b) * (n - 1);
    }
    default:
      throw new BurnError(OP, `Resize coordinate_transformation_mode '${coord}' is not supported`);
  }
}

function nearestIndex(x: number, how: string): number {
  switch (how) {
    case 'round_prefer_ceil':
      return Math.floor(x + 0.5);
    case 'floor':
      return Math.floor(x);
    case 'ceil':
      return Math.ceil(x);
    default:
      return Number.isInteger(x - 0.5) ? Math.floor(x) : Math.round(x); // round_prefer_floor
  }
}

function cubicWeight(t: number, a: number): number {
  const x = Math.abs(t);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

/**
 * The interpolation matrix of one axis, `[m, n]`: row `o` holds the weights of the input taps of
 * output `o` (taps outside the input clamp to the edge, or are dropped and the row renormalized
 * with `exclude_outside`; antialiased downsampling widens the filter by 1/scale).
 */
function weights(
  n: number,
  m: number,
  s: number,
  cfg: ResizeMode,
  roi: [number, number] | undefined,
): { w: Float64Array; outside: boolean[] } {
  const w = new Float64Array(m * n);
  const outside: boolean[] = [];
  const support = cfg.mode === 'cubic' ? 2 : 1;
  const widen = cfg.antialias && s < 1 ? s : 1;
  for (let o = 0; o < m; o++) {
    const x = sourceCoord(o, n, m, s, cfg.coord, roi);
    outside.push(cfg.coord === 'tf_crop_and_resize' && (x < 0 || x > n - 1));
    const taps: [number, number][] = [];
    if (widen < 1) {
      const radius = support / widen;
      for (let i = Math.floor(x - radius) + 1; i <= Math.ceil(x + radius) - 1; i++) {
        const t = (i - x) * widen;
        const k = cfg.mode === 'cubic' ? cubicWeight(t, cfg.cubicA) : Math.max(0, 1 - Math.abs(t));
        if (k !== 0) taps.push([i, k]);
      }
    } else if (cfg.mode === 'linear') {
      const xc = Math.min(Math.max(x, 0), n - 1);
      const i0 = Math.floor(xc);
      const f = xc - i0;
      taps.push([i0, 1 - f]);
      if (f > 0) taps.push([i0 + 1, f]);
    } else {
      const i0 = Math.floor(x);
      const f = x - i0;
      for (let k = -1; k <= 2; k++) taps.push([i0 + k, cubicWeight(k - f, cfg.cubicA)]);
    }
    let kept = taps;
    if (cfg.excludeOutside || widen < 1) kept = taps.filter(([i]) => i >= 0 && i < n);
    const total = cfg.excludeOutside || widen < 1 ? kept.reduce((a, [, k]) => a + k, 0) : 1;
    for (const [i, k] of kept) {
      const j = Math.min(Math.max(i, 0), n - 1);
      w[o * n + j]! += total !== 0 ? k / total : 0;
    }
  }
  return { w, outside };
}

/** Resizes one axis of `x` to `m` (scale `s` in the coordinate transform). */
function resizeAxis(
  x: AnyTensor,
  axis: number,
  m: number,
  s: number,
  cfg: ResizeMode,
  roi: [number, number] | undefined,
): { y: AnyTensor; outside: boolean[] } {
  const n = x.dims()[axis]!;
  if (cfg.mode === 'nearest') {
    const idx: number[] = [];
    const outside: boolean[] = [];
    for (let o = 0; o < m; o++) {
      const c = sourceCoord(o, n, m, s, cfg.coord, roi);
      outside.push(cfg.coord === 'tf_crop_and_resize' && (c < 0 || c > n - 1));
      idx.push(Math.min(Math.max(nearestIndex(c, cfg.nearest), 0), n - 1));
    }
    return { y: x.take(axis, asI(i64Tensor(idx, x.device()))), outside };
  }
  const { w, outside } = weights(n, m, s, cfg, roi);
  const dtype = isFloatDType(x.dtype()) ? x.dtype() : 'f32';
  const mt = Tensor.fromData(new TensorData(w, [m, n], 'f64').convert(dtype), x.device()).transpose();
  const src = castTo(x, dtype);
  const last = x.rank() - 1;
  const moved = axis === last ? src : src.swapDims(axis, last);
  let y = asN(moved).matmul(asN(broadcastMatrix(mt as AnyTensor, moved.rank()))) as AnyTensor;
  if (axis !== last) y = y.swapDims(axis, last);
  if (!isFloatDType(x.dtype())) y = castTo(asF(y).round() as AnyTensor, x.dtype());
  return { y, outside };
}

function broadcastMatrix(m: AnyTensor, rank: number): AnyTensor {
  return m.reshape([...new Array<number>(Math.max(0, rank - 2)).fill(1), ...m.dims()]);
}

function modeOf(ctx: OpContext): ResizeMode {
  const a = ctx.attrs;
  const raw = a.string('mode', 'nearest');
  const mode = raw === 'bilinear' || raw === 'trilinear' ? 'linear' : raw;
  if (mode !== 'nearest' && mode !== 'linear' && mode !== 'cubic')
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (${ctx.node.opType}) has mode '${raw}'; expected nearest, linear or cubic`,
    );
  const legacy = ctx.node.opType === 'Upsample' || ctx.opset < 11;
  return {
    mode,
    coord: legacy ? 'asymmetric' : a.string('coordinate_transformation_mode', 'half_pixel'),
    nearest: legacy ? 'floor' : a.string('nearest_mode', 'round_prefer_floor'),
    cubicA: a.float('cubic_coeff_a', -0.75),
    excludeOutside: a.int('exclude_outside', 0) === 1,
    extrapolation: a.float('extrapolation_value', 0),
    antialias: a.int('antialias', 0) === 1,
  };
}

function resize(ctx: OpContext, x: AnyTensor): AnyTensor {
  const cfg = modeOf(ctx);
  const dims = x.dims();
  const rank = dims.length;
  const upsample = ctx.node.opType === 'Upsample';
  const axes = (ctx.attrs.ints('axes') ?? dims.map((_, i) => i)).map((a) => axisOf(ctx, a, rank));
  let scales: number[] | undefined;
  let sizes: number[] | undefined;
  let roi: number[] | undefined;
  if (upsample) scales = ctx.opset >= 9 ? ctx.floats(1) : ctx.attrs.floats('scales')?.slice();
  else if (ctx.opset < 11) scales = ctx.floats(1);
  else {
    roi = ctx.floats(1);
    scales = ctx.floats(2);
    sizes = ctx.ints(3);
    if (scales && scales.length === 0) scales = undefined;
    if (sizes && sizes.length === 0) sizes = undefined;
  }
  const outSizes = [...dims];
  const axisScale = dims.map(() => 1);
  if (sizes) {
    const policy = ctx.attrs.string('keep_aspect_ratio_policy', 'stretch');
    if (policy === 'stretch') {
      axes.forEach((a, i) => {
        outSizes[a] = sizes![i]!;
        axisScale[a] = sizes![i]! / dims[a]!;
      });
    } else {
      const ratios = axes.map((a, i) => sizes![i]! / dims[a]!);
      const s = policy === 'not_larger' ? Math.min(...ratios) : Math.max(...ratios);
      axes.forEach((a) => {
        outSizes[a] = Math.round(s * dims[a]!);
        axisScale[a] = s;
      });
    }
  } else if (scales) {
    axes.forEach((a, i) => {
      axisScale[a] = scales![i]!;
      outSizes[a] = Math.floor(dims[a]! * scales![i]!);
    });
  } else throw new BurnError(OP, `node '${ctx.node.name}' (${ctx.node.opType}) has neither scales nor sizes`);
  let y = x;
  const masks: { axis: number; outside: boolean[] }[] = [];
  for (const a of axes) {
    const roiPair: [number, number] | undefined =
      roi && roi.length === 2 * axes.length
        ? [roi[axes.indexOf(a)]!, roi[axes.indexOf(a) + axes.length]!]
        : roi && roi.length === 2 * rank
          ? [roi[a]!, roi[a + rank]!]
          : undefined;
    const identity = outSizes[a] === dims[a] && axisScale[a] === 1 && cfg.coord !== 'tf_crop_and_resize';
    if (identity) continue;
    const r = resizeAxis(y, a, outSizes[a]!, axisScale[a]!, cfg, roiPair);
    y = r.y;
    if (r.outside.some((o) => o)) masks.push({ axis: a, outside: r.outside });
  }
  if (masks.length > 0) {
    let mask: AnyTensor | undefined;
    for (const { axis, outside } of masks) {
      const shape = outSizes.map((d, i) => (i === axis ? d : 1));
      const m = Tensor.fromData(
        new TensorData(
          outside.map((o) => (o ? 1 : 0)),
          shape,
          'bool',
        ),
        y.device(),
      ) as AnyTensor;
      mask = mask ? (asB(mask).boolOr(asB(m)) as AnyTensor) : m;
    }
    y = y.maskFill(asB(mask!.expand(outSizes)), cfg.extrapolation);
  }
  return y;
}

/** Reflects a tap coordinate into [lo, hi] (PyTorch's reflect_coordinates, in pixel units). */
function reflect(t: FloatT, lo: number, hi: number): FloatT {
  if (hi <= lo) return t.mul(0).add(Math.max(lo, 0));
  const span = hi - lo;
  const d = t.sub(lo).abs();
  const flips = d.div(span).floor();
  const extra = d.sub(flips.mul(span));
  const even = flips.remainder(2).equal(0);
  return extra.add(lo).maskWhere(even.boolNot(), extra.neg().add(hi));
}

/**
 * Bicubic grid sampling (A = -0.75, as PyTorch and ONNX) over the 4×4 taps around each sample
 * point, gathered from the flattened input; taps outside read 0 (zeros), the edge (border) or the
 * mirrored pixel (reflection).
 */
function bicubicGridSample(x: FloatT, grid: FloatT, padding: string, alignCorners: boolean): FloatT {
  const [n, c, h, w] = x.dims() as [number, number, number, number];
  const [, ho, wo] = grid.dims() as [number, number, number, number];
  const gx = grid.sliceDim(3, [0, 1]).reshape([n, 1, ho * wo]);
  const gy = grid.sliceDim(3, [1, 2]).reshape([n, 1, ho * wo]);
  const unnorm = (g: FloatT, size: number) =>
    alignCorners ? g.add(1).mul((size - 1) / 2) : g.add(1).mul(size).sub(1).div(2);
  const ix = unnorm(gx, w);
  const iy = unnorm(gy, h);
  const x0 = ix.floor();
  const y0 = iy.floor();
  const tx = ix.sub(x0);
  const ty = iy.sub(y0);
  const A = -0.75;
  const near = (t: FloatT) =>
    t
      .mul(A + 2)
      .sub(A + 3)
      .mul(t)
      .mul(t)
      .add(1);
  const far = (t: FloatT) =>
    t
      .mul(A)
      .sub(5 * A)
      .mul(t)
      .add(8 * A)
      .mul(t)
      .sub(4 * A);
  const wx = [far(tx.add(1)), near(tx), near(tx.neg().add(1)), far(tx.neg().add(2))];
  const wy = [far(ty.add(1)), near(ty), near(ty.neg().add(1)), far(ty.neg().add(2))];
  const flat = x.reshape([n, c, h * w]);
  let out: FloatT | undefined;
  const fix = (t: FloatT, size: number): [FloatT, FloatT | undefined] => {
    if (padding === 'border') return [t.clamp(0, size - 1), undefined];
    if (padding === 'reflection') {
      const r = alignCorners ? reflect(t, 0, size - 1) : reflect(t.add(0.5), 0, size).sub(0.5);
      return [r.clamp(0, size - 1).round(), undefined];
    }
    return [t.clamp(0, size - 1), t.greaterEqual(0).boolAnd(t.lowerEqual(size - 1)) as unknown as FloatT];
  };
  for (let i = 0; i < 4; i++) {
    const [yy, yOk] = fix(y0.add(i - 1), h);
    for (let j = 0; j < 4; j++) {
      const [xx, xOk] = fix(x0.add(j - 1), w);
      const idx = yy
        .mul(w)
        .add(xx)
        .int(deviceDType('i64', x.device()) as 'i64');
      const vals = flat.gather(2, idx.expand([n, c, ho * wo]) as typeof idx);
      let weight = wy[i]!.mul(wx[j]!);
      if (yOk && xOk)
        weight = weight.maskFill(
          (yOk as unknown as Tensor<number, 'bool'>).boolAnd(xOk as unknown as Tensor<number, 'bool'>).boolNot(),
          0,
        );
      const term = vals.mul(weight);
      out = out ? out.add(term) : term;
    }
  }
  return out!.reshape([n, c, ho, wo]);
}

function gridSample(ctx: OpContext, x: AnyTensor, grid: AnyTensor): AnyTensor {
  const raw = ctx.attrs.string('mode', ctx.opset >= 20 ? 'linear' : 'bilinear');
  const mode =
    raw === 'linear' || raw === 'bilinear' ? 'bilinear' : raw === 'cubic' || raw === 'bicubic' ? 'bicubic' : 'nearest';
  const paddingMode = ctx.attrs.string('padding_mode', 'zeros');
  if (paddingMode !== 'zeros' && paddingMode !== 'border' && paddingMode !== 'reflection')
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (GridSample) has padding_mode '${paddingMode}'; expected zeros, border or reflection`,
    );
  if (x.rank() !== 4)
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (GridSample) got an input of rank ${x.rank()}; only 2-d sampling ([N, C, H, W]) is supported`,
    );
  const alignCorners = ctx.attrs.int('align_corners', 0) === 1;
  if (mode === 'bicubic') return bicubicGridSample(asF(x), asF(grid), paddingMode, alignCorners) as AnyTensor;
  return asF(x).gridSample2d(asF(grid) as Tensor<4>, {
    mode,
    paddingMode,
    alignCorners: ctx.attrs.int('align_corners', 0) === 1,
  }) as AnyTensor;
}

/** Resize (every mode, coordinate transform, cubic option, antialias, aspect policy), the legacy Upsample, and GridSample. */
export const resizeOps: OpFamily = {
  Resize: { run: (ctx, inputs) => [resize(ctx, tensorAt(ctx, inputs, 0))], hostInputs: [1, 2, 3] },
  Upsample: { run: (ctx, inputs) => [resize(ctx, tensorAt(ctx, inputs, 0))], hostInputs: [1] },
  GridSample: { run: (ctx, inputs) => [gridSample(ctx, tensorAt(ctx, inputs, 0), tensorAt(ctx, inputs, 1))] },
};
