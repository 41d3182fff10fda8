// Attention as Burn defines it: functional.attention (the backend's op) against
// functional.attentionFallback (Burn's `attention_fallback`, written out in tensor ops), and the
// regressions of Burn's backend tests (crates/burn-backend-tests at 2c06be35,
// tests/tensor/float/module/attention.rs; each case names its Burn test): the soft cap applies
// before the masks, fully masked rows give zeros and no NaN (with and without causal masking), and
// biases and masks broadcast over batch and heads. Burn draws its inputs from
// `Distribution::Uniform`; these draw from a fixed pseudo-random sequence. Then gradients.
import assert from 'node:assert/strict';
import { describe, it as plainIt } from 'node:test';
import { Device, functional, Tensor, type Bool, type Float } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { gradCheck } from '../helpers/grad-check.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';
import { assertApproxEq, relAbs, uniform } from './burn-helpers.js';

type T4 = Tensor<4, Float>;
const rand = (shape: number[], seed: number, d: Device, lo = -1, hi = 1): T4 =>
  Tensor.fromFloats(
    uniform(
      shape.reduce((a, b) => a * b),
      seed,
      lo,
      hi,
    ),
    d,
  ).reshape(shape) as T4;
const boolMask = (shape: number[], seed: number, d: Device): Tensor<4, Bool> => rand(shape, seed, d, 0, 1).greater(0.7);
const values = async (t: Tensor<number, Float>) => Array.from((await t.toData()).toArray(), Number);

/** Burn's comparison tolerance of attention against the fallback. */
const TOL = relAbs(1e-2, 1e-3);

async function matchesFallback(
  d: Device,
  [b, h, l, s, e, ev]: number[],
  seed: number,
  opts: (d: Device) => functional.AttentionFnOptions,
  label: string,
  lo = -1,
): Promise<void> {
  const q = rand([b!, h!, l!, e!], seed, d, lo),
    k = rand([b!, h!, s!, e!], seed + 1, d, lo),
    v = rand([b!, h!, s!, ev!], seed + 2, d, lo);
  const o = opts(d);
  const want = await values(functional.attentionFallback(q, k, v, o));
  const y = functional.attention(q, k, v, o);
  assert.deepEqual(y.dims(), [b, h, l, ev]);
  await assertApproxEq(y.reshape([-1]), want, TOL, label);
}

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  const it = itOn(entry);
  describe(`attention against attentionFallback on ${name}`, () => {
    it('test_attention_no_mask', () =>
      matchesFallback(device(), [1, 1, 128, 128, 64, 64], 1, () => ({}), 'no mask', 0));
    it('test_attention_custom_scale', () =>
      matchesFallback(device(), [1, 2, 16, 16, 32, 32], 4, () => ({ scale: 0.1 }), 'scale'));
    it('test_attention_attn_bias', () =>
      matchesFallback(
        device(),
        [1, 2, 16, 16, 32, 32],
        7,
        (d) => ({ bias: rand([1, 2, 16, 16], 70, d, -0.5, 0.5) }),
        'bias',
      ));
    it('test_attention_softcap', () =>
      matchesFallback(device(), [1, 2, 16, 16, 32, 32], 10, () => ({ softcap: 50 }), 'softcap'));
    it('test_attention_is_causal', () =>
      matchesFallback(device(), [2, 4, 16, 16, 32, 32], 13, () => ({ isCausal: true }), 'causal'));
    it('test_attention_cross_attention_with_bias', () =>
      matchesFallback(
        device(),
        [2, 2, 8, 24, 32, 32],
        16,
        (d) => ({ isCausal: true, bias: rand([2, 2, 8, 24], 160, d, -0.5, 0.5) }),
        'cross',
      ));
    it('test_attention_all_options', () =>
      matchesFallback(
        device(),
        [2, 2, 16, 16, 32, 32],
        19,
        (d) => ({
          scale: 0.05,
          softcap: 30,
          isCausal: true,
          bias: rand([2, 2, 16, 16], 190, d, -0.5, 0.5),
          mask: boolMask([2, 2, 16, 16], 191, d),
        }),
        'all options',
      ));
    it('test_attention_bias_broadcast_batch_and_heads', () =>
      matchesFallback(
        device(),
        [2, 3, 16, 16, 32, 32],
        22,
        (d) => ({ bias: rand([1, 1, 16, 16], 220, d, -0.5, 0.5) }),
        'bias [1, 1, L, S]',
      ));
    it('test_attention_bias_broadcast_heads_only', () =>
      matchesFallback(
        device(),
        [2, 3, 16, 16, 32, 32],
        25,
        (d) => ({ bias: rand([2, 1, 16, 16], 250, d, -0.5, 0.5) }),
        'bias [B, 1, L, S]',
      ));
    it('test_attention_bool_mask_broadcast_batch_and_heads', () =>
      matchesFallback(
        device(),
        [2, 3, 16, 16, 32, 32],
        28,
        (d) => ({ mask: boolMask([1, 1, 16, 16], 280, d) }),
        'mask [1, 1, L, S]',
      ));

    it('test_attention_softcap_preserves_causal_mask: row 0 sees only key 0, so it is value row 0', async () => {
      const d = device();
      const q = rand([1, 1, 4, 8], 31, d),
        k = rand([1, 1, 4, 8], 32, d),
        v = rand([1, 1, 4, 8], 33, d);
      const want = (await values(v)).slice(0, 8);
      for (const fn of [functional.attentionFallback, functional.attention]) {
        const y = fn(q, k, v, { softcap: 20, isCausal: true });
        await assertApproxEq(y.sliceDim(2, [0, 1]).reshape([-1]), want, relAbs(1e-4, 1e-3), fn.name);
      }
    });

    it('test_attention_fully_masked_rows_no_nan: an all-true mask gives zeros', async () => {
      const d = device();
      const q = rand([1, 1, 4, 8], 41, d),
        k = rand([1, 1, 4, 8], 42, d),
        v = rand([1, 1, 4, 8], 43, d);
      const mask = Tensor.full([1, 1, 4, 4], true, { device: d, dtype: 'bool' });
      for (const fn of [functional.attentionFallback, functional.attention]) {
        const out = await values(fn(q, k, v, { mask }));
        assert.ok(
          out.every((x) => !Number.isNaN(x) && Math.abs(x) < 1e-4),
          `${fn.name}: ${out.slice(0, 4)}`,
        );
      }
    });

    it('test_attention_fully_masked_rows_causal_no_nan: masking key 0 under causal masking empties row 0 only', async () => {
      const d = device();
      const q = rand([1, 1, 4, 8], 51, d),
        k = rand([1, 1, 4, 8], 52, d),
        v = rand([1, 1, 4, 8], 53, d);
      const mask = Tensor.fromBools(
        [true, false, false, false, true, false, false, false, true, false, false, false, true, false, false, false],
        d,
      ).reshape([1, 1, 4, 4]) as Tensor<4, Bool>;
      for (const fn of [functional.attentionFallback, functional.attention]) {
        const out = await values(fn(q, k, v, { mask, isCausal: true }));
        assert.ok(!out.some(Number.isNaN), `${fn.name}: NaN`);
        assert.ok(
          out.slice(0, 8).every((x) => Math.abs(x) < 1e-4),
          `${fn.name}: row 0 ${out.slice(0, 8)}`,
        );
        assert.ok(
          out.slice(8).some((x) => Math.abs(x) > 1e-4),
          `${fn.name}: rows 1-3 are not all zero`,
        );
      }
    });
  });
}

const gradDevices: [string, () => Device][] = [
  ['autodiff<cpu(js)>', () => Device.cpu({ engine: 'js' }).autodiff()],
  ['autodiff<required-only>', () => requiredOnlyDevice().autodiff()],
];

for (const [name, device] of gradDevices) {
  describe(`attention gradients on ${name}`, () => {
    plainIt(
      'fully masked rows (with and without causal masking) give finite gradients, zero for their queries',
      async () => {
        const d = device();
        const mask = Tensor.fromBools([true, false, false, true, false, false, true, false, false], d).reshape([
          1, 1, 3, 3,
        ]) as Tensor<4, Bool>;
        for (const fn of [functional.attentionFallback, functional.attention]) {
          for (const opts of [
            { mask: Tensor.full([1, 1, 3, 3], true, { device: d, dtype: 'bool' }) },
            { mask, isCausal: true },
          ]) {
            const q = rand([1, 1, 3, 4], 61, d).requireGrad(),
              k = rand([1, 1, 3, 4], 62, d).requireGrad(),
              v = rand([1, 1, 3, 4], 63, d).requireGrad();
            const grads = fn(q, k, v, opts).sum().backward();
            for (const g of [q.grad(grads)!, k.grad(grads)!, v.grad(grads)!])
              assert.ok((await values(g)).every(Number.isFinite), `${fn.name}: non-finite gradient`);
            assert.ok(
              (await values(q.grad(grads)!)).slice(0, 4).every((x) => x === 0),
              `${fn.name}: row 0's query gradient`,
            );
          }
        }
      },
    );

    plainIt(
      'finite differences of attentionFallback and attention with mask, bias, scale, softcap and causal masking',
      async () => {
        const d = device();
        for (const fn of [functional.attentionFallback, functional.attention]) {
          const err = await gradCheck(
            d,
            [{ shape: [1, 2, 3, 4] }, { shape: [1, 2, 5, 4] }, { shape: [1, 2, 5, 3] }, { shape: [1, 1, 3, 5] }],
            (q, k, v, bias) => {
              const mask = Tensor.fromBools(
                [false, true, false, false, false, false, false, false, true, false, false, false, false, false, false],
                q.device(),
              ).reshape([1, 1, 3, 5]) as Tensor<4, Bool>;
              return fn(q as T4, k as T4, v as T4, {
                mask,
                bias: bias as T4,
                scale: 0.7,
                softcap: 1.5,
                isCausal: true,
              });
            },
          );
          assert.ok(err < 1e-6, `${fn.name}: max relative error ${err}`);
        }
      },
    );
  });
}
