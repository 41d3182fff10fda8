// Reliability of the tensor API: impossible sizes, out-of-range integers and errors named after
// an internal op. Every case must throw a BurnError naming the op the user called, the offending values and
// what was expected — never a raw RangeError, never a silently saturated value. Runs on every CPU
// engine (js, native, wasm), their autodiff decorators, the required-only backend and WebGPU
// (where an adapter is available).
//
// The sizes past the limit are all above 2^32 elements, so that the code before these checks failed
// at once on the typed-array length (never by allocating gigabytes).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  activation,
  BurnError,
  Device,
  Distribution,
  functional,
  linalg,
  Tensor,
  TensorData,
  type Bool,
  type Int,
  type Kind,
} from '../src/index.js';
import { allocCpu } from '../src/backends/cpu/storage.js';
import { conformanceDevices } from './helpers/devices.js';

/** Asserts a BurnError of `op` whose message contains every part. */
function throwsBurn(fn: () => unknown, op: string, ...parts: (string | RegExp)[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(
      e instanceof BurnError,
      `expected a BurnError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
    );
    assert.equal(e.op, op, e.message);
    assert.ok(e.message.startsWith(`${op}: `), e.message);
    for (const p of parts)
      assert.match(e.message, typeof p === 'string' ? new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : p);
    return true;
  });
}

const LIMIT = 'at most 4294967295 (2^32 - 1) elements';

// Remote runs every check here on the client too, but its index errors arrive at the next read;
// it belongs to another suite (test/backends/remote.test.ts).
const devices = conformanceDevices().filter((d) => d.name !== 'remote');

for (const { name, device: makeDevice, readsSync = true } of devices) {
  describe(`reliability on ${name}`, () => {
    it('creation past the element limit: a BurnError naming the op, the shape and the limit', () => {
      const d = makeDevice();
      throwsBurn(() => Tensor.zeros([1e10], d), 'Tensor.zeros', 'shape [10000000000] has 10000000000 elements', LIMIT);
      throwsBurn(() => Tensor.ones([1e5, 1e5], d), 'Tensor.ones', 'shape [100000, 100000]', LIMIT);
      throwsBurn(() => Tensor.empty([2 ** 31, 4], d), 'Tensor.empty', '8589934592 elements', LIMIT);
      throwsBurn(() => Tensor.full([1e10], 3, d), 'Tensor.full', '[10000000000]', LIMIT);
      throwsBurn(() => Tensor.random([1e10], Distribution.Default, d), 'Tensor.random', '[10000000000]', LIMIT);
      throwsBurn(() => Tensor.arange(0, 1e12, d), 'Tensor.arange', '1000000000000 elements', LIMIT);
      throwsBurn(() => Tensor.arangeStep(0, 2 ** 53, 1, d), 'Tensor.arangeStep', LIMIT);
      throwsBurn(() => Tensor.eye(1e6, d), 'Tensor.eye', '[1000000, 1000000]', LIMIT);
      throwsBurn(
        () => Tensor.cartesianGrid([5e4, 5e4], d),
        'Tensor.cartesianGrid',
        'output shape [50000, 50000, 2]',
        LIMIT,
      );
      throwsBurn(() => Tensor.triuMask([1e5, 1e5], 0, d), 'Tensor.triuMask', '[100000, 100000]', LIMIT);
      throwsBurn(() => Tensor.trilMask([1e5, 1e5], 0, d), 'Tensor.trilMask', '[100000, 100000]', LIMIT);
      throwsBurn(() => TensorData.zeros([1e10]), 'TensorData.zeros', '[10000000000]', LIMIT);
      throwsBurn(() => new TensorData([], [0, 1e20]), 'TensorData', 'size 100000000000000000000 in dim 1', LIMIT);
      // A size past the limit is refused even in an empty shape.
      throwsBurn(() => Tensor.zeros([0, 1e20], d), 'Tensor.zeros', 'size 100000000000000000000 in dim 1', LIMIT);
    });

    it('bad sizes: NaN, negative, fractional, infinite, non-numbers', () => {
      const d = makeDevice();
      throwsBurn(() => Tensor.zeros([NaN], d), 'Tensor.zeros', 'invalid shape [NaN]', 'non-negative integer sizes');
      throwsBurn(() => Tensor.ones([2, -1], d), 'Tensor.ones', 'invalid shape [2, -1]');
      throwsBurn(() => Tensor.full([1.5], 0, d), 'Tensor.full', 'invalid shape [1.5]');
      throwsBurn(() => Tensor.zeros([Infinity], d), 'Tensor.zeros', 'invalid shape [Infinity]');
      throwsBurn(() => Tensor.zeros(['2'] as never, d), 'Tensor.zeros', `invalid shape ["2"]`);
      throwsBurn(() => Tensor.random([-1], Distribution.Default, d), 'Tensor.random', 'invalid shape [-1]');
      throwsBurn(() => Tensor.eye(NaN, d), 'Tensor.eye', 'size NaN');
      throwsBurn(() => Tensor.arange(0, NaN, d), 'Tensor.arange', 'end NaN');
      throwsBurn(
        () => Tensor.zeros([0], d).reshape([1e20, 0]),
        'reshape',
        'size 100000000000000000000 in dim 0',
        LIMIT,
      );
      throwsBurn(() => Tensor.ones([2], d).repeat([NaN]), 'repeat', 'repeat sizes [NaN]');
      throwsBurn(() => Tensor.ones([2], d).repeatDim(0, -1), 'repeatDim', 'times -1');
      throwsBurn(() => Tensor.ones([2], d).pad([[0, NaN]]), 'pad', 'padding [0, NaN]');
    });

    it('ops whose output grows past the limit: repeat, expand, pad, cat, unfold, oneHot, matmul, broadcasting, select', () => {
      const d = makeDevice();
      const v = Tensor.ones([10], d);
      throwsBurn(() => v.repeat([1e9]), 'repeat', 'output shape [10000000000]', LIMIT);
      throwsBurn(
        () => Tensor.ones([10, 10], d).repeatDim(0, 1e9),
        'repeatDim',
        'output shape [10000000000, 10]',
        LIMIT,
      );
      throwsBurn(() => Tensor.ones([1], d).expand([1e10]), 'expand', 'shape [10000000000]', LIMIT);
      throwsBurn(() => Tensor.ones([1, 1], d).expand([1e5, 1e6]), 'expand', 'shape [100000, 1000000]', LIMIT);
      throwsBurn(() => Tensor.ones([2, 2], d).pad([[0, 1e10]]), 'pad', 'output shape [2, 10000000002]', LIMIT);
      throwsBurn(() => Tensor.ones([2, 2], d).pad([[0, 1e10]], 'edge'), 'pad', 'output shape [2, 10000000002]', LIMIT);
      // One small tensor many times (views of a huge expand would be copied by some backends).
      const many = new Array<Tensor<1>>(5000).fill(Tensor.ones([1e6], d));
      throwsBurn(() => Tensor.cat(many, 0), 'cat', 'output shape [5000000000]', LIMIT);
      throwsBurn(() => Tensor.stack(many, 0), 'stack', 'output shape [5000, 1000000]', LIMIT);
      throwsBurn(() => Tensor.ones([2e5], d).unfold(0, 1e5, 1), 'unfold', 'output shape [100001, 100000]', LIMIT);
      throwsBurn(() => Tensor.fromInts([1], d).oneHot(1e10), 'oneHot', 'output shape [1, 10000000000]', LIMIT);
      throwsBurn(
        () => Tensor.ones([1e5, 1], d).matmul(Tensor.ones([1, 1e5], d)),
        'matmul',
        'lhs [100000, 1]',
        'rhs [1, 100000]',
        'output shape [100000, 100000]',
        LIMIT,
      );
      throwsBurn(
        () => Tensor.ones([1e5, 1], d).add(Tensor.ones([1, 1e5], d)),
        'add',
        'output shape [100000, 100000]',
        LIMIT,
      );
      throwsBurn(
        () => Tensor.ones([1e5, 1], d).greater(Tensor.ones([1, 1e5], d)),
        'greater',
        'output shape [100000, 100000]',
        LIMIT,
      );
      const mask = Tensor.ones([1, 1e5], d).greater(0) as unknown as Tensor<2, Bool>;
      throwsBurn(() => Tensor.ones([1e5, 1], d).maskFill(mask, 0), 'maskFill', 'output shape [100000, 100000]', LIMIT);
      throwsBurn(
        () => Tensor.ones([1e5, 1], d).maskWhere(mask, Tensor.ones([1, 1], d)),
        'maskWhere',
        'output shape [100000, 100000]',
        LIMIT,
      );
      const wide = Tensor.ones([2, 1e6], d);
      const idx = Tensor.arange(0, 5000, d).remainder(2);
      throwsBurn(() => wide.select(0, idx), 'select', 'output shape [5000, 1000000]', LIMIT);
      throwsBurn(() => wide.take(0, idx.reshape([50, 100])), 'take', 'output shape [50, 100, 1000000]', LIMIT);
      throwsBurn(() => linalg.outer(Tensor.ones([1e5], d), Tensor.ones([1e5], d)), 'outer', LIMIT);
    });

    it('module ops whose output grows past the limit', () => {
      const d = makeDevice();
      const x = Tensor.ones([1, 1, 2, 2], d);
      throwsBurn(
        () => functional.interpolate(x, [1e6, 1e6]),
        'interpolate',
        'output shape [1, 1, 1000000, 1000000]',
        LIMIT,
      );
      throwsBurn(
        () => functional.adaptiveAvgPool2d(x, [1e6, 1e6]),
        'adaptiveAvgPool2d',
        'output shape [1, 1, 1000000, 1000000]',
        LIMIT,
      );
      throwsBurn(
        () => functional.conv2d(x, Tensor.ones([1, 1, 1, 1], d), undefined, { padding: 1e5 }),
        'conv2d',
        'output shape [1, 1, 200002, 200002]',
        LIMIT,
      );
      throwsBurn(
        () => functional.convTranspose2d(x, Tensor.ones([1, 1, 1, 1], d), undefined, { stride: 1e5 }),
        'convTranspose2d',
        'output shape [1, 1, 100001, 100001]',
        LIMIT,
      );
      throwsBurn(
        () => functional.unfold4d(x, [1, 1], { padding: 1e5 }),
        'unfold4d',
        'output shape [1, 1, 40000800004]',
        LIMIT,
      );
    });

    it('integer creation refuses values outside the dtype instead of saturating', async () => {
      const d = makeDevice();
      throwsBurn(
        () => Tensor.fromInts([2 ** 40], d),
        'Tensor.fromInts',
        'value 1099511627776 at position 0',
        'i32',
        '-2147483648 <= value <= 2147483647',
      );
      throwsBurn(
        () => Tensor.fromInts([1, 300], { device: d, dtype: 'u8' }),
        'Tensor.fromInts',
        'value 300 at position 1',
        'u8',
        '0 <= value <= 255',
      );
      throwsBurn(
        () => Tensor.fromInts(new Int32Array([-1]), { device: d, dtype: 'u16' }),
        'Tensor.fromInts',
        'value -1 at position 0',
        'u16',
        '0 <= value <= 65535',
      );
      throwsBurn(
        () => Tensor.fromInts([2 ** 60], { device: d, dtype: 'i64' }),
        'Tensor.fromInts',
        'value 1152921504606847000',
        'i64',
        'BigInt64Array',
      );
      throwsBurn(
        () => Tensor.full([2], 300, { device: d, dtype: 'u8' }),
        'Tensor.full',
        'value 300',
        'u8',
        '0 <= value <= 255',
      );
      throwsBurn(
        () => Tensor.full([2], -129, { device: d, dtype: 'i8' }),
        'Tensor.full',
        'value -129',
        'i8',
        '-128 <= value <= 127',
      );
      throwsBurn(() => Tensor.full([2], NaN, { device: d, dtype: 'i32' }), 'Tensor.full', 'value NaN', 'i32');
      throwsBurn(
        () => Tensor.fromData([[300, 1]], { device: d, dtype: 'u8' }),
        'Tensor.fromData',
        'value 300 at position 0',
        'u8',
        '0 <= value <= 255',
      );
      throwsBurn(
        () => Tensor.fromData(new TensorData([70000], [1], 'i32'), { device: d, dtype: 'i16' }),
        'Tensor.fromData',
        'value 70000',
        'i16',
        '-32768 <= value <= 32767',
      );
      throwsBurn(
        () => new TensorData([300], [1], 'u8'),
        'TensorData',
        'value 300 at position 0',
        'u8',
        '0 <= value <= 255',
      );
      throwsBurn(
        () => Tensor.fromData(new TensorData([1, 300], [2], 'f16'), { device: d, dtype: 'u8' }),
        'Tensor.fromData',
        'value 300 at position 1',
        'u8',
      );
      assert.deepEqual(
        Array.from(
          (await Tensor.fromData(new TensorData([2, 255], [2], 'bf16'), { device: d, dtype: 'u8' }).toData()).toArray(),
        ),
        [2, 255],
      );
      throwsBurn(
        () => Tensor.arange(250, 260, { device: d, dtype: 'u8' }),
        'Tensor.arange',
        'value 259',
        'u8',
        '0 <= value <= 255',
      );
      throwsBurn(
        () => Tensor.arangeStep(2 ** 31 - 2, 2 ** 31 + 2, 1, d),
        'Tensor.arangeStep',
        'value 2147483649',
        'i32',
      );
      throwsBurn(
        () => Tensor.random([2], Distribution.Uniform(0, 1e10), { device: d, dtype: 'i32' }),
        'Tensor.random',
        'bounds [0, 10000000000)',
        'i32',
      );
      // What stays: values inside the range (fractions truncate, as PyTorch), ones and zeros, and
      // casts of tensors (Burn's saturating conversion).
      assert.deepEqual(
        Array.from((await Tensor.full([2], 255, { device: d, dtype: 'u8' }).toData()).toArray()),
        [255, 255],
      );
      assert.deepEqual(
        Array.from((await Tensor.full([2], 1.5, { device: d, dtype: 'i32' }).toData()).toArray()),
        [1, 1],
      );
      assert.deepEqual(Array.from((await Tensor.ones([2], { device: d, dtype: 'i8' }).toData()).toArray()), [1, 1]);
      assert.deepEqual(
        Array.from((await Tensor.fromData([[16777217]], { device: d, dtype: 'i32' }).toData()).toArray()),
        [16777217],
      );
      assert.deepEqual(
        Array.from((await Tensor.arange(250, 256, { device: d, dtype: 'u8' }).toData()).toArray()),
        [250, 251, 252, 253, 254, 255],
      );
      assert.deepEqual(Array.from((await Tensor.fromFloats([300, -5], d).int('u8').toData()).toArray()), [255, 0]);
    });

    it("scalar operands outside an integer tensor's dtype are refused", async () => {
      const d = makeDevice();
      const u = Tensor.full([2], 3, { device: d, dtype: 'u8' }) as unknown as Tensor<1, Int>;
      const yes = Tensor.fromBools([true, false], d);
      throwsBurn(() => u.add(300), 'add', 'scalar 300', 'u8', '0 <= value <= 255');
      throwsBurn(() => u.mul(-1), 'mul', 'scalar -1', 'u8');
      throwsBurn(() => u.equal(511), 'equal', 'scalar 511', 'u8');
      throwsBurn(() => u.lower(256), 'lower', 'scalar 256', 'u8');
      throwsBurn(() => u.maskFill(yes, 300), 'maskFill', 'scalar 300', 'u8');
      throwsBurn(() => u.fullLike(300), 'fullLike', 'value 300', 'u8');
      throwsBurn(() => u.sliceFill([[0, 1]], 300), 'sliceFill', 'value 300', 'u8');
      throwsBurn(() => u.pad([[1, 1]], 300), 'pad', 'value 300', 'u8');
      throwsBurn(() => u.oneHotFill(3, 300, 0), 'oneHotFill', 'value 300', 'u8');
      throwsBurn(() => Tensor.fromInts([1], d).add(2 ** 40), 'add', 'scalar 1099511627776', 'i32');
      throwsBurn(() => Tensor.fromInts([1], d).bitwiseAnd(2 ** 32), 'bitwiseAnd', 'scalar 4294967296', 'i32');
      // Clamping to bounds beyond the dtype is well defined and stays allowed.
      assert.deepEqual(Array.from((await u.clamp(-5, 300).toData()).toArray()), [3, 3]);
      assert.deepEqual(Array.from((await u.add(252).toData()).toArray()), [255, 255]);
    });

    it('host values of the wrong kind are refused by the constructor the user called', () => {
      const d = makeDevice();
      throwsBurn(
        () => Tensor.fromFloats([true, 2] as never, d),
        'Tensor.fromFloats',
        'element at [0] is true',
        'expected a number',
      );
      throwsBurn(
        () => Tensor.fromFloats([1, true] as never, d),
        'Tensor.fromFloats',
        'element at [1] is true',
        'expected a number',
      );
      throwsBurn(() => Tensor.fromFloats([1n] as never, d), 'Tensor.fromFloats', 'element at [0] is 1n');
      throwsBurn(() => Tensor.fromInts([1, true] as never, d), 'Tensor.fromInts', 'element at [1] is true');
      throwsBurn(() => Tensor.fromInts([NaN], d), 'Tensor.fromInts', 'value NaN at position 0', 'i32');
      throwsBurn(
        () => Tensor.fromBools([true, 1] as never, d),
        'Tensor.fromBools',
        'element at [1] is 1',
        'expected a boolean',
      );
      throwsBurn(() => Tensor.fromData([1, true] as never, d), 'Tensor.fromData', 'element at [1] is true');
      throwsBurn(() => Tensor.fromFloats([[1, 2], [3]] as never, d), 'Tensor.fromFloats', 'ragged');
    });

    it('matmul names both operand shapes and refuses int × float and bool × bool', () => {
      const d = makeDevice();
      throwsBurn(
        () => Tensor.ones([2, 2, 3], d).matmul(Tensor.ones([3, 3, 4], d)),
        'matmul',
        'lhs [2, 2, 3]',
        'rhs [3, 3, 4]',
        'batch dim 0: 2 vs 3',
      );
      throwsBurn(() => Tensor.ones([2, 3], d).matmul(Tensor.ones([2, 3], d)), 'matmul', 'lhs [2, 3]', 'rhs [2, 3]');
      const i = Tensor.ones([2, 2], { device: d, dtype: 'i32' }) as unknown as Tensor<2>;
      throwsBurn(() => i.matmul(Tensor.ones([2, 2], d)), 'matmul', 'i32', 'f32');
      throwsBurn(() => Tensor.ones([2, 2], d).matmul(i), 'matmul', 'f32', 'i32');
      const b = Tensor.full([2, 2], true, d) as unknown as Tensor<2>;
      throwsBurn(() => b.matmul(b), 'matmul', 'bool and bool');
    });

    it('errors name the op the user called, not the op it is built on', () => {
      const d = makeDevice();
      const m = Tensor.fromFloats(
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
        d,
      );
      const other = new Device(d.backend, 'other-device');
      throwsBurn(
        () =>
          Tensor.stack(
            [
              m,
              Tensor.fromFloats(
                [
                  [1, 2, 3],
                  [4, 5, 6],
                ],
                other,
              ),
            ],
            0,
          ),
        'stack',
        'different devices',
      );
      throwsBurn(() => m.maskFill(Tensor.full([3, 2], true, d) as never, 0), 'maskFill', '[2, 3]', '[3, 2]');
      throwsBurn(
        () => m.maskWhere(Tensor.full([2, 3], true, d) as never, Tensor.ones([4, 4], d) as never),
        'maskWhere',
        '[2, 3]',
        '[4, 4]',
      );
      throwsBurn(() => m.roll([1], [7]), 'roll', 'dim 7');
      throwsBurn(() => m.hypot(Tensor.ones([4, 4], d) as never), 'hypot', '[2, 3]', '[4, 4]');
      throwsBurn(() => linalg.cosineSimilarity(m, Tensor.ones([2, 4], d), 1), 'cosineSimilarity', '[2, 3]', '[2, 4]');
      throwsBurn(
        () => (Tensor.fromInts([1], d) as unknown as Tensor<1>).gelu(),
        'gelu',
        'needs a Float tensor, got i32',
      );
      throwsBurn(() => activation.gelu(Tensor.fromInts([1], d) as unknown as Tensor<1>), 'gelu', 'got i32');
      const bools = Tensor.fromBools([true, false], d) as unknown as Tensor<1, Int>;
      throwsBurn(() => bools.powi(2), 'powi', 'bool');
      throwsBurn(() => bools.remainder(bools), 'remainder', 'bool');
      throwsBurn(() => bools.bitwiseAnd(bools), 'bitwiseAnd', 'bool');
      throwsBurn(() => Tensor.fromInts([3], d).oneHotFill(3, 1, 0, 5), 'oneHotFill', 'dim 5');
      throwsBurn(() => m.meanDim(5), 'meanDim', 'dim 5');
      throwsBurn(() => m.var(5), 'var', 'dim 5');
      throwsBurn(() => m.varBias(5), 'varBias', 'dim 5');
      throwsBurn(() => m.argsort(5), 'argsort', 'dim 5');
      throwsBurn(() => m.argsortDescending(5), 'argsortDescending', 'dim 5');
      // A range past the end is clamped, as Burn; an index past it is not.
      throwsBurn(() => m.sliceDim(0, 10), 'sliceDim', 'index 10 is out of bounds');
      throwsBurn(() => Tensor.zeros([0, 3], d).maxAbs(), 'maxAbs', 'empty');
      throwsBurn(() => Tensor.zeros([0, 3], d).maxAbsDim(0), 'maxAbsDim', 'empty');
      throwsBurn(() => (m as unknown as Tensor<2, Bool>).nonzero(), 'nonzero', 'needs a Bool tensor, got f32');
      throwsBurn(() => bools.square(), 'square', 'bool');
      throwsBurn(() => bools.mean(), 'mean', 'bool');
      throwsBurn(
        () => linalg.matvec(m, Tensor.ones([3], { device: d, dtype: 'i32' }) as never),
        'matvec',
        'f32',
        'i32',
      );
      throwsBurn(() => linalg.trace(Tensor.ones([3], d) as never), 'trace', 'rank >= 2');
      throwsBurn(() => m.int('f32' as never), 'int', 'dtype f32', 'integer dtype');
      throwsBurn(() => Tensor.fromInts([1], d).float('i32' as never), 'float', 'dtype i32', 'float dtype');
      throwsBurn(() => m.cast('f8' as never), 'cast', 'unknown dtype "f8"');
      throwsBurn(() => m.toDevice(null as never), 'toDevice', 'null is not a Device');
    });

    it('softmax and logSoftmax of empty tensors are empty (the native engine threw a plain Error)', async () => {
      const d = makeDevice();
      for (const shape of [[4, 0], [0], [0, 3]] as const) {
        for (const dim of [-1, 0]) {
          const x = Tensor.zeros(shape, d) as Tensor<number>;
          assert.deepEqual((await x.softmax(dim).toData()).shape, [...shape]);
          assert.deepEqual((await x.logSoftmax(dim).toData()).shape, [...shape]);
        }
      }
    });

    if (readsSync) {
      it('index errors name the op the user called (select, selectAssign, take, gatherNd, scatterNd, embedding)', () => {
        const d = makeDevice();
        const m = Tensor.fromFloats(
          [
            [1, 2, 3],
            [4, 5, 6],
          ],
          d,
        );
        const bad = Tensor.fromInts([0, 5], d);
        throwsBurn(() => m.select(0, bad).toDataSync(), 'select', 'index 5 is out of bounds for dim 0 of size 2');
        throwsBurn(
          () => m.selectAssign(0, bad, Tensor.ones([2, 3], d), 'add').toDataSync(),
          'selectAssign',
          'index 5 is out of bounds for dim 0 of size 2',
        );
        throwsBurn(
          () => m.take(1, Tensor.fromInts([[7]], d)).toDataSync(),
          'take',
          'index 7 is out of bounds for dim 1 of size 3',
        );
        throwsBurn(
          () => m.gatherNd(Tensor.fromInts([[2, 0]], d)).toDataSync(),
          'gatherNd',
          'index [2, 0]',
          'shape [2, 3]',
        );
        throwsBurn(
          () => m.scatterNd(Tensor.fromInts([[0, 3]], d), Tensor.ones([1], d), 'assign').toDataSync(),
          'scatterNd',
          'index [0, 3]',
          'shape [2, 3]',
        );
        throwsBurn(
          () => functional.embedding(m, Tensor.fromInts([[0, 9]], d) as Tensor<2, Int>).toDataSync(),
          'embedding',
          'index 9 is out of bounds',
          '2 embeddings',
        );
        throwsBurn(
          () =>
            linalg
              .diag(m)
              .add(m.select(1, Tensor.fromInts([-1], d)) as never)
              .toDataSync(),
          'select',
          'index -1',
        );
        // The ops that are the backend's own keep their names.
        throwsBurn(
          () => m.gather(1, Tensor.fromInts([[0], [3]], d) as Tensor<2, Int>).toDataSync(),
          'gather',
          'index 3',
        );
        throwsBurn(
          () =>
            m.scatter(1, Tensor.fromInts([[0], [3]], d) as Tensor<2, Int>, Tensor.ones([2, 1], d), 'add').toDataSync(),
          'scatter',
          'index 3',
        );
      });
    }
  });
}

describe('reliability: CPU allocation failures', () => {
  it('a failed allocation is a BurnError naming the element count, dtype and bytes', () => {
    // An impossible length fails at once (no memory is touched).
    throwsBurn(() => allocCpu('f64', -1), 'cpu', 'cannot allocate -1 elements of f64');
  });

  it('checks stay O(rank): creation of a large in-range tensor is not refused', () => {
    const t = Tensor.zeros([1 << 20]) as Tensor<1, Kind>;
    assert.equal(t.numel(), 1 << 20);
  });
});
