import type { Backend, TensorPrimitive } from '../backend.js';
import type { InterpolateMode, InterpolateOptions } from '../options.js';
import { hostIndices, mapAlongDim } from './spatial.js';

/**
 * Resizing of `[N, C, ...spatial]`, separable over the spatial dims: nearest modes select source
 * indices computed on the host; bilinear and bicubic multiply by host-built interpolation
 * matrices. Coordinates follow PyTorch's `upsample_*` kernels exactly.
 */
export function interpolate<P extends TensorPrimitive>(
  b: Backend<P>,
  x: P,
  outputSize: readonly number[],
  o: InterpolateOptions,
): P {
  let y = x;
  outputSize.forEach((os, d) => {
    const is = x.shape[d + 2]!;
    if (o.mode === 'nearest' || o.mode === 'nearest-exact') {
      if (os === is) return;
      y = b.select(y, d + 2, hostIndices(b, nearestIndices(is, os, o.mode)));
    } else {
      y = mapAlongDim(b, y, d + 2, interpolationMatrix(is, os, o.mode, o.alignCorners), os);
    }
  });
  return y;
}

/** PyTorch's nearest source index, computed in f32 as its kernels do. */
function nearestIndices(inSize: number, outSize: number, mode: 'nearest' | 'nearest-exact'): number[] {
  const scale = Math.fround(inSize / outSize);
  const shift = mode === 'nearest-exact' ? 0.5 : 0;
  return Array.from({ length: outSize }, (_, o) => Math.min(Math.floor(Math.fround((o + shift) * scale)), inSize - 1));
}

/** The source coordinate of output `o` (PyTorch's `area_pixel_compute_source_index`). */
function sourceCoord(o: number, inSize: number, outSize: number, alignCorners: boolean, cubic: boolean): number {
  if (alignCorners) return outSize > 1 ? (o * (inSize - 1)) / (outSize - 1) : 0;
  const src = ((o + 0.5) * inSize) / outSize - 0.5;
  return !cubic && src < 0 ? 0 : src;
}

const CUBIC_A = -0.75;
const cubic1 = (t: number) => ((CUBIC_A + 2) * t - (CUBIC_A + 3)) * t * t + 1;
const cubic2 = (t: number) => ((CUBIC_A * t - 5 * CUBIC_A) * t + 8 * CUBIC_A) * t - 4 * CUBIC_A;

/** `[outSize, inSize]` row-major weights of linear or cubic (A = -0.75, border clamp) interpolation. */
function interpolationMatrix(
  inSize: number,
  outSize: number,
  mode: InterpolateMode,
  alignCorners: boolean,
): Float64Array {
  const m = new Float64Array(outSize * inSize);
  const at = (o: number, i: number, w: number) => {
    m[o * inSize + Math.min(Math.max(i, 0), inSize - 1)]! += w;
  };
  for (let o = 0; o < outSize; o++) {
    const src = sourceCoord(o, inSize, outSize, alignCorners, mode === 'bicubic');
    if (mode === 'bicubic') {
      const i0 = Math.floor(src);
      const t = src - i0;
      const w = [cubic2(t + 1), cubic1(t), cubic1(1 - t), cubic2(2 - t)];
      for (let j = 0; j < 4; j++) at(o, i0 - 1 + j, w[j]!);
    } else {
      const i0 = Math.trunc(src);
      const lambda = Math.min(Math.max(src - i0, 0), 1);
      at(o, i0, 1 - lambda);
      at(o, i0 < inSize - 1 ? i0 + 1 : i0, lambda);
    }
  }
  return m;
}
