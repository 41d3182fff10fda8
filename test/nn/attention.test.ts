// Multi-head attention, cross-attention (MHA / GQA / MQA), their caches and the mask helpers, against
// PyTorch (test/fixtures/gen_nn_sequence.py): torch.nn.MultiheadAttention with Burn's separate
// query/key/value/output Linear layers (weights [dIn, dOut]); quiet softmax and grouped-query
// attention written out with torch ops (torch has neither).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Distribution, Tensor, type Bool } from '../../src/index.js';
import {
  CrossAttention,
  CrossAttentionCache,
  CrossAttentionConfig,
  generateAutoregressiveMask,
  generatePaddingMask,
  MhaCache,
  MhaInput,
  MultiHeadAttention,
  MultiHeadAttentionConfig,
  SeqLengthOption,
} from '../../src/nn/index.js';
import { expectClose, expectEqual } from '../helpers/fixtures.js';
import {
  expectParamGrads,
  forwardDevices,
  fx,
  gradDevice,
  seqCase,
  throwsBurn,
  withFixtureParams,
} from './sequence-helpers.js';

const TOL = { rtol: 1e-4, atol: 1e-5 };

function mha(name: string, device: Device, extra: Partial<{ quietSoftmax: boolean }> = {}): MultiHeadAttention {
  const c = seqCase(name);
  const p = c.params as { dModel: number; nHeads: number };
  return withFixtureParams(
    new MultiHeadAttentionConfig({ dModel: p.dModel, nHeads: p.nHeads, dropout: 0, ...extra }).init(device),
    c,
    device,
  );
}

function cross(name: string, device: Device): CrossAttention {
  const c = seqCase(name);
  const p = c.params as { dModel: number; dContext: number; nHeads: number; nHeadsKv: number; dHead: number };
  return withFixtureParams(new CrossAttentionConfig({ ...p, dropout: 0 }).init(device), c, device);
}

describe('MultiHeadAttention', () => {
  it("has Burn's config defaults, layout and display", () => {
    const cfg = new MultiHeadAttentionConfig({ dModel: 8, nHeads: 2 });
    assert.equal(cfg.dropout, 0.1);
    assert.equal(cfg.minFloat, -1e4);
    assert.equal(cfg.quietSoftmax, false);
    assert.deepEqual([cfg.queryBias, cfg.keyBias, cfg.valueBias, cfg.outputBias], [true, true, true, true]);
    const layer = cfg.withKeyBias(false).init(Device.cpu());
    assert.deepEqual(layer.query.weight.dims(), [8, 8]);
    assert.equal(layer.key.bias, undefined);
    assert.equal(layer.numParams(), 4 * 64 + 3 * 8);
    assert.equal(
      layer.toString(),
      'MultiHeadAttention {dModel: 8, nHeads: 2, dK: 4, dropout: 0.1, minFloat: -10000, quietSoftmax: false, params: 280}',
    );
    // Kaiming uniform with gain 1/√3 and fanIn 8: |w| <= 1/√8.
    assert.ok(layer.query.weight.val().abs().max().intoScalarSync() <= 1 / Math.sqrt(8) + 1e-6);
  });

  for (const { name, device } of forwardDevices()) {
    it(`self-attention equals torch.nn.MultiheadAttention (${name})`, async () => {
      const c = seqCase('mha_self');
      const d = device();
      const out = mha('mha_self', d).forward(MhaInput.selfAttn(fx(c, 'x', d)));
      await expectClose(out.context, c.outputs.context!, TOL, 'context');
      await expectClose(out.weights, c.outputs.weights!, TOL, 'weights');
    });

    it(`cross attention with padding and attention masks (${name})`, async () => {
      const c = seqCase('mha_masked');
      const d = device();
      const kv = fx<3>(c, 'kv', d);
      const input = new MhaInput(fx(c, 'query', d), kv, kv)
        .maskPad(fx<2, Bool>(c, 'maskPad', d))
        .maskAttn(fx<3, Bool>(c, 'maskAttn', d));
      const out = mha('mha_masked', d).forward(input);
      await expectClose(out.context, c.outputs.context!, TOL, 'context');
      await expectClose(out.weights, c.outputs.weights!, TOL, 'weights');
    });

    it(`quiet softmax (${name})`, async () => {
      const c = seqCase('mha_quiet');
      const d = device();
      const out = mha('mha_quiet', d, { quietSoftmax: true }).forward(MhaInput.selfAttn(fx(c, 'x', d)));
      await expectClose(out.context, c.outputs.context!, TOL, 'context');
      await expectClose(out.weights, c.outputs.weights!, TOL, 'weights');
    });
  }

  it("input and weight gradients equal PyTorch's", async () => {
    for (const name of ['mha_self', 'mha_masked']) {
      const c = seqCase(name);
      const d = gradDevice();
      const layer = mha(name, d);
      let input: MhaInput;
      let leaves: [string, Tensor<3>][];
      if (name === 'mha_self') {
        const x = fx<3>(c, 'x', d).requireGrad();
        input = MhaInput.selfAttn(x);
        leaves = [['x', x]];
      } else {
        const q = fx<3>(c, 'query', d).requireGrad();
        const kv = fx<3>(c, 'kv', d).requireGrad();
        input = new MhaInput(q, kv, kv, { maskPad: fx(c, 'maskPad', d), maskAttn: fx(c, 'maskAttn', d) });
        leaves = [
          ['query', q],
          ['kv', kv],
        ];
      }
      const grads = layer
        .forward(input)
        .context.mul(fx(c, 'R', d))
        .sum()
        .backward();
      for (const [key, t] of leaves)
        await expectClose(t.grad(grads)!, c.outputs[`grad.${key}`]!, TOL, `${name} grad.${key}`);
      await expectParamGrads(layer, c, grads, TOL, name);
    }
  });

  it('forwardCache step by step equals the full causal forward', async () => {
    const device = Device.cpu({ engine: 'js' });
    const layer = new MultiHeadAttentionConfig({ dModel: 8, nHeads: 2, dropout: 0 }).init(device);
    const x = Tensor.random([2, 5, 8], Distribution.Uniform(-1, 1), device);
    const full = layer.forward(MhaInput.selfAttn(x).maskAttn(generateAutoregressiveMask(2, 5, device))).context;
    const cache = MhaCache.autoregressive();
    for (let s = 1; s <= 5; s++) {
      const prefix = x.slice([null, [0, s]]);
      const out = layer.forwardCache(
        MhaInput.selfAttn(prefix).maskAttn(generateAutoregressiveMask(2, s, device)),
        cache,
      );
      await expectClose(
        out.context,
        {
          shape: [2, s, 8],
          data: Array.from(
            full
              .slice([null, [0, s]])
              .toDataSync()
              .toArray(),
          ),
        },
        TOL,
        `step ${s}`,
      );
    }
    // A cross-attention cache projects the memory once: later memories are ignored.
    const memory = Tensor.random([2, 3, 8], Distribution.Uniform(-1, 1), device);
    const crossCache = MhaCache.autoregressiveCrossAttention();
    const want = layer.forward(new MhaInput(x, memory, memory)).context;
    layer.forwardCache(new MhaInput(x.slice([null, [0, 4]]), memory, memory), crossCache);
    const got = layer.forwardCache(new MhaInput(x, memory.mul(0), memory.mul(0)), crossCache).context;
    await expectClose(got, { shape: [2, 5, 8], data: Array.from(want.toDataSync().toArray()) }, TOL, 'cross cache');
  });

  it('rejects bad shapes and configs with clear errors', () => {
    const device = Device.cpu();
    const layer = new MultiHeadAttentionConfig({ dModel: 8, nHeads: 2 }).init(device);
    throwsBurn(
      () => layer.forward(MhaInput.selfAttn(Tensor.zeros([2, 3, 6], device))),
      /MultiHeadAttention/,
      /\[2, 3, 6\]/,
      /8/,
    );
    const q = Tensor.zeros([2, 3, 8], device);
    throwsBurn(
      () => layer.forward(new MhaInput(q, Tensor.zeros([2, 4, 8], device), Tensor.zeros([2, 5, 8], device))),
      /key \[2, 4, 8\]/,
      /value \[2, 5, 8\]/,
    );
    throwsBurn(
      () => layer.forward(MhaInput.selfAttn(q).maskPad(Tensor.full([2, 4], false, { device, dtype: 'bool' }))),
      /padding mask of shape \[2, 4\]/,
      /\[2, 3\]/,
    );
    throwsBurn(
      () => layer.forward(MhaInput.selfAttn(q).maskAttn(Tensor.full([2, 3, 4], false, { device, dtype: 'bool' }))),
      /attention mask of shape \[2, 3, 4\]/,
      /\[2, 3, 3\]/,
    );
    throwsBurn(
      () => new MultiHeadAttentionConfig({ dModel: 10, nHeads: 3 }).init(device),
      /dModel 10 is not divisible by nHeads 3/,
    );
    throwsBurn(() => new MultiHeadAttentionConfig({ dModel: 8, nHeads: 2, dropout: 1.5 }), /dropout/);
  });
});

describe('CrossAttention', () => {
  for (const { name, device } of forwardDevices()) {
    it(`grouped-query, multi-query and multi-head attention with a context mask (${name})`, async () => {
      for (const kind of ['cross_gqa', 'cross_mqa', 'cross_mha']) {
        const c = seqCase(kind);
        const d = device();
        const out = cross(kind, d).forward(fx(c, 'query', d), fx(c, 'context', d), fx(c, 'mask', d));
        await expectClose(out, c.outputs.out!, TOL, kind);
      }
    });
  }

  it("input and weight gradients equal PyTorch's", async () => {
    for (const kind of ['cross_gqa', 'cross_mqa']) {
      const c = seqCase(kind);
      const d = gradDevice();
      const layer = cross(kind, d);
      const q = fx<3>(c, 'query', d).requireGrad();
      const ctx = fx<3>(c, 'context', d).requireGrad();
      const grads = layer
        .forward(q, ctx, fx(c, 'mask', d))
        .mul(fx(c, 'R', d))
        .sum()
        .backward();
      await expectClose(q.grad(grads)!, c.outputs['grad.query']!, TOL, `${kind} grad.query`);
      await expectClose(ctx.grad(grads)!, c.outputs['grad.context']!, TOL, `${kind} grad.context`);
      await expectParamGrads(layer, c, grads, TOL, kind);
    }
  });

  it("has Burn's shapes and defaults; forwardCache reuses the context", async () => {
    const device = Device.cpu({ engine: 'js' });
    const cfg = new CrossAttentionConfig({ dModel: 6, dContext: 5, nHeads: 4, nHeadsKv: 2, dHead: 3 });
    assert.deepEqual([cfg.dropout, cfg.minFloat, cfg.quietSoftmax], [0.1, -1e4, false]);
    const layer = cfg.withDropout(0).init(device);
    assert.deepEqual(
      [layer.query.weight.dims(), layer.key.weight.dims(), layer.output.weight.dims()],
      [
        [6, 12],
        [5, 6],
        [12, 6],
      ],
    );
    const c = seqCase('cross_gqa');
    const q = fx<3>(c, 'query', device),
      ctx = fx<3>(c, 'context', device);
    const cache = new CrossAttentionCache();
    const first = layer.forwardCache(q, ctx, undefined, cache);
    await expectClose(
      first,
      { shape: [2, 3, 6], data: Array.from(layer.forward(q, ctx).toDataSync().toArray()) },
      TOL,
      'cache first',
    );
    const q2 = q.mul(-1);
    const again = layer.forwardCache(q2, ctx.mul(0), undefined, cache);
    await expectClose(
      again,
      { shape: [2, 3, 6], data: Array.from(layer.forward(q2, ctx).toDataSync().toArray()) },
      TOL,
      'cache reused',
    );
  });

  it('rejects bad shapes and head counts', () => {
    const device = Device.cpu();
    throwsBurn(
      () => new CrossAttentionConfig({ dModel: 6, dContext: 5, nHeads: 5, nHeadsKv: 2, dHead: 3 }).init(device),
      /nHeads 5 is not divisible by nHeadsKv 2/,
    );
    const layer = new CrossAttentionConfig({ dModel: 6, dContext: 5, nHeads: 4, nHeadsKv: 1, dHead: 3 }).init(device);
    throwsBurn(
      () => layer.forward(Tensor.zeros([2, 3, 6], device), Tensor.zeros([2, 4, 6], device)),
      /CrossAttention/,
      /context \[2, 4, 6\]/,
      /5\]/,
    );
    throwsBurn(
      () => layer.forward(Tensor.zeros([2, 3, 6], device), Tensor.zeros([3, 4, 5], device)),
      /query \[2, 3, 6\]/,
    );
    throwsBurn(
      () =>
        layer.forward(
          Tensor.zeros([2, 3, 6], device),
          Tensor.zeros([2, 4, 5], device),
          Tensor.full([2, 3], false, { device, dtype: 'bool' }),
        ),
      /mask of shape \[2, 3\]/,
      /\[2, 4\]/,
    );
  });
});

describe('attention masks', () => {
  for (const { name, device } of forwardDevices()) {
    it(`generateAutoregressiveMask is true above the diagonal (${name})`, async () => {
      const mask = generateAutoregressiveMask(2, 3, device());
      const row = [false, true, true, false, false, true, false, false, false];
      await expectEqual(mask, [2, 3, 3], [...row, ...row]);
    });

    it(`generatePaddingMask pads, truncates and marks the pad token (${name})`, async () => {
      const d = device();
      const tokens = [[3, 4, 5], [6], [7, 8, 9, 10, 11]];
      let out = generatePaddingMask(0, tokens, undefined, d);
      await expectEqual(out.tensor, [3, 5], [3, 4, 5, 0, 0, 6, 0, 0, 0, 0, 7, 8, 9, 10, 11]);
      await expectEqual(out.mask, [3, 5], [0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0].map(Boolean));
      out = generatePaddingMask(1, tokens, 4, d);
      await expectEqual(out.tensor, [3, 4], [3, 4, 5, 1, 6, 1, 1, 1, 7, 8, 9, 10]);
      out = generatePaddingMask(1, [[3], [4]], 10, d);
      await expectEqual(out.tensor, [2, 1], [3, 4]);
      out = generatePaddingMask(0, [[3], [4, 5]], SeqLengthOption.Fixed(3), d);
      await expectEqual(out.tensor, [2, 3], [3, 0, 0, 4, 5, 0]);
      await expectEqual(out.mask, [2, 3], [false, true, true, false, false, true]);
    });
  }

  it('rejects bad arguments', () => {
    throwsBurn(() => generateAutoregressiveMask(0, 3), /batchSize 0/);
    throwsBurn(() => generatePaddingMask(0, [[1.5]], undefined), /token 1.5/);
    throwsBurn(() => generatePaddingMask(0, [[1]], SeqLengthOption.Fixed(0)), /sequence length 0/);
  });
});
