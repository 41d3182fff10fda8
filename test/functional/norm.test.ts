// functional.batchNorm / batchNormWithStats / layerNorm against PyTorch's F.batch_norm and
// F.layer_norm. The updated running variance follows Burn's BatchNorm (biased batch variance;
// PyTorch uses the unbiased one there).
import { describe, it } from 'node:test';
import { functional } from '../../src/index.js';
import { conformanceDevices } from '../helpers/devices.js';
import { expectClose } from '../helpers/fixtures.js';
import { fcase, input, output } from './helpers.js';

const TOL = { rtol: 1e-4, atol: 1e-5 };

for (const { name, device } of conformanceDevices()) {
  describe(`functional norms on ${name}`, () => {
    for (const id of ['batchnorm_3d', 'batchnorm_4d']) {
      it(`${id}: inference with running statistics`, async () => {
        const c = fcase(id);
        const dev = device();
        const [x, rm, rv] = [input(c, 'x', dev), input<1>(c, 'runningMean', dev), input<1>(c, 'runningVar', dev)];
        const y = functional.batchNorm(x, rm, rv, {
          weight: input<1>(c, 'weight', dev),
          bias: input<1>(c, 'bias', dev),
        });
        await expectClose(y, output(c, 'inference'), TOL);
        await expectClose(functional.batchNorm(x, rm, rv), output(c, 'inference_plain'), TOL);
      });
      it(`${id}: training with batch statistics and updated running statistics`, async () => {
        const c = fcase(id);
        const dev = device();
        const [x, rm, rv] = [input(c, 'x', dev), input<1>(c, 'runningMean', dev), input<1>(c, 'runningVar', dev)];
        const o = {
          weight: input<1>(c, 'weight', dev),
          bias: input<1>(c, 'bias', dev),
          training: true,
          momentum: 0.2,
          epsilon: 1e-3,
        };
        await expectClose(functional.batchNorm(x, rm, rv, o), output(c, 'training'), TOL);
        const s = functional.batchNormWithStats(x, rm, rv, o);
        await expectClose(s.output, output(c, 'training'), TOL);
        await expectClose(s.runningMean, output(c, 'runningMean'), TOL);
        await expectClose(s.runningVar, output(c, 'runningVar'), TOL);
      });
    }
    it('layerNorm over the last dim with weight and bias, and over two dims', async () => {
      const c = fcase('layernorm');
      const dev = device();
      const x = input<3>(c, 'x', dev);
      await expectClose(
        functional.layerNorm(x, [4], { weight: input<1>(c, 'weight', dev), bias: input<1>(c, 'bias', dev) }),
        output(c, 'last'),
        TOL,
      );
      await expectClose(functional.layerNorm(x, [3, 4], { epsilon: 1e-3 }), output(c, 'last2_plain'), TOL);
    });
  });
}
