// Burn's simple-regression example: a CSV table of housing districts, min-max scaled features, a
// one-hidden-layer model trained by the Learner on the mean squared error, then inference from the
// saved artifacts on the test split with a text scatter plot of predicted against expected values.
//   npm run example simple-regression               full run (100 epochs, Burn's settings)
//   npm run example simple-regression -- --smoke    a small table, 10 epochs at lr 1e-2
//   options: --epochs N  --artifacts DIR
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Config, Device, z } from 'burn-ts';
import { DataLoaderBuilder, getMany } from 'burn-ts/data';
import { AdamConfig } from 'burn-ts/optim';
import { Learner, LossMetric, SupervisedTraining } from 'burn-ts/train';
import { featureRange, housingDataset, HousingBatcher } from './data.ts';
import { NOISE_STD, writeHousingCsv } from './generate.ts';
import { RegressionModelConfig } from './model.ts';
import { scatter } from './plot.ts';

/** Burn's `ExpConfig`. */
class ExpConfig extends Config.define({
  numEpochs: z.number().int().positive().default(100),
  numWorkers: z.number().int().nonnegative().default(0),
  seed: z.number().int().default(1337),
  optimizer: AdamConfig.nested(),
  batchSize: z.number().int().positive().default(256),
  learningRate: z.number().positive().default(1e-3),
}) {}

const { values } = parseArgs({
  options: { smoke: { type: 'boolean', default: false }, epochs: { type: 'string' }, artifacts: { type: 'string' } },
});
const smoke = values.smoke || process.env.BURN_EXAMPLE_SMOKE === '1';
const artifactDir =
  values.artifacts ?? (smoke ? mkdtempSync(join(tmpdir(), 'burn-ts-regression-')) : '/tmp/burn-ts-regression');
rmSync(join(artifactDir, 'checkpoint'), { recursive: true, force: true });
mkdirSync(artifactDir, { recursive: true });

const config = new ExpConfig({
  optimizer: new AdamConfig({}),
  ...(smoke ? { numEpochs: 10, batchSize: 64, learningRate: 1e-2 } : {}),
});
const numEpochs = values.epochs !== undefined ? Number(values.epochs) : config.numEpochs;
config.withNumEpochs(numEpochs).save(join(artifactDir, 'config.json'));

// The data: three CSV files written by the generator, read back as typed rows.
const csv = writeHousingCsv(
  join(artifactDir, 'data'),
  smoke ? { train: 1024, validation: 256, test: 256 } : { train: 16000, validation: 2000, test: 2000 },
);
const trainSet = housingDataset(csv.train),
  validSet = housingDataset(csv.validation),
  testSet = housingDataset(csv.test);
console.log(`Train Dataset Size: ${trainSet.len()}\nValid Dataset Size: ${validSet.len()}`);

const device = Device.default();
device.seed(config.seed);
const autodiff = device.autodiff();
const batcher = new HousingBatcher(featureRange(trainSet));
const trainLoader = new DataLoaderBuilder(batcher)
  .batchSize(config.batchSize)
  .shuffle(config.seed)
  .numWorkers(config.numWorkers)
  .build(trainSet);
const validLoader = new DataLoaderBuilder(batcher)
  .batchSize(config.batchSize)
  .numWorkers(config.numWorkers)
  .build(validSet);

const modelConfig = new RegressionModelConfig({});
const training = new SupervisedTraining(artifactDir, trainLoader, validLoader)
  .metrics([new LossMetric()])
  .withFileCheckpointer()
  .numEpochs(numEpochs)
  .summary();
const started = Date.now();
const result = await training.launch(
  new Learner(modelConfig.init(autodiff), config.optimizer.init(), config.learningRate),
);
const seconds = (Date.now() - started) / 1000;
result.model.saveFile(join(artifactDir, 'model'));

// Inference as a separate program would do it: the model rebuilt from its config and the file.
const model = modelConfig.init(device).loadFile(join(artifactDir, 'model'), device);
const items = getMany(
  testSet,
  Array.from({ length: Math.min(1000, testSet.len()) }, (_, i) => i),
);
const batch = batcher.batch(items, device);
const predicted = Array.from((await model.forward(batch.inputs).squeezeDim(1).toData()).toArray() as Float32Array);
const expected = Array.from((await batch.targets.toData()).toArray() as Float32Array);
const mse = predicted.reduce((s, p, i) => s + (p - expected[i]!) ** 2, 0) / predicted.length;
const mean = expected.reduce((a, b) => a + b, 0) / expected.length;
const variance = expected.reduce((s, y) => s + (y - mean) ** 2, 0) / expected.length;

console.log('Predicted vs. Expected Median House Value (in 100,000$)');
console.log(
  scatter(
    predicted.map((p, i) => [expected[i]!, p] as const),
    { width: 60, height: 20, min: 0, max: 5 },
  ),
);
console.log(`Predicted ${predicted[0]!.toFixed(4)} Expected ${expected[0]!.toFixed(4)}`);
const losses = result.history.train.get('Loss') ?? [];
const out = {
  epochs: numEpochs,
  firstTrainLoss: losses[0],
  lastTrainLoss: losses.at(-1),
  validLoss: result.history.valid.get('Loss')?.at(-1),
  testRmse: Math.sqrt(mse),
  testR2: 1 - mse / variance,
  noiseStd: NOISE_STD,
  seconds,
};
console.log(
  `test on ${predicted.length} districts: RMSE ${out.testRmse.toFixed(4)} (noise floor ${NOISE_STD}), R² ${out.testR2.toFixed(4)}; ${numEpochs} epochs in ${seconds.toFixed(1)} s`,
);
console.log(`result ${JSON.stringify(out)}`);
if (smoke && values.artifacts === undefined) rmSync(artifactDir, { recursive: true, force: true });
