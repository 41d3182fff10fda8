// The grid namespace (Burn's `burn::tensor::grid`): affineGrid2d, meshgrid and meshgridStack with
// the values of Burn's backend tests (crates/burn-backend-tests at 2c06be35,
// tests/tensor/float/grid/{affine_grid,meshgrid}.rs; each case names its Burn test) on every
// conformance device, affineGrid2d's gradient, and grid.gridSample2d = the tensor method.
import assert from 'node:assert/strict';
import { describe, it as plainIt } from 'node:test';
import { Device, grid, Tensor, type Float, type Int } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { gradCheck } from '../helpers/grad-check.js';
import { assertApproxEq, relAbs } from './burn-helpers.js';
import { throwsBurn } from './helpers.js';

const EXACT = relAbs(0, 0);
const data = async (t: Tensor<number, Float | Int>) => ({
  shape: (await t.toData()).shape,
  values: Array.from((await t.toData()).toArray(), Number),
});

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  const it = itOn(entry);
  describe(`grid on ${name}`, () => {
    it('test_affine_grid_identity', () =>
      assertApproxEq(
        grid.affineGrid2d(
          Tensor.fromFloats(
            [
              [
                [1, 0, 0],
                [0, 1, 0],
              ],
            ],
            device(),
          ),
          [1, 1, 2, 2],
        ),
        [
          [
            [
              [-1, -1],
              [1, -1],
            ],
            [
              [-1, 1],
              [1, 1],
            ],
          ],
        ],
        EXACT,
      ));
    it('test_affine_grid_scaling', () =>
      assertApproxEq(
        grid.affineGrid2d(
          Tensor.fromFloats(
            [
              [
                [2, 0, 0],
                [0, 2, 0],
              ],
            ],
            device(),
          ),
          [1, 1, 2, 2],
        ),
        [
          [
            [
              [-2, -2],
              [2, -2],
            ],
            [
              [-2, 2],
              [2, 2],
            ],
          ],
        ],
        EXACT,
      ));
    it('test_affine_grid_translation', () =>
      assertApproxEq(
        grid.affineGrid2d(
          Tensor.fromFloats(
            [
              [
                [1, 0, 0.5],
                [0, 1, -0.5],
              ],
            ],
            device(),
          ),
          [1, 1, 2, 2],
        ),
        [
          [
            [
              [-0.5, -1.5],
              [1.5, -1.5],
            ],
            [
              [-0.5, 0.5],
              [1.5, 0.5],
            ],
          ],
        ],
        EXACT,
      ));
    it('affineGrid2d: a batch of rotations on a 3×2 grid; single-pixel dims sit at 0', async () => {
      const d = device();
      const t = Tensor.fromFloats(
        [
          [
            [1, 0, 0],
            [0, 1, 0],
          ],
          [
            [0, -1, 0.25],
            [1, 0, 0],
          ],
        ],
        d,
      );
      await assertApproxEq(
        grid.affineGrid2d(t, [2, 3, 3, 2]),
        [
          [
            [
              [-1, -1],
              [1, -1],
            ],
            [
              [-1, 0],
              [1, 0],
            ],
            [
              [-1, 1],
              [1, 1],
            ],
          ],
          [
            [
              [1.25, -1],
              [1.25, 1],
            ],
            [
              [0.25, -1],
              [0.25, 1],
            ],
            [
              [-0.75, -1],
              [-0.75, 1],
            ],
          ],
        ],
        relAbs(0, 1e-6),
      );
      await assertApproxEq(
        grid.affineGrid2d(
          Tensor.fromFloats(
            [
              [
                [2, 0, 0.5],
                [0, 3, 0],
              ],
            ],
            d,
          ),
          [1, 1, 1, 1],
        ),
        [[[[0.5, 0]]]],
        EXACT,
      );
      // One transform for a batch of 2 (Burn broadcasts it).
      await assertApproxEq(
        grid.affineGrid2d(
          Tensor.fromFloats(
            [
              [
                [2, 0, 0],
                [0, 2, 0],
              ],
            ],
            d,
          ),
          [2, 1, 1, 2],
        ),
        [
          [
            [
              [-2, 0],
              [2, 0],
            ],
          ],
          [
            [
              [-2, 0],
              [2, 0],
            ],
          ],
        ],
        EXACT,
      );
    });

    it('test_meshgrid: dense and sparse, matrix and cartesian indexing', async () => {
      const d = device();
      const x = Tensor.fromInts([1, 2, 3, 4], d),
        y = Tensor.fromInts([5, 6], d),
        z = Tensor.fromInts([7, 8], d);
      const shape = [4, 2, 2] as const;
      const dense = [
        x.reshape([4, 1, 1]).expand(shape),
        y.reshape([1, 2, 1]).expand(shape),
        z.reshape([1, 1, 2]).expand(shape),
      ];
      const sparse = [x.reshape([4, 1, 1]), y.reshape([1, 2, 1]), z.reshape([1, 1, 2])];
      const same = async (got: readonly Tensor<3, Int>[], want: readonly Tensor<3, Int>[], label: string) => {
        for (const [i, g] of got.entries()) assert.deepEqual(await data(g), await data(want[i]!), `${label} ${i}`);
      };
      const [gx, gy, gz] = grid.meshgrid([x, y, z]);
      const rank: Tensor<3, Int> = gx; // the rank is the number of inputs
      await same([rank, gy, gz], dense, 'default');
      await same(grid.meshgrid([x, y, z], 'dense'), dense, 'dense');
      await same(grid.meshgrid([x, y, z], 'matrix'), dense, 'matrix');
      await same(grid.meshgrid([x, y, z], { indexing: 'matrix', sparsity: 'sparse' }), sparse, 'sparse');
      await same(grid.meshgrid([x, y, z], 'sparse'), sparse, 'sparse');
      await same(
        grid.meshgrid([x, y, z], 'cartesian'),
        dense.map((t) => t.swapDims(0, 1)),
        'cartesian',
      );
      await same(
        grid.meshgrid([x, y, z], { indexing: 'cartesian', sparsity: 'sparse' }),
        sparse.map((t) => t.swapDims(0, 1)),
        'cartesian sparse',
      );
    });

    it('test_meshgrid_stack: index first and last', async () => {
      const d = device();
      const ts = [Tensor.fromFloats([0.5, 1, 2.5], d), Tensor.fromFloats([0.5, 1], d)] as const;
      const typed: Tensor<3, Float> = grid.meshgridStack(ts, 'first'); // rank = inputs + 1
      await assertApproxEq(
        typed,
        [
          [
            [0.5, 0.5],
            [1, 1],
            [2.5, 2.5],
          ],
          [
            [0.5, 1],
            [0.5, 1],
            [0.5, 1],
          ],
        ],
        EXACT,
      );
      await assertApproxEq(
        grid.meshgridStack(ts, 'last'),
        [
          [
            [0.5, 0.5],
            [0.5, 1],
          ],
          [
            [1, 0.5],
            [1, 1],
          ],
          [
            [2.5, 0.5],
            [2.5, 1],
          ],
        ],
        EXACT,
      );
      await assertApproxEq(
        grid.meshgridStack(ts),
        [
          [
            [0.5, 0.5],
            [1, 1],
            [2.5, 2.5],
          ],
          [
            [0.5, 1],
            [0.5, 1],
            [0.5, 1],
          ],
        ],
        EXACT,
      );
    });

    it('gridSample2d over an affine grid: the identity transform reproduces the image', async () => {
      const d = device();
      const image = Tensor.arange(0, 12, d).float().reshape([1, 2, 2, 3]) as Tensor<4, Float>;
      const g = grid.affineGrid2d(
        Tensor.fromFloats(
          [
            [
              [1, 0, 0],
              [0, 1, 0],
            ],
          ],
          d,
        ),
        [1, 2, 2, 3],
      );
      const y = grid.gridSample2d(image, g, { alignCorners: true });
      await assertApproxEq(
        y,
        [
          [
            [
              [0, 1, 2],
              [3, 4, 5],
            ],
            [
              [6, 7, 8],
              [9, 10, 11],
            ],
          ],
        ],
        relAbs(0, 1e-5),
      );
      assert.deepEqual(await data(y), await data(image.gridSample2d(g, { alignCorners: true })));
    });
  });
}

describe('grid gradients and errors', () => {
  plainIt('affineGrid2d: finite differences with respect to the transform', async () => {
    const err = await gradCheck(Device.cpu({ engine: 'js' }).autodiff(), [{ shape: [2, 2, 3] }], (t) =>
      grid.affineGrid2d(t as Tensor<3, Float>, [2, 1, 3, 4]),
    );
    assert.ok(err < 1e-9, `max relative error ${err}`);
    const shared = await gradCheck(Device.cpu({ engine: 'js' }).autodiff(), [{ shape: [1, 2, 3] }], (t) =>
      grid.affineGrid2d(t as Tensor<3, Float>, [3, 1, 2, 2]),
    );
    assert.ok(shared < 1e-9, `broadcast transform: max relative error ${shared}`);
  });
  plainIt('errors name the operation, the values and what was expected', () => {
    const d = Device.cpu();
    throwsBurn(
      () => grid.affineGrid2d(Tensor.zeros([2, 2, 3], d), [1, 1, 2, 2]),
      'affineGrid2d',
      'transform of shape [2, 2, 3] for dims [1, 1, 2, 2]',
      'expected [1, 2, 3]',
    );
    throwsBurn(
      () => grid.affineGrid2d(Tensor.zeros([2, 2, 3], d), [3, 1, 2, 2]),
      'affineGrid2d',
      'expected [3, 2, 3] (or [1, 2, 3]',
    );
    throwsBurn(() => grid.affineGrid2d(Tensor.zeros([1, 3, 3], d), [1, 1, 2, 2]), 'affineGrid2d', 'expected [1, 2, 3]');
    throwsBurn(
      () => grid.affineGrid2d(Tensor.zeros([1, 2, 3], d), [1, 1, -2, 2] as never),
      'affineGrid2d',
      'dims [1, 1, -2, 2]',
    );
    throwsBurn(
      () => grid.affineGrid2d(Tensor.zeros([1, 2, 3], d), [1, 1, 1e5, 1e5]),
      'affineGrid2d',
      'output shape [1, 100000, 100000, 2]',
    );
    throwsBurn(() => grid.meshgrid([]), 'meshgrid', 'at least one');
    throwsBurn(() => grid.meshgrid([Tensor.zeros([2, 2], d) as never]), 'meshgrid', 'tensor 0 has shape [2, 2]', '1-d');
    throwsBurn(
      () => grid.meshgrid([Tensor.zeros([2], d), Tensor.zeros([2], { device: d, dtype: 'f64' })]),
      'meshgrid',
      'tensor 1 has dtype f64',
    );
    throwsBurn(
      () => grid.meshgrid([Tensor.zeros([2], d)], { indexing: 'xy' as never }),
      'meshgrid',
      'indexing "xy"',
      "'matrix' or 'cartesian'",
    );
    throwsBurn(
      () => grid.meshgridStack([Tensor.zeros([2], d)], 'middle' as never),
      'meshgridStack',
      'indexPos "middle"',
    );
  });
});
