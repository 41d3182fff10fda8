// Errors as Burn has them: what Burn accepts, burn-ts accepts (slice ranges past the end are
// clamped, repeat with extra trailing 1s, cast to a dtype of another kind, l0/max-abs norms of Int
// tensors, convTranspose's paddingOut, zero gradients through ceil/floor/round/sign/trunc), and
// what Burn refuses, burn-ts refuses (mean of an empty Int tensor, narrow of length 0, iterDim
// with a dim out of range at the call). Values of Burn's backend tests (crates/burn-backend-tests
// at 2c06be35; each case names its Burn test) on every conformance device.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { functional, linalg, Tensor, type Bool, type Float, type Int } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { assertData, throwsBurn } from './helpers.js';

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  const it = itOn(entry);
  describe(`what Burn accepts, on ${name}`, () => {
    it('slice ranges past the end are clamped: clamp_when_slice_exceeds_dimension, negative_dimensions, missing_dimensions (slice.rs)', async () => {
      const d = device();
      await assertData(Tensor.fromFloats([0, 1, 2], d).slice([[0, 4]]), [0, 1, 2], '[0..4] of 3');
      const x = Tensor.fromFloats(
        [
          [0, 1, 2],
          [3, 4, 5],
        ],
        d,
      );
      await assertData(
        x.slice([
          [0, 4],
          [0, 4],
        ]),
        [
          [0, 1, 2],
          [3, 4, 5],
        ],
        '[0..4, 0..4]',
      );
      await assertData(
        x.slice([
          [0, 1],
          [0, 1],
        ]),
        [[0]],
        '[0..1, 0..1]',
      );
      await assertData(
        x.slice([
          [0, -1],
          [0, -2],
        ]),
        [[0]],
        '[0..-1, 0..-2]',
      );
      await assertData(x.slice([[0, 1], null]), [[0, 1, 2]], '[0..1, ..]');
      // Starts and negative bounds are clamped too (Burn's convert_signed_index).
      await assertData(
        x.slice([
          [-10, 1],
          [2, 99],
        ]),
        [[2]],
        '[-10..1, 2..99]',
      );
      assert.deepEqual(x.slice([[5, 9]]).dims(), [0, 3], 'a start past the end gives an empty range');
      await assertData(
        x.slice([
          [null, null, -1],
          [-99, 99, 2],
        ]),
        [
          [3, 5],
          [0, 2],
        ],
        'steps over clamped ranges',
      );
      await assertData(
        x.sliceDim(1, [1, 10]),
        [
          [1, 2],
          [4, 5],
        ],
        'sliceDim',
      );
      // An integer index still has to exist.
      throwsBurn(() => x.slice([2]), 'slice', 'index 2 is out of bounds for dim 0 of size 2');
    });

    it('sliceAssign and sliceFill clamp their ranges as slice does (slice_assign.rs check after to_range)', async () => {
      const d = device();
      const x = Tensor.fromFloats([0, 1, 2], d);
      await assertData(x.sliceAssign([[1, 10]], Tensor.fromFloats([7, 8], d)), [0, 7, 8], 'sliceAssign [1..10]');
      await assertData(x.sliceAssign([[-10, 1]], Tensor.fromFloats([9], d)), [9, 1, 2], 'sliceAssign [-10..1]');
      await assertData(x.sliceFill([[2, 5]], 4), [0, 1, 4], 'sliceFill [2..5]');
      throwsBurn(
        () => x.sliceAssign([[1, 10]], Tensor.fromFloats([7, 8, 9], d)),
        'sliceAssign',
        'values of shape [3] for a region of shape [2]',
      );
    });

    it('repeat with more sizes than the rank: should_support_repeat_ops_one_dimension (repeat.rs)', async () => {
      const d = device();
      const out = Tensor.fromFloats([[0, 1, 2]], d).repeat([4, 1, 1]);
      await assertData(out, [
        [0, 1, 2],
        [0, 1, 2],
        [0, 1, 2],
        [0, 1, 2],
      ]);
      // Fewer sizes than the rank repeat the leading dims only (Burn's loop over the sizes).
      await assertData(
        Tensor.fromInts(
          [
            [1, 2],
            [3, 4],
          ],
          d,
        ).repeat([2]),
        [
          [1, 2],
          [3, 4],
          [1, 2],
          [3, 4],
        ],
        'fewer sizes',
      );
      throwsBurn(
        () => Tensor.fromFloats([[0, 1]], d).repeat([1, 1, 2]),
        'repeat',
        'sizes [1, 1, 2]',
        'past the rank 2 must be 1',
      );
    });

    it('cast to a dtype of another kind: cast_int_to_float_with_dtype, cast_bool_to_float_with_dtype, cast_bool_to_int_with_dtype, cast_float_to_int_with_dtype (cast.rs)', async () => {
      const d = device();
      const fromInt: Tensor<2, Float> = Tensor.fromInts(
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
        d,
      ).cast('f32');
      assert.equal(fromInt.dtype(), 'f32');
      await assertData(
        fromInt,
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
        'int → f32',
      );
      const b = Tensor.fromBools(
        [
          [true, false, true],
          [false, false, true],
        ],
        d,
      );
      const fromBool: Tensor<2, Float> = b.cast('f32');
      assert.equal(fromBool.dtype(), 'f32');
      await assertData(
        fromBool,
        [
          [1, 0, 1],
          [0, 0, 1],
        ],
        'bool → f32',
      );
      const boolInt: Tensor<2, Int> = b.cast('i32');
      assert.equal(boolInt.dtype(), 'i32');
      await assertData(
        boolInt,
        [
          [1, 0, 1],
          [0, 0, 1],
        ],
        'bool → i32',
      );
      const fromFloat: Tensor<2, Int> = Tensor.fromFloats(
        [
          [1.0, 2.0, 3.0],
          [4.4, 5.5, 6.6],
        ],
        d,
      ).cast('i32');
      assert.equal(fromFloat.dtype(), 'i32');
      await assertData(
        fromFloat,
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
        'f32 → i32 truncates',
      );
      const toBool: Tensor<2, Bool> = Tensor.fromInts(
        [
          [0, 43, 0],
          [2, -4, 31],
        ],
        d,
      ).cast('bool');
      await assertData(
        toBool,
        [
          [0, 1, 0],
          [1, 1, 1],
        ],
        'i32 → bool (cast_int_to_bool)',
      );
      // Within a kind, as before.
      const same: Tensor<1, Int> = Tensor.fromInts([1, 2, 3], d).cast('i16');
      assert.equal(same.dtype(), 'i16');
      throwsBurn(() => Tensor.fromInts([1], d).cast('f8' as never), 'cast', 'f8');
    });

    it('l0Norm, l1Norm and the abs norms of Int tensors: test_max_min_abs, test_l0_norm (vector_norm.rs)', async () => {
      const d = device();
      const z = Tensor.fromInts(
        [
          [1, 2],
          [3, 4],
        ],
        d,
      );
      const m: Tensor<2, Int> = linalg.maxAbsNorm(z, 0);
      await assertData(m, [[3, 4]], 'maxAbsNorm 0');
      await assertData(linalg.maxAbsNorm(z, 1), [[2], [4]], 'maxAbsNorm 1');
      await assertData(linalg.minAbsNorm(z, 0), [[1, 2]], 'minAbsNorm 0');
      await assertData(linalg.minAbsNorm(z, 1), [[1], [3]], 'minAbsNorm 1');
      const w = Tensor.fromInts(
        [
          [1, -2, 0],
          [0, 0, 4],
        ],
        d,
      );
      const l0: Tensor<2, Int> = linalg.l0Norm(w, 0);
      assert.equal(l0.dtype(), 'i32');
      await assertData(l0, [[1, 1, 1]], 'l0Norm 0');
      await assertData(linalg.l0Norm(w, 1), [[2], [1]], 'l0Norm 1');
      await assertData(linalg.l1Norm(w, 1), [[3], [4]], 'l1Norm of ints');
      // Floats as before.
      await assertData(
        linalg.l0Norm(
          Tensor.fromFloats(
            [
              [1, -2, 0],
              [0, 0, 4],
            ],
            d,
          ),
          1,
        ),
        [[2], [1]],
        'l0Norm of floats',
      );
    });

    it('convTranspose with paddingOut at or past max(stride, dilation), as Burn allows', async () => {
      const d = device();
      const x = Tensor.fromFloats([[[1, 2, 3]]], d),
        w = Tensor.fromFloats([[[1, 1]]], d);
      const out = functional.convTranspose1d(x, w, Tensor.fromFloats([0.5], d), { paddingOut: 1 });
      await assertData(out, [[[1.5, 3.5, 5.5, 3.5, 0.5]]], 'stride 1, paddingOut 1: the extra cell holds the bias');
      const strided = functional.convTranspose1d(Tensor.fromFloats([[[1, 2]]], d), w, undefined, {
        stride: 2,
        paddingOut: 2,
      });
      await assertData(strided, [[[1, 1, 2, 2, 0, 0]]], 'stride 2, paddingOut 2');
    });
  });

  describe(`what Burn refuses, on ${name}`, () => {
    it('mean and meanDim of an empty Int tensor: test_mean_empty_int_should_panic, test_mean_dim_empty_axis_int_should_panic (int aggregation.rs)', async () => {
      const d = device();
      throwsBurn(() => Tensor.empty([0], { device: d, dtype: 'i32' }).mean(), 'mean', 'empty Int tensor');
      throwsBurn(() => Tensor.empty([3, 0], { device: d, dtype: 'i32' }).meanDim(1), 'meanDim', 'empty');
      throwsBurn(() => Tensor.empty([3, 0], { device: d, dtype: 'i32' }).meanDims([0, 1]), 'meanDims', 'empty');
      // test_should_sum_empty_int, test_should_prod_empty_int: sums and products of nothing are fine.
      await assertData(Tensor.empty([0], { device: d, dtype: 'i32' }).sum(), [0], 'sum');
      await assertData(Tensor.empty([0], { device: d, dtype: 'i32' }).prod(), [1], 'prod');
      // A float mean of nothing is NaN.
      await assertData(Tensor.empty([0], d).mean().isNan(), [1], 'float mean');
      await assertData(
        Tensor.empty([3, 0], { device: d, dtype: 'i32' }).meanDim(0),
        [[]],
        'an Int mean over a non-empty dim of an empty tensor',
      );
    });

    it('narrow of length 0: test_narrow_invalid_zero_length (narrow.rs)', () => {
      const x = Tensor.fromFloats(
        [
          [1, 2, 3],
          [4, 5, 6],
          [7, 8, 9],
        ],
        device(),
      );
      throwsBurn(() => x.narrow(0, 1, 0), 'narrow', 'length 0', 'expected a length of at least 1');
      throwsBurn(() => x.narrow(0, 3, 2), 'narrow', 'start 3 and length 2'); // test_narrow_invalid_start
      throwsBurn(() => x.narrow(0, 0, 4), 'narrow', 'length 4'); // test_narrow_invalid_length
      throwsBurn(() => x.narrow(2, 0, 2), 'narrow', 'dim 2'); // test_narrow_invalid_dim
    });

    it('iterDim with a dim out of range throws at the call: test_too_high_dimension (iter_dim.rs)', async () => {
      const x = Tensor.zeros([10], device());
      throwsBurn(() => x.iterDim(1), 'iterDim', 'dim 1');
      // test_1d_iter_last_item
      const items = [...Tensor.fromInts([1, 2, 3, 4], device()).iterDim(0)];
      await assertData(items[items.length - 1]!, [4]);
    });
  });

  if (!name.startsWith('autodiff')) continue;
  describe(`zero gradients through piecewise-constant ops on ${name}`, () => {
    const data = [
      [-1.9751, 0.0714, 0.0643, 0.2406],
      [-1.3172, 0.1252, -0.1119, -0.0127],
    ];
    for (const op of ['ceil', 'floor', 'round', 'trunc'] as const) {
      it(
        op === 'trunc' ? "trunc: zeros, as Burn's float_trunc backward" : `should_diff_${op} (autodiff/${op}.rs)`,
        async () => {
          const x = Tensor.fromFloats(data, device()).requireGrad();
          const y = x[op]();
          assert.ok(y.isRequireGrad(), `${op} keeps the graph`);
          await assertData(x.grad(y.backward())!, [
            [0, 0, 0, 0],
            [0, 0, 0, 0],
          ]);
        },
      );
    }
    it('should_diff_sign (autodiff/sign.rs), and a gradient through a mix', async () => {
      const x = Tensor.fromFloats([-2, -1, 0, 1, 2], device()).requireGrad();
      const y = x.sign();
      await assertData(y, [-1, -1, 0, 1, 1]);
      await assertData(x.grad(y.sum().backward())!, [0, 0, 0, 0, 0]);
      const z = Tensor.fromFloats([0.4, 1.6], device()).requireGrad();
      await assertData(z.grad(z.floor().add(z.mul(3)).sum().backward())!, [3, 3], 'floor(z) + 3z');
    });
    it('test_conv_transpose1d_padding_out_stride1_backward_shape (autodiff/conv_transpose1d.rs)', async () => {
      const d = device();
      const x = Tensor.arange(0, 16, d).float().reshape([2, 2, 4]).requireGrad();
      const w = Tensor.arange(0, 12, d).float().reshape([2, 2, 3]).requireGrad();
      const out = functional.convTranspose1d(x, w, undefined, { stride: 1, paddingOut: 1 });
      assert.deepEqual(out.dims(), [2, 2, 7]);
      const g = out.backward();
      assert.deepEqual(x.grad(g)!.dims(), [2, 2, 4]);
      assert.deepEqual(w.grad(g)!.dims(), [2, 2, 3]);
      // The extra output cells take no input: the gradients equal those without paddingOut.
      const x0 = x.detach().requireGrad(),
        w0 = w.detach().requireGrad();
      const g0 = functional.convTranspose1d(x0, w0).backward();
      assert.deepEqual(
        Array.from((await x.grad(g)!.toData()).toArray()),
        Array.from((await x0.grad(g0)!.toData()).toArray()),
      );
      assert.deepEqual(
        Array.from((await w.grad(g)!.toData()).toArray()),
        Array.from((await w0.grad(g0)!.toData()).toArray()),
      );
    });
  });
}
