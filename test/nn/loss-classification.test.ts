// Classification losses (CrossEntropy, BinaryCrossEntropy, MultiMargin, SoftMargin) against
// test/fixtures/nn_loss.json (gen_nn_loss.py): values on every conformance device, input
// gradients on the autodiff devices, configs, display and errors. Burn differs from PyTorch here:
// - CrossEntropyLoss pad rows stay in the denominator (torch's ignore_index drops them), and
//   probabilities are clamped at √(f32 min positive) before the log (not with smoothing);
// - BinaryCrossEntropyLoss takes Int labels, weights are per class (or per label for [batch]
//   inputs), smoothing uses classes = last dim (2 for [batch]); the result is always the mean;
// - MultiMarginLoss's weights are PyTorch's (Burn has none).
// The generator builds the expected values per Burn and checks them against torch where they agree.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor } from '../../src/index.js';
import {
  BinaryCrossEntropyLossConfig,
  CrossEntropyLoss,
  CrossEntropyLossConfig,
  MultiMarginLossConfig,
  Reduction,
  SoftMarginLoss,
} from '../../src/nn/index.js';
import { expectClose } from '../helpers/fixtures.js';
import { describeLossFamilies, throwsBurn } from './loss-helpers.js';

describeLossFamilies(['crossEntropy', 'bce', 'multiMargin', 'softMargin']);

describe('CrossEntropyLoss: config, semantics and errors', () => {
  const device = Device.cpu();
  const logits = Tensor.fromFloats(
    [
      [2, 0, 0],
      [0, 1, 0],
      [0, 0, 3],
    ],
    device,
  );

  it('defaults to logits, no weights, no smoothing, no padding (Burn)', () => {
    const ce = new CrossEntropyLossConfig().init(device);
    assert.equal(ce.logits, true);
    assert.equal(ce.weights, undefined);
    assert.equal(ce.smoothing, undefined);
    assert.equal(ce.padTokens, undefined);
    assert.equal(String(ce), 'CrossEntropyLoss {logits: true}');
    assert.equal(
      String(new CrossEntropyLossConfig({ weights: [1, 2], smoothing: 0.1 }).init(device)),
      'CrossEntropyLoss {weights: [2], smoothing: 0.1, logits: true}',
    );
  });

  it('a padded row adds 0 but still counts in the mean (Burn; torch ignore_index differs)', async () => {
    const targets = Tensor.fromInts([0, 1, 2], device);
    const all = new CrossEntropyLossConfig().init(device);
    const per = [0, 1, 2].map((i) => {
      const row = [
        [2, 0, 0],
        [0, 1, 0],
        [0, 0, 3],
      ][i]!;
      const lse = Math.log(row.reduce((s, v) => s + Math.exp(v), 0));
      return lse - row[i]!;
    });
    await expectClose(all.forward(logits, targets), { shape: [1], data: [(per[0]! + per[1]! + per[2]!) / 3] });
    const padded = new CrossEntropyLossConfig({ padTokens: [1] }).init(device);
    await expectClose(padded.forward(logits, targets), { shape: [1], data: [(per[0]! + per[2]!) / 3] });
  });

  it('rejects bad configs and inputs with the shapes and what was expected', () => {
    throwsBurn(() => new CrossEntropyLossConfig({ smoothing: 1.5 }), 'CrossEntropyLossConfig', 'smoothing');
    throwsBurn(() => new CrossEntropyLossConfig({ weights: [1, -1] }), 'CrossEntropyLossConfig', 'weights');
    const ce = new CrossEntropyLossConfig().init(device);
    throwsBurn(
      () => ce.forward(logits, Tensor.fromInts([0, 1], device)),
      'CrossEntropyLoss',
      'targets of shape [2]',
      'logits of shape [3, 3]',
      'expected [3]',
    );
    throwsBurn(
      () => ce.forward(logits, Tensor.fromFloats([0, 1, 2], device) as never),
      'CrossEntropyLoss',
      'targets must be an Int tensor',
      'f32',
    );
    throwsBurn(
      () => ce.forward(Tensor.zeros([3], device) as never, Tensor.fromInts([0, 1, 2], device)),
      'CrossEntropyLoss',
      'logits of shape [3]',
      '[batch, classes]',
    );
    throwsBurn(
      () => ce.forward(logits, Tensor.fromInts([0, 3, 1], device)),
      'CrossEntropyLoss',
      'class index 3',
      '3 classes',
    );
    const weighted = new CrossEntropyLossConfig({ weights: [1, 2] }).init(device);
    throwsBurn(
      () => weighted.forward(logits, Tensor.fromInts([0, 1, 2], device)),
      'CrossEntropyLoss',
      '2 class weights for 3 classes',
    );
  });

  it('weights follow the module to another device (autodiff)', async () => {
    const ce = new CrossEntropyLossConfig({ weights: [1, 2, 3] }).init(device);
    assert.ok(ce instanceof CrossEntropyLoss);
    const ad = Device.cpu().autodiff();
    const x = Tensor.fromFloats(
      [
        [2, 0, 0],
        [0, 1, 0],
      ],
      ad,
    ).requireGrad();
    const loss = ce.forward(x, Tensor.fromInts([0, 2], ad));
    assert.ok(loss.device().isAutodiff());
    assert.ok(x.grad(loss.backward()));
  });
});

describe('BinaryCrossEntropyLoss: config, semantics and errors', () => {
  const device = Device.cpu();

  it('defaults (probabilities, no weights, no smoothing) and a 1-element mean', async () => {
    const bce = new BinaryCrossEntropyLossConfig().init(device);
    assert.equal(bce.logits, false);
    const out = bce.forward(Tensor.fromFloats([0.5, 0.25], device), Tensor.fromInts([1, 0], device));
    await expectClose(out, { shape: [1], data: [(Math.log(2) - Math.log(0.75)) / 2] });
    assert.equal(String(bce), 'BinaryCrossEntropyLoss {logits: false}');
  });

  it('rejects float targets, other labels, shape and weight mismatches', () => {
    const bce = new BinaryCrossEntropyLossConfig({ logits: true }).init(device);
    const x = Tensor.zeros([2, 3], device);
    throwsBurn(
      () => bce.forward(x, Tensor.zeros([2, 3], device) as never),
      'BinaryCrossEntropyLoss',
      'targets must be an Int tensor',
      'f32',
    );
    throwsBurn(
      () => bce.forward(x, Tensor.zeros([3, 2], { device, dtype: 'i32' })),
      'BinaryCrossEntropyLoss',
      'logits of shape [2, 3]',
      'targets of shape [3, 2]',
    );
    throwsBurn(
      () =>
        bce.forward(
          x,
          Tensor.fromInts(
            [
              [0, 1, 2],
              [1, 1, 0],
            ],
            device,
          ),
        ),
      'BinaryCrossEntropyLoss',
      'target label 2',
      '0 or 1',
    );
    const w = new BinaryCrossEntropyLossConfig({ weights: [1, 2] }).init(device);
    throwsBurn(
      () => w.forward(x, Tensor.zeros([2, 3], { device, dtype: 'i32' })),
      'BinaryCrossEntropyLoss',
      '2 class weights',
      '3 classes',
    );
    const w3 = new BinaryCrossEntropyLossConfig({ weights: [1, 2, 3] }).init(device);
    throwsBurn(
      () => w3.forward(Tensor.zeros([4], device), Tensor.zeros([4], { device, dtype: 'i32' })),
      'BinaryCrossEntropyLoss',
      '3 weights for binary',
      'expected 2',
    );
    throwsBurn(
      () => new BinaryCrossEntropyLossConfig({ smoothing: -0.1 }),
      'BinaryCrossEntropyLossConfig',
      'smoothing',
    );
  });
});

describe('MultiMarginLoss and SoftMarginLoss: config and errors', () => {
  const device = Device.cpu();
  const x = Tensor.fromFloats([[0.1, 0.2, 0.4, 0.8]], device);

  it("PyTorch's documented example (0.325) and Burn's defaults", async () => {
    const m = new MultiMarginLossConfig().init();
    assert.deepEqual([m.margin, m.p], [1, 1]);
    await expectClose(m.forward(x, Tensor.fromInts([3], device), Reduction.Mean), { shape: [1], data: [0.325] });
    assert.equal(String(m), 'MultiMarginLoss {margin: 1, p: 1}');
  });

  it('rejects p outside {1, 2}, negative margins, bad targets and weights', () => {
    throwsBurn(() => new MultiMarginLossConfig({ p: 3 as never }), 'MultiMarginLossConfig', 'p');
    throwsBurn(() => new MultiMarginLossConfig({ margin: -1 }), 'MultiMarginLossConfig', 'margin');
    const m = new MultiMarginLossConfig().init();
    throwsBurn(
      () => m.forward(x, Tensor.fromInts([4], device), Reduction.Mean),
      'MultiMarginLoss',
      'class index 4',
      '4 classes',
    );
    throwsBurn(
      () => m.forward(x, Tensor.fromInts([0, 1], device), Reduction.Mean),
      'MultiMarginLoss',
      'target of shape [2]',
      'expected [1]',
    );
    throwsBurn(
      () => m.forward(x, Tensor.fromFloats([1], device) as never, Reduction.Mean),
      'MultiMarginLoss',
      'Int tensor',
    );
    throwsBurn(() => m.forward(x, Tensor.fromInts([1], device), Reduction.BatchMean), 'MultiMarginLoss', 'batchMean');
    const w = new MultiMarginLossConfig({ weights: [1, 2] }).init(device);
    throwsBurn(
      () => w.forward(x, Tensor.fromInts([1], device), Reduction.Mean),
      'MultiMarginLoss',
      '2 class weights for 4 classes',
    );
  });

  it('SoftMarginLoss is log(1 + e^(-y·x)), stable for large margins', async () => {
    const s = new SoftMarginLoss();
    const out = s.forwardNoReduction(Tensor.fromFloats([0, 100, -100], device), Tensor.fromFloats([1, -1, -1], device));
    await expectClose(out, { shape: [3], data: [Math.log(2), 100, 0] }, { rtol: 1e-6, atol: 1e-6 });
    throwsBurn(
      () => s.forward(Tensor.zeros([2], device), Tensor.zeros([3], device), Reduction.Sum),
      'SoftMarginLoss',
      '[2]',
      '[3]',
    );
  });
});
