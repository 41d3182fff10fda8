// functional.deformConv2d against torchvision.ops.deform_conv2d (with and without mask, offset
// groups, weight groups, stride, padding, dilation; offsets large enough to sample outside).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { functional, Tensor } from '../../src/index.js';
import { conformanceDevices } from '../helpers/devices.js';
import { expectClose } from '../helpers/fixtures.js';
import { ACC, fcase, input, maybe, output, param } from './helpers.js';

for (const { name, device } of conformanceDevices()) {
  describe(`functional deformConv2d on ${name}`, () => {
    for (const id of ['deform_basic', 'deform_mask_stride_pad', 'deform_groups']) {
      it(id, async () => {
        const c = fcase(id);
        const dev = device();
        const y = functional.deformConv2d(
          input<4>(c, 'x', dev),
          input<4>(c, 'offset', dev),
          input<4>(c, 'weight', dev),
          maybe<4>(c, 'mask', dev),
          maybe<1>(c, 'bias', dev),
          {
            stride: param(c, 'stride'),
            padding: param(c, 'padding'),
            dilation: param(c, 'dilation'),
            weightGroups: param(c, 'weightGroups'),
            offsetGroups: param(c, 'offsetGroups'),
          },
        );
        await expectClose(y, output(c, 'y'), ACC, id);
      });
    }
    it('zero offsets and a mask of ones give the plain convolution', async () => {
      const c = fcase('deform_basic');
      const dev = device();
      const x = input<4>(c, 'x', dev),
        w = input<4>(c, 'weight', dev),
        b = maybe<1>(c, 'bias', dev);
      const zeros = Tensor.zeros([1, 18, 3, 3], dev),
        ones = Tensor.ones([1, 9, 3, 3], dev);
      const deform = await functional.deformConv2d(x, zeros, w, ones, b).toData();
      const plain = await functional.conv2d(x, w, b).toData();
      assert.deepEqual(deform.shape, [1, 2, 3, 3]);
      Array.from(plain.toArray()).forEach((v, i) => assert.ok(Math.abs(v - deform.toArray()[i]!) < 1e-5));
    });
  });
}
