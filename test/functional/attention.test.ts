// functional.attention against PyTorch arithmetic (torch 1.13 has no scaled_dot_product_attention,
// so gen_functional.py writes Burn's formula with torch ops and checks its plain form against
// torch.softmax). Burn-specific: causal masks align at the bottom-right corner, a fully masked row
// gives zeros, softcap applies before masking and the bias after.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { functional, type Bool } from '../../src/index.js';
import { conformanceDevices } from '../helpers/devices.js';
import { expectClose } from '../helpers/fixtures.js';
import { ACC, fcase, input, output } from './helpers.js';

for (const { name, device } of conformanceDevices()) {
  describe(`functional attention on ${name}`, () => {
    const c = fcase('attention');
    const args = () => {
      const dev = device();
      return {
        q: input<4>(c, 'q', dev),
        k: input<4>(c, 'k', dev),
        v: input<4>(c, 'v', dev),
        mask: input<4, Bool>(c, 'mask', dev),
        bias: input<4>(c, 'bias', dev),
      };
    };
    it('plain softmax(q·kᵀ/sqrt(E))·v', async () => {
      const { q, k, v } = args();
      await expectClose(functional.attention(q, k, v), output(c, 'plain'), ACC);
    });
    it('bool mask (true = hidden); a fully masked row gives zeros', async () => {
      const { q, k, v, mask } = args();
      const y = functional.attention(q, k, v, { mask });
      await expectClose(y, output(c, 'mask'), ACC);
      const row = Array.from((await y.slice([0, 1, 2]).toData()).toArray());
      assert.deepEqual(row, [0, 0, 0]);
    });
    it('additive bias', async () => {
      const { q, k, v, bias } = args();
      await expectClose(functional.attention(q, k, v, { bias }), output(c, 'bias'), ACC);
    });
    it('causal with more keys than queries (bottom-right aligned)', async () => {
      const { q, k, v } = args();
      await expectClose(functional.attention(q, k, v, { isCausal: true }), output(c, 'causal'), ACC);
    });
    it('custom scale and softcap', async () => {
      const { q, k, v } = args();
      await expectClose(functional.attention(q, k, v, { scale: 0.3, softcap: 2 }), output(c, 'scale_softcap'), ACC);
    });
    it('mask, bias, causal, scale and softcap together', async () => {
      const { q, k, v, mask, bias } = args();
      await expectClose(
        functional.attention(q, k, v, { mask, bias, scale: 0.7, softcap: 1.5, isCausal: true }),
        output(c, 'all'),
        ACC,
      );
    });
    it('causal self-attention (square)', async () => {
      const s = fcase('attention_causal_square');
      const dev = device();
      const y = functional.attention(input<4>(s, 'q', dev), input<4>(s, 'k', dev), input<4>(s, 'v', dev), {
        isCausal: true,
      });
      await expectClose(y, output(s, 'y'), ACC);
    });
  });
}
