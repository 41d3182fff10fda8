// BatchNorm, LayerNorm, GroupNorm, InstanceNorm, RmsNorm, LocalResponseNorm and the Normalization
// enum against PyTorch (nn_layers.json): outputs and input/γ/β gradients. Burn-specific, built per
// Burn in the generator: BatchNorm's running variance update uses the biased batch variance;
// RmsNorm is x / sqrt(mean(x²) + eps) · γ (no torch 1.13 layer); an even LocalResponseNorm window
// reaches one channel further forward. BatchNorm trains on an autodiff device (batch statistics,
// running statistics updated) and infers elsewhere, as Burn.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Config, Device, Module, Tensor, z, type Float } from '../../src/index.js';
import {
  BatchNorm,
  BatchNormConfig,
  GroupNormConfig,
  Identity,
  InstanceNormConfig,
  LayerNorm,
  LayerNormConfig,
  LocalResponseNormConfig,
  Normalization,
  NormalizationConfig,
  RmsNormConfig,
} from '../../src/nn/index.js';
import { expectClose, fxTensor } from '../helpers/fixtures.js';
import { ACC, AUTODIFF, checkLayer, lcase, lparam, PLAIN, throwsBurn, values } from './layers-helpers.js';

const cpu = Device.cpu();
type T = Tensor<number, Float>;

/** A BatchNorm with the case's running statistics. */
function batchNorm(name: string, device: Device, momentum = 0.1): BatchNorm {
  const c = lcase(name);
  const bn = new BatchNormConfig({ numFeatures: c.inputs.gamma!.shape[0]!, momentum }).init(device);
  bn.runningMean = bn.runningMean.update(fxTensor(c.inputs.runningMean!, device));
  bn.runningVar = bn.runningVar.update(fxTensor(c.inputs.runningVar!, device));
  return bn;
}

describe('BatchNorm', () => {
  for (const name of ['batchnorm_train', 'batchnorm_train_2d']) {
    const momentum = lparam<number>(lcase(name), 'momentum');
    checkLayer({
      name,
      label: `${name} (autodiff device: batch statistics)`,
      layer: (d) => batchNorm(name, d, momentum),
      forward: (l, i) => l.forward(i.x as T),
      inputs: ['x'],
      trainOnly: true,
    });

    for (const [label, device] of AUTODIFF) {
      it(`${name}: forward updates the running statistics on ${label} (biased variance, momentum ${momentum})`, async () => {
        const c = lcase(name);
        const dev = device();
        const bn = batchNorm(name, dev, momentum);
        const before = bn.runningMean;
        bn.forward(fxTensor(c.inputs.x!, dev));
        assert.notEqual(bn.runningMean, before, 'state replaced');
        assert.equal(bn.runningMean.id, before.id, 'same state id');
        assert.equal(bn.runningMean.value().isRequireGrad(), false, 'running statistics are not tracked');
        await expectClose(bn.runningMean.value(), c.outputs.runningMean!, ACC, 'runningMean');
        await expectClose(bn.runningVar.value(), c.outputs.runningVar!, ACC, 'runningVar');
      });
    }
  }

  checkLayer({
    name: 'batchnorm_eval',
    label: 'batchnorm_eval (forwardInference: running statistics)',
    layer: (d) => batchNorm('batchnorm_eval', d),
    forward: (l, i) => l.forwardInference(i.x as T),
    inputs: ['x'],
  });
  for (const [label, device] of PLAIN) {
    it(`forward on ${label} (no autodiff) is inference and leaves the running statistics alone`, async () => {
      const c = lcase('batchnorm_eval');
      const dev = device();
      const bn = loadGammaBeta(batchNorm('batchnorm_eval', dev), c.inputs, dev);
      const state = bn.runningMean;
      await expectClose(bn.forward(fxTensor(c.inputs.x!, dev)), c.outputs.y!, ACC);
      assert.equal(bn.runningMean, state);
    });
  }

  it('forwardTrain is pure: it returns a new layer with the updated statistics (same parameters) and leaves this one unchanged', async () => {
    const c = lcase('batchnorm_train');
    const bn = loadGammaBeta(batchNorm('batchnorm_train', cpu, 0.2), c.inputs, cpu);
    const { output, module } = bn.forwardTrain(fxTensor(c.inputs.x!, cpu));
    await expectClose(output, c.outputs.y!, ACC, 'output (batch statistics even without autodiff)');
    await expectClose(module.runningMean.value(), c.outputs.runningMean!, ACC);
    await expectClose(module.runningVar.value(), c.outputs.runningVar!, ACC);
    await expectClose(bn.runningMean.value(), c.inputs.runningMean!, { rtol: 0, atol: 0 }, 'original unchanged');
    assert.ok(module instanceof BatchNorm && module !== bn);
    assert.equal(module.gamma, bn.gamma, 'parameters shared');
  });

  it('keeps its statistics through a training loop over a model, then infers with them after valid()', async () => {
    class Net extends Module {
      norm: BatchNorm;
      constructor(device: Device) {
        super();
        this.norm = new BatchNormConfig({ numFeatures: 2, momentum: 0.5 }).init(device);
      }
      forward(x: Tensor<2, Float>): Tensor<2, Float> {
        return this.norm.forward(x);
      }
    }
    const dev = cpu.autodiff();
    let model = new Net(dev);
    const batches = [
      [
        [1, 10],
        [3, 20],
      ],
      [
        [5, 0],
        [7, 0],
      ],
    ];
    for (const b of batches) {
      const loss = model.forward(Tensor.fromFloats(b, dev)).sum();
      loss.backward();
      model = model.map((p) => p.withTensor(p.val().detach())); // what an optimizer step returns
    }
    // mean: 0 → 0.5·2 = 1 → 0.5·1 + 0.5·6 = 3.5; [0 → 7.5 → 3.75]; biased var: 1 → 0.5 + 0.5 = 1 → 0.5 + 0.5 = 1; [1 → 0.5 + 12.5 = 13 → 6.5].
    assert.deepEqual(await values(model.norm.runningMean.value()), [3.5, 3.75]);
    assert.deepEqual(await values(model.norm.runningVar.value()), [1, 6.5]);
    const valid = model.valid();
    assert.equal(valid.norm.runningMean.value().device().isAutodiff(), false);
    const y = await values(valid.forward(Tensor.fromFloats([[3.5, 3.75]], cpu)));
    y.forEach((v) => assert.ok(Math.abs(v) < 1e-6));
    assert.deepEqual(await values(model.norm.runningMean.value()), [3.5, 3.75], 'inference does not update');
  });

  it('defaults as Burn: γ = 1, β = 0, running mean 0, running variance 1, momentum 0.1, epsilon 1e-5', async () => {
    const config = new BatchNormConfig({ numFeatures: 3 });
    assert.deepEqual([config.momentum, config.epsilon], [0.1, 1e-5]);
    const bn = config.init(cpu);
    assert.deepEqual(
      [await values(bn.gamma.val()), await values(bn.beta.val())],
      [
        [1, 1, 1],
        [0, 0, 0],
      ],
    );
    assert.deepEqual(
      [await values(bn.runningMean.value()), await values(bn.runningVar.value())],
      [
        [0, 0, 0],
        [1, 1, 1],
      ],
    );
    assert.equal(bn.numParams(), 6, 'running statistics are not parameters');
    assert.equal(`${bn}`, 'BatchNorm {numFeatures: 3, momentum: 0.1, epsilon: 0.00001, params: 6}');
    assert.deepEqual([...bn.params().keys()], ['gamma', 'beta']);
  });

  it('errors name the layer, the shape and the expected channels', () => {
    const bn = new BatchNormConfig({ numFeatures: 4 }).init(cpu);
    throwsBurn(() => bn.forward(Tensor.zeros([2, 3, 5], cpu)), 'BatchNorm', '[2, 3, 5]', 'expected [batch, 4, ...]');
    throwsBurn(() => bn.forward(Tensor.zeros([4], cpu)), 'BatchNorm', '[4]', 'rank >= 2');
    throwsBurn(() => new BatchNormConfig({ numFeatures: 4, momentum: 2 }), 'BatchNormConfig', 'momentum');
  });
});

/** The layer with γ/β from the case (the checks without checkLayer). */
function loadGammaBeta<M extends Module>(
  layer: M,
  inputs: Record<string, { shape: number[] } & object>,
  device: Device,
): M {
  return layer.map((p, path) => p.withTensor(fxTensor(inputs[path] as never, device)));
}

describe('LayerNorm', () => {
  checkLayer({
    name: 'layernorm',
    layer: (d) => new LayerNormConfig({ dModel: 6 }).init(d),
    forward: (l, i) => l.forward(i.x as T),
    inputs: ['x'],
  });
  checkLayer({
    name: 'layernorm_nobias',
    layer: (d) => new LayerNormConfig({ dModel: 5, bias: false, epsilon: 1e-3 }).init(d),
    forward: (l, i) => l.forward(i.x as T),
    inputs: ['x'],
  });

  it('defaults, display and errors as Burn (`LayerNorm {d_model: 6, epsilon: 0.00001, bias: true, params: 12}`)', async () => {
    const norm = new LayerNormConfig({ dModel: 6 }).init(cpu);
    assert.deepEqual(
      [await values(norm.gamma.val()), await values(norm.beta!.val())],
      [
        [1, 1, 1, 1, 1, 1],
        [0, 0, 0, 0, 0, 0],
      ],
    );
    assert.equal(`${norm}`, 'LayerNorm {dModel: 6, epsilon: 0.00001, bias: true, params: 12}');
    assert.equal(
      `${new LayerNormConfig({ dModel: 6, bias: false }).init(cpu)}`,
      'LayerNorm {dModel: 6, epsilon: 0.00001, bias: false, params: 6}',
    );
    assert.deepEqual(
      new LayerNormConfig({ dModel: 512 })
        .init(cpu)
        .forward(Tensor.zeros([4, 512], cpu))
        .dims(),
      [4, 512],
    );
    throwsBurn(() => norm.forward(Tensor.zeros([2, 5], cpu)), 'LayerNorm', '[2, 5]', 'expected [..., 6]');
  });
});

describe('GroupNorm / InstanceNorm', () => {
  checkLayer({
    name: 'groupnorm',
    layer: (d) => new GroupNormConfig({ numGroups: 3, numChannels: 6 }).init(d),
    forward: (l, i) => l.forward(i.x as T),
    inputs: ['x'],
  });
  checkLayer({
    name: 'groupnorm_noaffine',
    layer: (d) => new GroupNormConfig({ numGroups: 2, numChannels: 4, affine: false }).init(d),
    forward: (l, i) => l.forward(i.x as T),
    inputs: ['x'],
  });
  checkLayer({
    name: 'instancenorm',
    layer: (d) => new InstanceNormConfig({ numChannels: 3 }).init(d),
    forward: (l, i) => l.forward(i.x as T),
    inputs: ['x'],
  });

  it('defaults, display and errors as Burn', () => {
    const gn = new GroupNormConfig({ numGroups: 3, numChannels: 6 }).init(cpu);
    assert.equal(`${gn}`, 'GroupNorm {numGroups: 3, numChannels: 6, epsilon: 0.00001, affine: true, params: 12}');
    assert.equal(
      `${new InstanceNormConfig({ numChannels: 6 }).init(cpu)}`,
      'InstanceNorm {numChannels: 6, epsilon: 0.00001, affine: true, params: 12}',
    );
    assert.equal(new GroupNormConfig({ numGroups: 2, numChannels: 4, affine: false }).init(cpu).numParams(), 0);
    new GroupNormConfig({ numGroups: 8, numChannels: 64 }).init(cpu);
    throwsBurn(
      () => new GroupNormConfig({ numGroups: 4, numChannels: 6 }).init(cpu),
      'GroupNormConfig',
      'numChannels 6',
      'numGroups 4',
    );
    throwsBurn(() => gn.forward(Tensor.zeros([2, 4, 3], cpu)), 'GroupNorm', '[2, 4, 3]', 'expected [batch, 6, ...]');
    throwsBurn(
      () => new InstanceNormConfig({ numChannels: 3 }).init(cpu).forward(Tensor.zeros([3], cpu)),
      'InstanceNorm',
      'rank >= 2',
    );
  });
});

describe('RmsNorm', () => {
  checkLayer({
    name: 'rmsnorm',
    layer: (d) => new RmsNormConfig({ dModel: 5 }).init(d),
    forward: (l, i) => l.forward(i.x as T),
    inputs: ['x'],
  });

  it('defaults, display and errors as Burn (epsilon must be positive)', () => {
    assert.equal(`${new RmsNormConfig({ dModel: 6 }).init(cpu)}`, 'RmsNorm {dModel: 6, epsilon: 0.00001, params: 6}');
    throwsBurn(() => new RmsNormConfig({ dModel: 6, epsilon: 0 }), 'RmsNormConfig', 'epsilon');
    throwsBurn(
      () => new RmsNormConfig({ dModel: 6 }).init(cpu).forward(Tensor.zeros([2, 5], cpu)),
      'RmsNorm',
      '[2, 5]',
      'expected [..., 6]',
    );
  });
});

describe('LocalResponseNorm', () => {
  checkLayer({
    name: 'lrn_odd',
    layer: () => new LocalResponseNormConfig({ size: 3, alpha: 0.5, beta: 0.75, k: 2 }).init(),
    forward: (l, i) => l.forward(i.x as T),
    inputs: ['x'],
  });
  checkLayer({
    name: 'lrn_even',
    layer: () => new LocalResponseNormConfig({ size: 4, alpha: 0.3, beta: 0.6, k: 1.5 }).init(),
    forward: (l, i) => l.forward(i.x as T),
    inputs: ['x'],
  });

  it('defaults, display and errors as Burn', () => {
    const c = new LocalResponseNormConfig({ size: 5 });
    assert.deepEqual([c.alpha, c.beta, c.k], [0.0001, 0.75, 1]);
    assert.equal(`${c.init()}`, 'LocalResponseNorm {size: 5, alpha: 0.0001, beta: 0.75, k: 1}');
    throwsBurn(() => new LocalResponseNormConfig({ size: 0 }), 'LocalResponseNormConfig', 'size');
    throwsBurn(() => c.init().forward(Tensor.zeros([2, 5], cpu)), 'LocalResponseNorm', '[2, 5]', 'rank >= 3');
  });
});

describe('Normalization / NormalizationConfig', () => {
  const variants: [string, NormalizationConfig, number][] = [
    ['batch', NormalizationConfig.Batch(new BatchNormConfig({ numFeatures: 0 })), 0],
    ['group', NormalizationConfig.Group(new GroupNormConfig({ numGroups: 2, numChannels: 0 })), 0],
    ['instance', NormalizationConfig.Instance(new InstanceNormConfig({ numChannels: 0, affine: false })), 0],
    ['layer', NormalizationConfig.Layer(new LayerNormConfig({ dModel: 0 })), 0],
    ['rms', NormalizationConfig.Rms(new RmsNormConfig({ dModel: 0 })), 0],
  ];

  it("Burn's policy pattern: a config with 0 features, sized with withNumFeatures, inits the chosen layer", async () => {
    const x = fxTensor<4, Float>(lcase('groupnorm').inputs.x!, cpu); // [2, 6, 3, 2]
    for (const [kind, config] of variants) {
      const sized = config.withNumFeatures(kind === 'layer' || kind === 'rms' ? 2 : 6);
      assert.equal(sized.kind, kind);
      assert.equal(sized.numFeatures(), kind === 'layer' || kind === 'rms' ? 2 : 6);
      const norm: Normalization = sized.init(cpu);
      assert.equal(Normalization.numFeatures(norm), sized.numFeatures());
      const y = norm.forward(x);
      assert.deepEqual(y.dims(), [2, 6, 3, 2]);
      const direct = (sized.config as unknown as { init(d: Device): { forward(t: T): T } }).init(cpu).forward(x);
      assert.deepEqual(await values(y), await values(direct));
    }
    const id = NormalizationConfig.Identity.withNumFeatures(7);
    assert.equal(id.numFeatures(), 0);
    const layer = id.init(cpu);
    assert.ok(layer instanceof Identity);
    assert.equal(layer.forward(x), x);
    assert.equal(Normalization.numFeatures(layer), 0);
  });

  it('GroupNorm through the enum matches PyTorch', async () => {
    const c = lcase('groupnorm');
    const norm = NormalizationConfig.Group(new GroupNormConfig({ numGroups: 3, numChannels: 6 })).init(cpu);
    const loaded = norm.map((p, path) => p.withTensor(fxTensor(c.inputs[path]!, cpu)));
    await expectClose(loaded.forward(fxTensor(c.inputs.x!, cpu)), c.outputs.y!, ACC);
  });

  it('a model field of type Normalization is discovered like any layer', () => {
    class Block extends Module {
      norm: Normalization;
      constructor(config: NormalizationConfig, device: Device) {
        super();
        this.norm = config.withNumFeatures(4).init(device);
      }
    }
    const block = new Block(NormalizationConfig.Layer(new LayerNormConfig({ dModel: 0 })), cpu);
    assert.deepEqual([...block.params().keys()], ['norm.gamma', 'norm.beta']);
    assert.ok(block.norm instanceof LayerNorm);
  });

  it('saves as JSON and nests in a config (validated)', () => {
    class NetConfig extends Config.define({ norm: NormalizationConfig.schema, width: z.number().int() }) {}
    const config = new NetConfig({
      norm: NormalizationConfig.Batch(new BatchNormConfig({ numFeatures: 8, momentum: 0.2 })),
      width: 3,
    });
    const json = JSON.parse(JSON.stringify(config)) as unknown;
    assert.deepEqual(json, {
      norm: { kind: 'batch', config: { numFeatures: 8, epsilon: 1e-5, momentum: 0.2 } },
      width: 3,
    });
    const back = NetConfig.fromJSON(json);
    assert.ok(back.norm instanceof NormalizationConfig);
    assert.equal(back.norm.numFeatures(), 8);
    assert.equal((back.norm.config as BatchNormConfig).momentum, 0.2);
    assert.equal(NormalizationConfig.fromJSON({ kind: 'identity' }), NormalizationConfig.Identity);
    assert.equal(
      `${NormalizationConfig.Rms(new RmsNormConfig({ dModel: 4 }))}`,
      'NormalizationConfig {"kind":"rms","config":{"dModel":4,"epsilon":0.00001}}',
    );
    throwsBurn(
      () => NormalizationConfig.fromJSON({ kind: 'batch', config: { numFeatures: -1 } }),
      'NormalizationConfig',
      'config.numFeatures',
    );
    throwsBurn(() => NormalizationConfig.fromJSON({ kind: 'weight' }), 'NormalizationConfig', 'kind');
    throwsBurn(() => NetConfig.fromJSON({ norm: { kind: 'layer' }, width: 3 }), 'NetConfig', 'norm');
  });
});
