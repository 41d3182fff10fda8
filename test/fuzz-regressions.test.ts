// Regressions for defects found by the differential fuzz suite (test/fuzz), one case per defect,
// on every CPU engine (js, native, wasm where they load):
// - sort / argsort / topk / median / unfold of an empty tensor return empty results without
//   allocating by the size of a (huge) non-zero dim;
// - ops on a zero-element strided tensor return at once instead of walking the rows of its
//   non-zero dims (2^30 rows took seconds per op), on every CPU engine and over remote;
// - WebGPU: scatter / selectAssign / scatterNd into an empty tensor refuse their out-of-range
//   indices like the CPU engines (the read of the empty result skipped the device-side check);
// - out-of-range indices are refused even when the slices they select are empty (zeros([3, 0])
//   .select(0, [5]) succeeded; PyTorch refuses), on every device;
// - remote: a failed server-side index check whose op then threw on the client (or whose result is
//   never read) no longer surfaces at the next, unrelated read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Device, Tensor, type Float, type Int, type Kind } from '../src/index.js';
import { nativeTestDevice, remoteServer, wasmTestDevice, webgpu } from './helpers/devices.js';

const cpuDevices: [string, Device][] = [['js', Device.cpu({ engine: 'js' })]];
const native = nativeTestDevice();
if (native) cpuDevices.push(['native', native]);
const wasm = wasmTestDevice();
if (wasm) cpuDevices.push(['wasm', wasm]);

type F = Tensor<number, Float>;

async function shapeOf(t: Tensor<number, Kind>): Promise<number[]> {
  return [...(await t.toData()).shape];
}

describe('empty tensors: sorts and unfold allocate nothing by dim size', () => {
  for (const [name, device] of cpuDevices) {
    it(`on ${name}`, async () => {
      const big = 2 ** 32 - 1;
      const x = Tensor.zeros([0, big], device) as F;
      assert.deepEqual(await shapeOf(x.sort(1)), [0, big]);
      assert.deepEqual(await shapeOf(x.argsort(1)), [0, big]);
      assert.deepEqual(await shapeOf(x.sortDescendingWithIndices(1)[1]), [0, big]);
      assert.deepEqual(await shapeOf(x.topk(0, 1)), [0, 0]);
      assert.deepEqual(await shapeOf(x.topk(2, 1)), [0, 2]);
      assert.deepEqual(await shapeOf(x.median(1)), [0, 1]);
      assert.deepEqual(await shapeOf(x.unfold(1, 2, 1)), [0, big - 1, 2]);
    });
  }
});

/** Runs `fn` and returns its result's shape, asserting it took at most `boundMs`. */
async function quickShape(what: string, boundMs: number, fn: () => Tensor<number, Kind>): Promise<number[]> {
  const t0 = performance.now();
  const shape = await shapeOf(fn());
  const ms = performance.now() - t0;
  assert.ok(ms <= boundMs, `${what}: ${ms.toFixed(0)} ms for a tensor of 0 elements (bound ${boundMs} ms)`);
  return shape;
}

describe('empty tensors: strided ops do not walk the rows of the non-zero dims', () => {
  const big = 2 ** 30;
  for (const [name, device] of cpuDevices) {
    it(`on ${name}`, async () => {
      const x = Tensor.zeros([0, big], device) as F;
      assert.deepEqual(await quickShape('transpose+add', 1000, () => x.transpose().add(1)), [big, 0]);
      assert.deepEqual(await quickShape('transpose', 1000, () => x.transpose()), [big, 0]);
      assert.deepEqual(await quickShape('transpose+cast', 1000, () => x.transpose().cast('f64')), [big, 0]);
      assert.deepEqual(await quickShape('cumsum over the empty dim', 1000, () => x.cumsum(0)), [0, big]);
      assert.deepEqual(await quickShape('cummax over the empty dim', 1000, () => x.cummax(0)), [0, big]);
      assert.deepEqual(await quickShape('transposed softmax', 1000, () => x.transpose().softmax(0)), [big, 0]);
    });
  }
  it('over remote (the server answers at once)', async () => {
    const d = Device.remote(remoteServer.url);
    const x = Tensor.zeros([0, 2 ** 15, 2 ** 15], d) as F;
    assert.deepEqual(await quickShape('permute+exp', 2000, () => x.permute([1, 2, 0]).exp()), [2 ** 15, 2 ** 15, 0]);
    assert.deepEqual(await (Tensor.ones([2], d) as F).toData().then((t) => Array.from(t.toArray())), [1, 1]);
  });
});

/** Asserts that reading `fn()` rejects with a BurnError of `op` saying `part`. */
async function refuses(op: string, part: RegExp, fn: () => Tensor<number, Kind>): Promise<void> {
  await assert.rejects(
    async () => fn().toData(),
    (e: unknown) => e instanceof BurnError && e.message.startsWith(`${op}:`) && part.test(e.message),
  );
}

describe('WebGPU: the assign family checks its indices into an empty tensor', () => {
  const d = webgpu.device;
  it('scatter, selectAssign, scatterNd refuse index 0 of a dim of size 0', {
    skip: d ? false : webgpu.reason,
  }, async () => {
    const g = d!;
    const zero = () => Tensor.fromInts([0], g) as Tensor<1, Int>;
    await refuses('selectAssign', /index 0 is out of bounds for dim 0 of size 0/, () =>
      Tensor.zeros([0], g).selectAssign(0, zero(), Tensor.zeros([1], g), 'add'),
    );
    await refuses('scatter', /index 0 is out of bounds for dim 0 of size 0/, () =>
      Tensor.zeros([0], g).scatter(0, zero(), Tensor.zeros([1], g), 'add'),
    );
    await refuses('scatterNd', /out of bounds/, () =>
      Tensor.zeros([0, 3], g).scatterNd(Tensor.fromInts([[0]], g), Tensor.zeros([1, 3], g), 'add'),
    );
    // An empty index list into an empty tensor is fine, and the device stays usable.
    assert.deepEqual(
      [
        ...(
          await Tensor.zeros([0], g)
            .scatter(0, Tensor.zeros([0], { device: g, dtype: 'i32' }) as Tensor<1, Int>, Tensor.zeros([0], g), 'add')
            .toData()
        ).shape,
      ],
      [0],
    );
    assert.deepEqual(Array.from((await Tensor.ones([2], g).toData()).toArray()), [1, 1]);
  });
});

describe('out-of-range indices selecting empty slices are refused', () => {
  const devices: [string, () => Device][] = cpuDevices.map(([n, d]) => [n, () => d]);
  devices.push(['remote', () => Device.remote(remoteServer.url)]);
  if (webgpu.device) devices.push(['webgpu', () => webgpu.device!]);
  // The autodiff decorator over the CPU and WebGPU (its select is not the inner backend's).
  devices.push(['autodiff<cpu(js)>', () => Device.cpu({ engine: 'js' }).autodiff()]);
  if (webgpu.device) devices.push(['autodiff<webgpu>', () => webgpu.device!.autodiff()]);
  for (const [name, device] of devices) {
    it(`on ${name}`, async () => {
      const d = device();
      const x = Tensor.zeros([3, 0], d) as F;
      const five = () => Tensor.fromInts([5], d) as Tensor<1, Int>;
      await refuses('select', /index 5 is out of bounds for dim 0 of size 3/, () => x.select(0, five()));
      await refuses('take', /index 5 is out of bounds for dim 0 of size 3/, () => x.take(0, five()));
      await refuses('selectAssign', /index 5 is out of bounds for dim 0 of size 3/, () =>
        x.selectAssign(0, five(), Tensor.zeros([1, 0], d), 'add'),
      );
      await refuses('gatherNd', /out of bounds/, () => x.gatherNd(Tensor.fromInts([[5]], d)));
      await refuses('scatterNd', /out of bounds/, () =>
        x.scatterNd(Tensor.fromInts([[5]], d), Tensor.zeros([1, 0], d), 'add'),
      );
      // In-range indices into empty slices still work, and the device stays usable.
      assert.deepEqual(await shapeOf(x.select(0, Tensor.fromInts([2, 0], d) as Tensor<1, Int>)), [2, 0]);
      assert.deepEqual(
        await shapeOf(x.selectAssign(0, Tensor.fromInts([1], d) as Tensor<1, Int>, Tensor.zeros([1, 0], d), 'add')),
        [3, 0],
      );
      assert.deepEqual(Array.from((await Tensor.ones([2], d).toData()).toArray()), [1, 1]);
    });
  }
});

describe('remote: an orphaned index check does not fail the next read', () => {
  it('scatterNd / gatherNd whose check was sent before a client-side error', async () => {
    const d = Device.remote(remoteServer.url);
    const x = Tensor.zeros([2, 3], d) as F;
    assert.throws(
      () => x.scatterNd(Tensor.fromInts([[7]], d), Tensor.zeros([5, 5], d), 'add'),
      (e: unknown) => e instanceof BurnError && /values of shape \[5, 5\]/.test(e.message),
    );
    assert.deepEqual(Array.from((await Tensor.ones([2], d).toData()).toArray()), [1, 1]);
    // A checked result never read: its failure belongs to it alone.
    x.gatherNd(Tensor.fromInts([[9]], d));
    assert.deepEqual(Array.from((await Tensor.ones([3], d).toData()).toArray()), [1, 1, 1]);
    // A read of what the check guards still throws the check's error, naming the user's op.
    await refuses('gatherNd', /index component 9/, () => x.gatherNd(Tensor.fromInts([[9]], d)));
    await refuses('oneHot', /class index 5 is out of range for 3 classes/, () => Tensor.fromInts([0, 5], d).oneHot(3));
    assert.deepEqual(Array.from((await Tensor.ones([1], d).toData()).toArray()), [1]);
  });
});
