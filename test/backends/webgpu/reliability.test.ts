// WebGPU reliability (no silent wrong numbers): uploads honour typed-array views of
// every dtype; sizes over the adapter's buffer limits are BurnErrors before anything is encoded;
// a command batch the device rejects makes reads of what it computed (and of what was computed
// from that) throw, while earlier results stay intact; a lost device makes every later op and read
// throw; out-of-range indices of gather, scatter, select, selectAssign, take, embedding and the
// cross-entropy targets surface as BurnErrors at the read, and their results are never returned.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BurnError,
  Device,
  functional as F,
  Tensor,
  TensorData,
  type DType,
  type Int,
  type Kind,
} from '../../../src/index.js';
import type { WebGpuBackend } from '../../../src/backends/webgpu/backend.js';
import { BufferUsage } from '../../../src/backends/webgpu/gpu-types.js';
import { LinearConfig } from '../../../src/nn/index.js';
import { CrossEntropyLossConfig } from '../../../src/nn/loss/cross-entropy.js';
import { webgpu, WEBGPU_DTYPES } from '../../helpers/devices.js';

const gpu = webgpu.device;
const cpu = Device.cpu({ engine: 'js' });
const skip = gpu ? false : `no WebGPU device: ${webgpu.reason}`;
const backend = () => gpu!.backend as unknown as WebGpuBackend;
const DTYPES = [...WEBGPU_DTYPES];

async function values(t: Tensor<number, Kind>): Promise<number[]> {
  return Array.from((await t.toData()).toArray());
}

/** A BurnError whose op is `op` and whose message matches every pattern. */
function burn(op: string | undefined, ...patterns: RegExp[]): (e: unknown) => boolean {
  return (e: unknown) => {
    if (!(e instanceof BurnError))
      throw new assert.AssertionError({ message: `expected a BurnError, got ${String(e)}`, actual: e });
    if (op !== undefined) assert.equal(e.op, op, e.message);
    for (const p of patterns) assert.match(e.message, p);
    return true;
  };
}

/** Storage of `dtype` holding `vals` at element offset `pad` inside a larger buffer (the rest is junk). */
function viewOf(dtype: DType, vals: number[], pad: number): TensorData {
  const full = TensorData.from([...new Array<number>(pad).fill(dtype === 'bool' ? 1 : 7), ...vals, 5, 5, 5], dtype);
  const storage = full.values as Exclude<TensorData['values'], BigInt64Array>;
  const view = storage.subarray(pad, pad + vals.length);
  return new TensorData(view, [vals.length], dtype);
}

describe('WebGPU uploads honour typed-array views', { skip }, () => {
  it('fromFloats of a subarray uploads the view, not the whole buffer', async () => {
    const t = Tensor.fromFloats(new Float32Array([9, 9, 9, 9, 1, 2, 3, 4]).subarray(4), gpu);
    assert.deepEqual(await values(t), [1, 2, 3, 4]);
    const u = Tensor.fromFloats(new Float32Array([9, 1.5, 2.5, 9]).subarray(1, 3), gpu);
    assert.deepEqual(await values(u), [1.5, 2.5]);
  });

  it('fromData of views of every dtype WebGPU stores, at odd element offsets', async () => {
    for (const dtype of DTYPES) {
      const vals = dtype === 'bool' ? [0, 1, 1, 0, 1] : [1, 2, 3, 0, 4];
      for (const pad of [1, 3, 4]) {
        const data = viewOf(dtype, vals, pad);
        const got = await values(Tensor.fromData(data, gpu));
        assert.deepEqual(
          got,
          Array.from(Tensor.fromData(data, cpu).toDataSync().toArray()),
          `${dtype} at offset ${pad}`,
        );
        assert.deepEqual(got, vals, `${dtype} at offset ${pad}`);
      }
    }
  });

  it('fromBytes over a larger buffer (aligned views and unaligned copies), sizes not a multiple of 4 bytes', async () => {
    const bytes = new Uint8Array(64).fill(0xff);
    new Float32Array(bytes.buffer, 8, 3).set([1.25, -2, 3]);
    assert.deepEqual(
      await values(Tensor.fromData(TensorData.fromBytes(bytes.subarray(8, 20), [3], 'f32'), gpu)),
      [1.25, -2, 3],
    );
    const ints = new Uint8Array(40).fill(0xee);
    new Int32Array(ints.buffer, 12, 2).set([-7, 123456]);
    assert.deepEqual(
      await values(Tensor.fromData(TensorData.fromBytes(ints.subarray(12, 20), [2], 'i32'), gpu)),
      [-7, 123456],
    );
    const u8 = new Uint8Array([200, 1, 0, 3, 250]);
    assert.deepEqual(await values(Tensor.fromData(TensorData.fromBytes(u8.subarray(1, 4), [3], 'u8'), gpu)), [1, 0, 3]);
    assert.deepEqual(await values(Tensor.fromData(TensorData.fromBytes(u8.subarray(1, 3), [2], 'bool'), gpu)), [1, 0]);
    const i16 = new Int16Array([9, -300, 400, 9]);
    assert.deepEqual(await values(Tensor.fromData(new TensorData(i16.subarray(1, 3), [2], 'i16'), gpu)), [-300, 400]);
    const half = new Uint16Array([0x7c00, 0x3c00, 0xc000, 0x7c00]); // inf, 1, -2, inf as f16 bits
    assert.deepEqual(await values(Tensor.fromData(new TensorData(half.subarray(1, 3), [2], 'f16'), gpu)), [1, -2]);
  });

  it('sliceAssign and cat with values uploaded from views', async () => {
    const base = Tensor.zeros([6], gpu);
    const v = Tensor.fromFloats(new Float32Array([9, 9, 7, 8, 9]).subarray(2, 4), gpu);
    assert.deepEqual(await values(base.sliceAssign([[2, 4]], v)), [0, 0, 7, 8, 0, 0]);
    const w = Tensor.fromData(new TensorData(new Int32Array([5, 6, 7, 8]).subarray(1), [3], 'i32'), gpu);
    assert.deepEqual(await values(Tensor.cat([w, w], 0)), [6, 7, 8, 6, 7, 8]);
  });

  it('a module loaded onto WebGPU from saved bytes has the saved weights', async () => {
    const model = new LinearConfig({ dInput: 5, dOutput: 3 }).init(cpu);
    const bytes = model.toBytes();
    const onGpu = new LinearConfig({ dInput: 5, dOutput: 3 }).init(cpu).loadBytes(bytes, gpu);
    assert.deepEqual(await values(onGpu.weight.val()), Array.from(model.weight.val().toDataSync().toArray()));
    assert.deepEqual(await values(onGpu.bias!.val()), Array.from(model.bias!.val().toDataSync().toArray()));
    assert.ok((await values(onGpu.weight.val().abs().sum()))[0]! > 0, 'weights are not all zero');
  });
});

describe('WebGPU sizes over the adapter limits are BurnErrors', { skip }, () => {
  const limit = () =>
    Math.min(backend().info().limits['maxBufferSize']!, backend().info().limits['maxStorageBufferBindingSize']!);

  it('a tensor over the buffer limit throws at the op, naming op, shape, bytes and limit; the batch it would have joined stays intact', async () => {
    const x = Tensor.fromFloats([1, 2, 3], gpu);
    const pending = x.add(1); // encoded, not yet submitted
    const n = limit() / 4 + 1;
    assert.throws(
      () => Tensor.zeros([n], gpu),
      burn(
        undefined,
        new RegExp(`\\[${n}\\]`),
        new RegExp(`${n * 4} bytes`),
        new RegExp(`${limit()}`),
        /maxBufferSize|maxStorageBufferBindingSize/,
      ),
    );
    const after = x.mul(2);
    assert.deepEqual(await values(pending), [2, 3, 4]);
    assert.deepEqual(await values(after), [2, 4, 6]);
  });

  it('huge shapes (zeros 1e10, arange 0..1e12, repeat and expand past the limits) are BurnErrors, not Dawn or RangeErrors', async () => {
    const x = Tensor.fromFloats([1, 2], gpu);
    const pending = x.add(10);
    assert.throws(() => Tensor.zeros([1e10], gpu), burn(undefined));
    assert.throws(() => Tensor.arange(0, 1e12, gpu), burn(undefined));
    assert.throws(() => x.repeat([limit() / 4]), burn(undefined));
    assert.throws(
      () =>
        x
          .reshape([2, 1])
          .expand([2, limit() / 4])
          .add(1),
      burn(undefined),
    );
    assert.throws(() => Tensor.ones([65536, 65536], gpu), burn(undefined));
    assert.deepEqual(await values(pending), [11, 12]);
  });
});

describe('a rejected command batch never changes other results', { skip }, () => {
  it('reads of what the batch computed, and of what was computed from it, throw; earlier results are intact', async () => {
    const rt = backend().rt;
    const x = Tensor.fromFloats([1, 2, 3], gpu);
    const early = x.add(100);
    assert.deepEqual(await values(early), [101, 102, 103]);
    // A batch the device rejects: it copies from a destroyed buffer (as a buffer lost to an
    // out-of-memory error would).
    const b = x.add(1);
    const gone = rt.device.createBuffer({ size: 16, usage: BufferUsage.COPY_SRC | BufferUsage.STORAGE });
    gone.destroy();
    const scratch = rt.device.createBuffer({ size: 16, usage: BufferUsage.COPY_DST | BufferUsage.STORAGE });
    rt.copy(gone, 0, scratch, 0, 16);
    const c = x.mul(2);
    rt.flush();
    const fromB = b.add(1); // a later batch, encoded before the failure is known
    const clean = x.mul(3);
    await assert.rejects(values(b), burn('webgpu', /rejected|failed/i, /destroyed/i));
    await assert.rejects(values(c), burn('webgpu', /destroyed/i));
    await assert.rejects(values(fromB), burn('webgpu', /destroyed/i));
    await assert.rejects(values(fromB.sum()), burn('webgpu', /destroyed/i));
    assert.deepEqual(await values(early), [101, 102, 103]);
    assert.deepEqual(await values(x), [1, 2, 3]);
    assert.deepEqual(await values(clean), [3, 6, 9]);
    assert.deepEqual(await values(x.sub(1)), [0, 1, 2]);
    await gpu!.sync();
    scratch.destroy();
  });
});

describe('a lost WebGPU device', { skip }, () => {
  it('makes the read in flight and every later op, read and sync throw a BurnError saying why', async () => {
    const device = await Device.webgpu({ memoryPressureBytes: 3 * 1024 * 1024 + 1 });
    const rt = (device.backend as unknown as WebGpuBackend).rt;
    const x = Tensor.fromFloats([1, 2, 3], device);
    assert.deepEqual(await values(x.add(1)), [2, 3, 4]);
    const inFlight = values(x.mul(2));
    rt.device.destroy();
    await assert.rejects(inFlight, burn('webgpu', /device was lost/, /destroyed/));
    await assert.rejects(values(x), burn('webgpu', /device was lost/, /destroyed/));
    // Ops built on others may name the op the user called.
    assert.throws(() => x.add(1), burn(undefined, /device was lost/));
    assert.throws(() => Tensor.zeros([2], device), burn(undefined, /device was lost/));
    await assert.rejects(device.sync(), burn('webgpu', /device was lost/));
    // As the error says: Device.webgpu() gives a new device (the lost one is not cached any more).
    const fresh = await Device.webgpu({ memoryPressureBytes: 3 * 1024 * 1024 + 1 });
    assert.notEqual(fresh, device);
    assert.deepEqual(await values(Tensor.fromFloats([1, 2], fresh).add(1)), [2, 3]);
  });
});

describe('out-of-range indices on WebGPU are BurnErrors at the read', { skip }, () => {
  const message = (op: string, index: number, dim: number, size: number) =>
    new RegExp(`^${op}: index ${index} is out of bounds for dim ${dim} of size ${size}; expected 0 <= index < ${size}`);

  it('select and take, for every dtype of the values and of the indices; results are never returned', async () => {
    for (const dtype of DTYPES) {
      const x = Tensor.fromData<2>(new TensorData([1, 0, 1, 1, 0, 1], [3, 2], dtype), gpu);
      const bad = Tensor.fromInts([0, 5], gpu);
      const sel = x.select(0, bad);
      await assert.rejects(values(sel), burn('select', message('select', 5, 0, 3)), dtype);
      await assert.rejects(
        values(x.take(0, Tensor.fromInts([[2, -1]], gpu))),
        burn('take', message('take', -1, 0, 3)),
        dtype,
      );
      assert.deepEqual(
        await values(x.select(1, Tensor.fromInts([1, 0], gpu))),
        [0, 1, 1, 1, 1, 0],
        `${dtype}: valid indices still work`,
      );
    }
    const x = Tensor.fromFloats(
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      gpu,
    );
    for (const idt of ['i32', 'i16', 'i8', 'u32', 'u16', 'u8'] as const) {
      const idx = Tensor.fromData<1, Int>(new TensorData([1, 3], [2], idt), gpu);
      await assert.rejects(values(x.select(0, idx)), burn('select', message('select', 3, 0, 3)), idt);
    }
    // u32 indices past 2^31 are out of range too (they do not wrap to negatives that read memory).
    await assert.rejects(
      values(x.select(0, Tensor.fromData<1, Int>(new TensorData([3000000000], [1], 'u32'), gpu))),
      burn('select', /out of bounds for dim 0 of size 3/),
    );
  });

  it('a result computed from a bad select throws too; unrelated tensors read normally; sync reports an error nobody read', async () => {
    const x = Tensor.fromFloats(
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      gpu,
    );
    const sel = x.select(0, Tensor.fromInts([7], gpu));
    const derived = sel.mul(2).sum();
    const unrelated = x.add(1);
    await assert.rejects(values(derived), burn('select', message('select', 7, 0, 3)));
    assert.deepEqual(await values(unrelated), [2, 3, 4, 5, 6, 7]);
    await assert.rejects(values(sel), burn('select', message('select', 7, 0, 3)), 'the bad result itself');
    // An error whose result is never read surfaces at the next sync, once.
    x.select(1, Tensor.fromInts([2], gpu));
    await assert.rejects(gpu!.sync(), burn('select', message('select', 2, 1, 2)));
    await gpu!.sync();
  });

  it('gather and scatter (every update op, strided and atomic paths) and selectAssign', async () => {
    for (const dtype of DTYPES) {
      const x = Tensor.fromData<2>(
        new TensorData(
          [1, 2, 3, 4, 5, 6].map((v) => (dtype === 'bool' ? v % 2 : v)),
          [2, 3],
          dtype,
        ),
        gpu,
      );
      await assert.rejects(
        values(
          x.gather(
            1,
            Tensor.fromInts(
              [
                [0, 3],
                [1, 1],
              ],
              gpu,
            ),
          ),
        ),
        burn('gather', message('gather', 3, 1, 3)),
        dtype,
      );
      await assert.rejects(
        values(x.gather(0, Tensor.fromInts([[0, 1, -2]], gpu))),
        burn('gather', message('gather', -2, 0, 2)),
        dtype,
      );
      if (dtype !== 'bool') {
        const vals = Tensor.fromData<2>(new TensorData([1, 1, 1, 1], [2, 2], dtype), gpu);
        for (const op of ['assign', 'add', 'mul', 'min', 'max'] as const) {
          await assert.rejects(
            values(
              x.scatter(
                1,
                Tensor.fromInts(
                  [
                    [0, 4],
                    [1, 2],
                  ],
                  gpu,
                ),
                vals,
                op,
              ),
            ),
            burn('scatter', message('scatter', 4, 1, 3)),
            `${dtype} ${op}`,
          );
        }
        const rows = Tensor.fromData<2>(new TensorData([1, 1, 1, 1, 1, 1], [2, 3], dtype), gpu);
        await assert.rejects(
          values(x.selectAssign(0, Tensor.fromInts([1, 2], gpu), rows, 'add')),
          burn('selectAssign', message('selectAssign', 2, 0, 2)),
          dtype,
        );
      }
    }
    // The atomic scatter-add path (a long index line): one bad index among many.
    const n = 1 << 13;
    const big = Tensor.zeros([4, n], gpu);
    const ids = Array.from({ length: n }, (_, i) => i);
    ids[77] = n + 5;
    const idx = Tensor.fromInts(ids, gpu).reshape([1, n]).expand([4, n]);
    const res = big.scatter(1, idx, Tensor.ones([4, n], gpu), 'add');
    await assert.rejects(values(res), burn('scatter', message('scatter', n + 5, 1, n)));
  });

  it('oneHot (also on the autodiff device) and cross-entropy with label smoothing', async () => {
    for (const device of [gpu!, gpu!.autodiff()]) {
      await assert.rejects(
        values(Tensor.fromInts([1, 4], device).oneHot(3)),
        burn('oneHot', /class index 4 is out of range for 3 classes/),
        String(device),
      );
      await assert.rejects(
        values(
          Tensor.fromInts([[0], [-4]], device)
            .oneHot(3)
            .float()
            .sum(),
        ),
        burn('oneHot', /class index -4 is out of range for 3 classes/),
      );
      assert.deepEqual(await values(Tensor.fromInts([2, -1, 0], device).oneHot(3)), [0, 0, 1, 0, 0, 1, 1, 0, 0]);
    }
    const smoothed = new CrossEntropyLossConfig({ smoothing: 0.1 }).init(gpu!);
    const logits = Tensor.fromFloats(
      [
        [0.1, 0.2, 0.7],
        [0.5, 0.2, 0.3],
      ],
      gpu,
    );
    await assert.rejects(
      values(smoothed.forward(logits, Tensor.fromInts([0, 5], gpu))),
      burn(undefined, /index 5 is out of (bounds|range)/),
    );
  });

  it('embedding and cross-entropy targets', async () => {
    const table = Tensor.fromFloats(
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      gpu,
    );
    await assert.rejects(
      values(F.embedding(table, Tensor.fromInts([[0, 3]], gpu))),
      burn(undefined, /index 3 is out of (bounds|range)/, /3/),
    );
    const loss = new CrossEntropyLossConfig().init(gpu!);
    const logits = Tensor.fromFloats(
      [
        [0.1, 0.2, 0.7],
        [0.5, 0.2, 0.3],
      ],
      gpu,
    );
    await assert.rejects(
      values(loss.forward(logits, Tensor.fromInts([0, 3], gpu))),
      burn(undefined, /index 3 is out of (bounds|range)/),
    );
    await assert.rejects(
      values(loss.forward(logits, Tensor.fromInts([-1, 2], gpu))),
      burn(undefined, /index -1 is out of (bounds|range)/),
    );
    const ok = await values(loss.forward(logits, Tensor.fromInts([2, 0], gpu)));
    const want = new CrossEntropyLossConfig().init(cpu).forward(
      Tensor.fromFloats(
        [
          [0.1, 0.2, 0.7],
          [0.5, 0.2, 0.3],
        ],
        cpu,
      ),
      Tensor.fromInts([2, 0], cpu),
    );
    assert.ok(
      Math.abs(ok[0]! - want.toDataSync().toArray()[0]!) < 1e-5,
      `${ok[0]} vs ${want.toDataSync().toArray()[0]}`,
    );
  });
});
