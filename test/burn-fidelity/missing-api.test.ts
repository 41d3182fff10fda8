// Burn APIs burn-ts must have: argtopk, emptyLike, t(), selectDim, sumDimsSqueeze, maxAbsDims,
// TensorData.full, Transaction and Device.enumerate, with the values of Burn's backend tests
// (crates/burn-backend-tests at 2c06be35; each case names its Burn test), on every conformance
// device (CPU engines, their autodiff decorators, the required-only backend, WebGPU where an
// adapter exists, remote).
import assert from 'node:assert/strict';
import { describe, it as plainIt } from 'node:test';
import { WebSocket } from 'ws';
import {
  Device,
  Tensor,
  TensorData,
  Transaction,
  type Backend,
  type Bool,
  type Float,
  type Int,
} from '../../src/index.js';
import { RemoteBackend, type WebSocketConstructor } from '../../src/backends/remote/client.js';
import { conformanceDevices, itOn, remoteServer, webgpu } from '../helpers/devices.js';
import { assertData } from './helpers.js';

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  const it = itOn(entry);
  describe(`Burn's missing APIs on ${name}`, () => {
    it('argtopk: reduction_argtopk_simple, _1d, _3d_dim0, _ties, _3d_random_complex (cubecl/reduce.rs)', async () => {
      const d = device();
      const simple = Tensor.fromFloats(
        [
          [1, 7, 3],
          [8, 2, 8],
        ],
        d,
      ).argtopk(2, -1);
      const typed: Tensor<2, Int> = simple;
      await assertData(
        typed,
        [
          [1, 2],
          [0, 2],
        ],
        'simple',
      );
      await assertData(Tensor.fromFloats([10, 50, 20, 40, 30], d).argtopk(3, 0), [1, 3, 4], '1d');
      await assertData(
        Tensor.fromFloats(
          [
            [
              [10, 1],
              [5, 20],
            ],
            [
              [1, 10],
              [20, 5],
            ],
          ],
          d,
        ).argtopk(1, 0),
        [
          [
            [0, 1],
            [1, 0],
          ],
        ],
        '3d dim 0',
      );
      // Ties: the first occurrences first.
      await assertData(Tensor.fromFloats([5, 2, 5, 5], d).argtopk(2, 0), [0, 2], 'ties');
      const complex = Tensor.fromFloats(
        [
          [
            [0.5, 1.2, 0.8, 3.3],
            [4.4, 2.1, 9.9, 0.1],
            [7.7, 8.8, 6.6, 5.5],
          ],
          [
            [1.1, 0.2, 4.4, 2.2],
            [6.0, 7.0, 5.0, 8.0],
            [3.0, 3.0, 1.0, 2.0],
          ],
        ],
        d,
      );
      await assertData(
        complex.argtopk(2, 2),
        [
          [
            [3, 1],
            [2, 0],
            [1, 0],
          ],
          [
            [2, 3],
            [3, 1],
            [0, 1],
          ],
        ],
        'complex',
      );
    });

    it('argtopk on Int tensors: test_argtopk_1d, test_argtopk, test_argtopk_supports_negative_dim_int (int/ops/topk.rs)', async () => {
      const d = device();
      await assertData(Tensor.fromInts([1, 2, 3, 4, 5], d).argtopk(3, 0), [4, 3, 2], '1d');
      const t = Tensor.fromInts(
        [
          [
            [1, 4, 7],
            [2, 5, 6],
          ],
          [
            [3, 0, 9],
            [8, 2, 7],
          ],
        ],
        d,
      );
      await assertData(
        t.argtopk(2, 2),
        [
          [
            [2, 1],
            [2, 1],
          ],
          [
            [2, 0],
            [0, 2],
          ],
        ],
        'dim 2',
      );
      await assertData(
        t.argtopk(2, -1),
        [
          [
            [2, 1],
            [2, 1],
          ],
          [
            [2, 0],
            [0, 2],
          ],
        ],
        'dim -1',
      );
    });

    it('emptyLike of every kind: should_support_empty_like (float, int, bool create_like.rs)', () => {
      const d = device();
      const f = Tensor.fromFloats(
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
        d,
      );
      const i = Tensor.fromInts(
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
        { device: d, dtype: 'i16' },
      );
      const b = Tensor.fromBools(
        [
          [
            [false, true, false],
            [true, true, true],
          ],
          [
            [false, false, false],
            [true, true, false],
          ],
        ],
        d,
      );
      const ef: Tensor<3, Float> = f.emptyLike();
      const ei: Tensor<3, Int> = i.emptyLike();
      const eb: Tensor<3, Bool> = b.emptyLike();
      for (const [made, source] of [
        [ef, f],
        [ei, i],
        [eb, b],
      ] as const) {
        assert.deepEqual(made.dims(), source.dims());
        assert.equal(made.dtype(), source.dtype());
        assert.ok(made.device().equals(source.device()));
      }
    });

    it('t(): should_support_transpose_ops (transpose.rs)', async () => {
      const x = Tensor.fromFloats(
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
        device(),
      );
      const out: Tensor<3, Float> = x.t();
      await assertData(out, [
        [
          [0, 3],
          [1, 4],
          [2, 5],
        ],
        [
          [6, 9],
          [7, 10],
          [8, 11],
        ],
      ]);
    });

    it('selectDim: should_support_select_dim (slice.rs)', async () => {
      const x = Tensor.fromFloats(
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
        device(),
      );
      const row: Tensor<1, Float> = x.selectDim(0, 1);
      await assertData(row, [4, 5, 6], 'row');
      await assertData(x.selectDim(1, 1), [2, 5], 'column');
      await assertData(x.selectDim(-1, -1), [3, 6], 'negative dim and index');
    });

    it('sumDimsSqueeze: test_sum_and_squeeze_dims (aggregation.rs)', async () => {
      const x = Tensor.fromFloats(
        [
          [
            [1, -2, 3],
            [5, 9, 6],
          ],
          [
            [9, 2, 5],
            [5, 7, 7],
          ],
        ],
        device(),
      );
      const out: Tensor<1, Float> = x.sumDimsSqueeze([0, 1]);
      await assertData(out, [20, 16, 21]);
      await assertData(
        Tensor.fromInts(
          [
            [1, 2],
            [3, 4],
          ],
          device(),
        ).sumDimsSqueeze([-1]),
        [3, 7],
        'int, negative dim',
      );
    });

    it('maxAbsDims: test_max_abs_dims_2d (maxmin.rs)', async () => {
      const x = Tensor.fromFloats(
        [
          [0, 1, -2],
          [-5, 6, 1],
        ],
        device(),
      );
      await assertData(x.maxAbsDims([0]), [[5, 6, 2]], '[0]');
      await assertData(x.maxAbsDims([-2]), [[5, 6, 2]], '[-2]');
      await assertData(x.maxAbsDims([0, 1]), [[6]], '[0, 1]');
      await assertData(
        Tensor.fromInts(
          [
            [0, 1, -2],
            [-5, 6, 1],
          ],
          device(),
        ).maxAbsDims([1]),
        [[2], [6]],
        'int',
      );
    });

    it('Transaction: should_support_transaction (transaction.rs): a transposed matmul output reads as toData does', async () => {
      const d = device();
      const j = Tensor.zeros([32, 408], d);
      const g = j.transpose().matmul(j).transpose();
      const expected = await g.toData();
      const [data] = await new Transaction().register(g).execute();
      assert.deepEqual(data.shape, [408, 408]);
      assert.equal(data.dtype, expected.dtype);
      assert.deepEqual(data.bytes, expected.bytes);
    });

    it('Transaction: several tensors of every kind, in registration order', async () => {
      const d = device();
      const a = Tensor.fromFloats(
        [
          [1, 2],
          [3, 4],
        ],
        d,
      ).mul(2);
      const b = Tensor.arange(0, 5, d).flip([0]);
      const c = Tensor.fromBools([true, false], d);
      const e = Tensor.zeros([0, 3], d);
      const [da, db, dc, de] = await new Transaction().register(a).register(b).register(c).register(e).execute();
      await assertData(
        da,
        [
          [2, 4],
          [6, 8],
        ],
        'float',
      );
      await assertData(db, [4, 3, 2, 1, 0], 'int');
      assert.equal(dc.dtype, 'bool');
      await assertData(dc, [1, 0], 'bool');
      assert.deepEqual(de.shape, [0, 3]);
      assert.deepEqual(await new Transaction().execute(), []);
    });
  });
}

describe('Transaction across devices and round trips', () => {
  plainIt('tensors of several devices in one transaction keep their order', async () => {
    const js = Device.cpu({ engine: 'js' });
    const remote = Device.remote(remoteServer.url);
    const [x, y, z] = await new Transaction()
      .register(Tensor.fromInts([1, 2], js))
      .register(Tensor.fromInts([3], remote))
      .register(Tensor.fromFloats([4.5], js.autodiff()))
      .execute();
    await assertData(x, [1, 2]);
    await assertData(y, [3]);
    await assertData(z, [4.5]);
  });

  plainIt('executeSync reads CPU tensors at once; on a device that reads asynchronously it says to await', async () => {
    const [a] = new Transaction().register(Tensor.fromFloats([1, 2], Device.cpu({ engine: 'js' }))).executeSync();
    await assertData(a, [1, 2]);
    assert.throws(
      () => new Transaction().register(Tensor.fromFloats([1], Device.remote(remoteServer.url))).executeSync(),
      /cannot read .*synchronously; use await transaction\.execute\(\)/,
    );
  });

  plainIt('a tensor that is not a Tensor is refused at register', () => {
    assert.throws(() => new Transaction().register({} as never), /Transaction\.register: .*expected a Tensor/);
  });

  plainIt('remote: every read leaves in one message', async () => {
    let sent = 0;
    // The `ws` client, counting the frames it sends.
    class Counting extends WebSocket {
      constructor(url: string, protocols?: string[]) {
        super(url, protocols);
      }
      override send(data: Uint8Array): void {
        sent++;
        super.send(data);
      }
    }
    const backend = new RemoteBackend(remoteServer.url, { WebSocket: Counting as unknown as WebSocketConstructor });
    const remote = new Device(backend as unknown as Backend, 'remote(counting)');
    try {
      const xs = [1, 2, 3].map((k) => Tensor.fromFloats([k, 2 * k], remote).mul(k));
      await remote.sync();
      const before = sent;
      const out = await new Transaction().register(xs[0]!).register(xs[1]!).register(xs[2]!).execute();
      assert.equal(sent - before, 1, 'frames sent for three reads');
      await assertData(out[2], [9, 18]);
    } finally {
      backend.close();
    }
  });

  plainIt(
    'WebGPU: every registered tensor in one submit and one readback',
    { skip: webgpu.device ? false : webgpu.reason },
    async () => {
      const gpu = webgpu.device!;
      const submits = () => (gpu.info()['stream'] as { submits: number }).submits;
      const xs = [1, 2, 3, 4].map((k) => Tensor.fromFloats([k, k + 1, k + 2], gpu).mul(k));
      const ints = Tensor.arange(0, 7, gpu).add(1);
      await gpu.sync();
      const ys = xs.map((x) => x.exp().log());
      const before = submits();
      const out = await [...ys, ints]
        .reduce((tx, t) => tx.register(t), new Transaction() as Transaction<TensorData[]>)
        .execute();
      assert.equal(submits() - before, 1, 'submits of the transaction');
      for (const [k, data] of out.slice(0, 4).entries()) {
        const v = k + 1;
        assert.deepEqual(
          Array.from(data.toArray(), (n) => Math.round(n * 1e4) / 1e4),
          [v * v, (v + 1) * v, (v + 2) * v],
        );
      }
      await assertData(out[4]!, [1, 2, 3, 4, 5, 6, 7]);
    },
  );
});

describe('TensorData.full and Device.enumerate', () => {
  plainIt('TensorData.full: test_data_full (full.rs)', async () => {
    const data = TensorData.full([2, 3], 2.0);
    assert.equal(data.dtype, 'f32');
    await assertData(data, [
      [2, 2, 2],
      [2, 2, 2],
    ]);
    assert.equal(TensorData.full([2], true).dtype, 'bool');
    await assertData(TensorData.full([2], 7, 'i16'), [7, 7]);
    assert.throws(() => TensorData.full([2], 300, 'u8'), /TensorData\.full: .*300/);
    assert.throws(() => TensorData.full([-1], 0), /TensorData\.full: invalid shape \[-1\]/);
  });

  plainIt(
    'Device.enumerate: the CPU engines (default first), WebGPU when an adapter exists, a remote server',
    async () => {
      const cpus = await Device.enumerate('cpu');
      assert.ok(cpus[0]!.equals(Device.cpu()), 'the default CPU device first');
      assert.ok(
        cpus.some((c) => c.equals(Device.cpu({ engine: 'js' }))),
        'the js engine is always there',
      );
      assert.equal(new Set(cpus).size, cpus.length);
      const gpus = await Device.enumerate('webgpu');
      assert.deepEqual(gpus, webgpu.device ? [webgpu.device] : []);
      const all = await Device.enumerate();
      assert.deepEqual(all, [...cpus, ...gpus]);
      const remote = await Device.enumerate({ remote: remoteServer.url });
      assert.deepEqual(remote, [Device.remote(remoteServer.url)]);
      assert.deepEqual(await Device.enumerate(['webgpu', 'cpu']), [...gpus, ...cpus]);
      await assert.rejects(
        Device.enumerate('cuda' as never),
        /Device\.enumerate: device type "cuda"; expected 'cpu', 'webgpu' or \{ remote: url \}/,
      );
      await assert.rejects(Device.enumerate({ remote: 'ws://127.0.0.1:1' }), /remote/);
    },
  );
});
