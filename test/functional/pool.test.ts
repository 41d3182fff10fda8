// functional max / avg / adaptive pooling against PyTorch: indices, dilation, ceil mode, padding,
// countIncludePad true/false, non-divisible adaptive sizes.
import { describe, it } from 'node:test';
import { functional, type Tensor } from '../../src/index.js';
import { conformanceDevices } from '../helpers/devices.js';
import { expectClose, expectEqual } from '../helpers/fixtures.js';
import { fcase, input, output, param } from './helpers.js';

type PerDim = number | number[];
const TOL = { rtol: 1e-5, atol: 1e-6 };
const MAX = [
  'maxpool1d_basic',
  'maxpool1d_ceil_dil',
  'maxpool2d_basic',
  'maxpool2d_ceil',
  'maxpool2d_dil',
  'maxpool2d_default_stride',
];

for (const { name, device } of conformanceDevices()) {
  describe(`functional pooling on ${name}`, () => {
    for (const id of MAX) {
      it(`${id}: values and indices`, async () => {
        const c = fcase(id);
        const dev = device();
        const x = input(c, 'x', dev);
        const o = {
          stride: param<PerDim | null>(c, 'stride') ?? undefined,
          padding: param<PerDim>(c, 'padding'),
          dilation: param<PerDim>(c, 'dilation'),
          ceilMode: param<boolean>(c, 'ceil_mode'),
        };
        const k = param<PerDim>(c, 'kernel');
        const oneD = x.rank() === 3;
        const y = oneD
          ? functional.maxPool1d(x as Tensor<3>, k as number, o)
          : functional.maxPool2d(x as Tensor<4>, k, o);
        const [v, i] = oneD
          ? functional.maxPool1dWithIndices(x as Tensor<3>, k as number, o)
          : functional.maxPool2dWithIndices(x as Tensor<4>, k, o);
        await expectClose(y, output(c, 'y'), { rtol: 0, atol: 0 }, id);
        await expectClose(v, output(c, 'y'), { rtol: 0, atol: 0 }, id);
        const want = output(c, 'indices');
        await expectEqual(i, want.shape, want.data as number[], `${id} indices`);
      });
    }
    for (const id of ['avgpool1d', 'avgpool2d']) {
      for (const include of [true, false]) {
        for (const ceil of [false, true]) {
          it(`${id} countIncludePad=${include} ceilMode=${ceil}`, async () => {
            const c = fcase(id);
            const dev = device();
            const x = input(c, 'x', dev);
            const o = {
              stride: param<PerDim>(c, 'stride'),
              padding: param<PerDim>(c, 'padding'),
              countIncludePad: include,
              ceilMode: ceil,
            };
            const k = param<PerDim>(c, 'kernel');
            const y =
              x.rank() === 3
                ? functional.avgPool1d(x as Tensor<3>, k as number, o)
                : functional.avgPool2d(x as Tensor<4>, k, o);
            await expectClose(y, output(c, `y_${include ? 'inc' : 'exc'}_${ceil ? 'ceil' : 'floor'}`), TOL);
          });
        }
      }
    }
    it('avgPool2d defaults: stride = kernel, no padding', async () => {
      const c = fcase('avgpool2d_default_stride');
      await expectClose(functional.avgPool2d(input<4>(c, 'x', device()), 2), output(c, 'y'), TOL);
    });
    it('adaptiveAvgPool1d down and up (non-divisible)', async () => {
      const c = fcase('adaptive1d');
      const x = input<3>(c, 'x', device());
      await expectClose(functional.adaptiveAvgPool1d(x, 4), output(c, 'y4'), TOL);
      await expectClose(functional.adaptiveAvgPool1d(x, 13), output(c, 'y13'), TOL);
    });
    it('adaptiveAvgPool2d', async () => {
      const c = fcase('adaptive2d');
      const x = input<4>(c, 'x', device());
      await expectClose(functional.adaptiveAvgPool2d(x, [3, 4]), output(c, 'y34'), TOL);
      await expectClose(functional.adaptiveAvgPool2d(x, [7, 3]), output(c, 'y73'), TOL);
      await expectClose(functional.adaptiveAvgPool2d(x, 1), output(c, 'y1'), TOL);
    });
    it('adaptiveAvgPool3d', async () => {
      const c = fcase('adaptive3d');
      await expectClose(functional.adaptiveAvgPool3d(input<5>(c, 'x', device()), [2, 3, 4]), output(c, 'y'), TOL);
    });
  });
}
