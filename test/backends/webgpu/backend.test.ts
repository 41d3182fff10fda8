// The WebGPU backend beyond the conformance suite (which runs every op on it): the kernels at sizes
// that take their other paths (tiled matmul with edges and transposed/broadcast operands, workgroup
// reductions, long sorts and scans, atomic scatter-add, wide softmax, im2col conv, pools) against the
// CPU backend; Philox streams equal to the CPU's; dtypes (f16/bf16 rounded like the CPU, narrow ints
// wrapped, f64/i64 refused); asynchronous reads; device info; pipeline caching and lazy submission.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BurnError,
  Device,
  Distribution,
  functional as F,
  Tensor,
  TensorData,
  type DType,
  type Kind,
} from '../../../src/index.js';
import type { WebGpuBackend } from '../../../src/backends/webgpu/backend.js';
import { webgpu } from '../../helpers/devices.js';

const gpu = webgpu.device;
const cpu = Device.cpu({ engine: 'js' });
const skip = gpu ? false : `no WebGPU device: ${webgpu.reason}`;

/** Deterministic values in [lo, hi). */
function values(n: number, seed: number, lo = -1, hi = 1): number[] {
  let s = (seed * 2654435761) >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return lo + ((s >>> 8) / 16777216) * (hi - lo);
  });
}

/** The same data on the CPU and on the GPU. */
function pair(shape: number[], seed: number, dtype: DType = 'f32', lo = -1, hi = 1): [Tensor<number>, Tensor<number>] {
  const n = shape.reduce((a, b) => a * b, 1);
  const v = values(n, seed, lo, hi).map((x) =>
    dtype === 'f32' || dtype === 'f16' || dtype === 'bf16' ? x : Math.floor(x),
  );
  const data = new TensorData(v, shape, dtype);
  // Int tensors are typed as Float here: the comparisons only call ops both kinds have.
  return [Tensor.fromData<number>(data, cpu), Tensor.fromData<number>(data, gpu!)];
}

async function same(
  got: Tensor<number, Kind>,
  want: Tensor<number, Kind>,
  label: string,
  rtol = 1e-5,
  atol = 1e-5,
): Promise<void> {
  const g = await got.toData(),
    w = await want.toData();
  assert.deepEqual(g.shape, w.shape, `${label}: shape`);
  assert.equal(g.dtype, w.dtype, `${label}: dtype`);
  const a = g.toArray(),
    b = w.toArray();
  let bad = 0;
  const first: string[] = [];
  for (let i = 0; i < b.length; i++) {
    const x = a[i]!,
      y = b[i]!;
    const ok = Number.isNaN(y) ? Number.isNaN(x) : x === y || Math.abs(x - y) <= atol + rtol * Math.abs(y);
    if (!ok && bad++ < 5) first.push(`[${i}] ${x} != ${y}`);
  }
  assert.equal(bad, 0, `${label}: ${bad} values differ: ${first.join(', ')}`);
}

const backend = () => gpu!.backend as unknown as WebGpuBackend;

describe('WebGPU kernels against the CPU backend', { skip }, () => {
  it('tiled matmul: edges, transposed and strided operands, broadcast batches, ints', async () => {
    for (const [m, k, n] of [
      [1, 1, 1],
      [65, 17, 63],
      [130, 70, 129],
    ] as const) {
      const [a, ga] = pair([m, k], m + k);
      const [b, gb] = pair([k, n], k + n);
      await same(ga.matmul(gb), a.matmul(b), `${m}x${k}x${n}`, 1e-4, 1e-5);
      await same(
        gb.transpose().matmul(ga.transpose()),
        b.transpose().matmul(a.transpose()),
        `transposed ${m}x${k}x${n}`,
        1e-4,
        1e-5,
      );
    }
    const [a, ga] = pair([3, 1, 20, 30], 1);
    const [b, gb] = pair([1, 4, 30, 25], 2);
    await same(ga.matmul(gb), a.matmul(b), 'broadcast batch', 1e-4, 1e-5);
    await same(
      ga.slice([null, null, [0, 20, 2]]).matmul(gb.flip([3])),
      a.slice([null, null, [0, 20, 2]]).matmul(b.flip([3])),
      'strided rows, flipped cols',
      1e-4,
      1e-5,
    );
    const [ia, gia] = pair([20, 30], 3, 'i32', -50, 50);
    const [ib, gib] = pair([30, 10], 4, 'i32', -50, 50);
    await same(gia.matmul(gib), ia.matmul(ib), 'i32 matmul', 0, 0);
    await same(Tensor.zeros([4, 0], gpu).matmul(Tensor.zeros([0, 3], gpu)), Tensor.zeros([4, 3], cpu), 'k = 0');
  });

  it('reductions: workgroup tree over long dims, several dims, NaN, bool', async () => {
    const [a, ga] = pair([7, 3000], 5);
    await same(ga.sumDim(1), a.sumDim(1), 'sum long rows', 1e-4, 1e-4);
    await same(ga.maxDim(1), a.maxDim(1), 'max long rows');
    await same(ga.prodDim(0), a.prodDim(0), 'prod short columns');
    await same(ga.transpose().sumDim(0), a.transpose().sumDim(0), 'sum along strided dim', 1e-4, 1e-4);
    const [b, gb] = pair([4, 50, 6], 6);
    await same(gb.sumDims([0, 2]), b.sumDims([0, 2]), 'sum over two dims', 1e-4, 1e-4);
    await same(gb.sum(), b.sum(), 'sum all', 1e-4, 1e-3);
    const nan = [1, NaN, 3, ...new Array<number>(500).fill(2)];
    await same(Tensor.fromFloats(nan, gpu).max(), Tensor.fromFloats(nan, cpu).max(), 'max with NaN');
    await same(Tensor.fromFloats(nan, gpu).argmax(0), Tensor.fromFloats(nan, cpu).argmax(0), 'argmax with NaN');
    await same(ga.argmin(1), a.argmin(1), 'argmin long rows');
    await same(
      ga.greater(Tensor.full([7, 3000], 0.99, gpu)).any(),
      a.greater(Tensor.full([7, 3000], 0.99, cpu)).any(),
      'any',
    );
  });

  it('sort and scans: long lines, ties, NaN, descending, stable indices', async () => {
    const v = values(1000, 7).map((x) => Math.round(x * 20) / 20);
    v[10] = NaN;
    const [c, g] = [Tensor.fromFloats(v, cpu).reshape([2, 500]), Tensor.fromFloats(v, gpu!).reshape([2, 500])];
    for (const desc of [false, true]) {
      const [cv, ci] = desc ? c.sortDescendingWithIndices(1) : c.sortWithIndices(1);
      const [gv, gi] = desc ? g.sortDescendingWithIndices(1) : g.sortWithIndices(1);
      await same(gv, cv, `sort values desc=${desc}`, 0, 0);
      await same(gi, ci, `sort indices desc=${desc}`, 0, 0);
    }
    const [ci] = [c.transpose().argsort(0)];
    await same(g.transpose().argsort(0), ci, 'argsort along a strided dim', 0, 0);
    const [a, ga] = pair([3, 2000], 8, 'f32', 0.5, 1.5);
    await same(ga.cumsum(1), a.cumsum(1), 'cumsum long', 1e-4, 1e-3);
    await same(ga.cummax(1), a.cummax(1), 'cummax long');
    const [i, gi] = pair([5, 300], 9, 'i32', -5, 5);
    await same(gi.cumsum(0), i.cumsum(0), 'int cumsum', 0, 0);
    await same(gi.sort(1), i.sort(1), 'int sort', 0, 0);
  });

  it('gather, scatter (deterministic and atomic add), select', async () => {
    const [a, ga] = pair([64, 32], 10);
    const idxValues = values(64 * 16, 11, 0, 32).map(Math.floor);
    const idx = (d: Device) => Tensor.fromInts(idxValues, d).reshape([64, 16]);
    await same(ga.gather(1, idx(gpu!)), a.gather(1, idx(cpu)), 'gather');
    const [v, gv] = pair([64, 16], 12);
    for (const op of ['assign', 'add', 'mul', 'min', 'max'] as const) {
      await same(ga.scatter(1, idx(gpu!), gv, op), a.scatter(1, idx(cpu), v, op), `scatter ${op}`, 1e-5, 1e-6);
    }
    // Large enough for the atomic path (output × index line > 2^24): sums agree to rounding.
    const n = 4096,
      rows = 8192;
    const big = values(rows, 13, 0, n).map(Math.floor);
    const ones = new Array<number>(rows).fill(1);
    const want = Tensor.zeros([n], cpu).scatter(0, Tensor.fromInts(big, cpu), Tensor.fromFloats(ones, cpu), 'add');
    const got = Tensor.zeros([n], gpu).scatter(0, Tensor.fromInts(big, gpu), Tensor.fromFloats(ones, gpu), 'add');
    await same(got, want, 'atomic scatter add', 0, 0);
    const sel = [3, 0, 63, 3];
    await same(ga.select(0, Tensor.fromInts(sel, gpu)), a.select(0, Tensor.fromInts(sel, cpu)), 'select');
  });

  it('softmax (short and workgroup rows), conv (im2col + matmul), pools, unfold', async () => {
    for (const shape of [
      [5, 10],
      [3, 700],
    ]) {
      const [a, ga] = pair(shape, 14, 'f32', -5, 5);
      await same(ga.softmax(1), a.softmax(1), `softmax ${shape}`, 1e-5, 1e-6);
      await same(ga.logSoftmax(0), a.logSoftmax(0), `logSoftmax dim 0 ${shape}`, 1e-5, 1e-5);
    }
    const [x, gx] = pair([2, 4, 9, 11], 15);
    const [w, gw] = pair([6, 2, 3, 2], 16);
    const [b, gb] = pair([6], 17);
    const o = { stride: [2, 1], padding: [1, 2], dilation: [1, 2], groups: 2 };
    await same(
      F.conv2d(gx as Tensor<4>, gw as Tensor<4>, gb as Tensor<1>, o),
      F.conv2d(x as Tensor<4>, w as Tensor<4>, b as Tensor<1>, o),
      'conv2d',
      1e-4,
      1e-5,
    );
    const [x1, gx1] = pair([2, 3, 20], 18);
    const [w1, gw1] = pair([4, 3, 5], 19);
    await same(
      F.conv1d(gx1 as Tensor<3>, gw1 as Tensor<3>, undefined, { padding: [2] }),
      F.conv1d(x1 as Tensor<3>, w1 as Tensor<3>, undefined, { padding: [2] }),
      'conv1d',
      1e-4,
      1e-5,
    );
    const p = { stride: [2, 2], padding: [1, 1], dilation: [1, 1], ceilMode: true };
    const [cv, ci] = F.maxPool2dWithIndices(x as Tensor<4>, [3, 3], p);
    const [gv, gi] = F.maxPool2dWithIndices(gx as Tensor<4>, [3, 3], p);
    await same(gv, cv, 'maxPool2d values', 0, 0);
    await same(gi, ci, 'maxPool2d indices', 0, 0);
    for (const countIncludePad of [true, false]) {
      const ao = { stride: [2, 3], padding: [1, 1], countIncludePad, ceilMode: false };
      await same(
        F.avgPool2d(gx as Tensor<4>, [3, 3], ao),
        F.avgPool2d(x as Tensor<4>, [3, 3], ao),
        `avgPool2d countIncludePad=${countIncludePad}`,
        1e-5,
        1e-6,
      );
    }
    await same(
      F.unfold4d(gx as Tensor<4>, [2, 3], { padding: [1, 0] }),
      F.unfold4d(x as Tensor<4>, [2, 3], { padding: [1, 0] }),
      'unfold4d',
      0,
      0,
    );
  });

  it('elementwise with broadcasting over strided views, scalar ops, clamp, where, maskFill', async () => {
    const [a, ga] = pair([4, 1, 6], 20);
    const [b, gb] = pair([5, 1], 21);
    await same(ga.add(gb), a.add(b), 'broadcast add');
    await same(
      ga.transpose().mul(gb.transpose().unsqueeze()),
      a.transpose().mul(b.transpose().unsqueeze()),
      'transposed views',
    );
    await same(ga.powf(2.5).sqrt().exp().log(), a.powf(2.5).sqrt().exp().log(), 'chain', 1e-5, 1e-6);
    await same(ga.clamp(-0.3, 0.4), a.clamp(-0.3, 0.4), 'clamp', 0, 0);
    await same(ga.mul(3).add(1).remainder(0.7), a.mul(3).add(1).remainder(0.7), 'scalar chain', 1e-5, 1e-6);
    await same(
      ga.maskFill(ga.greater(Tensor.zeros([4, 1, 6], gpu)), 9),
      a.maskFill(a.greater(Tensor.zeros([4, 1, 6], cpu)), 9),
      'maskFill',
      0,
      0,
    );
  });
});

describe("WebGPU random: the CPU's Philox streams", { skip }, () => {
  it('Default, Uniform and Bernoulli equal the CPU; Normal to float precision; ints and bools', async () => {
    const draw = async (d: Device, dist: Distribution, dtype: DType) => {
      d.seed(99);
      return Tensor.random([1001], dist, { device: d, dtype });
    };
    for (const [dist, dtype] of [
      [Distribution.Default, 'f32'],
      [Distribution.Default, 'i32'],
      [Distribution.Default, 'u8'],
      [Distribution.Default, 'bool'],
      [Distribution.Default, 'f16'],
      [Distribution.Uniform(-3, 5), 'i32'],
      [Distribution.Bernoulli(0.25), 'f32'],
    ] as [Distribution, DType][]) {
      await same(await draw(gpu!, dist, dtype), await draw(cpu, dist, dtype), `${dist.kind} ${dtype}`, 0, 0);
    }
    await same(
      await draw(gpu!, Distribution.Uniform(-2, 3), 'f32'),
      await draw(cpu, Distribution.Uniform(-2, 3), 'f32'),
      'uniform f32',
      1e-6,
      1e-6,
    );
    await same(
      await draw(gpu!, Distribution.Normal(1, 2), 'f32'),
      await draw(cpu, Distribution.Normal(1, 2), 'f32'),
      'normal',
      1e-5,
      1e-5,
    );
  });
});

describe('WebGPU dtypes', { skip }, () => {
  it('f16 and bf16 are rounded after every op exactly as on the CPU; casts everywhere', async () => {
    const half = Tensor.zeros([8, 8], gpu).cast('f16');
    assert.equal(half.dtype(), 'f16');
    assert.deepEqual(Array.from((await half.toData()).toArray()), new Array<number>(64).fill(0));
    for (const dtype of ['f16', 'bf16'] as const) {
      const [a, ga] = pair([300], 22, dtype, -70000, 70000);
      const [b, gb] = pair([300], 23, dtype, -3, 3);
      await same(ga.mul(gb).add(gb).div(gb.add(0.1)), a.mul(b).add(b).div(b.add(0.1)), `${dtype} arithmetic`, 0, 0);
      await same(
        ga.cast('f32').mul(1.001).cast(dtype),
        a.cast('f32').mul(1.001).cast(dtype),
        `${dtype} cast round trip`,
        0,
        0,
      );
      await same(gb.exp().sum(), b.exp().sum(), `${dtype} exp sum`, 2e-3, 1e-3);
    }
  });

  it('narrow ints wrap like typed arrays; float → int casts truncate and saturate', async () => {
    for (const dtype of ['i8', 'u8', 'i16', 'u16', 'u32'] as DType[]) {
      // Values the dtype holds (TensorData refuses others); the products wrap.
      const [a, ga] = pair([100], 24, dtype, 0, dtype === 'i8' ? 127 : 200);
      await same(ga.mul(7).add(100), a.mul(7).add(100), `${dtype} wrap`, 0, 0);
      await same(ga.sub(ga.mul(2)), a.sub(a.mul(2)), `${dtype} negative wrap`, 0, 0);
    }
    const f = [1e10, -1e10, NaN, 3.9, -3.9, 255.5, -0.5];
    for (const dtype of ['i32', 'u32', 'i8', 'u8', 'i16', 'u16'] as const) {
      await same(Tensor.fromFloats(f, gpu).int(dtype), Tensor.fromFloats(f, cpu).int(dtype), `f32 → ${dtype}`, 0, 0);
    }
    await same(Tensor.fromFloats(f, gpu).bool(), Tensor.fromFloats(f, cpu).bool(), 'f32 → bool', 0, 0);
  });

  it('f64 and i64 are refused with a BurnError naming the dtype and the backend', () => {
    for (const dtype of ['f64', 'i64'] as DType[]) {
      const refused = (e: unknown) =>
        e instanceof BurnError && e.message.includes(`dtype ${dtype} is not supported by the webgpu backend`);
      assert.throws(() => Tensor.zeros([2], { device: gpu!, dtype }), refused);
      assert.throws(() => Tensor.fromData(new TensorData([1, 2], [2], dtype), gpu!), refused);
      assert.throws(
        () => (dtype === 'f64' ? Tensor.zeros([2], gpu).cast('f64') : Tensor.zeros([2], gpu).int('i64')),
        refused,
      );
    }
  });
});

describe('WebGPU device: asynchronous reads, info, caching, batching', { skip }, () => {
  it('reads are asynchronous: toDataSync throws a BurnError saying to await; display shows no values', async () => {
    const t = Tensor.fromFloats([1, 2, 3], gpu);
    assert.throws(
      () => t.toDataSync(),
      (e: unknown) =>
        e instanceof BurnError && /cannot read synchronously; use await tensor.toData\(\)/.test(e.message),
    );
    assert.deepEqual(Array.from((await t.toData()).toArray()), [1, 2, 3]);
    const shown = `${t}`;
    assert.match(shown, /shape: {2}\[3\]/);
    assert.match(shown, /dtype: {2}"f32"/);
    await gpu!.sync();
  });

  it('toString and info() report the adapter, features and limits', () => {
    const info = gpu!.info() as {
      backend: string;
      features: string[];
      limits: Record<string, number>;
      memory: { allocatedBytes: number };
      shaderF16: boolean;
    };
    assert.equal(info.backend, 'webgpu');
    assert.ok(Array.isArray(info.features));
    assert.ok(info.limits['maxStorageBufferBindingSize']! >= 128 * 1024 * 1024);
    assert.equal(typeof info.memory.allocatedBytes, 'number');
    assert.ok(String(gpu).includes(`shader-f16: ${info.shaderF16 ? 'yes' : 'no'}`));
  });

  it('shaders compile once: the same op on other shapes of the same rank reuses the pipeline', async () => {
    const stats = () => backend().rt.stats();
    const a = Tensor.ones([3, 4], gpu);
    await a.add(a).toData();
    const before = stats().pipelines;
    for (const n of [5, 17, 100])
      await Tensor.ones([n, 7], gpu)
        .add(Tensor.ones([n, 7], gpu))
        .toData();
    assert.equal(stats().pipelines, before);
  });

  it('strided kernels compile once per rank: permuted reductions, scans, matmuls, gathers and softmax of other sizes', async () => {
    const stats = () => backend().rt.stats();
    const run = async (n: number) => {
      const x = Tensor.arange(0, 6 * n, gpu!)
        .float()
        .reshape([2, 3, n])
        .permute([2, 0, 1]);
      const idx = Tensor.zeros([n, 2, 2], { device: gpu!, dtype: 'i32' });
      const parts = [x.sum(1), x.cumsum(0), x.matmul(x.swapDims(1, 2)), x.gather(2, idx), x.softmax(0)];
      return Promise.all(parts.map((t) => t.toData()));
    };
    const first = await run(4);
    const before = stats().pipelines;
    for (const n of [5, 9, 33]) await run(n);
    assert.equal(stats().pipelines, before);
    // x[k, b, c] = 3n·b + n·c + k with n = 4: sum over b is 12 + 8c + 2k; the cumsum's first row is x[0].
    assert.deepEqual([...first[0]!.toArray().slice(0, 3)], [12, 20, 28]);
    assert.deepEqual([...first[1]!.toArray().slice(0, 6)], [0, 4, 8, 12, 16, 20]);
  });

  it('commands are batched: many ops, one submit at the read', async () => {
    let x = Tensor.ones([64], gpu);
    await x.toData();
    const s0 = backend().rt.stats();
    for (let i = 0; i < 50; i++) x = x.add(1);
    assert.equal(backend().rt.stats().submits, s0.submits, 'nothing submitted before the read');
    assert.equal(await x.sum().intoScalar(), 64 * 51);
    assert.equal(backend().rt.stats().submits, s0.submits + 1);
    assert.ok(backend().rt.stats().dispatches >= s0.dispatches + 51);
  });
});
