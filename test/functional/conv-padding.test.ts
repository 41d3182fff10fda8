// Asymmetric convolution padding (Burn's `PaddedConvOptions::asymmetric`): functional.conv1d/2d/3d
// with `paddingEnd`. Values of Burn's tests (burn-nn conv1d/conv2d `asymmetric_padding_forward`,
// `same_with_even_kernel_uses_asymmetric_padding`; burn-backend-tests autodiff/conv1d.rs
// `test_conv1d_asymmetric_padding_backward_shape`), the equality with an explicit zero pad followed
// by an unpadded convolution (Burn's own definition) on every conformance device, and gradients.
import assert from 'node:assert/strict';
import { describe, it as plainIt } from 'node:test';
import { Device, functional, Tensor, type Float } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { gradCheck } from '../helpers/grad-check.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';
import { assertApproxEq, BALANCED, uniform } from './burn-helpers.js';
import { throwsBurn } from './helpers.js';

type T = Tensor<number, Float>;

/** The value of a ones-kernel convolution of ones: C_in times the in-bounds taps of each window. */
function onesConv(
  size: number[],
  start: number[],
  end: number[],
  kernel: number[],
  cIn: number,
  cOut: number,
): number[] {
  const counts = size.map((s, d) => {
    const out = s + start[d]! + end[d]! - kernel[d]! + 1;
    return Array.from({ length: out }, (_, o) => {
      let n = 0;
      for (let k = 0; k < kernel[d]!; k++) {
        const i = o + k - start[d]!;
        if (i >= 0 && i < s) n++;
      }
      return n;
    });
  });
  const plane: number[] = counts.reduce<number[]>((acc, c) => acc.flatMap((a) => c.map((b) => a * b)), [cIn]);
  return new Array<number[]>(cOut).fill(plane).flat();
}

const CONV = [functional.conv1d, functional.conv2d, functional.conv3d] as unknown as ((
  x: T,
  w: T,
  b: T | undefined,
  o: object,
) => T)[];

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  const it = itOn(entry);
  describe(`asymmetric conv padding on ${name}`, () => {
    it('asymmetric_padding_forward (burn-nn conv1d): left 1, right 2', async () => {
      const d = device();
      const y = functional.conv1d(Tensor.ones([1, 2, 4], d), Tensor.ones([3, 2, 3], d), undefined, {
        padding: 1,
        paddingEnd: 2,
      });
      assert.deepEqual(y.dims(), [1, 3, 5]);
      await assertApproxEq(
        y,
        [
          [
            [4, 6, 6, 4, 2],
            [4, 6, 6, 4, 2],
            [4, 6, 6, 4, 2],
          ],
        ],
        BALANCED,
      );
    });

    it('asymmetric_padding_forward (burn-nn conv2d): top 1, left 2, bottom 3, right 4', async () => {
      const d = device();
      const y = functional.conv2d(Tensor.ones([1, 2, 4, 5], d), Tensor.ones([3, 2, 3, 3], d), undefined, {
        padding: [1, 2],
        paddingEnd: [3, 4],
      });
      assert.deepEqual(y.dims(), [1, 3, 6, 9]);
      assert.deepEqual(Array.from((await y.toData()).toArray()), onesConv([4, 5], [1, 2], [3, 4], [3, 3], 2, 3));
    });

    it('same_with_even_kernel_uses_asymmetric_padding (burn-nn conv1d/conv2d): kernel 2 keeps the size', async () => {
      const d = device();
      const y1 = functional.conv1d(Tensor.ones([1, 4, 5], d), Tensor.ones([4, 4, 2], d), undefined, {
        padding: 0,
        paddingEnd: 1,
      });
      assert.deepEqual(y1.dims(), [1, 4, 5]);
      assert.deepEqual(Array.from((await y1.toData()).toArray()), onesConv([5], [0], [1], [2], 4, 4));
      const y2 = functional.conv2d(Tensor.ones([1, 4, 5, 5], d), Tensor.ones([4, 4, 2, 2], d), undefined, {
        padding: 0,
        paddingEnd: 1,
      });
      assert.deepEqual(y2.dims(), [1, 4, 5, 5]);
      assert.deepEqual(Array.from((await y2.toData()).toArray()), onesConv([5, 5], [0, 0], [1, 1], [2, 2], 4, 4));
    });

    it('conv3d accepts asymmetric padding too (Burn panics: "not yet supported for conv3d")', async () => {
      const d = device();
      const y = functional.conv3d(Tensor.ones([1, 1, 3, 4, 2], d), Tensor.ones([2, 1, 2, 3, 2], d), undefined, {
        padding: [1, 0, 2],
        paddingEnd: [0, 2, 1],
      });
      assert.deepEqual(y.dims(), [1, 2, 3, 4, 4]);
      assert.deepEqual(
        Array.from((await y.toData()).toArray()),
        onesConv([3, 4, 2], [1, 0, 2], [0, 2, 1], [2, 3, 2], 1, 2),
      );
    });

    it('equals x.pad(zeros) followed by an unpadded conv (stride, dilation, groups, bias; paddingEnd below padding)', async () => {
      const d = device();
      const cases: [
        nd: number,
        x: number[],
        w: number[],
        o: { padding: number[]; paddingEnd: number[]; stride: number[]; dilation: number[]; groups: number },
      ][] = [
        [1, [2, 4, 9], [6, 2, 3], { padding: [3], paddingEnd: [1], stride: [2], dilation: [2], groups: 2 }],
        [
          2,
          [1, 2, 5, 6],
          [4, 2, 2, 3],
          { padding: [0, 2], paddingEnd: [1, 0], stride: [1, 2], dilation: [2, 1], groups: 1 },
        ],
        [
          3,
          [1, 2, 3, 4, 5],
          [2, 1, 2, 2, 3],
          { padding: [1, 0, 0], paddingEnd: [0, 1, 2], stride: [1, 1, 2], dilation: [1, 1, 1], groups: 2 },
        ],
      ];
      for (const [i, [nd, xs, ws, o]] of cases.entries()) {
        const x = Tensor.fromFloats(
          uniform(
            xs.reduce((a, b) => a * b),
            10 + i,
          ),
          d,
        ).reshape(xs) as T;
        const w = Tensor.fromFloats(
          uniform(
            ws.reduce((a, b) => a * b),
            20 + i,
          ),
          d,
        ).reshape(ws) as T;
        const bias = Tensor.fromFloats(uniform(ws[0]!, 30 + i), d);
        const y = CONV[nd - 1]!(x, w, bias, o);
        const reference = CONV[nd - 1]!(
          x.pad(o.padding.map((p, k) => [p, o.paddingEnd[k]!] as [number, number])),
          w,
          bias,
          { stride: o.stride, dilation: o.dilation, groups: o.groups },
        );
        const want = await reference.toData();
        await assertApproxEq(
          y,
          nestedOf(Array.from(want.toArray(), Number), want.shape),
          { relative: 1e-5, absolute: 1e-6 },
          `conv${nd}d`,
        );
      }
    });
  });
}

function nestedOf(values: number[], shape: readonly number[]): unknown {
  if (shape.length === 0) return values[0];
  const inner = shape.slice(1).reduce((a, b) => a * b, 1);
  return Array.from({ length: shape[0]! }, (_, i) =>
    nestedOf(values.slice(i * inner, (i + 1) * inner), shape.slice(1)),
  );
}

const gradDevices: [string, () => Device][] = [
  ['autodiff<cpu(js)>', () => Device.cpu({ engine: 'js' }).autodiff()],
  ['autodiff<required-only>', () => requiredOnlyDevice().autodiff()],
];

for (const [name, device] of gradDevices) {
  describe(`asymmetric conv padding gradients on ${name}`, () => {
    plainIt(
      'test_conv1d_asymmetric_padding_backward_shape: stride 4, padding 3 before and 0 after, 1600 samples',
      () => {
        const d = device();
        const x = Tensor.zeros([1, 32, 1600], d).requireGrad();
        const w = Tensor.zeros([64, 32, 4], d).requireGrad();
        const grads = functional.conv1d(x, w, undefined, { stride: 4, padding: 3, paddingEnd: 0 }).sum().backward();
        assert.deepEqual(x.grad(grads)!.dims(), [1, 32, 1600]);
        assert.deepEqual(w.grad(grads)!.dims(), [64, 32, 4]);
      },
    );

    plainIt(
      'finite differences of conv1d, conv2d and conv3d with asymmetric padding (input, weight, bias)',
      async () => {
        const d = device();
        const cases: [string, number[][], (...t: Tensor<number>[]) => Tensor<number>][] = [
          [
            'conv1d',
            [[2, 2, 6], [3, 2, 3], [3]],
            (x, w, b) =>
              functional.conv1d(x as Tensor<3>, w as Tensor<3>, b as Tensor<1>, {
                padding: 2,
                paddingEnd: 0,
                stride: 2,
              }),
          ],
          [
            'conv2d',
            [[1, 2, 4, 3], [2, 1, 2, 2], [2]],
            (x, w, b) =>
              functional.conv2d(x as Tensor<4>, w as Tensor<4>, b as Tensor<1>, {
                padding: [0, 1],
                paddingEnd: [1, 2],
                groups: 2,
              }),
          ],
          [
            'conv3d',
            [[1, 1, 3, 2, 3], [2, 1, 2, 2, 2], [2]],
            (x, w, b) =>
              functional.conv3d(x as Tensor<5>, w as Tensor<5>, b as Tensor<1>, {
                padding: [1, 0, 1],
                paddingEnd: [0, 1, 0],
              }),
          ],
        ];
        for (const [label, shapes, fn] of cases) {
          const err = await gradCheck(
            d,
            shapes.map((shape) => ({ shape })),
            fn,
          );
          assert.ok(err < 1e-6, `${label}: max relative error ${err}`);
        }
      },
    );
  });
}

describe('asymmetric conv padding errors', () => {
  const d = Device.cpu();
  plainIt('name the option, its values and what was expected', () => {
    const x = Tensor.ones([1, 1, 4], d),
      w = Tensor.ones([1, 1, 3], d);
    throwsBurn(
      () => functional.conv1d(x, w, undefined, { padding: 1, paddingEnd: [1, 2] }),
      'conv1d',
      'paddingEnd [1, 2] has 2 entries',
      'expected 1',
    );
    throwsBurn(() => functional.conv1d(x, w, undefined, { paddingEnd: -1 }), 'conv1d', 'paddingEnd -1', 'non-negative');
    throwsBurn(
      () =>
        functional.conv1d(Tensor.ones([1, 1, 1], d), Tensor.ones([1, 1, 4], d), undefined, {
          padding: 0,
          paddingEnd: 2,
        }),
      'conv1d',
      'spatial dim 0 of size 1 (padding 0 before, 2 after)',
      'smaller than the dilated kernel 4',
    );
  });
});
