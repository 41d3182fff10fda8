// Default random draws of integer dtypes cover the whole range of the dtype (the word's low bits
// read as the dtype), identically on every device.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Distribution, Tensor, type DType } from '../../src/index.js';
import { conformanceDevices } from '../helpers/devices.js';

const RANGES: [DType, number, number][] = [
  ['u8', 0, 255],
  ['i8', -128, 127],
  ['u16', 0, 65535],
  ['i16', -32768, 32767],
  ['u32', 0, 2 ** 32 - 1],
  ['i32', -(2 ** 31), 2 ** 31 - 1],
];

let reference: Map<DType, number[]> | undefined;

for (const { name, device: makeDevice, dtypes } of conformanceDevices({ fusion: true })) {
  describe(`default integer random draws on ${name}`, () => {
    for (const [dtype, lo, hi] of RANGES) {
      it(`${dtype} spans [${lo}, ${hi}] and matches the first device`, async () => {
        if (dtypes && !dtypes.has(dtype)) return;
        const device = makeDevice();
        device.seed(11);
        const values = Array.from(
          (await Tensor.random([4096], Distribution.Default, { device, dtype }).toData()).toArray(),
        );
        assert.ok(values.every((v) => Number.isInteger(v) && v >= lo && v <= hi));
        const quarter = (hi - lo) / 4;
        // Each quarter of the range gets about a quarter of the draws (not saturated at the ends).
        for (let q = 0; q < 4; q++) {
          const count = values.filter(
            (v) => v >= lo + q * quarter && v < lo + (q + 1) * quarter + (q === 3 ? 1 : 0),
          ).length;
          assert.ok(count > 850 && count < 1200, `${dtype}: quarter ${q} has ${count} of 4096 draws`);
        }
        reference ??= new Map();
        const first = reference.get(dtype);
        if (first) assert.deepEqual(values, first);
        else reference.set(dtype, values);
      });
    }
  });
}
