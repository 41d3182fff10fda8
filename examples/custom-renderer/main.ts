// Burn's custom-renderer example: the Learner reports training through a renderer of our own
// (renderer.ts) — one line per epoch and split with a sparkline of the batch losses — instead of
// the dashboard. Ctrl-C asks the renderer to stop the training gracefully.
//   npm run example custom-renderer               the guide's MNIST model, 4 epochs
//   npm run example custom-renderer -- --smoke    20 + 4 batches, 2 epochs
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Device } from 'burn-ts';
import { DataLoaderBuilder, MnistDataset, PartialDataset, type Dataset, type MnistItem } from 'burn-ts/data';
import { AdamConfig } from 'burn-ts/optim';
import { AccuracyMetric, Learner, LossMetric, SupervisedTraining } from 'burn-ts/train';
import { MnistBatcher } from '../mnist/data.ts';
import { ModelConfig } from '../mnist/model.ts';
import { SparklineRenderer } from './renderer.ts';

const { values } = parseArgs({ options: { smoke: { type: 'boolean', default: false }, epochs: { type: 'string' } } });
const smoke = values.smoke || process.env.BURN_EXAMPLE_SMOKE === '1';
const numEpochs = Number(values.epochs ?? (smoke ? 2 : 4));
const batchSize = 64;

const device = Device.default().autodiff();
device.seed(42);
let trainSet: Dataset<MnistItem> = MnistDataset.train();
let testSet: Dataset<MnistItem> = MnistDataset.test();
if (smoke) {
  trainSet = new PartialDataset(trainSet, 0, 20 * batchSize);
  testSet = new PartialDataset(testSet, 0, 4 * batchSize);
}
const batcher = new MnistBatcher();
const trainLoader = new DataLoaderBuilder(batcher).batchSize(batchSize).shuffle(42).build(trainSet);
const testLoader = new DataLoaderBuilder(batcher).batchSize(batchSize).build(testSet);

// Metric logs still go to an artifact directory; a temporary one here.
const artifactDir = mkdtempSync(join(tmpdir(), 'burn-ts-custom-renderer-'));
const renderer = new SparklineRenderer();
process.once('SIGINT', () => renderer.requestStop());
const training = new SupervisedTraining(artifactDir, trainLoader, testLoader)
  .metrics([new AccuracyMetric(), new LossMetric()])
  .numEpochs(numEpochs)
  .renderer(renderer)
  .summary();
const started = Date.now();
const result = await training.launch(
  new Learner(new ModelConfig({ hiddenSize: 1024, dropout: 0.3 }).init(device), new AdamConfig({}).init(), 1e-3),
);
const seconds = (Date.now() - started) / 1000;
rmSync(artifactDir, { recursive: true, force: true });

const out = {
  epochs: numEpochs,
  ...renderer.counts,
  trainLoss: result.history.train.get('Loss'),
  validAccuracy: result.history.valid.get('Accuracy')?.at(-1),
  seconds,
};
console.log(
  `renderer calls: ${out.renders} render, ${out.updates} update, ${out.epochEnds} epochEnd, closed ${out.closed}; ${seconds.toFixed(1)} s`,
);
console.log(`result ${JSON.stringify(out)}`);
