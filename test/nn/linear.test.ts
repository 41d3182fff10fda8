// Linear (row and col layouts), Identity and Embedding against PyTorch (nn_layers.json): outputs and
// input/weight gradients. Burn's Linear weight is [dIn, dOut] (PyTorch's transposed); the 'col'
// layout stores PyTorch's [dOut, dIn]. Also Burn's initializer defaults, display and errors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor, type Float, type Int } from '../../src/index.js';
import {
  BatchNormConfig,
  Conv2dConfig,
  EmbeddingConfig,
  GroupNormConfig,
  Identity,
  Initializer,
  LayerNormConfig,
  LinearConfig,
  LinearLayout,
  PaddingConfig2d,
  RmsNormConfig,
} from '../../src/nn/index.js';
import { checkLayer, throwsBurn, values } from './layers-helpers.js';

const cpu = Device.cpu();

describe('Linear', () => {
  checkLayer({
    name: 'linear',
    layer: (d) => new LinearConfig({ dInput: 4, dOutput: 5 }).init(d),
    forward: (l, i) => l.forward(i.x as Tensor<3, Float>),
    inputs: ['x'],
  });
  checkLayer({
    name: 'linear',
    label: "linear, 'col' layout",
    layer: (d) => new LinearConfig({ dInput: 4, dOutput: 5 }).withLayout(LinearLayout.Col).init(d),
    forward: (l, i) => l.forward(i.x as Tensor<3, Float>),
    inputs: ['x'],
    // The col layout holds PyTorch's [dOut, dIn]: load the [dIn, dOut] fixture transposed.
    transform: (t, path) => (path === 'weight' ? t.transpose() : t),
    gradTransform: (t, path) => (path === 'weight' ? t.transpose() : t),
  });
  checkLayer({
    name: 'linear_nobias_rank1',
    layer: (d) => new LinearConfig({ dInput: 4, dOutput: 3, bias: false }).init(d),
    forward: (l, i) => l.forward(i.x as Tensor<1, Float>),
    inputs: ['x'],
  });

  it("defaults as Burn: bias, KaimingUniform(gain 1/√3) = U(-1/√dIn, 1/√dIn), 'row' layout", async () => {
    const config = new LinearConfig({ dInput: 64, dOutput: 128 });
    assert.equal(config.bias, true);
    assert.equal(config.layout, 'row');
    assert.deepEqual(config.initializer, Initializer.KaimingUniform({ gain: 1 / Math.sqrt(3), fanOutOnly: false }));
    const layer = config.init(cpu);
    assert.deepEqual(layer.weight.dims(), [64, 128]);
    const w = await values(layer.weight.val());
    const k = 1 / Math.sqrt(64);
    assert.ok(
      w.every((v) => v >= -k && v <= k),
      'weight within ±1/√dIn',
    );
    const variance = w.reduce((a, v) => a + v * v, 0) / w.length;
    assert.ok(Math.abs(variance - (k * k) / 3) < (0.1 * (k * k)) / 3, `variance ${variance} of U(-k, k) is k²/3`);
    assert.ok(
      (await values(layer.bias!.val())).every((v) => v >= -k && v <= k),
      'bias within ±1/√dIn',
    );
  });

  it("the 'col' layout stores [dOut, dIn] with the same fans and gives the same function", async () => {
    const col = new LinearConfig({ dInput: 6, dOutput: 12, layout: 'col' }).init(cpu);
    assert.deepEqual(col.weight.dims(), [12, 6]);
    assert.ok(
      (await values(col.weight.val())).every((v) => Math.abs(v) <= 1 / Math.sqrt(6)),
      'fanIn is dInput',
    );
    const row = new LinearConfig({ dInput: 6, dOutput: 12 })
      .init(cpu)
      .map((p, path) =>
        path === 'weight' ? p.withTensor(col.weight.val().transpose()) : p.withTensor(col.bias!.val()),
      );
    const x = Tensor.ones([2, 6], cpu).mul(0.5);
    const [a, b] = [await values(col.forward(x)), await values(row.forward(x))];
    a.forEach((v, i) => assert.ok(Math.abs(v - b[i]!) < 1e-6));
    assert.equal(`${col}`, 'Linear {dInput: 6, dOutput: 12, bias: true, params: 84}');
  });

  it('constant initializer, as Burn: [1, 1]·W(2) + b(2) = 6', async () => {
    const layer = new LinearConfig({ dInput: 2, dOutput: 3, initializer: Initializer.Constant(2) }).init(cpu);
    assert.deepEqual(await values(layer.forward(Tensor.ones([1, 2], cpu))), [6, 6, 6]);
  });

  it("displays as Burn's `Linear {d_input: 3, d_output: 5, bias: true, params: 20}`", () => {
    assert.equal(
      `${new LinearConfig({ dInput: 3, dOutput: 5 }).init(cpu)}`,
      'Linear {dInput: 3, dOutput: 5, bias: true, params: 20}',
    );
  });

  it('a wrong feature size names the layer, the shape and the expected size', () => {
    const layer = new LinearConfig({ dInput: 4, dOutput: 2 }).init(cpu);
    throwsBurn(() => layer.forward(Tensor.zeros([3, 5], cpu)), 'Linear', '[3, 5]', 'expected [..., 4]');
    throwsBurn(
      () => new LinearConfig({ dInput: 4, dOutput: 2, layout: 'diagonal' as never }),
      'LinearConfig',
      'layout',
    );
  });
});

describe('Identity', () => {
  it('returns its input (same tensor, gradient passes through)', async () => {
    const id = new Identity();
    const x = Tensor.fromFloats([1, 2, 3], cpu.autodiff()).requireGrad();
    const y = id.forward(x);
    assert.equal(y, x);
    const g = y.mul(2).sum().backward();
    assert.deepEqual(await values(x.grad(g)!), [2, 2, 2]);
    assert.equal(`${id}`, 'Identity');
    assert.equal(id.numParams(), 0);
  });
});

describe('Embedding', () => {
  checkLayer({
    name: 'embedding',
    layer: (d) => new EmbeddingConfig({ nEmbedding: 7, dModel: 4 }).init(d),
    forward: (l, i) => l.forward(i.indices as Tensor<2, Int>),
    inputs: ['indices'],
  });

  it('defaults as Burn: Normal(0, 1) table [nEmbedding, dModel]', async () => {
    const config = new EmbeddingConfig({ nEmbedding: 100, dModel: 40 });
    assert.deepEqual(config.initializer, Initializer.Normal(0, 1));
    const w = await values(config.init(cpu).weight.val());
    const mean = w.reduce((a, v) => a + v, 0) / w.length;
    const std = Math.sqrt(w.reduce((a, v) => a + (v - mean) ** 2, 0) / w.length);
    assert.ok(Math.abs(mean) < 0.1 && Math.abs(std - 1) < 0.1, `mean ${mean}, std ${std}`);
  });

  it("displays as Burn's `Embedding {n_embedding: 100, d_model: 10, params: 1000}`", () => {
    assert.equal(
      `${new EmbeddingConfig({ nEmbedding: 100, dModel: 10 }).init(cpu)}`,
      'Embedding {nEmbedding: 100, dModel: 10, params: 1000}',
    );
  });

  it('needs Int indices [batch, seqLength]', () => {
    const layer = new EmbeddingConfig({ nEmbedding: 5, dModel: 2 }).init(cpu);
    throwsBurn(
      () => layer.forward(Tensor.fromInts([1, 2], cpu) as unknown as Tensor<2, Int>),
      'Embedding',
      '[2]',
      'rank 1',
      '[batch, seqLength]',
    );
    throwsBurn(
      () => layer.forward(Tensor.zeros([1, 2], cpu) as unknown as Tensor<2, Int>),
      'Embedding',
      'f32',
      'Int indices',
    );
  });
});

describe('API contract 09-layers (the parts of this family)', () => {
  it('runs the calls as test/api-contract/09-layers.ts writes them', () => {
    const device = Device.default();
    const linear = new LinearConfig({ dInput: 512, dOutput: 256 }).withBias(true).init(device);
    assert.deepEqual(linear.forward(Tensor.zeros([4, 512], device)).dims(), [4, 256]);
    const conv = new Conv2dConfig({ channels: [3, 64], kernelSize: [3, 3] })
      .withStride([1, 1])
      .withPadding(PaddingConfig2d.Same)
      .init(device);
    assert.deepEqual(conv.forward(Tensor.zeros([2, 3, 16, 16], device)).dims(), [2, 64, 16, 16]);
    assert.deepEqual(
      new LayerNormConfig({ dModel: 512 })
        .init(device)
        .forward(Tensor.zeros([4, 512], device))
        .dims(),
      [4, 512],
    );
    new BatchNormConfig({ numFeatures: 64 }).init(device);
    new GroupNormConfig({ numGroups: 8, numChannels: 64 }).init(device);
    new RmsNormConfig({ dModel: 512 }).init(device);
    const emb = new EmbeddingConfig({ nEmbedding: 100, dModel: 32 }).init(device);
    assert.deepEqual(emb.forward(Tensor.fromInts([[1, 2, 3]], device)).dims(), [1, 3, 32]);
    assert.throws(
      () => linear.forward(Tensor.zeros([4, 300], device)),
      (e: unknown) => e instanceof Error && /300/.test(e.message) && /512/.test(e.message),
    );
  });
});
