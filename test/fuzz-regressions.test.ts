// Regressions for defects found by the differential fuzz suite (test/fuzz), one case per FINDINGS
// item, on every CPU engine (js, native, wasm where they load):
// - sort / argsort / topk / median / unfold of an empty tensor return empty results without
//   allocating by the size of a (huge) non-zero dim;
// - ops on a zero-element strided tensor return at once instead of walking the rows of its
//   non-zero dims (2^30 rows took seconds per op), on every CPU engine and over remote.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor, type Float, type Kind } from '../src/index.js';
import { nativeTestDevice, remoteServer, wasmTestDevice } from './helpers/devices.js';

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
