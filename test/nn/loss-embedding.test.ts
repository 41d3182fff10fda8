// Embedding and ranking losses (CosineEmbedding, HingeEmbedding, MarginRanking, TripletMargin)
// against test/fixtures/nn_loss.json (gen_nn_loss.py, PyTorch's F.* losses): values on every
// conformance device, input gradients on the autodiff devices, configs and errors.
// TripletMarginLoss's eps and swap are PyTorch's (Burn has neither; eps 0 gives Burn's distance).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor } from '../../src/index.js';
import {
  CosineEmbeddingLossConfig,
  HingeEmbeddingLossConfig,
  MarginRankingLossConfig,
  Reduction,
  TripletMarginLossConfig,
} from '../../src/nn/index.js';
import { expectClose } from '../helpers/fixtures.js';
import { describeLossFamilies, throwsBurn } from './loss-helpers.js';

describeLossFamilies(['cosineEmbedding', 'hingeEmbedding', 'marginRanking', 'tripletMargin']);

describe('embedding losses: configs and errors', () => {
  const device = Device.cpu();

  it('CosineEmbeddingLoss keeps its reduction in the config (Burn), default mean', async () => {
    const c = new CosineEmbeddingLossConfig().init();
    assert.deepEqual([c.margin, c.reduction], [0, 'mean']);
    const x1 = Tensor.fromFloats(
      [
        [1, 0],
        [1, 0],
      ],
      device,
    );
    const x2 = Tensor.fromFloats(
      [
        [0, 1],
        [1, 1],
      ],
      device,
    );
    const y = Tensor.fromInts([1, -1], device);
    // cos = 0 and 1/√2: losses 1 and 1/√2
    await expectClose(c.forward(x1, x2, y), { shape: [1], data: [(1 + Math.SQRT1_2) / 2] });
    const summed = new CosineEmbeddingLossConfig({ reduction: Reduction.Sum, margin: 0.5 }).init();
    await expectClose(summed.forward(x1, x2, y), { shape: [1], data: [1 + Math.SQRT1_2 - 0.5] });
    assert.equal(String(summed), 'CosineEmbeddingLoss {margin: 0.5, reduction: sum}');
    throwsBurn(
      () => new CosineEmbeddingLossConfig({ reduction: 'median' as never }),
      'CosineEmbeddingLossConfig',
      'reduction',
    );
    throwsBurn(
      () => new CosineEmbeddingLossConfig({ reduction: Reduction.BatchMean }).init().forward(x1, x2, y),
      'CosineEmbeddingLoss',
      'batchMean',
    );
    throwsBurn(
      () => c.forward(x1, Tensor.zeros([2, 3], device), y),
      'CosineEmbeddingLoss',
      'input1 of shape [2, 2]',
      'input2 of shape [2, 3]',
    );
    throwsBurn(
      () => c.forward(x1, x2, Tensor.fromInts([1], device)),
      'CosineEmbeddingLoss',
      'target of shape [1]',
      'expected [2]',
    );
    throwsBurn(
      () => c.forward(x1, x2, Tensor.fromFloats([1, -1], device) as never),
      'CosineEmbeddingLoss',
      'Int tensor',
    );
    throwsBurn(
      () => c.forward(Tensor.zeros([2], device) as never, x2, y),
      'CosineEmbeddingLoss',
      'input1 of shape [2]',
      '[batch, dim]',
    );
  });

  it('HingeEmbeddingLoss and MarginRankingLoss defaults and errors', async () => {
    const h = new HingeEmbeddingLossConfig().init();
    assert.equal(h.margin, 1);
    await expectClose(
      h.forwardNoReduction(Tensor.fromFloats([0.3, 0.3, 2], device), Tensor.fromFloats([1, -1, -1], device)),
      { shape: [3], data: [0.3, 0.7, 0] },
    );
    throwsBurn(
      () => h.forward(Tensor.zeros([2], device), Tensor.zeros([3], device), Reduction.Mean),
      'HingeEmbeddingLoss',
      '[2]',
      '[3]',
    );
    const m = new MarginRankingLossConfig().init();
    assert.equal(m.margin, 0);
    throwsBurn(() => new MarginRankingLossConfig({ margin: -0.1 }), 'MarginRankingLossConfig', 'margin');
    const a = Tensor.zeros([3], device);
    throwsBurn(
      () => m.forward(a, a, Tensor.zeros([2], device), Reduction.Mean),
      'MarginRankingLoss',
      'target of shape [2]',
    );
    throwsBurn(
      () => m.forward(a, Tensor.zeros([4], device), a, Reduction.Mean),
      'MarginRankingLoss',
      'second of shape [4]',
    );
  });

  it("TripletMarginLoss: Burn's margin and p with PyTorch's eps and swap; errors", async () => {
    const t = new TripletMarginLossConfig().init();
    assert.deepEqual([t.margin, t.p, t.eps, t.swap], [1, 2, 1e-6, false]);
    const anchor = Tensor.fromFloats([[0, 0]], device);
    const pos = Tensor.fromFloats([[3, 4]], device);
    const neg = Tensor.fromFloats([[0, 1]], device);
    const exact = new TripletMarginLossConfig({ eps: 0 }).init();
    await expectClose(exact.forward(anchor, pos, neg, Reduction.Mean), { shape: [1], data: [5 - 1 + 1] });
    const swapped = new TripletMarginLossConfig({ eps: 0, swap: true }).init();
    // d(positive, negative) = √(9 + 9) > d(anchor, negative) = 1: no change
    await expectClose(swapped.forward(anchor, pos, neg, Reduction.Mean), { shape: [1], data: [5] });
    throwsBurn(
      () => t.forward(anchor, Tensor.zeros([2, 2], device), neg, Reduction.Mean),
      'TripletMarginLoss',
      'positive [2, 2]',
      'equal shapes',
    );
    throwsBurn(
      () => t.forward(Tensor.zeros([2], device) as never, pos, neg, Reduction.Mean),
      'TripletMarginLoss',
      'anchor of shape [2]',
      '[batch, dim]',
    );
    throwsBurn(() => new TripletMarginLossConfig({ p: 0 }), 'TripletMarginLossConfig', 'p');
    assert.equal(String(t), 'TripletMarginLoss {margin: 1, p: 2, eps: 0.000001, swap: false}');
  });
});
