// Burn's modern-lstm example: an LSTM built from scratch (model.ts) trained by a hand-written loop
// to continue noisy Fibonacci-like sequences, then inference from the saved artifacts.
//   npm run example modern-lstm               Burn's settings: 30 epochs, bidirectional, 2 layers of 32
//   npm run example modern-lstm -- --smoke    200 sequences, 3 epochs
//   options: --epochs N  --artifacts DIR
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Config, Device, z } from 'burn-ts';
import { DataLoaderBuilder, iterDataset } from 'burn-ts/data';
import { MseLoss, Reduction } from 'burn-ts/nn';
import { AdamConfig, GradientsParams } from 'burn-ts/optim';
import { NUM_SEQUENCES, RANDOM_SEED, SequenceBatcher, sequenceDataset } from './data.ts';
import { LstmNetworkConfig } from './model.ts';

class TrainingConfig extends Config.define({
  model: LstmNetworkConfig.nested(),
  optimizer: AdamConfig.nested(),
  numEpochs: z.number().int().positive().default(30),
  batchSize: z.number().int().positive().default(32),
  lr: z.number().positive().default(1e-3),
}) {}

const { values } = parseArgs({
  options: { smoke: { type: 'boolean', default: false }, epochs: { type: 'string' }, artifacts: { type: 'string' } },
});
const smoke = values.smoke || process.env.BURN_EXAMPLE_SMOKE === '1';
const artifactDir =
  values.artifacts ?? (smoke ? mkdtempSync(join(tmpdir(), 'burn-ts-lstm-')) : '/tmp/burn-ts-modern-lstm');
mkdirSync(artifactDir, { recursive: true });
const numSequences = smoke ? 200 : NUM_SEQUENCES;

const config = new TrainingConfig({
  model: new LstmNetworkConfig({}),
  optimizer: new AdamConfig({}),
  ...(smoke ? { numEpochs: 3 } : {}),
  ...(values.epochs !== undefined ? { numEpochs: Number(values.epochs) } : {}),
});
config.save(join(artifactDir, 'config.json'));

// Training: a hand-written loop, as Burn's.
const device = Device.default();
device.seed(RANDOM_SEED);
const autodiff = device.autodiff();
let model = config.model.init(autodiff);
const optim = config.optimizer.init();
const mse = new MseLoss();
const batcher = new SequenceBatcher();
const trainLoader = new DataLoaderBuilder(batcher)
  .batchSize(config.batchSize)
  .shuffle(RANDOM_SEED)
  .setDevice(autodiff)
  .build(sequenceDataset(numSequences, RANDOM_SEED));
const validSet = sequenceDataset(numSequences / 5, RANDOM_SEED + 1);
const validLoader = new DataLoaderBuilder(batcher).batchSize(config.batchSize).setDevice(device).build(validSet);
console.log(`Starting training: ${model.numParams()} parameters, ${numSequences} sequences`);
const trainLosses: number[] = [],
  validLosses: number[] = [];
const started = Date.now();
for (let epoch = 1; epoch <= config.numEpochs; epoch++) {
  let trainSum = 0,
    trainItems = 0;
  for await (const batch of trainLoader) {
    const loss = mse.forward(model.forward(batch.sequences), batch.targets, Reduction.Mean);
    const n = batch.targets.dims()[0];
    trainSum += (await loss.intoScalar()) * n;
    trainItems += n;
    model = optim.step(config.lr, model, GradientsParams.fromGrads(loss.backward(), model));
  }
  const validModel = model.valid();
  let validSum = 0,
    validItems = 0;
  for await (const batch of validLoader) {
    const n = batch.targets.dims()[0];
    validSum +=
      (await mse.forward(validModel.forward(batch.sequences), batch.targets, Reduction.Mean).intoScalar()) * n;
    validItems += n;
  }
  trainLosses.push(trainSum / trainItems);
  validLosses.push(validSum / validItems);
  if (epoch % 5 === 0 || epoch === config.numEpochs || smoke) {
    console.log(
      `Epoch ${epoch}/${config.numEpochs}, Avg Loss ${trainLosses.at(-1)!.toFixed(4)}, Avg Val Loss: ${validLosses.at(-1)!.toFixed(4)}`,
    );
  }
}
const seconds = (Date.now() - started) / 1000;
model.saveFile(join(artifactDir, 'model'));

// Inference as a separate program would: the model from config.json and model.bpk, one batch of every validation sequence.
const loaded = TrainingConfig.load(join(artifactDir, 'config.json'))
  .model.init(device)
  .loadFile(join(artifactDir, 'model'), device);
const items = [...iterDataset(validSet)];
const batch = batcher.batch(items, device);
const predicted = Array.from((await loaded.forward(batch.sequences).toData()).toArray() as Float32Array);
console.log('predicted  expected');
for (let i = 0; i < 10; i++)
  console.log(`${predicted[i]!.toFixed(4).padStart(9)}  ${items[i]!.target.toFixed(4).padStart(8)}`);
const meanAbsError = predicted.reduce((s, p, i) => s + Math.abs(p - items[i]!.target), 0) / items.length;
const meanAbsTarget = items.reduce((s, item) => s + Math.abs(item.target), 0) / items.length;
console.log(
  `mean absolute error ${meanAbsError.toFixed(4)} on ${items.length} validation sequences (mean |target| ${meanAbsTarget.toFixed(2)}); ${config.numEpochs} epochs in ${seconds.toFixed(1)} s`,
);
const result = { epochs: config.numEpochs, trainLosses, validLosses, meanAbsError, meanAbsTarget, seconds };
console.log(`result ${JSON.stringify(result)}`);
if (smoke && values.artifacts === undefined) rmSync(artifactDir, { recursive: true, force: true });
