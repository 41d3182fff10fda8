// functional.linear / embedding against PyTorch (Burn's linear weight is [dIn, dOut]: y = x·W + b).
import { describe, it } from 'node:test';
import { functional, type Int } from '../../src/index.js';
import { conformanceDevices } from '../helpers/devices.js';
import { expectClose } from '../helpers/fixtures.js';
import { ACC, fcase, input, maybe, output } from './helpers.js';

for (const { name, device } of conformanceDevices()) {
  describe(`functional linear/embedding on ${name}`, () => {
    it('linear with bias over a rank-3 input', async () => {
      const c = fcase('linear');
      const dev = device();
      const y = functional.linear(input<3>(c, 'x', dev), input<2>(c, 'weight', dev), maybe<1>(c, 'bias', dev));
      await expectClose(y, output(c, 'y'), ACC);
    });
    it('linear of a vector without bias', async () => {
      const c = fcase('linear_rank1_nobias');
      const dev = device();
      await expectClose(functional.linear(input<1>(c, 'x', dev), input<2>(c, 'weight', dev)), output(c, 'y'), ACC);
    });
    it('embedding looks up rows', async () => {
      const c = fcase('embedding');
      const dev = device();
      const y = functional.embedding(input<2>(c, 'weights', dev), input<2, Int>(c, 'indices', dev));
      await expectClose(y, output(c, 'y'), { rtol: 0, atol: 0 });
    });
  });
}
