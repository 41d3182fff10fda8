import { TensorData } from '../../core/data.js';
import type { DType } from '../../core/dtype.js';
import type { Backend, SliceSpec, TensorPrimitive } from '../backend.js';

/**
 * Helpers shared by the module-op defaults (conv, pool, unfold, interpolate): padding of the
 * spatial dims, strided window views per kernel offset, and per-dim linear maps. Layouts are
 * `[N, C, ...spatial]`; everything is built from the required ops, with no host reads.
 */

/** The whole of a dim of size `size`. */
export function whole(size: number): SliceSpec {
  return { start: 0, size, step: 1 };
}

/** Product of a list of sizes. */
export function prod(values: readonly number[]): number {
  let n = 1;
  for (const v of values) n *= v;
  return n;
}

/** A host-built tensor of `values` with `shape` and `dtype`. */
export function hostTensor<P extends TensorPrimitive>(
  b: Backend<P>,
  values: ArrayLike<number>,
  shape: readonly number[],
  dtype: DType,
): P {
  return b.fromData(new TensorData(values, shape, dtype));
}

/** A host-built `i32` tensor. */
export function hostIndices<P extends TensorPrimitive>(
  b: Backend<P>,
  values: ArrayLike<number>,
  shape: readonly number[] = [values.length],
): P {
  return b.fromData(new TensorData(Int32Array.from(values), shape, 'i32'));
}

/**
 * Pads (positive amounts) or crops (negative amounts) the spatial dims of `[N, C, ...spatial]`:
 * `before[d]` / `after[d]` elements at the start / end of spatial dim `d`, filled with `value`.
 */
export function padSpatial<P extends TensorPrimitive>(
  b: Backend<P>,
  x: P,
  before: readonly number[],
  after: readonly number[],
  value: number,
): P {
  const shape = x.shape;
  let out = x;
  if (before.some((v) => v < 0) || after.some((v) => v < 0)) {
    out = b.slice(
      x,
      shape.map((s, i) => {
        if (i < 2) return whole(s);
        const lo = Math.max(0, -before[i - 2]!),
          hi = Math.max(0, -after[i - 2]!);
        return { start: lo, size: Math.max(0, s - lo - hi), step: 1 };
      }),
    );
  }
  if (before.every((v) => v <= 0) && after.every((v) => v <= 0)) return out;
  const cropped = out.shape;
  const padded = cropped.map((s, i) => (i < 2 ? s : s + Math.max(0, before[i - 2]!) + Math.max(0, after[i - 2]!)));
  const region = cropped.map((s, i) => (i < 2 ? whole(s) : { start: Math.max(0, before[i - 2]!), size: s, step: 1 }));
  return b.sliceAssign(b.fill(padded, value, x.dtype), region, out);
}

/** Every multi-index of a kernel of size `kernel`, in row-major order. */
export function kernelOffsets(kernel: readonly number[]): number[][] {
  const out: number[][] = [];
  const total = prod(kernel);
  for (let i = 0; i < total; i++) {
    const idx = new Array<number>(kernel.length);
    let rest = i;
    for (let d = kernel.length - 1; d >= 0; d--) {
      idx[d] = rest % kernel[d]!;
      rest = Math.floor(rest / kernel[d]!);
    }
    out.push(idx);
  }
  return out;
}

/** Geometry of a sliding window along the spatial dims of a (padded) input. */
export interface WindowGeometry {
  readonly stride: readonly number[];
  readonly dilation: readonly number[];
  /** Output size (number of windows) per spatial dim. */
  readonly out: readonly number[];
}

/** The view `[N, C, ...out]` of the input element at kernel position `offset` of every window. */
export function windowView<P extends TensorPrimitive>(
  b: Backend<P>,
  xp: P,
  offset: readonly number[],
  g: WindowGeometry,
): P {
  return b.slice(
    xp,
    xp.shape.map((s, i) =>
      i < 2 ? whole(s) : { start: offset[i - 2]! * g.dilation[i - 2]!, size: g.out[i - 2]!, step: g.stride[i - 2]! },
    ),
  );
}

/** Inserts a size-1 dim at `dim` without copying (a new leading broadcast dim moved into place). */
export function unsqueezeView<P extends TensorPrimitive>(b: Backend<P>, p: P, dim: number): P {
  const rank = p.shape.length;
  const lifted = b.expand(p, [1, ...p.shape]);
  const axes = Array.from({ length: rank + 1 }, (_, i) => (i < dim ? i + 1 : i === dim ? 0 : i));
  return b.permute(lifted, axes);
}

/**
 * im2col: the windows of `[N, C, ...spatial]` (already padded) as `[N, C, kvol, ...out]`, one
 * strided view per kernel offset concatenated along dim 2 (kernel offsets in row-major order).
 */
export function windows<P extends TensorPrimitive>(
  b: Backend<P>,
  xp: P,
  kernel: readonly number[],
  g: WindowGeometry,
): P {
  const parts = kernelOffsets(kernel).map((k) => unsqueezeView(b, windowView(b, xp, k, g), 2));
  return b.cat(parts, 2);
}

/**
 * Applies a linear map along spatial dim `dim` of `x`: `matrix` is `[outSize, inSize]` (host
 * values, row-major), so `out[..., o, ...] = Σ_i matrix[o][i] · x[..., i, ...]`.
 */
export function mapAlongDim<P extends TensorPrimitive>(
  b: Backend<P>,
  x: P,
  dim: number,
  matrix: ArrayLike<number>,
  outSize: number,
): P {
  const shape = x.shape;
  const inSize = shape[dim]!;
  const pre = prod(shape.slice(0, dim));
  const post = prod(shape.slice(dim + 1));
  const outShape = shape.map((s, i) => (i === dim ? outSize : s));
  if (post === 1) {
    // [pre, in] @ [in, out]: the transposed matrix.
    const t = new Float64Array(inSize * outSize);
    for (let o = 0; o < outSize; o++) for (let i = 0; i < inSize; i++) t[i * outSize + o] = matrix[o * inSize + i]!;
    return b.reshape(b.matmul(b.reshape(x, [pre, inSize]), hostTensor(b, t, [inSize, outSize], x.dtype)), outShape);
  }
  const m = hostTensor(b, matrix, [1, outSize, inSize], x.dtype);
  return b.reshape(b.matmul(m, b.reshape(x, [pre, inSize, post])), outShape);
}
