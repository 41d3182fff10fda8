// Reading data as another dtype — `await t.toData({ dtype })` and `t.toDataSync({ dtype })`
// convert on the host with Burn's cast rules (float → int truncates toward zero and saturates,
// NaN → 0; 'bool' is true where non-zero; f16/bf16 round to nearest even), on the CPU, over
// autodiff and on a remote device; bad options are BurnErrors.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BurnError, Device, Tensor, type TensorData } from '../../src/index.js';
import { startServer } from '../../src/backends/remote/index.js';

const js = Device.cpu({ engine: 'js' });
const server = await startServer(js, 0);
after(async () => {
  await server.close();
});
const arr = (d: TensorData) => Array.from(d.toArray());
const throwsBurn = (fn: () => unknown, op: string, ...parts: string[]) =>
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof BurnError, `expected a BurnError, got ${String(e)}`);
    assert.equal(e.op, op);
    for (const p of parts)
      assert.ok(e.message.includes(p), `message ${JSON.stringify(e.message)} lacks ${JSON.stringify(p)}`);
    return true;
  });

const floats = [1.7, -1.7, 2.5, -0.5, 300, -300, 0];
const devices: [string, () => Device][] = [
  ['cpu(js)', () => js],
  ['autodiff<cpu(js)>', () => js.autodiff()],
  ['remote', () => Device.remote(server.url)],
];

for (const [name, device] of devices) {
  describe(`toData({ dtype }) on ${name}`, () => {
    it('float → int truncates toward zero and saturates at the dtype', async () => {
      const x = Tensor.fromFloats(floats, device());
      const i32 = await x.toData({ dtype: 'i32' });
      assert.equal(i32.dtype, 'i32');
      assert.ok(i32.values instanceof Int32Array);
      assert.deepEqual(arr(i32), [1, -1, 2, 0, 300, -300, 0]);
      assert.deepEqual(arr(await x.toData({ dtype: 'u8' })), [1, 0, 2, 0, 255, 0, 0]);
      assert.deepEqual(arr(await x.toData({ dtype: 'i8' })), [1, -1, 2, 0, 127, -128, 0]);
      // The tensor itself is unchanged.
      assert.equal(x.dtype(), 'f32');
      assert.deepEqual(arr(await x.toData()), floats.map(Math.fround));
    });

    it("'bool' is true where non-zero; bool and int read as floats", async () => {
      const x = Tensor.fromFloats(floats, device());
      const b = await x.toData({ dtype: 'bool' });
      assert.equal(b.dtype, 'bool');
      assert.deepEqual(b.toList(), [true, true, true, true, true, true, false]);
      assert.deepEqual(arr(await Tensor.fromBools([true, false, true], device()).toData({ dtype: 'f32' })), [1, 0, 1]);
      const ints = await Tensor.fromInts([-3, 0, 7], device()).toData({ dtype: 'f64' });
      assert.equal(ints.dtype, 'f64');
      assert.ok(ints.values instanceof Float64Array);
      assert.deepEqual(arr(ints), [-3, 0, 7]);
    });

    it('f16 and bf16 round to nearest even; an f16 tensor reads as f32', async () => {
      const x = Tensor.fromFloats([1.7, 65504, 1e-8], device());
      const h = await x.toData({ dtype: 'f16' });
      assert.equal(h.dtype, 'f16');
      assert.deepEqual(arr(h), [1.7001953125, 65504, 0]);
      assert.deepEqual(arr(await x.toData({ dtype: 'bf16' })).slice(0, 1), [1.703125]);
      const half = Tensor.fromFloats([0.1, -2], { device: device(), dtype: 'f16' });
      const back = await half.toData({ dtype: 'f32' });
      assert.equal(back.dtype, 'f32');
      assert.deepEqual(arr(back), [0.0999755859375, -2]);
    });

    it('the same dtype and {} read as toData()', async () => {
      const x = Tensor.fromInts([1, 2], device());
      assert.deepEqual(arr(await x.toData({ dtype: 'i32' })), [1, 2]);
      assert.deepEqual(arr(await x.toData({})), [1, 2]);
    });
  });
}

describe('toDataSync({ dtype }) and bad options', () => {
  it('converts synchronously on the CPU', () => {
    const d = Tensor.fromFloats([[-2.9, 2.9]], js).toDataSync({ dtype: 'i64' });
    assert.equal(d.dtype, 'i64');
    assert.deepEqual(d.shape, [1, 2]);
    assert.deepEqual(arr(d), [-2, 2]);
  });
  it('a remote tensor still refuses a synchronous read', () => {
    throwsBurn(
      () => Tensor.fromFloats([1], Device.remote(server.url)).toDataSync({ dtype: 'i32' }),
      'toDataSync',
      'use await tensor.toData()',
    );
  });
  it('an unknown dtype, an unknown key or a bare string are BurnErrors', async () => {
    const x = Tensor.fromFloats([1], js);
    throwsBurn(() => x.toDataSync({ dtype: 'int32' as never }), 'toDataSync', 'unknown dtype "int32"', 'i32');
    throwsBurn(() => void x.toData({ dtype: 'int32' as never }), 'toData', 'unknown dtype "int32"');
    throwsBurn(() => void x.toData({ dtpye: 'i32' } as never), 'toData', "unknown option 'dtpye'");
    throwsBurn(() => void x.toData('i32' as never), 'toData', 'options must be an object { dtype }');
  });
});
