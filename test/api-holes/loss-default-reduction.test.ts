// Every loss of `nn` whose reduced forward takes a reduction defaults it to 'mean', as
// PyTorch's losses do, rather than being a type error and a run-time throw when left out. The
// default equals an explicit 'mean' and the mean of the elementwise loss; a few closed-form
// values pin the numbers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor, loss, type Float, type Int } from '../../src/index.js';
import {
  CosineEmbeddingLoss,
  CTCLossConfig,
  GaussianNLLLoss,
  HingeEmbeddingLoss,
  HuberLossConfig,
  KLDivLoss,
  LpLossConfig,
  MarginRankingLoss,
  MseLoss,
  MultiMarginLoss,
  PoissonNllLoss,
  SmoothL1Loss,
  SoftMarginLoss,
  TripletMarginLoss,
} from '../../src/nn/index.js';

const d = Device.cpu({ engine: 'js' });
const f = (v: number[][]) => Tensor.fromFloats(v, d);
const values = async (t: Tensor<number, Float>) => Array.from((await t.toData()).toArray());
const scalar = async (t: Tensor<1, Float>) => (await t.toData()).toArray()[0]!;
const close = (a: number, b: number, what: string) =>
  assert.ok(Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
const meanOf = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

const pred = f([
  [0.5, -1, 2],
  [1.5, 0, -0.5],
]);
const targ = f([
  [1, -1, 0],
  [0.5, 0.25, 1],
]);
const sign = f([
  [1, -1, 1],
  [-1, 1, 1],
]);
const logProbs = f([
  [-1.2, -0.4, -2.0],
  [-0.1, -3.0, -2.5],
]);
const probs = f([
  [0.2, 0.5, 0.3],
  [0.7, 0.1, 0.2],
]);

// [name, default-reduced, explicit mean, elementwise]
type Case = [string, () => Tensor<1, Float>, () => Tensor<1, Float>, () => Tensor<number, Float>];
const cases: Case[] = [
  [
    'MseLoss',
    () => new MseLoss().forward(pred, targ),
    () => new MseLoss().forward(pred, targ, 'mean'),
    () => new MseLoss().forwardNoReduction(pred, targ),
  ],
  [
    'HuberLoss',
    () => new HuberLossConfig({ delta: 0.5 }).init().forward(pred, targ),
    () => new HuberLossConfig({ delta: 0.5 }).init().forward(pred, targ, 'mean'),
    () => new HuberLossConfig({ delta: 0.5 }).init().forwardNoReduction(pred, targ),
  ],
  [
    'SmoothL1Loss',
    () => new SmoothL1Loss().forwardWithReduction(pred, targ),
    () => new SmoothL1Loss().forwardWithReduction(pred, targ, 'mean'),
    () => new SmoothL1Loss().forward(pred, targ),
  ],
  [
    'LpLoss',
    () => LpLossConfig.l1().forward(pred, targ),
    () => LpLossConfig.l1().forward(pred, targ, 'mean'),
    () => LpLossConfig.l1().forwardNoReduction(pred, targ),
  ],
  [
    'KLDivLoss',
    () => new KLDivLoss().forward(logProbs, probs),
    () => new KLDivLoss().forward(logProbs, probs, 'mean'),
    () => new KLDivLoss().forwardNoReduction(logProbs, probs),
  ],
  [
    'GaussianNLLLoss',
    () => new GaussianNLLLoss().forward(pred, targ, probs),
    () => new GaussianNLLLoss().forward(pred, targ, probs, 'mean'),
    () => new GaussianNLLLoss().forwardNoReduction(pred, targ, probs),
  ],
  [
    'PoissonNllLoss',
    () => new PoissonNllLoss().forward(pred, probs),
    () => new PoissonNllLoss().forward(pred, probs, 'mean'),
    () => new PoissonNllLoss().forwardNoReduction(pred, probs),
  ],
  [
    'HingeEmbeddingLoss',
    () => new HingeEmbeddingLoss().forward(pred, sign),
    () => new HingeEmbeddingLoss().forward(pred, sign, 'mean'),
    () => new HingeEmbeddingLoss().forwardNoReduction(pred, sign),
  ],
  [
    'MarginRankingLoss',
    () => new MarginRankingLoss().forward(pred, targ, sign),
    () => new MarginRankingLoss().forward(pred, targ, sign, 'mean'),
    () => new MarginRankingLoss().forwardNoReduction(pred, targ, sign),
  ],
  [
    'SoftMarginLoss',
    () => new SoftMarginLoss().forward(pred, sign),
    () => new SoftMarginLoss().forward(pred, sign, 'mean'),
    () => new SoftMarginLoss().forwardNoReduction(pred, sign),
  ],
  [
    'MultiMarginLoss',
    () => new MultiMarginLoss().forward(pred, Tensor.fromInts([2, 0], d)),
    () => new MultiMarginLoss().forward(pred, Tensor.fromInts([2, 0], d), 'mean'),
    () => new MultiMarginLoss().forwardNoReduction(pred, Tensor.fromInts([2, 0], d)),
  ],
  [
    'TripletMarginLoss',
    () => new TripletMarginLoss().forward(pred, targ, probs),
    () => new TripletMarginLoss().forward(pred, targ, probs, 'mean'),
    () => new TripletMarginLoss().forwardNoReduction(pred, targ, probs),
  ],
  [
    'CosineEmbeddingLoss',
    () => new CosineEmbeddingLoss().forward(pred, targ, Tensor.fromInts([1, -1], d)),
    () => new CosineEmbeddingLoss().forward(pred, targ, Tensor.fromInts([1, -1], d)),
    () => new CosineEmbeddingLoss().forwardNoReduction(pred, targ, Tensor.fromInts([1, -1], d)),
  ],
];

describe("losses reduce with 'mean' by default, as PyTorch", () => {
  for (const [name, byDefault, explicit, elementwise] of cases) {
    it(`${name}: no reduction argument = 'mean' = the mean of the elementwise loss`, async () => {
      const want = meanOf(await values(elementwise()));
      assert.ok(Number.isFinite(want), `${name}: elementwise loss is finite`);
      close(await scalar(byDefault()), want, `${name} default`);
      close(await scalar(explicit()), want, `${name} explicit mean`);
    });
  }

  it('closed-form values: MSE, L1, Huber (delta 0.5)', async () => {
    // Residuals: -0.5, 0, 2, 1, -0.25, -1.5
    const r = [-0.5, 0, 2, 1, -0.25, -1.5];
    close(await scalar(new MseLoss().forward(pred, targ)), meanOf(r.map((x) => x * x)), 'mse');
    close(await scalar(LpLossConfig.l1().forward(pred, targ)), meanOf(r.map(Math.abs)), 'l1');
    const huber = (x: number) => (Math.abs(x) <= 0.5 ? 0.5 * x * x : 0.5 * (Math.abs(x) - 0.25));
    close(await scalar(new HuberLossConfig({ delta: 0.5 }).init().forward(pred, targ)), meanOf(r.map(huber)), 'huber');
    // 'sum' is still honoured.
    close(
      await scalar(new MseLoss().forward(pred, targ, 'sum')),
      r.reduce((s, x) => s + x * x, 0),
      'mse sum',
    );
  });

  it('CTCLoss.forwardWithReduction and loss.crossEntropyWithLogits reduce with the mean without an argument', async () => {
    const lp = Tensor.fromFloats([[[-1.0, -0.5]], [[-0.7, -0.9]]], d).logSoftmax(2) as Tensor<3, Float>;
    const targets: Tensor<2, Int> = Tensor.fromInts([[1]], d);
    const il = Tensor.fromInts([2], d),
      tl = Tensor.fromInts([1], d);
    const ctc = new CTCLossConfig().init();
    close(
      await scalar(ctc.forwardWithReduction(lp, targets, il, tl)),
      await scalar(ctc.forwardWithReduction(lp, targets, il, tl, 'mean')),
      'ctc',
    );
    const l = loss.crossEntropyWithLogits(f([[0, 1]]), f([[0.8, 0.2]]));
    close(
      await scalar(l),
      -(0.8 * Math.log(1 / (1 + Math.E)) + 0.2 * Math.log(Math.E / (1 + Math.E))),
      'crossEntropyWithLogits',
    );
  });
});
