/**
 * Grids of coordinates (Burn's `burn::tensor::grid`): `meshgrid` and `meshgridStack` over 1-d
 * tensors, `affineGrid2d` for spatial transformers, and `gridSample2d` (the same operation as the
 * Float tensor method) to sample an image at a grid's positions.
 *
 * ```ts
 * import { grid, Tensor } from 'burn-ts';
 * const g = grid.affineGrid2d(Tensor.fromFloats([[[1, 0, 0], [0, 1, 0]]]), [1, 1, 2, 2]);
 * const y = grid.gridSample2d(image, g, { alignCorners: true });
 * ```
 */
export {
  meshgrid,
  meshgridStack,
  type GridIndexing,
  type GridSparsity,
  type GridOptions,
  type IndexPos,
  type MeshgridOutput,
} from './meshgrid.js';
export { affineGrid2d } from './affine-grid.js';
export { gridSample2d } from './grid-sample.js';
