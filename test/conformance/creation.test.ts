// Conformance of tensor creation that PyTorch fixtures cannot pin: constructors from host values
// (every dtype), empty, the random distributions (seeding reproducibility, identical streams on every
// device, ranges and rough statistics), categorical sampling statistics, and reading data back
// (toData, toDataSync, intoScalar). Runs on every device of conformanceDevices({ fusion: true }); values are read
// with `await toData()` (devices such as WebGPU cannot read synchronously: there the sync reads must
// throw a BurnError saying to await) and dtypes a device does not store must be refused clearly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Distribution, Tensor, TensorData, type Device, type DType, type Kind } from '../../src/index.js';
import { conformanceDevices } from '../helpers/devices.js';

const ALL: DType[] = ['f32', 'f64', 'f16', 'bf16', 'i64', 'i32', 'i16', 'i8', 'u32', 'u16', 'u8', 'bool'];

function stats(values: ArrayLike<number>): { mean: number; std: number; min: number; max: number } {
  let sum = 0,
    min = Infinity,
    max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    sum += values[i]!;
    min = Math.min(min, values[i]!);
    max = Math.max(max, values[i]!);
  }
  const mean = sum / values.length;
  let sq = 0;
  for (let i = 0; i < values.length; i++) sq += (values[i]! - mean) ** 2;
  return { mean, std: Math.sqrt(sq / (values.length - 1)), min, max };
}

const N = 40000;

/** The values of a tensor, read asynchronously (every device can). */
async function vals(t: Tensor<number, Kind>): Promise<number[]> {
  return Array.from((await t.toData()).toArray());
}

for (const { name, device: makeDevice, dtypes, readsSync = true } of conformanceDevices({ fusion: true })) {
  describe(`conformance: creation on ${name}`, () => {
    const device = (): Device => makeDevice();
    const stores = (dtype: DType) => !dtypes || dtypes.has(dtype);
    const refuses = (fn: () => unknown, dtype: DType) =>
      assert.throws(
        fn,
        (e: unknown) => e instanceof BurnError && e.message.includes(dtype),
        `${name} must refuse ${dtype} with a BurnError`,
      );

    it('fromFloats / fromInts / fromBools / fromData keep values, shape and dtype', async () => {
      const d = device();
      const f = Tensor.fromFloats(
        [
          [1.5, -2],
          [0.25, 3],
        ],
        d,
      );
      assert.deepEqual(
        [f.dims(), f.shape(), f.rank(), f.numel(), f.dtype(), f.device() === d],
        [[2, 2], [2, 2], 2, 4, 'f32', true],
      );
      assert.deepEqual(await vals(f.clone()), [1.5, -2, 0.25, 3]);
      assert.deepEqual(Array.from((await f.toData()).toArray()), [1.5, -2, 0.25, 3]);
      if (stores('f64')) {
        const f64 = Tensor.fromFloats(new Float64Array([0.1, 0.2]), { device: d, dtype: 'f64' });
        assert.deepEqual([f64.dtype(), await vals(f64)], ['f64', [0.1, 0.2]]);
      } else refuses(() => Tensor.fromFloats(new Float64Array([0.1, 0.2]), { device: d, dtype: 'f64' }), 'f64');
      const h = Tensor.fromFloats([0.1, 65504, 1e-8], { device: d, dtype: 'f16' });
      assert.deepEqual(await vals(h), [0.0999755859375, 65504, 0]);
      const i = Tensor.fromInts([[1, -2, 3]], { device: d, dtype: 'i16' });
      assert.deepEqual([i.dims(), i.dtype(), await vals(i)], [[1, 3], 'i16', [1, -2, 3]]);
      const u = Tensor.fromInts(new Uint8Array([0, 255]), d);
      assert.deepEqual([u.dtype(), await vals(u)], ['i32', [0, 255]]);
      const b = Tensor.fromBools([[true], [false]], d);
      assert.deepEqual([b.dims(), b.dtype(), (await b.toData()).toList()], [[2, 1], 'bool', [[true], [false]]]);
      for (const dtype of ALL) {
        const values = dtype === 'bool' ? [1, 0, 1, 1] : [0, 1, 2, 3];
        if (!stores(dtype)) {
          refuses(() => Tensor.fromData(new TensorData(values, [2, 2], dtype), d), dtype);
          continue;
        }
        const t = Tensor.fromData(new TensorData(values, [2, 2], dtype), d);
        assert.equal(t.dtype(), dtype);
        assert.deepEqual(Array.from((await t.toData()).toArray()), values, dtype);
      }
      // fromData converts to the dtype asked for, with Burn's cast rules.
      const conv = Tensor.fromData(TensorData.from([[1.9, -1.9]]), { device: d, dtype: 'i32' });
      assert.deepEqual([conv.dtype(), await vals(conv)], ['i32', [1, -1]]);
    });

    it('empty, zeros, ones, full keep shape and dtype (empty shapes included)', async () => {
      const d = device();
      for (const dtype of ALL) {
        if (!stores(dtype)) {
          refuses(() => Tensor.empty([2, 2], { device: d, dtype }), dtype);
          continue;
        }
        const e = Tensor.empty([2, 0, 3], { device: d, dtype });
        assert.deepEqual([e.dims(), e.dtype(), e.numel(), (await e.toData()).numElements()], [[2, 0, 3], dtype, 0, 0]);
        const z = Tensor.empty([2, 2], { device: d, dtype });
        assert.deepEqual([z.dims(), z.dtype()], [[2, 2], dtype]);
      }
      assert.equal(Tensor.full([2], true, d).dtype(), 'bool');
      assert.equal(Tensor.zeros([3], d).dtype(), 'f32');
    });

    it('toData, toDataSync, intoScalar, intoScalarSync', async () => {
      const d = device();
      const t = Tensor.fromFloats(
        [
          [1, 2],
          [3, 4],
        ],
        d,
      ).transpose();
      const a = await t.toData();
      assert.deepEqual(
        [a.shape, Array.from(a.toArray())],
        [
          [2, 2],
          [1, 3, 2, 4],
        ],
      );
      assert.equal(await t.sum().intoScalar(), 10);
      if (readsSync) {
        assert.deepEqual(Array.from(t.toDataSync().toArray()), [1, 3, 2, 4]);
        assert.equal(t.sum().intoScalarSync(), 10);
      } else {
        const awaitIt = (e: unknown) =>
          e instanceof BurnError && /cannot read synchronously; use await tensor.toData\(\)/.test(e.message);
        assert.throws(() => t.toDataSync(), awaitIt);
        assert.throws(() => t.sum().intoScalarSync(), awaitIt);
      }
      if (stores('i64')) assert.equal(await Tensor.fromInts([7], { device: d, dtype: 'i64' }).intoScalar(), 7);
      assert.equal(await Tensor.fromBools([true], d).intoScalar(), true);
      assert.equal(await Tensor.fromBools([false], d).any().intoScalar(), false);
      await assert.rejects(
        () => t.intoScalar(),
        /intoScalar: tensor of shape \[2, 2\] has 4 elements; expected exactly one/,
      );
    });

    it('toDevice / toDeviceAsync move values (views included) to every other device', async () => {
      const d = device();
      const t = Tensor.fromInts(
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
        { device: d, dtype: 'i16' },
      )
        .flip([1])
        .transpose();
      for (const other of conformanceDevices({ fusion: true })) {
        const o = other.device();
        // toDevice reads synchronously: from a device that cannot, it says to use toDeviceAsync.
        const moves = readsSync || o.equals(d) ? [t.toDevice(o), await t.toDeviceAsync(o)] : [await t.toDeviceAsync(o)];
        if (!readsSync && !o.equals(d))
          assert.throws(
            () => t.toDevice(o),
            (e: unknown) => e instanceof BurnError && /toDeviceAsync/.test(e.message),
          );
        for (const moved of moves) {
          assert.equal(moved.device(), o);
          assert.deepEqual(
            [moved.dims(), moved.dtype(), await vals(moved)],
            [[3, 2], 'i16', [3, 6, 2, 5, 1, 4]],
            other.name,
          );
        }
      }
      assert.equal(t.toDevice(d).device(), d);
    });

    it('random: seeding reproduces the stream; another seed or draw differs; every device gives the same values', async () => {
      const d = device();
      d.seed(42);
      const a = await vals(Tensor.random([64], Distribution.Default, d));
      const a2 = await vals(Tensor.random([64], Distribution.Default, d));
      d.seed(42);
      const b = await vals(Tensor.random([64], Distribution.Default, d));
      d.seed(43);
      const c = await vals(Tensor.random([64], Distribution.Default, d));
      assert.deepEqual(a, b);
      assert.notDeepEqual(a, a2);
      assert.notDeepEqual(a, c);
      for (const other of conformanceDevices({ fusion: true })) {
        const o = other.device();
        o.seed(42);
        assert.deepEqual(await vals(Tensor.random([64], Distribution.Default, o)), a, other.name);
      }
      d.seed(7);
      const n1 = await vals(Tensor.random([5, 5], Distribution.Normal(0, 1), d));
      d.seed(7);
      assert.deepEqual(await vals(Tensor.zeros([5, 5], d).randomLike(Distribution.Normal(0, 1))), n1);
      // Normal draws agree across devices to float precision (a GPU computes Box-Muller in f32).
      const cpu = conformanceDevices({ fusion: true })[0]!.device();
      cpu.seed(7);
      const ref = await vals(Tensor.random([5, 5], Distribution.Normal(0, 1), cpu));
      n1.forEach((v, i) =>
        assert.ok(Math.abs(v - ref[i]!) <= 1e-5 * Math.max(1, Math.abs(ref[i]!)), `normal[${i}] ${v} vs ${ref[i]}`),
      );
    });

    it('random: Default, Uniform, Normal and Bernoulli have the right range and moments', async () => {
      const d = device();
      d.seed(1);
      const u = stats(await vals(Tensor.random([N], Distribution.Default, d)));
      assert.ok(u.min >= 0 && u.max < 1, `default range [${u.min}, ${u.max}]`);
      assert.ok(Math.abs(u.mean - 0.5) < 0.01 && Math.abs(u.std - Math.sqrt(1 / 12)) < 0.01, JSON.stringify(u));
      const wide: DType = stores('f64') ? 'f64' : 'f32';
      const w = stats(await vals(Tensor.random([N], Distribution.Uniform(-2, 3), { device: d, dtype: wide })));
      assert.ok(w.min >= -2 && w.max < 3, `uniform range [${w.min}, ${w.max}]`);
      assert.ok(Math.abs(w.mean - 0.5) < 0.05 && Math.abs(w.std - 5 / Math.sqrt(12)) < 0.05, JSON.stringify(w));
      const g = stats(await vals(Tensor.random([N], Distribution.Normal(1, 2), d)));
      assert.ok(Math.abs(g.mean - 1) < 0.05 && Math.abs(g.std - 2) < 0.05, JSON.stringify(g));
      const bern = await vals(Tensor.random([N], Distribution.Bernoulli(0.3), d));
      assert.ok(Array.from(bern).every((v) => v === 0 || v === 1));
      assert.ok(Math.abs(stats(bern).mean - 0.3) < 0.015, String(stats(bern).mean));
      const half = Tensor.random([1000], Distribution.Normal(0, 1), { device: d, dtype: 'f16' });
      assert.equal(half.dtype(), 'f16');
      assert.ok(Math.abs(stats(await vals(half)).mean) < 0.15);
    });

    it('random on int and bool dtypes', async () => {
      const d = device();
      d.seed(3);
      const ints = Tensor.random([N], Distribution.Uniform(-3, 5), { device: d, dtype: 'i32' });
      assert.equal(ints.dtype(), 'i32');
      const iv = await vals(ints);
      assert.ok(iv.every((v) => Number.isInteger(v) && v >= -3 && v < 5));
      assert.deepEqual(
        [...new Set(iv)].sort((x, y) => x - y),
        [-3, -2, -1, 0, 1, 2, 3, 4],
      );
      assert.ok(Math.abs(stats(iv).mean - 0.5) < 0.05);
      const bools = Tensor.random([N], Distribution.Bernoulli(0.8), { device: d, dtype: 'bool' });
      assert.equal(bools.dtype(), 'bool');
      assert.ok(Math.abs(stats(await vals(bools)).mean - 0.8) < 0.015);
      const u8 = Tensor.random([100], Distribution.Uniform(0, 256), { device: d, dtype: 'u8' });
      assert.ok((await vals(u8)).every((v) => v >= 0 && v <= 255));
      const empty = Tensor.random([0, 4], Distribution.Default, d);
      assert.deepEqual(empty.dims(), [0, 4]);
    });

    it('categorical: frequencies follow the weights per row; zero-weight categories never appear', async () => {
      const d = device();
      d.seed(5);
      const weights = Tensor.fromFloats(
        [
          [1, 2, 7, 0],
          [0, 0, 1, 1],
        ],
        d,
      );
      const samples = weights.categorical(20000);
      assert.deepEqual([samples.dims(), samples.dtype()], [[2, 20000], 'i32']);
      const v = Int32Array.from(await vals(samples));
      const freq = (row: number, k: number) =>
        Array.from(v.subarray(row * 20000, (row + 1) * 20000)).filter((x) => x === k).length / 20000;
      for (const [k, p] of [
        [0, 0.1],
        [1, 0.2],
        [2, 0.7],
        [3, 0],
      ] as const)
        assert.ok(Math.abs(freq(0, k) - p) < 0.015, `row 0 class ${k}: ${freq(0, k)}`);
      for (const [k, p] of [
        [0, 0],
        [1, 0],
        [2, 0.5],
        [3, 0.5],
      ] as const)
        assert.ok(Math.abs(freq(1, k) - p) < 0.015, `row 1 class ${k}: ${freq(1, k)}`);
      // Unnormalized weights: only the ratios matter.
      d.seed(5);
      const scaled = await vals(
        Tensor.fromFloats(
          [
            [10, 20, 70, 0],
            [0, 0, 3, 3],
          ],
          d,
        ).categorical(20000),
      );
      assert.deepEqual(Array.from(scaled), Array.from(v));
    });
  });
}
