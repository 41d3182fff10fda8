// Activation layers (src/nn/activation/) against PyTorch (test/fixtures/nn_activation.json from
// gen_nn_activation.py): outputs on every conformance device, input and parameter gradients (PRelu's
// alpha, SwiGlu's linear layers) on the autodiff devices; Burn's configs, defaults and display;
// RRelu's random slopes in training; the ActivationConfig enum (init, JSON, nesting in configs);
// errors. Burn's HardSigmoid defaults (alpha 0.2) differ from torch's Hardsigmoid (1/6): the
// generator follows Burn and checks torch's with alpha 1/6.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Config, Device, Module, Tensor, z, type Float } from '../../src/index.js';
import {
  ActivationConfig,
  Celu,
  CeluConfig,
  Elu,
  EluConfig,
  Gelu,
  GLU,
  HardShrink,
  HardShrinkConfig,
  HardSigmoid,
  HardSigmoidConfig,
  HardSwish,
  Hardtanh,
  HardtanhConfig,
  Identity,
  LeakyRelu,
  LeakyReluConfig,
  LogSigmoid,
  Mish,
  PRelu,
  PReluConfig,
  Relu,
  Relu6,
  RRelu,
  RReluConfig,
  Selu,
  Shrink,
  ShrinkConfig,
  Sigmoid,
  SiLU,
  SoftShrink,
  SoftShrinkConfig,
  Softplus,
  SoftplusConfig,
  Softsign,
  SwiGlu,
  SwiGluConfig,
  Tanh,
  Tanhshrink,
  Threshold,
  ThresholdConfig,
  ThresholdedRelu,
  ThresholdedReluConfig,
  type Activation,
} from '../../src/nn/index.js';
import { conformanceDevices } from '../helpers/devices.js';
import { expectClose, fxTensor, loadFixture, type FixtureCase } from '../helpers/fixtures.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';
import { throwsBurn } from './loss-helpers.js';

type Layer = Module & { forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> };
type Cfg = never;

/** The burn-ts module a fixture case names. */
function build(c: FixtureCase, device: Device): Layer {
  const p = c.params as { module: string; config: Cfg };
  const cfg = p.config;
  switch (p.module) {
    case 'Relu':
      return new Relu();
    case 'Relu6':
      return new Relu6();
    case 'LeakyRelu':
      return new LeakyReluConfig(cfg).init();
    case 'PRelu':
      return new PReluConfig(cfg).init(device);
    case 'RRelu':
      return new RReluConfig(cfg).init();
    case 'Gelu':
      return new Gelu();
    case 'GeluApproximate':
      return Gelu.newApproximate();
    case 'Sigmoid':
      return new Sigmoid();
    case 'HardSigmoid':
      return new HardSigmoidConfig(cfg).init();
    case 'LogSigmoid':
      return new LogSigmoid();
    case 'SiLU':
      return new SiLU();
    case 'HardSwish':
      return new HardSwish();
    case 'Mish':
      return new Mish();
    case 'Tanh':
      return new Tanh();
    case 'Tanhshrink':
      return new Tanhshrink();
    case 'Hardtanh':
      return new HardtanhConfig(cfg).init();
    case 'Elu':
      return new EluConfig(cfg).init();
    case 'Celu':
      return new CeluConfig(cfg).init();
    case 'Selu':
      return new Selu();
    case 'Softplus':
      return new SoftplusConfig(cfg).init();
    case 'Softsign':
      return new Softsign();
    case 'Threshold':
      return new ThresholdConfig(cfg).init();
    case 'ThresholdedRelu':
      return new ThresholdedReluConfig(cfg).init();
    case 'HardShrink':
      return new HardShrinkConfig(cfg).init();
    case 'SoftShrink':
      return new SoftShrinkConfig(cfg).init();
    case 'Shrink':
      return new ShrinkConfig(cfg).init();
    case 'GLU':
      return new GLU((p.config as { dim: number }).dim);
    case 'SwiGlu':
      return new SwiGluConfig(cfg).init(device);
    default:
      throw new Error(`unknown module ${p.module}`);
  }
}

/** The module with its parameters taken from the fixture (by path), on `device`. */
function loaded(c: FixtureCase, device: Device): Layer {
  const names = (c.params?.params as string[]) ?? [];
  const m = build(c, device);
  assert.deepEqual([...m.params().keys()].sort(), [...names].sort(), `${String(c.params?.module)} parameter paths`);
  return m.map((p, path) => p.withTensor(fxTensor(c.inputs[path]!, device)));
}

const cases = loadFixture('nn_activation');
const TOL = { rtol: 1e-4, atol: 1e-5 };

describe('activation modules vs PyTorch', () => {
  it('cover every activation layer', () => {
    const modules = new Set(Object.values(cases).map((c) => c.params?.module as string));
    assert.equal(modules.size, 28);
  });
  for (const { name: dev, device } of conformanceDevices()) {
    it(`outputs on ${dev}`, async () => {
      for (const [name, c] of Object.entries(cases)) {
        const d = device();
        // RRelu draws random slopes on autodiff devices (checked below); the fixture is inference.
        if (c.params?.module === 'RRelu' && d.isAutodiff()) continue;
        const out = loaded(c, d).forward(fxTensor<3>(c.inputs.x!, d));
        await expectClose(out, c.outputs.out!, TOL, name);
      }
    });
  }
  for (const [dev, device] of [
    ['autodiff<cpu(js)>', () => Device.cpu({ engine: 'js' }).autodiff()],
    ['autodiff<required-only>', () => requiredOnlyDevice().autodiff()],
  ] as const) {
    it(`input and parameter gradients on ${dev}`, async () => {
      for (const [name, c] of Object.entries(cases)) {
        if (c.params?.module === 'RRelu') continue;
        const d = device();
        const m = loaded(c, d);
        const x = fxTensor<3>(c.inputs.x!, d).requireGrad();
        const out = m.forward(x);
        await expectClose(out, c.outputs.out!, TOL, name);
        const grads = out.mul(fxTensor<3>(c.inputs.R!, d)).sum().backward();
        await expectClose(x.grad(grads)!, c.outputs.grad_x!, TOL, `${name} grad_x`);
        for (const [path, p] of m.params()) {
          const g = (p.val() as Tensor<number, Float>).grad(grads);
          assert.ok(g, `${name}: no gradient for ${path}`);
          await expectClose(g, c.outputs[`grad_${path}`]!, TOL, `${name} grad_${path}`);
        }
      }
    });
  }
});

describe("activation modules: Burn's configs, defaults and display", () => {
  const device = Device.cpu();

  it('defaults match Burn', () => {
    assert.equal(new LeakyReluConfig().init().negativeSlope, 0.01);
    const prelu = new PReluConfig().init(device);
    assert.deepEqual(prelu.alpha.dims(), [1]);
    assert.equal(prelu.alphaValue, 0.25);
    const rrelu = new RReluConfig().init();
    assert.deepEqual([rrelu.lower, rrelu.upper], [0.125, 1 / 3]);
    const ht = new HardtanhConfig().init();
    assert.deepEqual([ht.minVal, ht.maxVal], [-1, 1]);
    assert.equal(new EluConfig().init().alpha, 1);
    assert.equal(new CeluConfig().init().alpha, 1);
    const hs = new HardSigmoidConfig().init();
    assert.deepEqual([hs.alpha, hs.beta], [0.2, 0.5]);
    assert.equal(new SoftplusConfig().init().beta, 1);
    assert.equal(new ThresholdedReluConfig().init().alpha, 1);
    assert.equal(new HardShrinkConfig().init().lambda, 0.5);
    assert.equal(new SoftShrinkConfig().init().lambda, 0.5);
    const sh = new ShrinkConfig().init();
    assert.deepEqual([sh.lambda, sh.bias], [0.5, 0.5]);
    assert.equal(new Gelu().approximate, false);
    assert.equal(Gelu.newApproximate().approximate, true);
    const swiglu = new SwiGluConfig({ dInput: 4, dOutput: 6 }).init(device);
    assert.equal(swiglu.linearInner.bias, undefined);
    assert.deepEqual(swiglu.linearInner.weight.dims(), [4, 6]);
    assert.equal(swiglu.numParams(), 48);
    assert.deepEqual(
      new SwiGluConfig({ dInput: 4, dOutput: 6, layout: 'col' }).init(device).linearOuter.weight.dims(),
      [6, 4],
    );
  });

  it('modules without a config take their defaults directly', () => {
    assert.equal(new LeakyRelu().negativeSlope, 0.01);
    assert.equal(new Elu().alpha, 1);
    assert.equal(new Celu().alpha, 1);
    assert.equal(new Softplus().beta, 1);
    assert.equal(new Hardtanh().maxVal, 1);
    assert.equal(new HardSigmoid().alpha, 0.2);
    assert.equal(new ThresholdedRelu().alpha, 1);
    assert.equal(new HardShrink().lambda, 0.5);
    assert.equal(new SoftShrink().lambda, 0.5);
    assert.equal(new Shrink().bias, 0.5);
    assert.equal(new RRelu().lower, 0.125);
  });

  it("displays Burn's attributes", () => {
    assert.equal(String(new Relu()), 'Relu');
    assert.equal(String(new Sigmoid()), 'Sigmoid');
    assert.equal(String(new LeakyReluConfig({ negativeSlope: 0.2 }).init()), 'LeakyRelu {negativeSlope: 0.2}');
    assert.equal(
      String(new PReluConfig({ numParameters: 3 }).init(device)),
      'PRelu {numParameters: 3, alphaValue: 0.25, params: 3}',
    );
    assert.equal(String(new RReluConfig({ lower: 0.1, upper: 0.3 }).init()), 'RRelu {lower: 0.1, upper: 0.3}');
    assert.equal(String(new HardtanhConfig({ minVal: -2 }).init()), 'Hardtanh {minVal: -2, maxVal: 1}');
    const threshold = new ThresholdConfig({ threshold: 0.5, value: -1 }).init();
    assert.ok(threshold instanceof Threshold);
    assert.equal(String(threshold), 'Threshold {threshold: 0.5, value: -1}');
    assert.equal(String(new ShrinkConfig().init()), 'Shrink {lambda: 0.5, bias: 0.5}');
    assert.equal(String(Gelu.newApproximate()), 'Gelu {approximate: true}');
    assert.equal(String(new GLU(-1)), 'GLU {dim: -1}');
    assert.equal(
      String(new SwiGluConfig({ dInput: 4, dOutput: 5, bias: true }).init(device)),
      'SwiGlu {dInput: 4, dOutput: 5, bias: true, params: 50}',
    );
  });

  it('PRelu is a trainable parameter; records keep it', async () => {
    const prelu = new PReluConfig({ numParameters: 2, alpha: 0.5 }).init(device);
    assert.equal(prelu.numParams(), 2);
    assert.ok(prelu.alpha.requireGrad);
    const record = await prelu.toRecord();
    const back = new PReluConfig({ numParameters: 2 }).init(device).loadRecord(record);
    await expectClose(back.alpha.val(), { shape: [2], data: [0.5, 0.5] });
  });

  it('rejects bad configs and inputs, naming the layer', () => {
    throwsBurn(
      () => new RReluConfig({ lower: 0.5, upper: 0.1 }).init(),
      'RReluConfig',
      'lower bound 0.5',
      'upper bound 0.1',
    );
    throwsBurn(() => new HardtanhConfig({ minVal: 2, maxVal: 1 }).init(), 'HardtanhConfig', 'minVal 2', 'maxVal 1');
    throwsBurn(() => new CeluConfig({ alpha: 0 }), 'CeluConfig', 'alpha');
    throwsBurn(() => new SoftplusConfig({ beta: 0 }), 'SoftplusConfig', 'beta');
    throwsBurn(() => new PReluConfig({ numParameters: 0 }), 'PReluConfig', 'numParameters');
    throwsBurn(() => new ThresholdConfig({ threshold: 1 } as never), 'ThresholdConfig', 'value');
    throwsBurn(() => new SwiGluConfig({ dInput: 4 } as never), 'SwiGluConfig', 'dOutput');
    throwsBurn(() => new LeakyReluConfig({ negativeSlope: 'a' as never }), 'LeakyReluConfig', 'negativeSlope');
    const prelu = new PReluConfig({ numParameters: 3 }).init(device);
    throwsBurn(
      () => prelu.forward(Tensor.zeros([2, 4, 5], device)),
      'PRelu',
      'input of shape [2, 4, 5]',
      '3 slopes',
      '[batch, 3, ...]',
    );
    throwsBurn(() => new GLU(1).forward(Tensor.zeros([2, 3], device)), 'GLU', 'odd size 3');
    throwsBurn(() => new GLU(2).forward(Tensor.zeros([2, 4], device)), 'GLU', 'dim 2 is out of range');
    throwsBurn(() => new GLU(0.5), 'GLU', 'integer');
    throwsBurn(
      () => new SwiGluConfig({ dInput: 4, dOutput: 2 }).init(device).forward(Tensor.zeros([3, 5], device)),
      'SwiGlu',
      'input of shape [3, 5]',
      'has 5 features',
      '[..., 4]',
    );
  });
});

describe('RRelu: random slopes in training, fixed slope in inference (Burn, PyTorch)', () => {
  it('on an autodiff device each negative element gets its own slope in [lower, upper], with that slope as gradient', async () => {
    const ad = Device.cpu().autodiff();
    ad.seed(7);
    const values = Array.from({ length: 2000 }, (_, i) => (i % 2 === 0 ? -1 - (i % 7) : 0.5 + (i % 5)));
    const x = Tensor.fromFloats(values, ad).requireGrad();
    const rrelu = new RReluConfig({ lower: 0.1, upper: 0.3 }).init();
    const out = rrelu.forward(x);
    const grad = await x.grad(out.sum().backward())!.toData();
    const y = (await out.toData()).toArray();
    const g = grad.toArray();
    const slopes: number[] = [];
    values.forEach((v, i) => {
      if (v >= 0) {
        assert.equal(y[i], v);
        assert.equal(g[i], 1);
      } else {
        const slope = y[i]! / v;
        assert.ok(slope >= 0.1 - 1e-6 && slope <= 0.3 + 1e-6, `slope ${slope}`);
        assert.ok(Math.abs(g[i]! - slope) < 1e-6);
        slopes.push(slope);
      }
    });
    const mean = slopes.reduce((a, b) => a + b, 0) / slopes.length;
    assert.ok(Math.abs(mean - 0.2) < 0.01, `mean slope ${mean}`);
    assert.ok(new Set(slopes.map((s) => s.toFixed(4))).size > 100, 'slopes vary per element');
  });

  it('on the inner device (valid) the slope is (lower + upper) / 2', async () => {
    const out = new RRelu(new RReluConfig({ lower: 0.1, upper: 0.3 })).forward(
      Tensor.fromFloats([-2, 3], Device.cpu()),
    );
    await expectClose(out, { shape: [2], data: [-0.4, 3] });
  });
});

describe("ActivationConfig (Burn's Activation enum)", () => {
  const device = Device.cpu();
  const x = Tensor.fromFloats([[-2, -0.5, 0, 0.5, 2, 3]], device);

  const variants: [ActivationConfig, new (...args: never[]) => Module, (t: Tensor<2, Float>) => Tensor<2, Float>][] = [
    [ActivationConfig.Identity, Identity, (t) => t],
    [ActivationConfig.Gelu, Gelu, (t) => new Gelu().forward(t)],
    [ActivationConfig.GeluApproximate, Gelu, (t) => Gelu.newApproximate().forward(t)],
    [ActivationConfig.PRelu(), PRelu, (t) => t.maskWhere(t.lower(0), t.mul(0.25))],
    [ActivationConfig.Relu, Relu, (t) => t.relu()],
    [ActivationConfig.LeakyRelu({ negativeSlope: 0.1 }), LeakyRelu, (t) => t.maskWhere(t.lower(0), t.mul(0.1))],
    [ActivationConfig.Selu, Selu, (t) => new Selu().forward(t)],
    [ActivationConfig.Sigmoid, Sigmoid, (t) => t.sigmoid()],
    [ActivationConfig.Tanh, Tanh, (t) => t.tanh()],
    [ActivationConfig.HardSigmoid(), HardSigmoid, (t) => t.mul(0.2).add(0.5).clamp(0, 1)],
    [ActivationConfig.HardSwish, HardSwish, (t) => new HardSwish().forward(t)],
    [ActivationConfig.Softplus({ beta: 2 }), Softplus, (t) => new Softplus(new SoftplusConfig({ beta: 2 })).forward(t)],
    [ActivationConfig.Softsign, Softsign, (t) => t.div(t.abs().add(1))],
    [ActivationConfig.Elu(), Elu, (t) => new Elu().forward(t)],
    [ActivationConfig.Celu({ alpha: 2 }), Celu, (t) => new Celu(new CeluConfig({ alpha: 2 })).forward(t)],
    [ActivationConfig.ThresholdedRelu({ alpha: 0.4 }), ThresholdedRelu, (t) => t.maskFill(t.lowerEqual(0.4), 0)],
    [ActivationConfig.HardShrink(), HardShrink, (t) => t.maskFill(t.abs().lowerEqual(0.5), 0)],
    [
      ActivationConfig.SoftShrink({ lambda: 1 }),
      SoftShrink,
      (t) => new SoftShrink(new SoftShrinkConfig({ lambda: 1 })).forward(t),
    ],
    [ActivationConfig.Shrink({ bias: 0.2 }), Shrink, (t) => new Shrink(new ShrinkConfig({ bias: 0.2 })).forward(t)],
  ];

  it('init(device) gives the selected module, with its config', async () => {
    for (const [config, cls, expected] of variants) {
      const act: Activation = config.init(device);
      assert.ok(act instanceof cls, `${config} → ${act.constructor.name}`);
      await expectClose(
        act.forward(x),
        await expected(x)
          .toData()
          .then((d) => ({ shape: d.shape, data: Array.from(d.toArray()) })),
        { rtol: 1e-6, atol: 1e-6 },
        String(config),
      );
    }
    const swiglu = ActivationConfig.SwiGlu({ dInput: 6, dOutput: 6 }).init(device);
    assert.ok(swiglu instanceof SwiGlu);
    assert.deepEqual(swiglu.forward(x).dims(), [1, 6]);
    assert.equal((ActivationConfig.LeakyRelu({ negativeSlope: 0.1 }).init(device) as LeakyRelu).negativeSlope, 0.1);
  });

  it('serializes as { kind, ...fields } and parses back', () => {
    assert.deepEqual(ActivationConfig.Relu.toJSON(), { kind: 'relu' });
    assert.deepEqual(ActivationConfig.LeakyRelu().toJSON(), { kind: 'leakyRelu', negativeSlope: 0.01 });
    assert.deepEqual(ActivationConfig.PRelu({ numParameters: 4 }).toJSON(), {
      kind: 'prelu',
      numParameters: 4,
      alpha: 0.25,
    });
    for (const [config] of variants) {
      const back = ActivationConfig.fromJSON(JSON.parse(JSON.stringify(config)));
      assert.deepEqual(back.toJSON(), config.toJSON());
    }
    const swiglu = ActivationConfig.fromJSON(
      JSON.parse(JSON.stringify(ActivationConfig.SwiGlu({ dInput: 3, dOutput: 2, bias: true }))),
    );
    assert.equal((swiglu.config as SwiGluConfig).bias, true);
    assert.equal(ActivationConfig.fromJSON('tanh').kind, 'tanh');
    assert.equal(String(ActivationConfig.Elu({ alpha: 0.5 })), 'ActivationConfig {"kind":"elu","alpha":0.5}');
  });

  it("from(config) picks the variant of a layer config (Burn's From impls)", () => {
    assert.equal(ActivationConfig.from(new LeakyReluConfig()).kind, 'leakyRelu');
    assert.equal(ActivationConfig.from(new SwiGluConfig({ dInput: 2, dOutput: 2 })).kind, 'swiGlu');
    assert.equal(ActivationConfig.from(new ShrinkConfig()).kind, 'shrink');
    throwsBurn(
      () => ActivationConfig.from(new ThresholdConfig({ threshold: 1, value: 0 }) as never),
      'ActivationConfig',
      'ThresholdConfig',
      'not the config of an activation variant',
    );
  });

  it('nests in a config: default, withX, save and load', () => {
    class BlockConfig extends Config.define({
      hidden: z.number().int().default(4),
      activation: ActivationConfig.schema.default(ActivationConfig.Gelu),
    }) {}
    const block = new BlockConfig();
    assert.equal(block.activation, ActivationConfig.Gelu);
    const leaky = block.withActivation(ActivationConfig.LeakyRelu({ negativeSlope: 0.3 }));
    assert.equal(leaky.activation.kind, 'leakyRelu');
    const fromJson = new BlockConfig({ activation: { kind: 'celu', alpha: 3 } });
    assert.ok(fromJson.activation instanceof ActivationConfig);
    assert.equal((fromJson.activation.init(device) as Celu).alpha, 3);
    const dir = mkdtempSync(join(tmpdir(), 'burn-act-'));
    try {
      const path = join(dir, 'block.json');
      leaky.save(path);
      const loaded = BlockConfig.load(path);
      assert.ok(loaded.activation instanceof ActivationConfig);
      assert.deepEqual(loaded.activation.toJSON(), { kind: 'leakyRelu', negativeSlope: 0.3 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    throwsBurn(
      () => new BlockConfig({ activation: { kind: 'swish' } as never }),
      'BlockConfig',
      'activation',
      'unknown activation kind "swish"',
    );
    throwsBurn(
      () => new BlockConfig({ activation: { kind: 'leakyRelu', negativeSlope: 'x' } as never }),
      'BlockConfig',
      'activation',
      'negativeSlope',
    );
    throwsBurn(
      () => new BlockConfig({ activation: { kind: 'relu', alpha: 1 } as never }),
      'BlockConfig',
      "'relu' takes no fields",
    );
  });

  it('rejects unknown kinds and bad variant fields', () => {
    throwsBurn(
      () => ActivationConfig.fromJSON({ kind: 'swish' }),
      'ActivationConfig',
      'unknown activation kind',
      "'relu'",
    );
    throwsBurn(() => ActivationConfig.fromJSON(3), 'ActivationConfig', 'not an activation config');
    throwsBurn(() => ActivationConfig.SwiGlu({ dInput: 2 } as never), 'SwiGluConfig', 'dOutput');
    throwsBurn(() => ActivationConfig.Celu({ alpha: 0 }), 'CeluConfig', 'alpha');
  });

  it('an Activation field is a sub-module: parameters, devices and display follow it', () => {
    class Block extends Module {
      activation: Activation;
      constructor(config: ActivationConfig, d: Device) {
        super();
        this.activation = config.init(d);
      }
    }
    const block = new Block(ActivationConfig.PRelu({ numParameters: 3 }), device);
    assert.deepEqual([...block.params().keys()], ['activation.alpha']);
    assert.equal(block.numParams(), 3);
    assert.match(String(block), /activation: PRelu \{numParameters: 3, alphaValue: 0.25, params: 3\}/);
    const trained = block.train();
    assert.ok((trained.activation as PRelu).alpha.device().isAutodiff());
    const y = trained.activation.forward(Tensor.full([1, 3, 2], -1, trained.devices()[0]!) as Tensor<3, Float>);
    assert.ok(y.device().isAutodiff());
  });
});
