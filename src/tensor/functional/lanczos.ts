import type { FloatDType } from '../dtype.js';
import type { Float } from '../kind.js';
import { Tensor } from '../tensor.js';

/** The Lanczos kernel with a = 3: `sinc(x)·sinc(x/3)` on `|x| < 3`, 0 outside. */
function lanczos3(x: number): number {
  if (x === 0) return 1;
  if (Math.abs(x) >= 3) return 0;
  const px = Math.PI * x;
  return (Math.sin(px) * Math.sin(px / 3)) / ((px * px) / 3);
}

/**
 * The `[outSize, inSize]` resampling matrix of one axis: row `o` holds the Lanczos3 weights of
 * the six input samples around `o`'s source coordinate (`floor(c) - 2 ..= floor(c) + 3`), those
 * outside the input skipped and the rest renormalized to sum to 1 (Burn's boundary rule).
 */
function axisWeights(inSize: number, outSize: number, alignCorners: boolean): Float64Array {
  const ratio = alignCorners ? (inSize - 1) / Math.max(outSize - 1, 1) : inSize / outSize;
  const w = new Float64Array(outSize * inSize);
  for (let o = 0; o < outSize; o++) {
    const coord = alignCorners ? o * ratio : (o + 0.5) * ratio - 0.5;
    const base = Math.floor(coord);
    let sum = 0;
    for (let k = -2; k <= 3; k++) {
      const i = base + k;
      if (i < 0 || i >= inSize) continue;
      const weight = lanczos3(coord - i);
      w[o * inSize + i] += weight;
      sum += weight;
    }
    if (sum !== 0) for (let i = 0; i < inSize; i++) w[o * inSize + i]! /= sum;
  }
  return w;
}

/**
 * @internal Lanczos3 resizing of `[N, C, H, W]` (Burn's `InterpolateMode::Lanczos3`). The 6×6
 * kernel is separable and Burn renormalizes by the sum of the products of the axis weights,
 * which is the product of the axis sums, so the resize is `Wy · x · Wxᵀ`: two matmuls with
 * constant matrices. A composite rather than a backend kernel, so it runs on every device and
 * autodiff differentiates it (Burn's own Lanczos3 has no backward).
 */
export function lanczos3Resize(x: Tensor<4, Float>, out: readonly number[], alignCorners: boolean): Tensor<4, Float> {
  const [, , h, w] = x.dims() as [number, number, number, number];
  const [ho, wo] = out as [number, number];
  const opts = { device: x.device(), dtype: x.dtype() as FloatDType };
  const wy = Tensor.fromFloats(axisWeights(h, ho, alignCorners), opts).reshape([1, 1, ho, h]);
  const wxT = Tensor.fromFloats(axisWeights(w, wo, alignCorners), opts).reshape([1, 1, wo, w]).swapDims(2, 3);
  return wy.matmul(x).matmul(wxT);
}
