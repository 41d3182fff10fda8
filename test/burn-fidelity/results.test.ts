// Results that must equal Burn's: bool accumulation is a logical OR (no bool op leaves a value other
// than 0/1), sign(-0) is +0, nonzero of an all-false tensor is an empty list, split/chunk make no
// empty pieces, scatterNd max/min give the full gradient to both sides of a tie, and roll shifts as
// Burn does (the opposite direction of PyTorch's). Values of Burn's backend tests (crates/
// burn-backend-tests at 2c06be35; each case names its Burn test) on every conformance device.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { Tensor, type Bool, type Device, type Float, type Int } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { assertData, throwsBurn } from './helpers.js';

/** The values of a bool tensor's storage (0/1 only, whatever an op did). */
async function boolBytes(t: Tensor<number, Bool>): Promise<number[]> {
  const data = await t.toData();
  assert.equal(data.dtype, 'bool');
  return Array.from(data.values as Uint8Array);
}

for (const entry of conformanceDevices()) {
  const { name, device, readsSync = true } = entry;
  const it = itOn(entry);
  const bools = (v: boolean[], d: Device) => Tensor.fromBools(v, d);
  describe(`Burn's results on ${name}`, () => {
    it("bool scatter 'add' is an OR: should_scatter_1d_bool (bool gather_scatter.rs)", async () => {
      const d = device();
      const out = bools([true, false, false], d).scatter(
        0,
        Tensor.fromInts([1, 0, 2], d),
        bools([false, true, true], d),
        'add',
      );
      await assertData(out, [1, 0, 1]);
    });

    it("bool selectAssign 'add' is an OR: should_select_add_bool_* (bool select.rs)", async () => {
      const d = device();
      const sa = (t: boolean[], idx: number[], v: boolean[]) =>
        bools(t, d).selectAssign(0, Tensor.fromInts(idx, d), bools(v, d), 'add');
      await assertData(sa([true, false, true], [0, 2], [false, true]), [1, 0, 1], 'should_select_add_bool_tensor');
      await assertData(sa([false, true], [0, 0], [true, false]), [1, 1], 'should_select_add_bool_overlapping_indices');
      await assertData(sa([false], [0], [true]), [1], 'should_select_add_bool_false_to_true_case');
      const acc = sa([true, false], [0, 0, 0], [true, true, true]);
      assert.deepEqual(
        await boolBytes(acc),
        [1, 0],
        'should_select_add_bool_true_or_true_accumulation: stored as 1, never 3',
      );
      // should_fail_if_replacement_semantics_were_used: accumulation, not replacement.
      await assertData(sa([true], [0], [false]), [1], 'not replaced');
      // should_match_default_implementation_behavior: the same as adding ints and comparing with 0.
      const t = bools([true, false, true], d),
        idx = Tensor.fromInts([0, 1, 0], d),
        v = bools([false, true, true], d);
      const viaInts = t.int().selectAssign(0, idx, v.int(), 'add').greater(0);
      assert.deepEqual(await boolBytes(t.selectAssign(0, idx, v, 'add')), await boolBytes(viaInts));
    });

    it('what is computed from an OR-accumulated bool tensor is right: equal, boolNot, int', async () => {
      const d = device();
      const acc = bools([true, false, false], d).selectAssign(
        0,
        Tensor.fromInts([0, 0, 2, 2], d),
        bools([true, true, true, true], d),
        'add',
      );
      await assertData(acc.equal(bools([true, false, true], d)), [1, 1, 1], 'equal');
      await assertData(acc.boolNot(), [0, 1, 0], 'boolNot');
      await assertData(acc.int(), [1, 0, 1], 'int');
      const nd = Tensor.fromBools(
        [
          [true, false],
          [false, false],
        ],
        d,
      ).scatterNd(
        Tensor.fromInts([[0], [0], [1]], d),
        Tensor.fromBools(
          [
            [true, true],
            [true, true],
            [false, true],
          ],
          d,
        ),
        'add',
      );
      assert.deepEqual(await boolBytes(nd), [1, 1, 0, 1], 'scatterNd add');
    });

    it('bool tensors have no sum, prod or running sums (Burn has none): a BurnError, not a 2 in a bool tensor', () => {
      const b = Tensor.fromBools(
        [
          [true, true],
          [true, false],
        ],
        device(),
      ) as unknown as Tensor<2, Int>;
      throwsBurn(() => b.sum(), 'sum', 'is not defined for bool tensors', '.int()');
      throwsBurn(() => b.sumDim(0), 'sumDim', 'is not defined for bool tensors');
      throwsBurn(() => b.sumDims([0, 1]), 'sumDims', 'is not defined for bool tensors');
      throwsBurn(() => b.cumsum(1), 'cumsum', 'is not defined for bool tensors');
      throwsBurn(() => b.cumprod(1), 'cumprod', 'is not defined for bool tensors');
      throwsBurn(() => b.prod(), 'prod', 'is not defined for bool tensors');
      throwsBurn(() => b.prodDim(0), 'prodDim', 'is not defined for bool tensors');
    });

    it('sign(-0.0) is +0.0: should_support_sign_ops_float_negative_zero, should_support_sign_ops_float (sign.rs)', async () => {
      const d = device();
      const zeros = (
        await Tensor.fromFloats([[-0, 0]], d)
          .sign()
          .toData()
      ).toArray();
      assert.ok(
        Object.is(zeros[0], 0) && Object.is(zeros[1], 0),
        `sign of [-0, 0] gave [${Array.from(zeros, (v) => (Object.is(v, -0) ? '-0' : v))}]`,
      );
      await assertData(
        Tensor.fromFloats(
          [
            [-0.2, -1.0, 2.0],
            [3.0, 0.0, -5.0],
          ],
          d,
        ).sign(),
        [
          [-1, -1, 1],
          [1, 0, -1],
        ],
      );
      await assertData(Tensor.fromFloats([NaN], d).sign().isNan(), [1], 'NaN stays NaN');
    });

    it('nonzero of an all-false tensor is an empty list: test_nonzero_empty, test_argwhere_empty (argwhere_nonzero.rs)', async () => {
      const d = device();
      const none = Tensor.fromBools([false, false, false, false, false], d);
      const parts = readsSync ? none.nonzero() : await none.nonzeroAsync();
      assert.equal(parts.length, 0);
      const rows = readsSync ? none.argwhere() : await none.argwhereAsync();
      assert.deepEqual(rows.dims(), [0, 1]);
      // test_nonzero_2d still gives one tensor per dim.
      const some = Tensor.fromBools(
        [
          [false, false],
          [false, true],
          [true, true],
        ],
        d,
      );
      const two = readsSync ? some.nonzero() : await some.nonzeroAsync();
      assert.equal(two.length, 2);
      await assertData(two[0]!, [1, 2, 2]);
      await assertData(two[1]!, [1, 0, 1]);
    });

    it("split and chunk: no empty pieces, none from an empty dim (split.rs; Burn's chunk)", async () => {
      const d = device();
      const empty = Tensor.fromFloats(new Float32Array(0), d);
      assert.equal(empty.split(0, 0).length, 0, 'test_split_with_zero_split_size_zero_tensor_size');
      assert.equal(empty.split(1, 0).length, 0, 'test_split_zero_sized_tensor');
      assert.equal(empty.chunk(3, 0).length, 0, 'chunk of an empty dim');
      assert.equal(empty.splitWithSizes([0, 0], 0).length, 0, 'splitWithSizes of an empty dim');
      throwsBurn(
        () => Tensor.fromFloats([0, 1, 2, 3, 4], d).split(0, 0),
        'split',
        'split size 0',
        'greater than 0 unless the dim is empty',
      );
      const pieces = Tensor.fromFloats([0, 1, 2], d).splitWithSizes([0, 1, 2], 0);
      assert.equal(pieces.length, 2, 'test_split_with_sizes_zero_length');
      await assertData(pieces[0]!, [0]);
      await assertData(pieces[1]!, [1, 2]);
      throwsBurn(
        () => Tensor.fromFloats([0, 1, 2, 3, 4, 5], d).splitWithSizes([2, 2, 1], 0),
        'splitWithSizes',
        'add up to 5',
        'adding up to 6',
      );
      // test_chunk_not_evenly_divisible_remains_several, test_chunk_not_divisible (chunk.rs).
      assert.deepEqual(
        Tensor.arange(0, 100, d)
          .float()
          .chunk(8, 0)
          .map((t) => t.dims()[0]),
        [13, 13, 13, 13, 13, 13, 13, 9],
      );
      assert.deepEqual(
        Tensor.arange(0, 6, d)
          .float()
          .chunk(7, 0)
          .map((t) => t.dims()[0]),
        [1, 1, 1, 1, 1, 1],
      );
    });

    it('roll and rollDim shift as Burn does: test_roll, test_roll_dim (int roll.rs)', async () => {
      const d = device();
      const x = Tensor.fromInts(
        [
          [0, 1, 2],
          [3, 4, 5],
        ],
        d,
      );
      await assertData(
        x.roll([0, 0], [0, 1]),
        [
          [0, 1, 2],
          [3, 4, 5],
        ],
        'no-op',
      );
      await assertData(
        x.roll([1, -1], [0, 1]),
        [
          [5, 3, 4],
          [2, 0, 1],
        ],
        '[1, -1] over [0, 1]',
      );
      await assertData(
        x.roll([-1, 1], [1, 0]),
        [
          [5, 3, 4],
          [2, 0, 1],
        ],
        '[-1, 1] over [1, 0]',
      );
      await assertData(
        x.roll([2 * 32 + 1, 3 * -400 - 1], [0, 1]),
        [
          [5, 3, 4],
          [2, 0, 1],
        ],
        'large shifts',
      );
      await assertData(
        x.rollDim(1, 0),
        [
          [3, 4, 5],
          [0, 1, 2],
        ],
        'rollDim(1, 0)',
      );
      await assertData(
        x.rollDim(-1, 1),
        [
          [2, 0, 1],
          [5, 3, 4],
        ],
        'rollDim(-1, 1)',
      );
      await assertData(
        Tensor.fromFloats([0, 1, 2, 3], d).rollDim(1, 0),
        [1, 2, 3, 0],
        'a positive shift moves elements toward index 0',
      );
      throwsBurn(() => x.roll([1], [2]), 'roll', 'dim 2'); // test_roll_dim_too_big
      throwsBurn(() => x.rollDim(1, -3), 'rollDim', 'dim -3'); // test_roll_dim_dim_too_small
      throwsBurn(() => x.roll([1, 2], [0]), 'roll', '2 shifts for 1 dims'); // test_roll_shift_size_mismatch
    });
  });

  if (!name.startsWith('autodiff')) continue;
  describe(`Burn's scatterNd max/min gradients on ${name}`, () => {
    const grads = (data: number[][], values: number[][] | number[], indices: number[][], op: 'max' | 'min') => {
      const d = device();
      const x = Tensor.fromFloats(data, d).requireGrad();
      const v = (
        Array.isArray(values[0]) ? Tensor.fromFloats(values as number[][], d) : Tensor.fromFloats(values as number[], d)
      ).requireGrad() as Tensor<number, Float>;
      const g = x.scatterNd(Tensor.fromInts(indices, d), v, op).sum().backward();
      return [x.grad(g)!, v.grad(g)!] as const;
    };
    const data = [
      [1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ];
    it('test_scatter_nd_max_grad_tie: both sides of a tie get the full gradient', async () => {
      const [gx, gv] = grads(data, [[1, 5, 10]], [[1]], 'max');
      await assertData(
        gx,
        [
          [1, 1, 1],
          [1, 1, 0],
          [1, 1, 1],
        ],
        'data',
      );
      await assertData(gv, [[0, 1, 1]], 'values');
    });
    it('test_scatter_nd_min_grad_tie', async () => {
      const [gx, gv] = grads(data, [[1, 5, 10]], [[1]], 'min');
      await assertData(
        gx,
        [
          [1, 1, 1],
          [0, 1, 1],
          [1, 1, 1],
        ],
        'data',
      );
      await assertData(gv, [[1, 1, 0]], 'values');
    });
    it('test_scatter_nd_max_grad_data_wins, _values_win, test_scatter_nd_min_grad, _max_grad_k_equals_d', async () => {
      let [gx, gv] = grads(data, [[1, 2, 3]], [[1]], 'max');
      await assertData(
        gx,
        [
          [1, 1, 1],
          [1, 1, 1],
          [1, 1, 1],
        ],
        'data wins: data',
      );
      await assertData(gv, [[0, 0, 0]], 'data wins: values');
      [gx, gv] = grads(data, [[10, 20, 30]], [[1]], 'max');
      await assertData(
        gx,
        [
          [1, 1, 1],
          [0, 0, 0],
          [1, 1, 1],
        ],
        'values win: data',
      );
      await assertData(gv, [[1, 1, 1]], 'values win: values');
      [gx, gv] = grads(data, [[1, 2, 3]], [[1]], 'min');
      await assertData(
        gx,
        [
          [1, 1, 1],
          [0, 0, 0],
          [1, 1, 1],
        ],
        'min: data',
      );
      await assertData(gv, [[1, 1, 1]], 'min: values');
      [gx, gv] = grads(
        [
          [1, 2],
          [3, 4],
        ],
        [10, 1],
        [
          [0, 1],
          [1, 0],
        ],
        'max',
      );
      await assertData(
        gx,
        [
          [1, 0],
          [1, 1],
        ],
        'k = d: data',
      );
      await assertData(gv, [1, 0], 'k = d: values');
    });
  });
}
