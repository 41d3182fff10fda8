// functional.unfold4d / fold4d against torch.nn.functional.unfold / fold.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { functional, Tensor } from '../../src/index.js';
import { conformanceDevices } from '../helpers/devices.js';
import { expectClose } from '../helpers/fixtures.js';
import { fcase, input, output, param } from './helpers.js';

for (const { name, device } of conformanceDevices()) {
  describe(`functional unfold4d/fold4d on ${name}`, () => {
    it('unfold4d with stride, padding and dilation', async () => {
      const c = fcase('unfold4d');
      const dev = device();
      const y = functional.unfold4d(input<4>(c, 'x', dev), param(c, 'kernel_size'), {
        stride: param(c, 'stride'),
        padding: param(c, 'padding'),
        dilation: param(c, 'dilation'),
      });
      await expectClose(y, output(c, 'y'), { rtol: 0, atol: 0 });
    });
    for (const id of ['fold4d', 'fold4d_overlap']) {
      it(`${id} sums overlapping blocks`, async () => {
        const c = fcase(id);
        const dev = device();
        const y = functional.fold4d(input<3>(c, 'cols', dev), param(c, 'output_size'), param(c, 'kernel_size'), {
          stride: param(c, 'stride'),
          padding: param(c, 'padding'),
          dilation: param(c, 'dilation'),
        });
        await expectClose(y, output(c, 'y'), { rtol: 1e-5, atol: 1e-6 });
      });
    }
    it('fold4d is the adjoint of unfold4d: <unfold(x), c> == <x, fold(c)>', async () => {
      const dev = device();
      const x = Tensor.fromFloats(
        [
          [
            [
              [1, 2, 3],
              [4, 5, 6],
              [7, 8, 9],
            ],
          ],
        ],
        dev,
      );
      const cols = functional.unfold4d(x, 2, { padding: 1 });
      const c = cols.mul(0).add(1).add(cols.mul(0.5));
      const lhs = await cols.mul(c).sum().intoScalar();
      const rhs = await x
        .mul(functional.fold4d(c, [3, 3], 2, { padding: 1 }))
        .sum()
        .intoScalar();
      assert.ok(Math.abs(lhs - rhs) < 1e-3, `${lhs} vs ${rhs}`);
    });
  });
}
