// What training returns: the model on the training (autodiff) device,
// the inference model next to it, and the best checkpointed model by a metric; a forward of the
// training model on plain tensors fails with an error that points to model.valid().
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BurnError, Device, Tensor } from '../../src/index.js';
import { SgdConfig } from '../../src/optim/index.js';
import {
  AccuracyMetric,
  CliRenderer,
  FileCheckpointer,
  KeepLastNCheckpoints,
  Learner,
  LossMetric,
  SupervisedTraining,
  type MetricHistory,
} from '../../src/train/index.js';
import { parameters, TinyClassifier, TinyLoader, tinyData } from './helpers.js';

const cpu = Device.cpu({ engine: 'js' });
const device = cpu.autodiff();
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'burn-result-'));
  dirs.push(d);
  return d;
};
const trainData = tinyData(64, 1),
  validData = tinyData(32, 2);
const quiet = () => new CliRenderer({ write: () => {} });

async function train(dir: string, epochs: number, checkpoints = true, lr = 0.5) {
  device.seed(3);
  const training = new SupervisedTraining(
    dir,
    new TinyLoader(trainData, 16, device),
    new TinyLoader(validData, 16, device),
  )
    .metrics([new AccuracyMetric(), new LossMetric()])
    .numEpochs(epochs)
    .renderer(quiet());
  if (checkpoints) training.withFileCheckpointer();
  return training.launch(new Learner(new TinyClassifier(device), new SgdConfig({}).init<TinyClassifier>(), lr));
}

describe('TrainingResult', () => {
  it('the training model refuses plain tensors with a hint to valid(); inferenceModel runs on the inner device', async () => {
    const result = await train(tempDir(), 1, false);
    const x = Tensor.fromFloats([[0.1, 0.2, 0.3, 0.4]], cpu);
    assert.throws(
      () => result.model.forward(x),
      (e: unknown) =>
        e instanceof BurnError &&
        /different devices/.test(e.message) &&
        /model\.valid\(\)/.test(e.message) &&
        /inferenceModel/.test(e.message),
    );
    const inference = result.inferenceModel;
    assert.ok(inference.devices()[0]!.equals(cpu));
    assert.deepEqual(inference.forward(x).dims(), [1, 3]);
    assert.deepEqual(await parameters(inference), await parameters(result.model));
    // Devices that are not related keep the plain message.
    assert.throws(
      () => Tensor.ones([2], cpu).add(Tensor.ones([2], Device.cpu({ engine: 'wasm' }))),
      (e: unknown) => e instanceof BurnError && !/valid\(\)/.test(e.message),
    );
  });

  it('bestModel(): the checkpoint with the best validation loss by default, or the best of any metric and split', async () => {
    const dir = tempDir();
    // A learning rate large enough that the validation loss is not monotonic.
    const result = await train(dir, 5, true, 4);
    const history: MetricHistory = result.history;
    const validLoss = history.valid.get('Loss')!;
    const bestLoss = validLoss.indexOf(Math.min(...validLoss)) + 1;
    assert.equal(result.bestEpoch(), bestLoss);
    assert.equal(result.bestModelPath(), join(dir, 'checkpoint', `model-${bestLoss}.bpk`));
    assert.ok(existsSync(result.bestModelPath()));
    const best = await result.bestModel();
    const fromFile = await new TinyClassifier(device).loadFileAsync(
      join(dir, 'checkpoint', `model-${bestLoss}`),
      device,
    );
    assert.deepEqual(await parameters(best), await parameters(fromFile));
    assert.ok(best.devices()[0]!.equals(device), 'on the training device, as result.model');
    // By another metric and split: the epoch whose checkpoint was kept.
    const trainAcc = history.train.get('Accuracy')!;
    assert.equal(
      result.bestEpoch(new AccuracyMetric(), { split: 'train' }),
      trainAcc.indexOf(Math.max(...trainAcc)) + 1,
    );
    assert.equal(
      result.bestEpoch('Accuracy'),
      history.valid.get('Accuracy')!.indexOf(Math.max(...history.valid.get('Accuracy')!)) + 1,
    );
    // The checkpointer names its files.
    assert.equal(new FileCheckpointer(join(dir, 'checkpoint')).modelPath(bestLoss), result.bestModelPath());
    assert.throws(
      () => result.bestEpoch('F1'),
      (e: unknown) =>
        e instanceof BurnError && /no metric 'F1' on the valid split; the metrics are Accuracy, Loss/.test(e.message),
    );
  });

  it('bestModel() explains a missing checkpoint: no checkpointer, or a strategy that deleted the best epoch', async () => {
    const none = await train(tempDir(), 2, false);
    await assert.rejects(
      none.bestModel(),
      (e: unknown) => e instanceof BurnError && /withFileCheckpointer\(\)/.test(e.message),
    );
    const dir = tempDir();
    device.seed(3);
    const result = await new SupervisedTraining(
      dir,
      new TinyLoader(trainData, 16, device),
      new TinyLoader(validData, 16, device),
    )
      .metrics([new LossMetric()])
      .numEpochs(3)
      .withFileCheckpointer()
      .withCheckpointingStrategy(new KeepLastNCheckpoints(1))
      .renderer(quiet())
      .launch(new Learner(new TinyClassifier(device), new SgdConfig({}).init<TinyClassifier>(), 0.5));
    // The highest training loss is the first epoch's; only epoch 3 was kept.
    const worst = { name: 'Loss', higherIsBetter: true };
    assert.equal(result.bestEpoch(worst, { split: 'train' }), 1);
    await assert.rejects(
      result.bestModel(worst, { split: 'train' }),
      (e: unknown) =>
        e instanceof BurnError &&
        /is epoch 1, whose checkpoint was not kept by the checkpointing strategy \(kept: 3\)/.test(e.message),
    );
  });
});
