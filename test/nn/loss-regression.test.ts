// Regression losses (MSE, Huber, SmoothL1, Lp, KL divergence, Gaussian NLL, Poisson NLL) against
// PyTorch's F.* losses (test/fixtures/nn_loss.json from gen_nn_loss.py): every reduction, values on
// every conformance device and input gradients on the autodiff devices, plus configs, display and
// errors. Where Burn differs (Gaussian NLL's clamp has no gradient below eps) the fixture is Burn's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor } from '../../src/index.js';
import {
  GaussianNLLLossConfig,
  HuberLossConfig,
  KLDivLossConfig,
  LpLoss,
  LpLossConfig,
  MseLoss,
  PoissonNllLossConfig,
  Reduction,
  SmoothL1Loss,
  SmoothL1LossConfig,
} from '../../src/nn/index.js';
import { expectClose } from '../helpers/fixtures.js';
import { describeLossFamilies, throwsBurn } from './loss-helpers.js';

const FAMILIES = ['mse', 'huber', 'smoothL1', 'lp', 'klDiv', 'gaussianNll', 'poissonNll'];

describeLossFamilies(FAMILIES);

describe('regression losses: configs, reductions and display', () => {
  const device = Device.cpu();
  const a = Tensor.fromFloats(
    [
      [1, 2],
      [3, 4],
    ],
    device,
  );
  const b = Tensor.fromFloats(
    [
      [0, 2],
      [5, 1],
    ],
    device,
  );

  it('MseLoss: mean, auto, sum as 1-element tensors; batchMean is an error as in Burn', async () => {
    const m = new MseLoss();
    assert.deepEqual(m.forward(a, b, Reduction.Mean).dims(), [1]);
    assert.equal(await m.forward(a, b, Reduction.Mean).intoScalar(), (1 + 0 + 4 + 9) / 4);
    assert.equal(await m.forward(a, b, Reduction.Auto).intoScalar(), (1 + 0 + 4 + 9) / 4);
    assert.equal(await m.forward(a, b, Reduction.Sum).intoScalar(), 14);
    throwsBurn(() => m.forward(a, b, Reduction.BatchMean), 'MseLoss', 'batchMean', 'not supported');
    throwsBurn(() => m.forward(a, b, 'median' as Reduction), 'MseLoss', 'unknown reduction', 'median');
    assert.equal(String(m), 'MseLoss');
  });

  it('HuberLoss: delta required and non-negative; linBias precomputed; display', async () => {
    const h = new HuberLossConfig({ delta: 1.0 }).init();
    assert.equal(h.linBias, 0.5);
    assert.equal(String(h), 'HuberLoss {delta: 1, linBias: 0.5}');
    // residuals 1, 0, -2 (linear: 2 - 0.5), 3 (3 - 0.5)
    await expectClose(h.forwardNoReduction(a, b), { shape: [2, 2], data: [0.5, 0, 1.5, 2.5] });
    await expectClose(h.forwardResiduals(Tensor.fromFloats([0.5, -3], device)), { shape: [2], data: [0.125, 2.5] });
    throwsBurn(() => new HuberLossConfig({ delta: -1 }), 'HuberLossConfig', 'delta');
    throwsBurn(() => new HuberLossConfig({} as never), 'HuberLossConfig', 'delta');
    throwsBurn(() => h.forward(a, b, Reduction.BatchMean), 'HuberLoss', 'batchMean');
  });

  it('SmoothL1Loss: forward is elementwise (as Burn), forwardWithReduction and forwardReduceDims reduce', async () => {
    const s = new SmoothL1LossConfig().init();
    assert.equal(s.beta, 1);
    await expectClose(s.forward(a, b), { shape: [2, 2], data: [0.5, 0, 1.5, 2.5] });
    await expectClose(s.forwardWithReduction(a, b, Reduction.Sum), { shape: [1], data: [4.5] });
    await expectClose(s.forwardReduceDims(a, b, [1]), { shape: [2, 1], data: [0.25, 2] });
    await expectClose(s.forwardReduceDims(a, b, [-2]), { shape: [1, 2], data: [1, 1.25] });
    throwsBurn(() => new SmoothL1LossConfig({ beta: 0 }), 'SmoothL1LossConfig', 'beta');
    assert.ok(new SmoothL1Loss() instanceof SmoothL1Loss);
  });

  it('LpLoss: l1 and l2 shortcuts, p > 0, forwardReduceDims', async () => {
    await expectClose(LpLossConfig.l1().forward(a, b, Reduction.Mean), { shape: [1], data: [1.5] });
    await expectClose(LpLossConfig.l2().forward(a, b, Reduction.Sum), { shape: [1], data: [14] });
    await expectClose(LpLossConfig.l1().forwardReduceDims(a, b, [0, 1]), { shape: [1, 1], data: [1.5] });
    assert.ok(LpLossConfig.l1() instanceof LpLoss);
    throwsBurn(() => new LpLossConfig({ p: 0 }), 'LpLossConfig', 'p');
    assert.equal(String(new LpLossConfig({ p: 3 }).init()), 'LpLoss {p: 3}');
  });

  it('KLDivLoss: auto means batchMean (sum / batch), mean is over every element', async () => {
    const k = new KLDivLossConfig().init();
    const pred = Tensor.fromFloats(
      [
        [-1, -2],
        [-0.5, -1.5],
      ],
      device,
    );
    const tgt = Tensor.fromFloats(
      [
        [0.25, 0.75],
        [0.5, 0.5],
      ],
      device,
    );
    const sum = await k.forward(pred, tgt, Reduction.Sum).intoScalar();
    assert.ok(Math.abs((await k.forward(pred, tgt, Reduction.Auto).intoScalar()) - sum / 2) < 1e-6);
    assert.ok(Math.abs((await k.forward(pred, tgt, Reduction.BatchMean).intoScalar()) - sum / 2) < 1e-6);
    assert.ok(Math.abs((await k.forward(pred, tgt, Reduction.Mean).intoScalar()) - sum / 4) < 1e-6);
    assert.equal(String(new KLDivLossConfig({ logTarget: true }).init()), 'KLDivLoss {logTarget: true}');
  });

  it('GaussianNLLLoss: defaults, var shape rules', () => {
    const g = new GaussianNLLLossConfig().init();
    assert.equal(g.eps, 1e-6);
    assert.equal(g.full, false);
    const x = Tensor.zeros([3, 4], device);
    throwsBurn(
      () => g.forward(x, x, Tensor.ones([3, 2], device), Reduction.Mean),
      'GaussianNLLLoss',
      'var of shape [3, 2]',
      '[3, 4] or [3, 1]',
    );
    throwsBurn(
      () => g.forward(x, Tensor.zeros([4, 3], device), x, Reduction.Mean),
      'GaussianNLLLoss',
      'input of shape [3, 4]',
      'target of shape [4, 3]',
    );
    throwsBurn(() => new GaussianNLLLossConfig({ eps: 0 }), 'GaussianNLLLossConfig', 'eps');
  });

  it('PoissonNllLoss: negative targets, negative rates, eps', () => {
    const p = new PoissonNllLossConfig().init();
    assert.deepEqual([p.logInput, p.full, p.eps], [true, false, 1e-8]);
    const x = Tensor.fromFloats([0.5, 1], device);
    throwsBurn(
      () => p.forward(x, Tensor.fromFloats([1, -2], device), Reduction.Mean),
      'PoissonNllLoss',
      'targets contain -2',
      'non-negative',
    );
    const rates = new PoissonNllLossConfig({ logInput: false }).init();
    throwsBurn(
      () => rates.forward(Tensor.fromFloats([-0.5, 1], device), x, Reduction.Mean),
      'PoissonNllLoss',
      'predictions contain -0.5',
      'logInput false',
    );
    throwsBurn(() => new PoissonNllLossConfig({ eps: 0 }), 'PoissonNllLossConfig', 'eps');
  });

  it('shape and kind errors name the loss and both shapes', () => {
    const x = Tensor.zeros([2, 3], device);
    const y = Tensor.zeros([3, 2], device);
    throwsBurn(
      () => new MseLoss().forward(x, y, Reduction.Mean),
      'MseLoss',
      'logits of shape [2, 3]',
      'targets of shape [3, 2]',
      'equal shapes',
    );
    throwsBurn(
      () => new HuberLossConfig({ delta: 1 }).init().forward(x, y, Reduction.Mean),
      'HuberLoss',
      '[2, 3]',
      '[3, 2]',
    );
    throwsBurn(() => new SmoothL1Loss().forward(x, y), 'SmoothL1Loss', '[2, 3]', '[3, 2]');
    throwsBurn(() => LpLossConfig.l1().forward(x, y, Reduction.Mean), 'LpLoss', '[2, 3]', '[3, 2]');
    throwsBurn(() => new KLDivLossConfig().init().forward(x, y, Reduction.Mean), 'KLDivLoss', '[2, 3]', '[3, 2]');
    throwsBurn(
      () => new PoissonNllLossConfig().init().forward(x, y, Reduction.Mean),
      'PoissonNllLoss',
      '[2, 3]',
      '[3, 2]',
    );
    const ints = Tensor.zeros([2, 3], { device, dtype: 'i32' });
    throwsBurn(
      () => new MseLoss().forward(x, ints as never, Reduction.Mean),
      'MseLoss',
      'targets must be a Float tensor',
      'i32',
    );
  });
});
