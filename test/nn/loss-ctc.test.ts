// CTC loss against PyTorch's F.ctc_loss (test/fixtures/nn_loss.json from gen_nn_loss.py): per-sequence
// losses and the mean (divided by target lengths) and sum reductions, with padded targets,
// repeated labels (no skip between equal labels), a non-zero blank, an empty target, and an
// impossible alignment (infinite, or 0 with zeroInfinity). Gradients are taken with respect to
// logits x through logSoftmax(x) on the autodiff devices: the log-space alpha recursion is built
// from tensor ops, so autodiff differentiates it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor, type Float } from '../../src/index.js';
import { CTCLoss, CTCLossConfig, Reduction } from '../../src/nn/index.js';
import { expectClose } from '../helpers/fixtures.js';
import { checkForward, checkGrads, forwardDevices, gradDevices, lossCases, throwsBurn } from './loss-helpers.js';

describe('CTCLoss vs PyTorch', () => {
  const names = lossCases('ctc');
  it('has fixture cases', () => assert.ok(names.length >= 15));
  for (const { name: dev, device } of forwardDevices()) {
    it(`values on ${dev}`, async () => {
      for (const name of names) await checkForward(name, device());
    });
  }
  for (const { name: dev, device } of gradDevices()) {
    it(`values and logit gradients on ${dev}`, async () => {
      for (const name of names) await checkGrads(name, device());
    });
  }
});

describe('CTCLoss: config, small cases and errors', () => {
  const device = Device.cpu();

  it("defaults to blank 0 without zeroInfinity (Burn's CTCLossConfig)", () => {
    const ctc = new CTCLossConfig().init();
    assert.deepEqual([ctc.blank, ctc.zeroInfinity], [0, false]);
    assert.equal(String(ctc), 'CTCLoss {blank: 0, zeroInfinity: false}');
    assert.ok(new CTCLoss() instanceof CTCLoss);
    throwsBurn(() => new CTCLossConfig({ blank: -1 }), 'CTCLossConfig', 'blank');
  });

  it('one frame, one label: the loss is -log p(label)', async () => {
    const logProbs = Tensor.fromFloats([[[Math.log(0.2), Math.log(0.7), Math.log(0.1)]]], device) as Tensor<3, Float>;
    const loss = new CTCLoss().forward(
      logProbs,
      Tensor.fromInts([[1]], device),
      Tensor.fromInts([1], device),
      Tensor.fromInts([1], device),
    );
    await expectClose(loss, { shape: [1], data: [-Math.log(0.7)] });
  });

  it('two frames, one label: sums the alignments "a-", "-a" and "aa"', async () => {
    const p = [
      [0.5, 0.5],
      [0.25, 0.75],
    ];
    const logProbs = Tensor.fromFloats(
      p.map((row) => [row.map(Math.log)]),
      device,
    ) as Tensor<3, Float>;
    const loss = new CTCLoss().forward(
      logProbs,
      Tensor.fromInts([[1]], device),
      Tensor.fromInts([2], device),
      Tensor.fromInts([1], device),
    );
    const total = 0.5 * 0.25 + 0.5 * 0.75 + 0.5 * 0.75;
    await expectClose(loss, { shape: [1], data: [-Math.log(total)] });
  });

  it('an empty input with an empty target has probability 1 (loss 0)', async () => {
    const logProbs = Tensor.fromFloats(
      [[[Math.log(0.2), Math.log(0.8)]], [[Math.log(0.6), Math.log(0.4)]]],
      device,
    ) as Tensor<3, Float>;
    const loss = new CTCLoss().forward(
      logProbs,
      Tensor.zeros([1, 1], { device, dtype: 'i32' }),
      Tensor.fromInts([0], device),
      Tensor.fromInts([0], device),
    );
    await expectClose(loss, { shape: [1], data: [0] });
  });

  it('batchMean is not a CTC reduction', () => {
    const lp = Tensor.zeros([2, 1, 3], device).logSoftmax(2) as Tensor<3, Float>;
    throwsBurn(
      () =>
        new CTCLoss().forwardWithReduction(
          lp,
          Tensor.fromInts([[1]], device),
          Tensor.fromInts([2], device),
          Tensor.fromInts([1], device),
          Reduction.BatchMean,
        ),
      'CTCLoss',
      'batchMean',
    );
  });

  it('rejects bad shapes, kinds, blanks and lengths with the values and what was expected', () => {
    const ctc = new CTCLoss();
    const lp = Tensor.zeros([4, 2, 3], device).logSoftmax(2) as Tensor<3, Float>;
    const targets = Tensor.fromInts(
      [
        [1, 2],
        [2, 0],
      ],
      device,
    );
    const il = Tensor.fromInts([4, 3], device);
    const tl = Tensor.fromInts([2, 1], device);
    throwsBurn(
      () => new CTCLossConfig({ blank: 3 }).init().forward(lp, targets, il, tl),
      'CTCLoss',
      'blank index 3 for 3 classes',
    );
    throwsBurn(
      () => ctc.forward(Tensor.zeros([4, 3], device) as never, targets, il, tl),
      'CTCLoss',
      'logProbs of shape [4, 3]',
      '[time, batch, classes]',
    );
    throwsBurn(
      () => ctc.forward(lp, Tensor.fromInts([[1, 2]], device), il, tl),
      'CTCLoss',
      'targets of shape [1, 2]',
      'expected [2, maxTargetLength]',
    );
    throwsBurn(
      () => ctc.forward(lp, Tensor.zeros([2, 2], device) as never, il, tl),
      'CTCLoss',
      'targets must be an Int tensor',
    );
    throwsBurn(
      () => ctc.forward(lp, targets, Tensor.fromInts([4], device), tl),
      'CTCLoss',
      'inputLengths of shape [1]',
      'expected [2]',
    );
    throwsBurn(
      () => ctc.forward(lp, targets, il, Tensor.fromFloats([2, 1], device) as never),
      'CTCLoss',
      'targetLengths must be an Int tensor',
    );
    throwsBurn(
      () => ctc.forward(lp, targets, Tensor.fromInts([5, 3], device), tl),
      'CTCLoss',
      'inputLengths[0] = 5',
      '4 frames',
    );
    throwsBurn(
      () => ctc.forward(lp, targets, il, Tensor.fromInts([3, 1], device)),
      'CTCLoss',
      'targetLengths[0] = 3',
      '<= 2',
    );
    throwsBurn(
      () => ctc.forward(lp, targets, Tensor.fromInts([1, 3], device), tl),
      'CTCLoss',
      'inputLengths[0] = 1 is shorter than targetLengths[0] = 2',
    );
    throwsBurn(
      () =>
        ctc.forward(
          lp,
          Tensor.fromInts(
            [
              [1, 5],
              [2, 0],
            ],
            device,
          ),
          il,
          tl,
        ),
      'CTCLoss',
      'targets[0][1] = 5',
      '[0, 3)',
    );
  });
});
