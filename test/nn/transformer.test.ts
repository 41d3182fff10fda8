// Position-wise feed-forward, transformer encoder and decoder (post-norm and pre-norm, with masks)
// against torch.nn.TransformerEncoderLayer / TransformerDecoderLayer (activation="gelu", Burn's
// default; dropout 0), and the autoregressive caches against the full forward. With normFirst Burn
// names the norms differently from PyTorch (see gen_nn_sequence.py); the fixture stores them under
// Burn's names.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Distribution, Tensor, type Bool, type Float } from '../../src/index.js';
import { ActivationConfig } from '../../src/nn/activation/activation-config.js';
import {
  generateAutoregressiveMask,
  PositionWiseFeedForwardConfig,
  TransformerDecoder,
  TransformerDecoderConfig,
  TransformerDecoderInput,
  TransformerEncoder,
  TransformerEncoderConfig,
  TransformerEncoderInput,
} from '../../src/nn/index.js';
import { expectClose, type FixtureCase } from '../helpers/fixtures.js';
import {
  expectParamGrads,
  forwardDevices,
  fx,
  gradDevice,
  seqCase,
  throwsBurn,
  withFixtureParams,
} from './sequence-helpers.js';

const TOL = { rtol: 1e-4, atol: 2e-5 };

function params(c: FixtureCase) {
  const p = c.params as { dModel: number; nHeads: number; dFf: number; nLayers: number; normFirst: boolean };
  return { dModel: p.dModel, nHeads: p.nHeads, dFf: p.dFf, nLayers: p.nLayers, normFirst: p.normFirst, dropout: 0 };
}

function encoder(name: string, device: Device): TransformerEncoder {
  const c = seqCase(name);
  return withFixtureParams(new TransformerEncoderConfig(params(c)).init(device), c, device);
}

function decoder(name: string, device: Device): TransformerDecoder {
  const c = seqCase(name);
  return withFixtureParams(new TransformerDecoderConfig(params(c)).init(device), c, device);
}

function encoderInput(c: FixtureCase, device: Device, x = fx<3>(c, 'x', device)): TransformerEncoderInput {
  return new TransformerEncoderInput(x)
    .maskPad(fx<2, Bool>(c, 'maskPad', device))
    .maskAttn(fx<3, Bool>(c, 'maskAttn', device));
}

function decoderInput(
  c: FixtureCase,
  device: Device,
  target = fx<3>(c, 'target', device),
  memory = fx<3>(c, 'memory', device),
): TransformerDecoderInput {
  return new TransformerDecoderInput(target, memory)
    .targetMaskAttn(fx<3, Bool>(c, 'targetMaskAttn', device))
    .memoryMaskPad(fx<2, Bool>(c, 'memoryMaskPad', device));
}

const values = (t: Tensor<number, Float>) => Array.from(t.toDataSync().toArray());

describe('PositionWiseFeedForward', () => {
  it("has Burn's defaults (GELU, dropout 0.1) and display", () => {
    const cfg = new PositionWiseFeedForwardConfig({ dModel: 4, dFf: 8 });
    assert.equal(cfg.dropout, 0.1);
    assert.equal(cfg.activation.kind, 'gelu');
    assert.equal(
      cfg.init(Device.cpu()).toString(),
      'PositionWiseFeedForward {dModel: 4, dFf: 8, prob: 0.1, params: 76}',
    );
  });

  for (const { name, device } of forwardDevices()) {
    it(`linear → GELU → linear (${name})`, async () => {
      const c = seqCase('pwff');
      const d = device();
      const layer = withFixtureParams(
        new PositionWiseFeedForwardConfig({ dModel: 6, dFf: 10, dropout: 0 }).init(d),
        c,
        d,
      );
      await expectClose(layer.forward(fx<3>(c, 'x', d)), c.outputs.out!, TOL);
    });
  }

  it("input and weight gradients equal PyTorch's; other activations; bad shapes", async () => {
    const c = seqCase('pwff');
    const d = gradDevice();
    const layer = withFixtureParams(
      new PositionWiseFeedForwardConfig({ dModel: 6, dFf: 10, dropout: 0 }).init(d),
      c,
      d,
    );
    const x = fx<3>(c, 'x', d).requireGrad();
    const grads = layer
      .forward(x)
      .mul(fx(c, 'R', d))
      .sum()
      .backward();
    await expectClose(x.grad(grads)!, c.outputs['grad.x']!, TOL, 'grad.x');
    await expectParamGrads(layer, c, grads, TOL, 'pwff');
    const relu = new PositionWiseFeedForwardConfig({
      dModel: 2,
      dFf: 2,
      dropout: 0,
      activation: ActivationConfig.Relu,
    }).init(Device.cpu());
    const ident = relu.map((p, path) =>
      p.withTensor(path.endsWith('weight') ? Tensor.eye(2, Device.cpu()) : Tensor.zeros([2], Device.cpu())),
    );
    await expectClose(ident.forward(Tensor.fromFloats([[-1, 2]], Device.cpu())), { shape: [1, 2], data: [0, 2] });
    throwsBurn(
      () => relu.forward(Tensor.zeros([3, 5], Device.cpu())),
      /PositionWiseFeedForward/,
      /\[3, 5\]/,
      /\[\.\.\., 2\]/,
    );
  });
});

describe('TransformerEncoder', () => {
  it("has Burn's config defaults, structure and display", () => {
    const cfg = new TransformerEncoderConfig({ dModel: 8, dFf: 16, nHeads: 2, nLayers: 2 });
    assert.deepEqual(
      [cfg.dropout, cfg.normFirst, cfg.quietSoftmax, cfg.layerNormEps, cfg.activation.kind],
      [0.1, false, false, 1e-5, 'gelu'],
    );
    const enc = cfg.init(Device.cpu());
    assert.equal(enc.layers.length, 2);
    assert.ok(enc.params().has('layers.1.pwff.linearOuter.weight'));
    assert.ok(enc.params().has('layers.0.norm2.gamma'));
    // per layer: 4 attention linears (8·8 + 8) + pwff (8·16 + 16 + 16·8 + 8) + 2 norms (2·8)
    assert.equal(enc.numParams(), 2 * (4 * 72 + 280 + 32));
    assert.equal(
      enc.toString(),
      `TransformerEncoder {dModel: 8, dFf: 16, nHeads: 2, nLayers: 2, dropout: 0.1, normFirst: false, quietSoftmax: false, params: ${enc.numParams()}}`,
    );
  });

  for (const { name, device } of forwardDevices()) {
    it(`post-norm and pre-norm layers with masks equal torch.nn.TransformerEncoderLayer (${name})`, async () => {
      for (const kind of ['encoder_postnorm', 'encoder_prenorm']) {
        const c = seqCase(kind);
        const d = device();
        await expectClose(encoder(kind, d).forward(encoderInput(c, d)), c.outputs.out!, TOL, kind);
      }
    });
  }

  it("input and weight gradients equal PyTorch's", async () => {
    for (const kind of ['encoder_postnorm', 'encoder_prenorm']) {
      const c = seqCase(kind);
      const d = gradDevice();
      const enc = encoder(kind, d);
      const x = fx<3>(c, 'x', d).requireGrad();
      const grads = enc
        .forward(encoderInput(c, d, x))
        .mul(fx(c, 'R', d))
        .sum()
        .backward();
      await expectClose(x.grad(grads)!, c.outputs['grad.x']!, TOL, `${kind} grad.x`);
      await expectParamGrads(enc, c, grads, TOL, kind);
    }
  });

  it('forwardAutoregressiveInference step by step equals the full causal forward', async () => {
    const device = Device.cpu({ engine: 'js' });
    for (const normFirst of [false, true]) {
      const enc = new TransformerEncoderConfig({
        dModel: 8,
        dFf: 16,
        nHeads: 2,
        nLayers: 2,
        dropout: 0,
        normFirst,
      }).init(device);
      const x = Tensor.random([2, 5, 8], Distribution.Uniform(-1, 1), device);
      const full = enc.forward(new TransformerEncoderInput(x).maskAttn(generateAutoregressiveMask(2, 5, device)));
      const cache = enc.newAutoregressiveCache();
      for (let s = 1; s <= 5; s++) {
        const input = new TransformerEncoderInput(x.slice([null, [0, s]])).maskAttn(
          generateAutoregressiveMask(2, s, device),
        );
        const out = enc.forwardAutoregressiveInference(input, cache);
        await expectClose(
          out,
          { shape: [2, s, 8], data: values(full.slice([null, [0, s]])) },
          TOL,
          `normFirst ${normFirst} step ${s}`,
        );
      }
    }
  });

  it('rejects bad shapes and configs', () => {
    const device = Device.cpu();
    const enc = new TransformerEncoderConfig({ dModel: 8, dFf: 16, nHeads: 2, nLayers: 1 }).init(device);
    throwsBurn(
      () => enc.forward(new TransformerEncoderInput(Tensor.zeros([2, 5, 6], device))),
      /TransformerEncoder/,
      /\[2, 5, 6\]/,
      /8\]/,
    );
    throwsBurn(
      () =>
        enc.forward(
          new TransformerEncoderInput(Tensor.zeros([2, 5, 8], device)).maskPad(
            Tensor.full([2, 4], false, { device, dtype: 'bool' }),
          ),
        ),
      /padding mask of shape \[2, 4\]/,
    );
    throwsBurn(
      () => enc.layers[0]!.forward(Tensor.zeros([5, 8], device) as unknown as Tensor<3>),
      /TransformerEncoderLayer/,
      /\[5, 8\]/,
    );
    throwsBurn(
      () => new TransformerEncoderConfig({ dModel: 8, dFf: 16, nHeads: 3, nLayers: 1 }).init(device),
      /dModel 8 is not divisible by nHeads 3/,
    );
    const other = new TransformerEncoderConfig({ dModel: 8, dFf: 16, nHeads: 2, nLayers: 2 })
      .init(device)
      .newAutoregressiveCache();
    throwsBurn(
      () => enc.forwardAutoregressiveInference(new TransformerEncoderInput(Tensor.zeros([1, 1, 8], device)), other),
      /cache for 2 layers; expected 1/,
    );
  });
});

describe('TransformerDecoder', () => {
  it("has Burn's structure", () => {
    const dec = new TransformerDecoderConfig({ dModel: 8, dFf: 16, nHeads: 2, nLayers: 1 }).init(Device.cpu());
    const paths = [...dec.params().keys()];
    for (const p of [
      'layers.0.selfAttn.query.weight',
      'layers.0.crossAttn.output.bias',
      'layers.0.norm3.beta',
      'layers.0.pwff.linearInner.weight',
    ])
      assert.ok(paths.includes(p), p);
    assert.equal(dec.numParams(), 2 * 4 * 72 + 280 + 3 * 16);
  });

  for (const { name, device } of forwardDevices()) {
    it(`post-norm and pre-norm layers with masks equal torch.nn.TransformerDecoderLayer (${name})`, async () => {
      for (const kind of ['decoder_postnorm', 'decoder_prenorm']) {
        const c = seqCase(kind);
        const d = device();
        await expectClose(decoder(kind, d).forward(decoderInput(c, d)), c.outputs.out!, TOL, kind);
      }
    });
  }

  it("target, memory and weight gradients equal PyTorch's", async () => {
    for (const kind of ['decoder_postnorm', 'decoder_prenorm']) {
      const c = seqCase(kind);
      const d = gradDevice();
      const dec = decoder(kind, d);
      const target = fx<3>(c, 'target', d).requireGrad();
      const memory = fx<3>(c, 'memory', d).requireGrad();
      const grads = dec
        .forward(decoderInput(c, d, target, memory))
        .mul(fx(c, 'R', d))
        .sum()
        .backward();
      await expectClose(target.grad(grads)!, c.outputs['grad.target']!, TOL, `${kind} grad.target`);
      await expectClose(memory.grad(grads)!, c.outputs['grad.memory']!, TOL, `${kind} grad.memory`);
      await expectParamGrads(dec, c, grads, TOL, kind);
    }
  });

  it('forwardAutoregressiveInference step by step equals the full causal forward', async () => {
    const device = Device.cpu({ engine: 'js' });
    for (const normFirst of [false, true]) {
      const dec = new TransformerDecoderConfig({
        dModel: 8,
        dFf: 16,
        nHeads: 2,
        nLayers: 2,
        dropout: 0,
        normFirst,
      }).init(device);
      const target = Tensor.random([2, 4, 8], Distribution.Uniform(-1, 1), device);
      const memory = Tensor.random([2, 3, 8], Distribution.Uniform(-1, 1), device);
      const full = dec.forward(
        new TransformerDecoderInput(target, memory).targetMaskAttn(generateAutoregressiveMask(2, 4, device)),
      );
      const cache = dec.newAutoregressiveCache();
      for (let s = 1; s <= 4; s++) {
        const input = new TransformerDecoderInput(target.slice([null, [0, s]]), memory).targetMaskAttn(
          generateAutoregressiveMask(2, s, device),
        );
        const out = dec.forwardAutoregressiveInference(input, cache);
        await expectClose(
          out,
          { shape: [2, s, 8], data: values(full.slice([null, [0, s]])) },
          TOL,
          `normFirst ${normFirst} step ${s}`,
        );
      }
    }
  });

  it('rejects bad shapes', () => {
    const device = Device.cpu();
    const dec = new TransformerDecoderConfig({ dModel: 8, dFf: 16, nHeads: 2, nLayers: 1 }).init(device);
    throwsBurn(
      () => dec.forward(new TransformerDecoderInput(Tensor.zeros([2, 3, 8], device), Tensor.zeros([2, 4, 7], device))),
      /TransformerDecoder/,
      /memory of shape \[2, 4, 7\]/,
    );
    throwsBurn(
      () => dec.forward(new TransformerDecoderInput(Tensor.zeros([2, 3, 8], device), Tensor.zeros([3, 4, 8], device))),
      /different batch sizes/,
    );
    const input = new TransformerDecoderInput(
      Tensor.zeros([2, 3, 8], device),
      Tensor.zeros([2, 4, 8], device),
    ).memoryMaskPad(Tensor.full([2, 3], false, { device, dtype: 'bool' }));
    throwsBurn(() => dec.forward(input), /padding mask of shape \[2, 3\]/, /\[2, 4\]/);
  });
});
