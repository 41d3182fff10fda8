// End to end: a tiny Linear model on an autodiff device, trained with each optimizer (defaults
// where they suit the problem), its loss on a fixed regression batch goes down.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Distribution, Module, Tensor } from '../../src/index.js';
import { Linear, LinearConfig } from '../../src/nn/index.js';
import {
  AdaGradConfig,
  AdamConfig,
  AdamWConfig,
  AdanConfig,
  GradientsParams,
  LbfgsConfig,
  MuonConfig,
  RmsPropConfig,
  SgdConfig,
  type ModuleOptimizer,
} from '../../src/optim/index.js';

class Regressor extends Module {
  linear: Linear;
  constructor(device: Device) {
    super();
    this.linear = new LinearConfig({ dInput: 4, dOutput: 3 }).init(device);
  }
  forward(x: Tensor<2>): Tensor<2> {
    return this.linear.forward(x);
  }
}

const device = Device.cpu({ engine: 'js' }).autodiff();
device.seed(7);
const x = Tensor.random([32, 4], Distribution.Uniform(-1, 1), device);
const trueW = Tensor.fromData<2>(
  [
    [1, -2, 0.5],
    [0.3, 0.8, -1],
    [-0.7, 0.1, 0.9],
    [2, -0.4, 0.2],
  ],
  device,
);
const y = x.matmul(trueW).add(0.5);

function loss(model: Regressor): Tensor<1> {
  return model.forward(x).sub(y).square().mean();
}

async function train(optim: ModuleOptimizer<Regressor>, lr: number, steps: number): Promise<[number, number]> {
  device.seed(1);
  let model = new Regressor(device);
  const before = await loss(model).intoScalar();
  for (let i = 0; i < steps; i++) {
    const l = loss(model);
    model = optim.step(lr, model, GradientsParams.fromGrads(l.backward(), model));
  }
  return [before, await loss(model).intoScalar()];
}

describe('training a Linear model decreases the loss', () => {
  const runs: [string, () => ModuleOptimizer<Regressor>, number][] = [
    ['Sgd', () => new SgdConfig({}).init(), 0.1],
    [
      'Sgd + momentum + weight decay',
      () => new SgdConfig({ momentum: {}, weightDecay: { penalty: 1e-4 } }).init(),
      0.05,
    ],
    ['Adam', () => new AdamConfig({}).init(), 0.05],
    ['Adam amsgrad', () => new AdamConfig({ amsgrad: true }).init(), 0.05],
    ['AdamW', () => new AdamWConfig({}).init(), 0.05],
    ['AdamW cautious', () => new AdamWConfig({ cautiousWeightDecay: true, weightDecay: 0.01 }).init(), 0.05],
    ['AdaGrad', () => new AdaGradConfig({}).init(), 0.3],
    ['RmsProp', () => new RmsPropConfig({}).init(), 0.005],
    ['Adan', () => new AdanConfig({}).init(), 0.05],
    [
      'Muon (weights) + AdamW (bias)',
      () => new MuonConfig({}).init<Regressor>().withGroup('bias', /bias$/, new AdamWConfig({}).build()),
      0.05,
    ],
  ];
  for (const [name, make, lr] of runs) {
    it(name, async () => {
      const [before, after] = await train(make(), lr, 40);
      assert.ok(after < 0.25 * before, `${name}: loss ${before} → ${after}`);
    });
  }

  it('Lbfgs (strong Wolfe) reaches the minimum', async () => {
    device.seed(1);
    const model = new Regressor(device);
    const before = await loss(model).intoScalar();
    const lbfgs = new LbfgsConfig({ lineSearchFn: 'strongWolfe' }).init<Regressor>();
    const { module, loss: last } = await lbfgs.step(1, model, (m) => {
      const l = loss(m);
      return { loss: l, grads: GradientsParams.fromGrads(l.backward(), m) };
    });
    const after = await loss(module).intoScalar();
    assert.ok(after < 1e-6 * before, `loss ${before} → ${after}`);
    assert.ok(Math.abs(last - after) <= 1e-6, 'the returned loss is the last evaluated');
  });
});
