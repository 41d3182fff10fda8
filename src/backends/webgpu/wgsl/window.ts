import type { Geometry3 } from '../../../core/geometry.js';
import type { Params } from './params.js';

/**
 * A sliding window's geometry (1–3 spatial dims lifted to 3) as uniform words, shared by the
 * window kernels (unfold, pooling): per dim the WGSL expressions of the input and output sizes,
 * the kernel, stride, padding, dilation and the input's spatial stride.
 */

/** One spatial dim of a window kernel's parameters (WGSL expressions). */
export interface WindowDim {
  readonly in: string;
  /** Output positions (u32: it divides the thread index). */
  readonly out: string;
  readonly k: string;
  readonly st: string;
  readonly pad: string;
  readonly dil: string;
  /** The input's stride along the dim. */
  readonly xs: string;
}

/**
 * Appends the three dims of `g` to `p`, dim by dim in the order of {@link WindowDim}; the kernel
 * size is read as `kernel` (u32 where the kernel divides an unsigned index, i32 for a loop bound).
 */
export function windowDims(
  p: Params,
  g: Geometry3,
  spatialStrides: readonly number[],
  kernel: 'u32' | 'i32',
): WindowDim[] {
  return [0, 1, 2].map((d) => ({
    in: p.i(g.in[d]!),
    out: p.u(g.out[d]!),
    k: kernel === 'u32' ? p.u(g.kernel[d]!) : p.i(g.kernel[d]!),
    st: p.i(g.stride[d]!),
    pad: p.i(g.padding[d]!),
    dil: p.i(g.dilation[d]!),
    xs: p.i(spatialStrides[d]!),
  }));
}
