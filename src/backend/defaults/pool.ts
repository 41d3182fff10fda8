import type { Backend, TensorPrimitive } from '../backend.js';
import type { AvgPoolOptions, MaxPoolOptions } from '../options.js';
import { poolOutputSize, poolOverhang } from '../../core/geometry.js';
import {
  hostIndices,
  hostTensor,
  kernelOffsets,
  mapAlongDim,
  padSpatial,
  prod,
  windowView,
  windows,
} from './spatial.js';

/**
 * Pooling defaults for any number of spatial dims (`[N, C, ...spatial]`): one strided view per
 * kernel offset of the padded input, combined with max / add, or stacked for the arg-max.
 */

/** Pooling window geometry: output size and the extra far-side padding ceil mode needs. */
interface PoolGeometry {
  readonly out: number[];
  readonly after: number[];
}

/** Output sizes as PyTorch ({@link poolOutputSize}) and the far-side padding that ceil mode needs. */
function geometry(
  spatial: readonly number[],
  kernel: readonly number[],
  stride: readonly number[],
  padding: readonly number[],
  dilation: readonly number[],
  ceilMode: boolean,
): PoolGeometry {
  const out: number[] = [],
    after: number[] = [];
  spatial.forEach((s, d) => {
    const o = poolOutputSize(s, kernel[d]!, stride[d]!, padding[d]!, dilation[d]!, ceilMode);
    out.push(o);
    // Far-side padding so that every window lies inside the padded input.
    after.push(padding[d]! + poolOverhang(s, o, kernel[d]!, stride[d]!, padding[d]!, dilation[d]!));
  });
  return { out, after };
}

/** Max pooling: max over the kernel-offset views of the input padded with -inf. */
export function maxPool<P extends TensorPrimitive>(b: Backend<P>, x: P, o: MaxPoolOptions): P {
  const { out, after } = geometry(x.shape.slice(2), o.kernelSize, o.stride, o.padding, o.dilation, o.ceilMode);
  const xp = padSpatial(b, x, o.padding, after, -Infinity);
  const g = { stride: o.stride, dilation: o.dilation, out };
  let acc: P | undefined;
  for (const k of kernelOffsets(o.kernelSize)) {
    const v = windowView(b, xp, k, g);
    acc = acc === undefined ? v : b.binary('max', acc, v);
  }
  return acc!;
}

/**
 * Max pooling with PyTorch's indices: the flat position `h · W + w` (per channel, in the unpadded
 * input) of each window's first maximum, as `i32`.
 */
export function maxPoolWithIndices<P extends TensorPrimitive>(b: Backend<P>, x: P, o: MaxPoolOptions): [P, P] {
  const [n, c, ...spatial] = x.shape as [number, number, ...number[]];
  const { out, after } = geometry(spatial, o.kernelSize, o.stride, o.padding, o.dilation, o.ceilMode);
  const xp = padSpatial(b, x, o.padding, after, -Infinity);
  const stacked = windows(b, xp, o.kernelSize, { stride: o.stride, dilation: o.dilation, out }); // [N, C, kvol, ...out]
  const arg = b.argReduce('argmax', stacked, 2);
  const values = b.reshape(b.gather(stacked, 2, arg), [n, c, ...out]);

  // flat index = base(window position) + offset(kernel position), both tabulated on the host.
  const inStrides = spatial.map((_, d) => prod(spatial.slice(d + 1)));
  const offsets = kernelOffsets(o.kernelSize).map((k) =>
    k.reduce((acc, kd, d) => acc + kd * o.dilation[d]! * inStrides[d]!, 0),
  );
  const base = new Int32Array(prod(out));
  kernelOffsets(out).forEach((pos, i) => {
    base[i] = pos.reduce((acc, od, d) => acc + (od * o.stride[d]! - o.padding[d]!) * inStrides[d]!, 0);
  });
  const picked = b.select(hostIndices(b, offsets), 0, b.reshape(arg, [n * c * prod(out)]));
  const indices = b.binary('add', b.reshape(picked, [n, c, ...out]), hostIndices(b, base, [1, 1, ...out]));
  return [values, indices];
}

/**
 * Average pooling: the sum over the kernel-offset views of the zero-padded input, divided by the
 * window size clipped to the padded input (`countIncludePad`) or by the number of real elements.
 */
export function avgPool<P extends TensorPrimitive>(b: Backend<P>, x: P, o: AvgPoolOptions): P {
  const spatial = x.shape.slice(2);
  const ones = spatial.map(() => 1);
  const { out, after } = geometry(spatial, o.kernelSize, o.stride, o.padding, ones, o.ceilMode);
  const xp = padSpatial(b, x, o.padding, after, 0);
  const g = { stride: o.stride, dilation: ones, out };
  let acc: P | undefined;
  for (const k of kernelOffsets(o.kernelSize)) {
    const v = windowView(b, xp, k, g);
    acc = acc === undefined ? v : b.binary('add', acc, v);
  }
  // The divisor is separable: a product of per-dim window counts.
  const perDim = spatial.map((s, d) =>
    Array.from({ length: out[d]! }, (_, i) => {
      const start = i * o.stride[d]! - o.padding[d]!;
      const end = Math.min(start + o.kernelSize[d]!, s + o.padding[d]!);
      return o.countIncludePad ? end - start : Math.min(end, s) - Math.max(start, 0);
    }),
  );
  const divisor = kernelOffsets(out).map((pos) => pos.reduce((acc2, i, d) => acc2 * perDim[d]![i]!, 1));
  return b.binary('div', acc!, hostTensor(b, divisor, [1, 1, ...out], x.dtype));
}

/**
 * Adaptive average pooling, separable: one averaging matrix per spatial dim (output `i` averages
 * inputs `floor(i · in / out)` to `ceil((i + 1) · in / out)`, as PyTorch), applied by matmul.
 */
export function adaptiveAvgPool<P extends TensorPrimitive>(b: Backend<P>, x: P, outputSize: readonly number[]): P {
  let y = x;
  outputSize.forEach((os, d) => {
    const is = x.shape[d + 2]!;
    const m = new Float64Array(os * is);
    for (let i = 0; i < os; i++) {
      const start = Math.floor((i * is) / os);
      const end = Math.ceil(((i + 1) * is) / os);
      for (let j = start; j < end; j++) m[i * is + j] = 1 / (end - start);
    }
    y = mapAlongDim(b, y, d + 2, m, os);
  });
  return y;
}
