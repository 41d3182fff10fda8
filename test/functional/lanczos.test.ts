// functional.interpolate with mode 'lanczos3' (Burn's `InterpolateMode::Lanczos3`) with the values
// of Burn's backend tests (crates/burn-backend-tests at 2c06be35,
// tests/tensor/float/module/lanczos3_interpolate.rs; each case names its Burn test) on every
// conformance device, and its gradient (a composite of two matmuls) against finite differences.
import assert from 'node:assert/strict';
import { describe, it as plainIt } from 'node:test';
import { Device, functional, Tensor, type Float } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { gradCheck } from '../helpers/grad-check.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';
import { assertApproxEq, PERMISSIVE } from './burn-helpers.js';
import { throwsBurn } from './helpers.js';
import { lanczos3Resize } from '../../src/tensor/functional/lanczos.js';

/** Burn's `InterpolateTestCase`: an arange input resized with Lanczos3. */
function resize(d: Device, [n, c, h, w]: number[], out: [number, number], alignCorners = true): Tensor<4, Float> {
  const x = Tensor.arange(0, n! * c! * h! * w!, d)
    .float()
    .reshape([n!, c!, h!, w!]) as Tensor<4, Float>;
  return functional.interpolate(x, out, { mode: 'lanczos3', alignCorners });
}

const UPSAMPLE = [
  [
    [-0.0, 0.5685, 1.3918, 2.0, 2.6082, 3.4315, 4.0],
    [4.0822, 4.6507, 5.474, 6.0822, 6.6904, 7.5137, 8.0822],
    [8.7971, 9.3656, 10.1889, 10.7971, 11.4053, 12.2286, 12.7971],
    [12.8964, 13.4649, 14.2882, 14.8964, 15.5046, 16.3279, 16.8964],
    [17.1036, 17.6721, 18.4954, 19.1036, 19.7118, 20.5351, 21.1036],
    [21.2029, 21.7715, 22.5947, 23.2029, 23.8112, 24.6344, 25.2029],
    [25.9178, 26.4863, 27.3096, 27.9178, 28.526, 29.3493, 29.9178],
    [30.0, 30.5685, 31.3918, 32.0, 32.6082, 33.4315, 34.0],
  ],
  [
    [35.0, 35.5685, 36.3918, 37.0, 37.6082, 38.4315, 39.0],
    [39.0822, 39.6507, 40.474, 41.0822, 41.6904, 42.5137, 43.0822],
    [43.7971, 44.3656, 45.1888, 45.7971, 46.4053, 47.2286, 47.7971],
    [47.8964, 48.4649, 49.2882, 49.8964, 50.5046, 51.3279, 51.8964],
    [52.1036, 52.6721, 53.4954, 54.1036, 54.7118, 55.5351, 56.1036],
    [56.2029, 56.7715, 57.5947, 58.2029, 58.8112, 59.6344, 60.2029],
    [60.9178, 61.4863, 62.3096, 62.9178, 63.526, 64.3493, 64.9178],
    [65.0, 65.5685, 66.3918, 67.0, 67.6082, 68.4315, 69.0],
  ],
];

const UPSAMPLE_2X = [
  [-0.0, 0.2972, 0.8164, 1.3131, 1.6869, 2.1836, 2.7028, 3.0],
  [1.1889, 1.4861, 2.0053, 2.502, 2.8758, 3.3725, 3.8917, 4.1889],
  [3.2658, 3.563, 4.0822, 4.5789, 4.9527, 5.4493, 5.9685, 6.2658],
  [5.2524, 5.5496, 6.0689, 6.5655, 6.9393, 7.436, 7.9552, 8.2524],
  [6.7476, 7.0448, 7.564, 8.0607, 8.4345, 8.9311, 9.4504, 9.7476],
  [8.7342, 9.0315, 9.5507, 10.0473, 10.4211, 10.9178, 11.437, 11.7342],
  [10.8111, 11.1083, 11.6275, 12.1242, 12.498, 12.9947, 13.5139, 13.8111],
  [12.0, 12.2972, 12.8164, 13.3131, 13.6869, 14.1836, 14.7028, 15.0],
];

const HALF_PIXEL = [
  [-0.4626, -0.2276, 0.3055, 0.9087, 1.3512, 1.9543, 2.4875, 2.7225],
  [0.4773, 0.7123, 1.2454, 1.8486, 2.2911, 2.8942, 3.4274, 3.6623],
  [2.6099, 2.8449, 3.378, 3.9812, 4.4237, 5.0268, 5.56, 5.7949],
  [5.0224, 5.2574, 5.7906, 6.3937, 6.8362, 7.4394, 7.9725, 8.2075],
  [6.7925, 7.0275, 7.5606, 8.1638, 8.6063, 9.2094, 9.7426, 9.9776],
  [9.2051, 9.44, 9.9732, 10.5763, 11.0188, 11.622, 12.1551, 12.3901],
  [11.3377, 11.5726, 12.1058, 12.7089, 13.1514, 13.7546, 14.2877, 14.5227],
  [12.2775, 12.5125, 13.0457, 13.6488, 14.0913, 14.6945, 15.2276, 15.4626],
];

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  const it = itOn(entry);
  describe(`lanczos3 interpolation on ${name}`, () => {
    it('test_upsample_interpolation', () =>
      assertApproxEq(
        resize(device(), [2, 1, 7, 5], [8, 7]),
        UPSAMPLE.map((p) => [p]),
        PERMISSIVE,
      ));
    it('test_downsample_interpolation', () =>
      assertApproxEq(
        resize(device(), [1, 1, 45, 14], [4, 6]),
        [
          [
            [
              [-0.0, 2.6107, 5.1803, 7.8197, 10.3893, 13.0],
              [205.5606, 208.1713, 210.7408, 213.3802, 215.9498, 218.5606],
              [410.4395, 413.0502, 415.6198, 418.2592, 420.8287, 423.4395],
              [616.0, 618.6107, 621.1803, 623.8197, 626.3893, 629.0],
            ],
          ],
        ],
        PERMISSIVE,
      ));
    it('test_upsample_2x', () => assertApproxEq(resize(device(), [1, 1, 4, 4], [8, 8]), [[UPSAMPLE_2X]], PERMISSIVE));
    it('test_upsample_half_pixel', () =>
      assertApproxEq(resize(device(), [1, 1, 4, 4], [8, 8], false), [[HALF_PIXEL]], PERMISSIVE));
    it('test_1d_lanczos3', async () => {
      const x = Tensor.fromFloats([[[1.541, -0.2934, -2.1788, 0.5684, -1.0845, -1.3986]]], device()).unsqueezeDim(
        2,
      ) as Tensor<4, Float>;
      const y = functional.interpolate(x, [1, 9], { mode: 'lanczos3' });
      assert.deepEqual(y.dims(), [1, 1, 1, 9]);
      assert.ok(!Array.from((await y.toData()).toArray()).some(Number.isNaN), 'no NaN');
      await assertApproxEq(
        y,
        [[[[1.541, 0.7266, -1.1387, -2.2672, -0.7894, 0.6408, -0.4967, -1.465, -1.3986]]]],
        PERMISSIVE,
      );
    });
    it('the gathered-taps path (large axes) equals the dense-matmul path', async () => {
      const d = device();
      const x = Tensor.arange(0, 2 * 7 * 9, d)
        .float()
        .reshape([1, 2, 7, 9])
        .sin() as Tensor<4, Float>;
      for (const [out, align] of [
        [[12, 5], true],
        [[4, 16], false],
      ] as const) {
        const dense = await lanczos3Resize(x, out, align).toData();
        await assertApproxEq(
          lanczos3Resize(x, out, align, 0),
          nest(Array.from(dense.toArray(), Number), dense.shape),
          { relative: 1e-5, absolute: 1e-6 },
          `${out}`,
        );
      }
    });
    it('output size 1 and identity sizes keep the samples', async () => {
      const d = device();
      const x = Tensor.arange(0, 12, d).float().reshape([1, 1, 3, 4]) as Tensor<4, Float>;
      await assertApproxEq(
        functional.interpolate(x, [3, 4], { mode: 'lanczos3' }),
        [
          [
            [
              [0, 1, 2, 3],
              [4, 5, 6, 7],
              [8, 9, 10, 11],
            ],
          ],
        ],
        { relative: 1e-6, absolute: 1e-5 },
      );
      await assertApproxEq(functional.interpolate(x, [1, 1], { mode: 'lanczos3' }), [[[[0]]]], {
        relative: 1e-6,
        absolute: 1e-5,
      });
    });
  });
}

describe('lanczos3 gradients', () => {
  for (const [name, device] of [
    ['autodiff<cpu(js)>', () => Device.cpu({ engine: 'js' }).autodiff()],
    ['autodiff<required-only>', () => requiredOnlyDevice().autodiff()],
  ] as const) {
    plainIt(`finite differences on ${name} (up and down, both corner alignments)`, async () => {
      for (const [out, alignCorners] of [
        [[5, 7], true],
        [[2, 3], false],
      ] as const) {
        const err = await gradCheck(device(), [{ shape: [2, 1, 4, 5] }], (x) =>
          functional.interpolate(x as Tensor<4, Float>, [...out], { mode: 'lanczos3', alignCorners }),
        );
        assert.ok(err < 1e-6, `${out}: max relative error ${err}`);
      }
    });
  }
  plainIt('finite differences through the gathered-taps path', async () => {
    const err = await gradCheck(Device.cpu({ engine: 'js' }).autodiff(), [{ shape: [1, 2, 4, 5] }], (x) =>
      lanczos3Resize(x as Tensor<4, Float>, [6, 3], true, 0),
    );
    assert.ok(err < 1e-6, `max relative error ${err}`);
  });
  plainIt('unknown modes still name every mode', () => {
    throwsBurn(
      () => functional.interpolate(Tensor.ones([1, 1, 2, 2]) as Tensor<4, Float>, 3, { mode: 'lanczos' as never }),
      'interpolate',
      "'lanczos3'",
    );
  });
});

function nest(values: number[], shape: readonly number[]): unknown {
  if (shape.length === 0) return values[0];
  const inner = shape.slice(1).reduce((a, b) => a * b, 1);
  return Array.from({ length: shape[0]! }, (_, i) => nest(values.slice(i * inner, (i + 1) * inner), shape.slice(1)));
}
