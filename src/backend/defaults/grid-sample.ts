import { BurnError } from '../../core/errors.js';
import type { Backend, TensorPrimitive } from '../backend.js';
import type { GridSampleOptions } from '../options.js';
import { whole } from './spatial.js';

/**
 * Bilinear sampling with zeros outside: `src` is `[..., C, h · w]` (flattened planes), `py`/`px`
 * are pixel coordinates `[..., 1, P]`; returns `[..., C, P]`. Corners outside the plane
 * contribute nothing. Shared by `gridSample2d` and `deformConv2d`.
 */
export function bilinearSample<P extends TensorPrimitive>(
  b: Backend<P>,
  src: P,
  py: P,
  px: P,
  h: number,
  w: number,
): P {
  const rank = src.shape.length;
  const y0 = b.unary('floor', py),
    x0 = b.unary('floor', px);
  const fy = b.binary('sub', py, y0),
    fx = b.binary('sub', px, x0);
  const inside = (c: P, lo: number, hi: number) =>
    b.cast(b.binary('and', b.compareScalar('ge', c, lo), b.compareScalar('le', c, hi)), py.dtype);
  // Weights of the low and high corner per axis, zero where that corner lies outside.
  const wy = [b.binary('mul', oneMinus(b, fy), inside(y0, 0, h - 1)), b.binary('mul', fy, inside(y0, -1, h - 2))];
  const wx = [b.binary('mul', oneMinus(b, fx), inside(x0, 0, w - 1)), b.binary('mul', fx, inside(x0, -1, w - 2))];
  const index = (c0: P, shift: number, size: number) =>
    b.cast(b.clamp(b.binaryScalar('add', c0, shift), 0, size - 1), 'i32');
  const iy = [index(y0, 0, h), index(y0, 1, h)];
  const ix = [index(x0, 0, w), index(x0, 1, w)];
  const target = [...src.shape.slice(0, -1), py.shape[rank - 1]!];
  let acc: P | undefined;
  for (let a = 0; a < 2; a++) {
    for (let c = 0; c < 2; c++) {
      const flat = b.binary('add', b.binaryScalar('mul', iy[a]!, w), ix[c]!);
      const v = b.gather(src, rank - 1, b.expand(flat, target));
      const term = b.binary('mul', v, b.binary('mul', wy[a]!, wx[c]!));
      acc = acc === undefined ? term : b.binary('add', acc, term);
    }
  }
  return acc!;
}

/** `value - p`. */
function minus<P extends TensorPrimitive>(b: Backend<P>, value: number, p: P): P {
  return b.binaryScalar('add', b.unary('neg', p), value);
}

function oneMinus<P extends TensorPrimitive>(b: Backend<P>, p: P): P {
  return minus(b, 1, p);
}

/** PyTorch's reflection of a pixel coordinate into the input, then clipped to `[0, size - 1]`. */
function reflect<P extends TensorPrimitive>(b: Backend<P>, c: P, size: number, alignCorners: boolean): P {
  const [lo, hi] = alignCorners ? [0, size - 1] : [-0.5, size - 0.5];
  const span = hi - lo;
  if (span <= 0) return b.binaryScalar('mul', c, 0);
  // Triangle wave of period 2·span: span - |(|c - lo| mod 2·span) - span| + lo.
  const d = b.unary('abs', b.binaryScalar('sub', c, lo));
  const m = b.binary('sub', d, b.binaryScalar('mul', b.unary('floor', b.binaryScalar('div', d, 2 * span)), 2 * span));
  const r = b.binaryScalar('add', minus(b, span, b.unary('abs', b.binaryScalar('sub', m, span))), lo);
  return b.clamp(r, 0, size - 1);
}

/** Pixel coordinates of normalized grid values along an axis of `size`, after the padding mode. */
function pixelCoords<P extends TensorPrimitive>(b: Backend<P>, g: P, size: number, o: GridSampleOptions): P {
  // align: (g + 1) / 2 · (size - 1); else ((g + 1) · size - 1) / 2
  const c = o.alignCorners
    ? b.binaryScalar('mul', b.binaryScalar('add', g, 1), (size - 1) / 2)
    : b.binaryScalar('sub', b.binaryScalar('mul', b.binaryScalar('add', g, 1), size / 2), 0.5);
  if (o.paddingMode === 'border') return b.clamp(c, 0, size - 1);
  if (o.paddingMode === 'reflection') return reflect(b, c, size, o.alignCorners);
  return c;
}

/**
 * Grid sampling of `[N, C, H, W]` at the normalized `(x, y)` positions of `grid` `[N, Ho, Wo, 2]`
 * (PyTorch's `grid_sample`): bilinear or nearest (round half to even), padding zeros, border or
 * reflection, with or without aligned corners.
 */
export function gridSample2d<P extends TensorPrimitive>(b: Backend<P>, x: P, grid: P, o: GridSampleOptions): P {
  if (o.mode !== 'bilinear' && o.mode !== 'nearest') {
    throw new BurnError('gridSample2d', `mode '${o.mode}' is not supported; expected 'bilinear' or 'nearest'`);
  }
  const [n, c, h, w] = x.shape as [number, number, number, number];
  const [, ho, wo] = grid.shape as [number, number, number, number];
  const comp = (i: number) =>
    b.reshape(b.slice(grid, [whole(n), whole(ho), whole(wo), { start: i, size: 1, step: 1 }]), [n, 1, ho * wo]);
  const px = pixelCoords(b, comp(0), w, o);
  const py = pixelCoords(b, comp(1), h, o);
  const src = b.reshape(x, [n, c, h * w]);
  let out: P;
  if (o.mode === 'bilinear') {
    out = bilinearSample(b, src, py, px, h, w);
  } else {
    const ry = b.unary('round', py),
      rx = b.unary('round', px);
    const inside = (r: P, size: number) =>
      b.binary('and', b.compareScalar('ge', r, 0), b.compareScalar('le', r, size - 1));
    const valid = b.binary('and', inside(ry, h), inside(rx, w));
    const iy = b.cast(b.clamp(ry, 0, h - 1), 'i32'),
      ix = b.cast(b.clamp(rx, 0, w - 1), 'i32');
    const flat = b.binary('add', b.binaryScalar('mul', iy, w), ix);
    out = b.maskFill(b.gather(src, 2, b.expand(flat, [n, c, ho * wo])), b.unary('not', valid), 0);
  }
  return b.reshape(out, [n, c, ho, wo]);
}
