// Smoke tests of Burn's examples ported to examples/<name>/: each runs as `npm run example <name>`
// would, against the built package, with --smoke (a few steps in a few seconds), and prints a last
// line `result {json}` whose values are checked here. Full runs report their numbers in the READMEs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FashionMnistDataset } from '../src/data/index.js';
import { resultNumber, runExample } from './helpers/example-run.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Two examples read Fashion-MNIST (Debian's dataset-fashion-mnist, which .ci/run installs). */
const noFashion = FashionMnistDataset.available()
  ? false
  : 'Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist)';

/** Runs `examples/<name>/main.ts --smoke` and returns its `result` line, parsed. */
const smoke = (name: string, extraArgs: string[] = []) => runExample(name, ['--smoke', ...extraArgs]);
const num = resultNumber;

describe('examples (smoke runs)', () => {
  it('npm run example with no name runs the tensor tour', () => {
    const out = execFileSync(process.execPath, ['scripts/example.mjs'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    assert.match(out, /conv2d -> \[ 1, 2, 6, 6 \]/);
  });

  it('an unknown example name fails and lists the examples', () => {
    assert.throws(
      () =>
        execFileSync(process.execPath, ['scripts/example.mjs', 'no-such-example'], {
          cwd: root,
          encoding: 'utf8',
          stdio: 'pipe',
        }),
      (error: { status: number; stderr: string }) => error.status === 2 && /custom-training-loop/.test(error.stderr),
    );
  });

  it('custom-training-loop: the hand-written loop lowers the loss and validates above chance', () => {
    const r = smoke('custom-training-loop');
    assert.equal(num(r, 'steps'), 40);
    assert.ok(num(r, 'lastLoss') < num(r, 'firstLoss') * 0.6, `loss ${r.firstLoss} -> ${r.lastLoss}`);
    assert.ok(num(r, 'validAccuracy') > 50, `valid accuracy ${r.validAccuracy}`);
  });

  it('simple-regression: the Learner fits the CSV table (MSE falls, R² on the test split above 0.4)', () => {
    const r = smoke('simple-regression');
    assert.equal(num(r, 'epochs'), 10);
    assert.ok(
      num(r, 'lastTrainLoss') < num(r, 'firstTrainLoss') / 4,
      `train loss ${r.firstTrainLoss} -> ${r.lastTrainLoss}`,
    );
    assert.ok(num(r, 'validLoss') < 0.5, `valid loss ${r.validLoss}`);
    assert.ok(num(r, 'testR2') > 0.4, `test R² ${r.testR2}`);
    assert.ok(num(r, 'testRmse') >= num(r, 'noiseStd') * 0.8, 'the RMSE cannot beat the noise of the generator');
  });

  it('custom-csv-dataset: the tab-separated file reads as typed records, loads in workers, and its statistics hold', () => {
    const r = smoke('custom-csv-dataset');
    assert.equal(r.rows, 442);
    // The first and last lines of examples/custom-csv-dataset/diabetes.tsv, renamed.
    assert.deepEqual(r.first, {
      age: 35,
      sex: 2,
      bmi: 21.9,
      bp: 71.93,
      tc: 250,
      ldl: 134.9,
      hdl: 68,
      tch: 4.14,
      ltg: 4.2294,
      glu: 88,
      response: 25,
    });
    assert.deepEqual(r.last, {
      age: 62,
      sex: 1,
      bmi: 26.1,
      bp: 100.74,
      tc: 97,
      ldl: 64.7,
      hdl: 49,
      tch: 2.1,
      ltg: 4.7386,
      glu: 105,
      response: 181,
    });
    assert.deepEqual([r.trainRows, r.testRows, r.loadingMode, r.batches, r.items], [354, 88, 'workers', 12, 354]);
    const corr = r.correlation as Record<string, number>;
    assert.ok(Math.abs(corr.bmi! - 0.6611) < 1e-3 && Math.abs(corr.ltg! - 0.4388) < 1e-3, JSON.stringify(corr));
  });

  it('custom-image-dataset: PNG files written to class folders train a CNN through ImageFolderDataset', {
    skip: noFashion,
  }, () => {
    const r = smoke('custom-image-dataset');
    assert.deepEqual([r.trainImages, r.testImages, r.classes, r.epochs], [300, 100, 10, 3]);
    const losses = r.trainLoss as number[];
    assert.ok(losses.at(-1)! < losses[0]! * 0.85, `train loss by epoch ${losses}`);
    assert.ok(num(r, 'validAccuracy') > 30, `test accuracy ${r.validAccuracy}% (chance is 10%)`);
  });

  it("import-model-weights: PyTorch .pt and SafeTensors weights reproduce PyTorch's outputs, also after a burnpack round trip", {
    skip: noFashion,
  }, () => {
    const r = smoke('import-model-weights');
    assert.deepEqual([r.ptApplied, r.stApplied], [16, 16]);
    for (const key of ['ptDiff', 'stDiff', 'bpkDiff']) assert.ok(num(r, key) < 1e-4, `${key} ${r[key]}`);
    assert.deepEqual(r.firstPredictions, r.firstLabels);
    assert.ok(num(r, 'accuracy') > 80, `accuracy ${r.accuracy}% on ${r.images} test images`);
  });

  it('server: training through Device.remote against a server in another process gives the local losses', () => {
    const r = smoke('server');
    assert.equal(r.steps, 30);
    assert.equal(r.maxLossDiff, 0);
    assert.equal(r.remoteTestMse, r.localTestMse);
    assert.ok(num(r, 'lastLoss') < num(r, 'firstLoss') * 0.6, `loss ${r.firstLoss} -> ${r.lastLoss}`);
  });

  it('custom-renderer: the Learner calls the custom renderer for every step, metric and epoch, then closes it', () => {
    const r = smoke('custom-renderer');
    // 2 epochs of 20 training and 4 validation batches; Accuracy and Loss updated each step.
    assert.deepEqual([r.epochs, r.renders, r.updates, r.epochEnds, r.closed], [2, 48, 96, 4, true]);
    const losses = r.trainLoss as number[];
    assert.ok(losses[1]! < losses[0]!, `train loss by epoch ${losses}`);
    assert.ok(num(r, 'validAccuracy') > 50, `valid accuracy ${r.validAccuracy}`);
  });

  it('modern-lstm: the LSTM built from scratch trains (the MSE falls every epoch) and reloads for inference', () => {
    const r = smoke('modern-lstm');
    const train = r.trainLosses as number[],
      valid = r.validLosses as number[];
    assert.equal(train.length, 3);
    for (let e = 1; e < 3; e++)
      assert.ok(train[e]! < train[e - 1]! && valid[e]! < valid[e - 1]!, `losses ${train} / ${valid}`);
    assert.ok(num(r, 'meanAbsError') < num(r, 'meanAbsTarget'), 'the predictions are closer than predicting 0');
  });

  it('wgan: the critic and the generator train in turn (clipped critic) and the samples move toward the real digits', () => {
    const r = smoke('wgan');
    assert.deepEqual([r.steps, r.generatorSteps], [40, 8]);
    assert.ok(
      num(r, 'finalDistance') < num(r, 'initialDistance') * 0.9,
      `mean-image distance ${r.initialDistance} -> ${r.finalDistance}`,
    );
    assert.ok(
      (r.wasserstein as number[]).every((w) => w > 0),
      `the critic scores real digits above generated ones: ${r.wasserstein}`,
    );
    assert.ok(
      num(r, 'criticMaxAbsWeight') <= 0.01 + 1e-7,
      `critic weights clipped to 0.01: max ${r.criticMaxAbsWeight}`,
    );
  });
});
