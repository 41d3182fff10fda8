// Regressions for defects found by the differential fuzz suite (test/fuzz), one case per FINDINGS
// item, on every CPU engine (js, native, wasm where they load):
// - sort / argsort / topk / median / unfold of an empty tensor return empty results without
//   allocating by the size of a (huge) non-zero dim.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor, type Float, type Kind } from '../src/index.js';
import { nativeTestDevice, wasmTestDevice } from './helpers/devices.js';

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
