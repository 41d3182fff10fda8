import type { GridSampleOptions } from '../../backend/options.js';
import type { Float } from '../kind.js';
import type { Tensor } from '../tensor.js';

/**
 * Samples `[N, C, H, W]` at the normalized (-1..1) `(x, y)` positions of `grid` `[N, Ho, Wo, 2]`
 * (Burn's `grid_sample_2d`): the Float tensor method `x.gridSample2d(grid, options)` as a free
 * function, beside the grids that feed it.
 *
 * @returns `[N, C, Ho, Wo]`
 */
export function gridSample2d(
  x: Tensor<4, Float>,
  grid: Tensor<4, Float>,
  options: Partial<GridSampleOptions> = {},
): Tensor<4, Float> {
  return x.gridSample2d(grid, options);
}
