import type { FloatDType } from '../../core/dtype.js';
import type { Float } from '../kind.js';
import { Tensor } from '../tensor.js';

/** Taps per output sample and axis: `floor(c) - 2 ..= floor(c) + 3` around the source coordinate `c`. */
const TAPS = 6;

/** The Lanczos kernel with a = 3: `sinc(x)·sinc(x/3)` on `|x| < 3`, 0 outside. */
function lanczos3(x: number): number {
  if (x === 0) return 1;
  if (Math.abs(x) >= 3) return 0;
  const px = Math.PI * x;
  return (Math.sin(px) * Math.sin(px / 3)) / ((px * px) / 3);
}

/**
 * The taps of one axis: for each output sample, the six input indices around its source
 * coordinate and their Lanczos3 weights, those outside the input given weight 0 (and index 0)
 * and the rest renormalized to sum to 1 (Burn's boundary rule).
 */
function axisTaps(inSize: number, outSize: number, alignCorners: boolean): { index: Int32Array; weight: Float64Array } {
  const ratio = alignCorners ? (inSize - 1) / Math.max(outSize - 1, 1) : inSize / outSize;
  const index = new Int32Array(outSize * TAPS);
  const weight = new Float64Array(outSize * TAPS);
  for (let o = 0; o < outSize; o++) {
    const coord = alignCorners ? o * ratio : (o + 0.5) * ratio - 0.5;
    const base = Math.floor(coord);
    let sum = 0;
    for (let k = 0; k < TAPS; k++) {
      const i = base + k - 2;
      if (i < 0 || i >= inSize) continue;
      const w = lanczos3(coord - i);
      index[o * TAPS + k] = i;
      weight[o * TAPS + k] = w;
      sum += w;
    }
    if (sum !== 0) for (let k = 0; k < TAPS; k++) weight[o * TAPS + k]! /= sum;
  }
  return { index, weight };
}

/**
 * Up to this many weights (`out × in`), an axis is resampled by one matmul with the dense
 * `[out, in]` weight matrix; beyond it, by gathering the six taps of each output row. The matmul
 * does `in` multiply-adds per output sample where the gather does six, but in the best-tuned
 * kernel of every backend and without materializing six copies of the input, so on the CPU
 * engines it was the faster one at every size tried (224 to 2048 per side); the cap bounds the
 * matrix's memory (64 MiB in f32).
 */
const DENSE_MAX = 1 << 24;

/** Resamples dim 2 (the rows) of `[N, C, H, W]` to `outSize`. */
function resampleRows(x: Tensor<4, Float>, outSize: number, alignCorners: boolean, denseMax: number): Tensor<4, Float> {
  const [n, c, inSize, w] = x.dims() as [number, number, number, number];
  const { index, weight } = axisTaps(inSize, outSize, alignCorners);
  const opts = { device: x.device(), dtype: x.dtype() as FloatDType };
  if (outSize * inSize <= denseMax) {
    const dense = new Float64Array(outSize * inSize);
    for (let t = 0; t < index.length; t++) dense[Math.floor(t / TAPS) * inSize + index[t]!]! += weight[t]!;
    return Tensor.fromFloats(dense, opts).reshape([1, 1, outSize, inSize]).matmul(x);
  }
  // Gathering along dim 2 and weighing over a middle dim: both run as contiguous row copies.
  const taps = x.select(2, Tensor.fromInts(index, x.device())).reshape([n, c, outSize, TAPS, w]);
  return taps
    .mul(Tensor.fromFloats(weight, opts).reshape([1, 1, outSize, TAPS, 1]))
    .sumDim(3)
    .reshape([n, c, outSize, w]);
}

/**
 * @internal Lanczos3 resizing of `[N, C, H, W]` (Burn's `InterpolateMode::Lanczos3`). The 6×6
 * kernel is separable and Burn renormalizes by the sum of the products of the axis weights,
 * which is the product of the axis sums, so the resize runs one axis at a time (rows, then
 * columns), each a weighted sum of six input samples per output sample. A composite rather than
 * a backend kernel, so it runs on every device and autodiff differentiates it (Burn's backends
 * may have no Lanczos3 backward). `denseMax` (tests) moves the dense/gather threshold.
 */
export function lanczos3Resize(
  x: Tensor<4, Float>,
  out: readonly number[],
  alignCorners: boolean,
  denseMax = DENSE_MAX,
): Tensor<4, Float> {
  const [ho, wo] = out as [number, number];
  const rows = resampleRows(x, ho, alignCorners, denseMax);
  // The columns as rows of the transpose (a gather along the last dim is the slow direction).
  return resampleRows(rows.swapDims(2, 3), wo, alignCorners, denseMax).swapDims(2, 3);
}
