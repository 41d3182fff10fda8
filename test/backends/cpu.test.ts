// CPU backend specifics: zero-copy views, immutability, storage of every dtype.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CpuTensor } from '../../src/backends/cpu/storage.js';
import { Device, Tensor, TensorData } from '../../src/index.js';

const device = Device.cpu({ engine: 'js' });
const storage = (t: Tensor<number, 'float' | 'int' | 'bool'>): CpuTensor => t.primitive as CpuTensor;

describe('cpu backend', () => {
  it('transpose, slice, flip, expand, permute and contiguous reshape are views over the same buffer', () => {
    const a = Tensor.arange(0, 24, device).reshape([2, 3, 4]);
    const buffer = storage(a).data;
    for (const view of [
      a.transpose(),
      a.slice([null, [1, 3], [0, 4, 2]]),
      a.flip([2]),
      a.permute([2, 0, 1]),
      a.reshape([6, 4]),
      a.sliceDim(0, 1).expand([3, 1, 3, 4]),
    ]) {
      assert.equal(storage(view as never).data, buffer, 'view shares the buffer');
    }
    assert.deepEqual(
      a
        .slice([null, [1, 3], [0, 4, 2]])
        .toDataSync()
        .toList(),
      [
        [
          [4, 6],
          [8, 10],
        ],
        [
          [16, 18],
          [20, 22],
        ],
      ],
    );
    assert.deepEqual(a.flip([2]).slice([0, 0]).toDataSync().toList(), [[[3, 2, 1, 0]]]);
    // Reshaping a non-contiguous view copies once.
    assert.notEqual(storage(a.transpose().reshape([24])).data, buffer);
    assert.deepEqual(
      Array.from(
        a
          .transpose()
          .reshape([24])
          .slice([[0, 8]])
          .toDataSync()
          .toArray(),
      ),
      [0, 4, 8, 1, 5, 9, 2, 6],
    );
  });

  it('ops never mutate their inputs', () => {
    const a = Tensor.fromFloats(
      [
        [1, 2],
        [3, 4],
      ],
      device,
    );
    const before = Array.from(a.toDataSync().toArray());
    a.sliceAssign([[0, 1]], Tensor.fromFloats([[9, 9]], device));
    a.scatter(0, Tensor.fromInts([[1, 0]], device), Tensor.fromFloats([[7, 7]], device), 'add');
    a.selectAssign(1, Tensor.fromInts([0], device), Tensor.fromFloats([[5], [5]], device), 'assign');
    a.sliceFill([null, 1], 0);
    a.maskFill(a.greater(2), 0);
    assert.deepEqual(Array.from(a.toDataSync().toArray()), before);
    // Reading data returns a copy, not the internal buffer.
    const data = a.toDataSync();
    (data.values as Float32Array)[0] = 42;
    assert.equal(a.toDataSync().toArray()[0], 1);
  });

  it('half precision values are rounded after every op', () => {
    const h = Tensor.fromFloats([1, 2049, 0.1], device).cast('f16');
    assert.deepEqual(Array.from(h.toDataSync().toArray()), [1, 2048, 0.0999755859375]);
    assert.deepEqual(Array.from(h.add(1).toDataSync().toArray()), [2, 2048, 1.099609375]);
    const bf = Tensor.fromFloats([1.00390625, 3.14159], device).cast('bf16');
    assert.deepEqual(Array.from(bf.toDataSync().toArray()), [1, 3.140625]);
    // Stored as real 16-bit values.
    const bits = h.toDataSync();
    assert.equal(bits.bytes.byteLength, 6);
    assert.ok(bits.values instanceof Uint16Array);
  });

  it('i64 values are exact within ±2^53 and serialize as 64-bit integers', () => {
    const big = 2 ** 52 + 1;
    const t = Tensor.fromData(new TensorData([big, -big], [2], 'i64'), device);
    assert.deepEqual(
      Array.from(
        t
          .add(Tensor.fromData(new TensorData([1, 1], [2], 'i64'), device) as never)
          .toDataSync()
          .toArray(),
      ),
      [big + 1, -big + 1],
    );
    const data = t.toDataSync();
    assert.ok(data.values instanceof BigInt64Array);
    assert.equal((data.values as BigInt64Array)[0], BigInt(big));
  });
});
