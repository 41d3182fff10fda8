// Exact resume: a run resumed from the checkpoint of epoch k replays epoch
// k+1's data order (a shuffling DataLoader) and random draws (dropout), so resumed and
// uninterrupted runs give identical losses and parameters.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Device, Module, Tensor, type Int } from '../../src/index.js';
import { DataLoaderBuilder, InMemDataset, type Batcher } from '../../src/data/index.js';
import { CrossEntropyLossConfig, Dropout, DropoutConfig, Linear, LinearConfig } from '../../src/nn/index.js';
import { AdamConfig } from '../../src/optim/index.js';
import {
  ClassificationOutput,
  CliRenderer,
  FileMetricLogger,
  Learner,
  LossMetric,
  SupervisedTraining,
  TrainOutput,
  type InferenceStep,
  type TrainStep,
} from '../../src/train/index.js';
import { parameters, tinyData, type TinyBatch } from './helpers.js';

const device = Device.cpu({ engine: 'js' }).autodiff();
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'burn-resume-'));
  dirs.push(d);
  return d;
};

interface Item {
  readonly x: number[];
  readonly y: number;
}

class ItemBatcher implements Batcher<Item, TinyBatch> {
  batch(items: Item[], dev: Device): TinyBatch {
    return {
      x: Tensor.fromData<2>(
        items.map((i) => i.x),
        dev,
      ),
      y: Tensor.fromData<1, Int>(
        items.map((i) => i.y),
        { device: dev, dtype: 'i32' },
      ),
    };
  }
}

/** A classifier with dropout: its training steps draw from the device's random generator. */
class DropoutClassifier
  extends Module
  implements TrainStep<TinyBatch, ClassificationOutput>, InferenceStep<TinyBatch, ClassificationOutput>
{
  hidden: Linear;
  dropout: Dropout;
  out: Linear;
  constructor(dev: Device) {
    super();
    this.hidden = new LinearConfig({ dInput: 4, dOutput: 16 }).init(dev);
    this.dropout = new DropoutConfig({ prob: 0.3 }).init();
    this.out = new LinearConfig({ dInput: 16, dOutput: 3 }).init(dev);
  }
  private classify(batch: TinyBatch): ClassificationOutput {
    const output = this.out.forward(this.dropout.forward(this.hidden.forward(batch.x).relu()));
    return new ClassificationOutput(
      new CrossEntropyLossConfig().init(output.device()).forward(output, batch.y),
      output,
      batch.y,
    );
  }
  trainStep(batch: TinyBatch): TrainOutput<ClassificationOutput> {
    const item = this.classify(batch);
    return new TrainOutput(this, item.loss.backward(), item);
  }
  inferenceStep(batch: TinyBatch): ClassificationOutput {
    return this.classify(batch);
  }
}

const items = (n: number, seed: number): Item[] => {
  const { x, y } = tinyData(n, seed);
  return x.map((f, i) => ({ x: f, y: y[i]! }));
};
const trainItems = items(96, 1),
  validItems = items(32, 2);

async function run(dir: string, epochs: number, resume?: number) {
  // A fresh process would build everything again: the same seed, model and loaders.
  device.seed(17);
  const model = new DropoutClassifier(device);
  const train = new DataLoaderBuilder(new ItemBatcher()).batchSize(16).shuffle(5).build(new InMemDataset(trainItems));
  const valid = new DataLoaderBuilder(new ItemBatcher()).batchSize(16).build(new InMemDataset(validItems));
  const training = new SupervisedTraining(dir, train, valid)
    .metrics([new LossMetric()])
    .numEpochs(epochs)
    .withFileCheckpointer()
    .renderer(new CliRenderer({ write: () => {} }));
  if (resume !== undefined) training.checkpoint(resume);
  return training.launch(new Learner(model, new AdamConfig({}).init<DropoutClassifier>(), 0.05));
}

const epochLosses = (dir: string, split: 'train' | 'valid', epochs: number[]) =>
  epochs.map((e) => new FileMetricLogger(dir).epochValue(split, e, 'Loss'));

describe('SupervisedTraining: exact resume', () => {
  it('resuming at epoch 2 of 5 replays the data order and the dropout masks of epochs 3-5', async () => {
    const fullDir = tempDir();
    const full = await run(fullDir, 5);
    const dir = tempDir();
    await run(dir, 2);
    const resumed = await run(dir, 5, 2);
    assert.deepEqual(epochLosses(dir, 'train', [1, 2, 3, 4, 5]), epochLosses(fullDir, 'train', [1, 2, 3, 4, 5]));
    assert.deepEqual(epochLosses(dir, 'valid', [3, 4, 5]), epochLosses(fullDir, 'valid', [3, 4, 5]));
    assert.deepEqual(await parameters(resumed.model), await parameters(full.model));
    // The epochs differ from each other (the order and the masks change every epoch).
    const losses = epochLosses(fullDir, 'train', [1, 2, 3, 4, 5]);
    assert.equal(new Set(losses).size, 5);
  });

  it('a resumed run is independent of how the device was seeded before launch', async () => {
    const fullDir = tempDir();
    const full = await run(fullDir, 3);
    const dir = tempDir();
    await run(dir, 1);
    device.seed(12345);
    const model = new DropoutClassifier(device); // other initial weights and RNG state: all must come from the checkpoint
    const train = new DataLoaderBuilder(new ItemBatcher()).batchSize(16).shuffle(5).build(new InMemDataset(trainItems));
    const valid = new DataLoaderBuilder(new ItemBatcher()).batchSize(16).build(new InMemDataset(validItems));
    const resumed = await new SupervisedTraining(dir, train, valid)
      .metrics([new LossMetric()])
      .numEpochs(3)
      .withFileCheckpointer()
      .checkpoint(1)
      .renderer(new CliRenderer({ write: () => {} }))
      .launch(new Learner(model, new AdamConfig({}).init<DropoutClassifier>(), 0.05));
    assert.deepEqual(epochLosses(dir, 'train', [2, 3]), epochLosses(fullDir, 'train', [2, 3]));
    assert.deepEqual(await parameters(resumed.model), await parameters(full.model));
  });
});
