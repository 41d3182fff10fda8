// functional.conv1d/2d/3d and convTranspose1d/2d/3d against PyTorch (stride, padding, dilation,
// groups incl. depthwise, output padding, bias and no bias).
import { describe, it } from 'node:test';
import { functional, type Tensor } from '../../src/index.js';
import { conformanceDevices } from '../helpers/devices.js';
import { expectClose } from '../helpers/fixtures.js';
import { ACC, fcase, input, maybe, output, param } from './helpers.js';

type PerDim = number | number[];
const CONV = [
  'conv1d_basic',
  'conv1d_stride_pad_dil',
  'conv1d_groups',
  'conv2d_basic',
  'conv2d_stride_dil',
  'conv2d_groups',
  'conv2d_depthwise',
  'conv3d_basic',
  'conv3d_groups',
];
const CONVT = [
  'convT1d_basic',
  'convT1d_groups_dil',
  'convT2d_basic',
  'convT2d_groups_dil',
  'convT2d_crop',
  'convT3d_basic',
  'convT3d_groups',
];

for (const { name, device } of conformanceDevices()) {
  describe(`functional conv on ${name}`, () => {
    for (const id of CONV) {
      it(id, async () => {
        const c = fcase(id);
        const dev = device();
        const [x, w, b] = [input(c, 'x', dev), input(c, 'weight', dev), maybe<1>(c, 'bias', dev)];
        const o = {
          stride: param<PerDim>(c, 'stride'),
          padding: param<PerDim>(c, 'padding'),
          dilation: param<PerDim>(c, 'dilation'),
          groups: param<number>(c, 'groups'),
        };
        const nd = param<number>(c, 'nd');
        const y =
          nd === 1
            ? functional.conv1d(x as Tensor<3>, w as Tensor<3>, b, o)
            : nd === 2
              ? functional.conv2d(x as Tensor<4>, w as Tensor<4>, b, o)
              : functional.conv3d(x as Tensor<5>, w as Tensor<5>, b, o);
        await expectClose(y, output(c, 'y'), ACC, id);
      });
    }
    for (const id of CONVT) {
      it(id, async () => {
        const c = fcase(id);
        const dev = device();
        const [x, w, b] = [input(c, 'x', dev), input(c, 'weight', dev), maybe<1>(c, 'bias', dev)];
        const o = {
          stride: param<PerDim>(c, 'stride'),
          padding: param<PerDim>(c, 'padding'),
          paddingOut: param<PerDim>(c, 'output_padding'),
          dilation: param<PerDim>(c, 'dilation'),
          groups: param<number>(c, 'groups'),
        };
        const nd = param<number>(c, 'nd');
        const y =
          nd === 1
            ? functional.convTranspose1d(x as Tensor<3>, w as Tensor<3>, b, o)
            : nd === 2
              ? functional.convTranspose2d(x as Tensor<4>, w as Tensor<4>, b, o)
              : functional.convTranspose3d(x as Tensor<5>, w as Tensor<5>, b, o);
        await expectClose(y, output(c, 'y'), ACC, id);
      });
    }
    it('defaults: stride 1, no padding, dilation 1, one group', async () => {
      const c = fcase('conv2d_basic');
      const dev = device();
      const x = input<4>(c, 'x', dev),
        w = input<4>(c, 'weight', dev);
      // A padded 1-pixel border cropped away equals the unpadded convolution.
      const padded = functional.conv2d(x, w, undefined, { padding: 1 }).slice([null, null, [1, -1], [1, -1]]);
      const plain = functional.conv2d(x, w);
      await expectClose(plain, { shape: plain.dims(), data: Array.from((await padded.toData()).toArray()) }, ACC);
    });
  });
}
