// Bad input throws a BurnError whose message names the op, the offending values and what was expected.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Device, Distribution, Tensor, TensorData, Tolerance, type Int } from '../src/index.js';

function throwsBurn(fn: () => unknown, op: string, ...parts: (string | RegExp)[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof BurnError, `expected a BurnError, got ${String(e)}`);
    assert.equal(e.op, op);
    assert.ok(e.message.startsWith(`${op}: `), e.message);
    for (const p of parts)
      assert.match(e.message, typeof p === 'string' ? new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : p);
    return true;
  });
}

describe('errors', () => {
  const m = Tensor.fromFloats([
    [1, 2, 3],
    [4, 5, 6],
  ]);

  it('wrong shapes: matmul, broadcasting, cat, stack, reshape', () => {
    throwsBurn(() => m.matmul(m), 'matmul', 'lhs [2, 3]', 'rhs [2, 3]', 'expected lhs[-1] == rhs[-2]');
    throwsBurn(() => m.add(Tensor.ones([2, 2])), 'add', '[2, 3]', '[2, 2]', 'cannot be broadcast');
    throwsBurn(() => m.greater(Tensor.ones([4, 3])), 'greater', 'dim 0: 2 vs 4');
    throwsBurn(() => Tensor.cat([m, Tensor.ones([2, 2])], 0), 'cat', 'tensor 1 has shape [2, 2]', 'except in dim 0');
    throwsBurn(() => Tensor.cat([], 0), 'cat', 'at least one');
    throwsBurn(() => Tensor.stack([m, m.transpose()], 0), 'stack', 'expected equal shapes');
    throwsBurn(() => m.reshape([4, 2]), 'reshape', '[2, 3] (6 elements)', '[4, 2] (8 elements)');
    throwsBurn(() => m.reshape([-1, -1]), 'reshape', 'more than one -1');
    throwsBurn(() => m.expand([2, 4]), 'expand', 'dim 1 has size 3');
    throwsBurn(() => Tensor.zeros([2, -1]), 'Tensor.zeros', 'invalid shape [2, -1]');
    throwsBurn(() => (m as unknown as Tensor<1>).dot(Tensor.ones([3])), 'dot', 'two vectors');
  });

  it('out-of-range dims', () => {
    throwsBurn(() => m.sumDim(2), 'sumDim', 'dim 2 is out of range for a tensor of rank 2', '-2 <= dim < 2');
    throwsBurn(() => m.swapDims(0, -3), 'swapDims', 'dim -3');
    throwsBurn(() => m.permute([0, 0]), 'permute', 'repeat');
    throwsBurn(() => m.permute([0]), 'permute', 'expected 2');
    throwsBurn(() => m.squeezeDim(0), 'squeezeDim', 'has size 2', 'expected size 1');
    throwsBurn(() => m.flatten(1, 0), 'flatten', 'start dim 1 is after end dim 0');
    throwsBurn(() => m.argmax(5), 'argmax', 'dim 5');
  });

  it('out-of-range indices and slices', () => {
    const idx = Tensor.fromInts([0, 5]);
    throwsBurn(() => m.select(0, idx).toDataSync(), 'select', 'index 5 is out of bounds for dim 0 of size 2');
    throwsBurn(() => m.gather(1, Tensor.fromInts([[0], [3]])), 'gather', 'index 3');
    // Ranges past the end are clamped, as Burn (test/burn-fidelity/errors.test.ts); an index is not.
    throwsBurn(() => m.slice([2]), 'slice', 'index 2 is out of bounds for dim 0 of size 2');
    throwsBurn(() => m.slice([[0.5, 1]]), 'slice', 'range start 0.5 for dim 0; expected an integer');
    throwsBurn(() => m.slice([null, [0, 2, 0]]), 'slice', 'step 0');
    throwsBurn(() => m.slice([0, 1, 2]), 'slice', '3 slices for a tensor of rank 2');
    throwsBurn(() => m.narrow(1, 2, 2), 'narrow', 'start + length <= 3');
    throwsBurn(() => m.narrow(1, 2, 0), 'narrow', 'a length of at least 1');
    throwsBurn(() => m.topk(4, 1), 'topk', 'k = 4', '0 <= k <= 3');
    throwsBurn(() => m.sliceAssign([[0, 1]], m), 'sliceAssign', 'region of shape [1, 3]');
    throwsBurn(() => Tensor.fromInts([3]).oneHot(3), 'oneHot', 'class index 3 is out of range for 3 classes');
  });

  it('rank and kind mismatches at run time', () => {
    throwsBurn(
      () => m.gather(0, Tensor.fromInts([0]) as unknown as Tensor<2, Int>),
      'gather',
      'rank 1',
      'expected rank 2',
    );
    throwsBurn(() => m.select(0, Tensor.fromFloats([0]) as never), 'select', 'must be an Int tensor, got f32');
    throwsBurn(() => m.maskFill(m as never, 0), 'maskFill', 'must be a Bool tensor, got f32');
    throwsBurn(() => (Tensor.fromInts([1]) as unknown as Tensor<1>).exp(), 'exp', 'needs a Float tensor, got i32');
    throwsBurn(() => (m as unknown as Tensor<2, Int>).bitwiseAnd(1), 'bitwiseAnd', 'needs an Int tensor');
  });

  it('unsupported casts and dtypes', () => {
    // A dtype of another kind converts, as Burn (test/burn-fidelity/errors.test.ts); an unknown one is refused.
    throwsBurn(() => m.cast('f8' as never), 'cast', 'f8');
    throwsBurn(() => Tensor.zeros([1], { dtype: 'f8' as never }), 'Tensor.zeros', 'unknown dtype "f8"');
    throwsBurn(
      () => Tensor.fromFloats([1], { dtype: 'i32' as never }),
      'Tensor.fromFloats',
      'dtype i32 does not match',
    );
  });

  it('non-finite or non-integer input where the op forbids it', () => {
    throwsBurn(() => Tensor.fromInts([1, 1.5]), 'Tensor.fromInts', 'value 1.5 at position 1 is not an integer');
    throwsBurn(() => Tensor.fromInts([NaN]), 'Tensor.fromInts', 'NaN', 'cannot be stored as i32');
    throwsBurn(() => new TensorData([Infinity], [1], 'u8'), 'TensorData', 'Infinity');
    throwsBurn(() => Tensor.arangeStep(0, 5, 0), 'Tensor.arangeStep', 'non-zero step');
    throwsBurn(() => Distribution.Normal(0, -1), 'Distribution.Normal', 'std >= 0');
    throwsBurn(() => Distribution.Uniform(1, 0), 'Distribution.Uniform', 'low <= high');
    throwsBurn(() => Distribution.Bernoulli(2), 'Distribution.Bernoulli', '0 <= p <= 1');
    throwsBurn(() => Tensor.fromFloats([[1, 2], [3]] as never), 'Tensor.fromFloats', 'ragged');
    throwsBurn(() => Device.default().seed(1.5), 'Device.seed', 'safe integer');
  });

  it('data and comparison errors', () => {
    throwsBurn(() => new TensorData([1, 2, 3], [2, 2]), 'TensorData', '3 values do not fill shape [2, 2]');
    throwsBurn(
      () => TensorData.fromBytes(new Uint8Array(3), [1], 'f32'),
      'TensorData.fromBytes',
      '3 bytes',
      'expected 4',
    );
    throwsBurn(() => m.toDataSync().assertEq(m.add(1).toDataSync()), 'TensorData.assertEq', 'position 0: 1 != 2');
    throwsBurn(
      () => m.toDataSync().assertApproxEq(m.add(0.1).toDataSync(), Tolerance.absolute(0.01)),
      'TensorData.assertApproxEq',
      '6 of 6 positions',
    );
    assert.doesNotThrow(() => m.toDataSync().assertApproxEq(m.add(1e-7).toDataSync()));
    throwsBurn(() => Tolerance.relative(2), 'Tolerance', 'expected 0 <= r <= 1');
    throwsBurn(() => m.intoScalarSync(), 'intoScalarSync', 'has 6 elements; expected exactly one');
  });

  it('tensors on different devices', () => {
    const other = new Device(Device.cpu().backend, 'other-cpu');
    throwsBurn(() => m.add(Tensor.ones([2, 3], other)), 'add', 'different devices');
  });
});
