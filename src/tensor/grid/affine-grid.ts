import { BurnError, fmt } from '../../core/errors.js';
import type { FloatDType } from '../../core/dtype.js';
import type { Float } from '../kind.js';
import { checkNumel } from '../../core/shape.js';
import { Tensor } from '../tensor.js';

/**
 * The sampling grid of 2-d affine transforms (Burn's `grid::affine_grid_2d`, PyTorch's
 * `affine_grid` with `align_corners=True`): each output pixel's normalized position `(x, y, 1)`,
 * `x` and `y` running from -1 to 1 across the width and height, multiplied by its batch's
 * `[2, 3]` matrix. Feed the result to `gridSample2d` (with `alignCorners: true`) for a spatial
 * transformer; gradients flow to `transform`.
 *
 * @param transform `[N, 2, 3]` affine matrices, or `[1, 2, 3]` for one transform of every batch item
 * @param dims the output size `[N, C, H, W]` (C is not used)
 * @returns `[N, H, W, 2]`, the last dim `(x, y)`
 */
export function affineGrid2d(
  transform: Tensor<3, Float>,
  dims: readonly [number, number, number, number],
): Tensor<4, Float> {
  const op = 'affineGrid2d';
  transform.expectFloat(op);
  const shape = transform.dims();
  if (!Array.isArray(dims) || dims.length !== 4 || !dims.every((d) => Number.isInteger(d) && d >= 0)) {
    throw new BurnError(
      op,
      `dims ${Array.isArray(dims) ? fmt(dims) : String(dims)}; expected [N, C, H, W] of non-negative integers`,
    );
  }
  const [n, , h, w] = dims;
  if (shape.length !== 3 || (shape[0] !== n && shape[0] !== 1) || shape[1] !== 2 || shape[2] !== 3) {
    throw new BurnError(
      op,
      `transform of shape ${fmt(shape)} for dims ${fmt(dims)}; expected [${n}, 2, 3] (or [1, 2, 3], broadcast over the batch)`,
    );
  }
  checkNumel([n, h, w, 2], op);
  // (x, y, 1) per pixel, row-major; a single pixel along a dim sits at 0 (Burn divides by zero there).
  const coord = (i: number, size: number) => (size > 1 ? i / ((size - 1) / 2) - 1 : 0);
  const base = new Float64Array(h * w * 3);
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) base.set([coord(c, w), coord(r, h), 1], (r * w + c) * 3);
  }
  const points = Tensor.fromFloats(base, {
    device: transform.device(),
    dtype: transform.dtype() as FloatDType,
  }).reshape([1, h * w, 3]);
  // [1, H·W, 3] · [N, 3, 2] = [N, H·W, 2]; one transform broadcasts over the batch, as in Burn.
  const out = points.matmul(transform.swapDims(1, 2));
  return (shape[0] === n ? out.reshape([n, h, w, 2]) : out.reshape([1, h, w, 2]).expand([n, h, w, 2])) as Tensor<
    4,
    Float
  >;
}
