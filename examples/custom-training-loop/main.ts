// Burn's custom-training-loop example: the MNIST model of the guide trained by a loop written by
// hand instead of the Learner — an autodiff device, the forward pass, the loss, backward, the
// gradients by parameter, an optimizer step, and accuracy computed by hand; then validation on
// the inner (non-autodiff) model from `model.valid()`.
//   npm run example custom-training-loop                full run (10 epochs, Burn's settings)
//   npm run example custom-training-loop -- --smoke     a few steps on a few batches
//   options: --epochs N  --log-every N
import { parseArgs } from 'node:util';
import { Config, Device, Tensor, z, type Int } from 'burn-ts';
import { DataLoaderBuilder, MnistDataset, PartialDataset, type Dataset, type MnistItem } from 'burn-ts/data';
import { CrossEntropyLossConfig } from 'burn-ts/nn';
import { AdamConfig, GradientsParams } from 'burn-ts/optim';
import { MnistBatcher } from '../mnist/data.ts';
import { ModelConfig } from '../mnist/model.ts';

/** The training settings of Burn's example (its `MnistTrainingConfig`). */
class TrainingLoopConfig extends Config.define({
  numEpochs: z.number().int().positive().default(10),
  batchSize: z.number().int().positive().default(64),
  seed: z.number().int().default(42),
  lr: z.number().positive().default(1e-4),
  model: ModelConfig.nested(),
  optimizer: AdamConfig.nested(),
}) {}

/** Accuracy (%) of logits `[batch, classes]` against class indices, computed by hand. */
async function accuracy(output: Tensor<2>, targets: Tensor<1, Int>): Promise<number> {
  const predictions = output.argmax(1).squeezeDim(1);
  const correct = await predictions.equal(targets).int().sum().intoScalar();
  return (100 * correct) / targets.dims()[0];
}

const { values } = parseArgs({
  options: { smoke: { type: 'boolean', default: false }, epochs: { type: 'string' }, 'log-every': { type: 'string' } },
});
const smoke = values.smoke || process.env.BURN_EXAMPLE_SMOKE === '1';

const config = new TrainingLoopConfig({
  model: new ModelConfig({ numClasses: 10, hiddenSize: 1024 }),
  optimizer: new AdamConfig({}),
  ...(smoke ? { numEpochs: 1, lr: 1e-3 } : {}),
  ...(values.epochs !== undefined ? { numEpochs: Number(values.epochs) } : {}),
});
const logEvery = Number(values['log-every'] ?? (smoke ? 5 : 50));

const device = Device.default().autodiff();
device.seed(config.seed);
let model = config.model.init(device);
const optim = config.optimizer.init();

// The smoke run trains on 40 batches and validates on 4.
let trainSet: Dataset<MnistItem> = MnistDataset.train();
let testSet: Dataset<MnistItem> = MnistDataset.test();
if (smoke) {
  trainSet = new PartialDataset(trainSet, 0, 40 * config.batchSize);
  testSet = new PartialDataset(testSet, 0, 4 * config.batchSize);
}
const batcher = new MnistBatcher();
const trainLoader = new DataLoaderBuilder(batcher)
  .batchSize(config.batchSize)
  .shuffle(config.seed)
  .setDevice(device)
  .build(trainSet);
// Validation batches go to the inner device: that is where `model.valid()` lives.
const testLoader = new DataLoaderBuilder(batcher).batchSize(config.batchSize).setDevice(device.inner()).build(testSet);
console.log(`custom training loop: ${trainSet.len()} training and ${testSet.len()} test digits, device ${device}`);

const lossFn = new CrossEntropyLossConfig().init(device);
const trainLosses: number[] = [];
let validLoss = 0,
  validAccuracy = 0;
const started = Date.now();
for (let epoch = 1; epoch <= config.numEpochs; epoch++) {
  let iteration = 0,
    lossSum = 0,
    accSum = 0;
  for await (const batch of trainLoader) {
    const output = model.forward(batch.images);
    const loss = lossFn.forward(output, batch.targets);
    const acc = await accuracy(output, batch.targets);
    const lossValue = await loss.intoScalar();
    // Gradients of the backward pass, then the gradients of each parameter of the model.
    const grads = GradientsParams.fromGrads(loss.backward(), model);
    // The optimizer returns the updated model (modules are values, as in Burn).
    model = optim.step(config.lr, model, grads);
    trainLosses.push(lossValue);
    lossSum += lossValue;
    accSum += acc;
    iteration++;
    if (iteration % logEvery === 0)
      console.log(
        `[Train - Epoch ${epoch} - Iteration ${iteration}] Loss ${lossValue.toFixed(3)} | Accuracy ${acc.toFixed(3)} %`,
      );
  }
  console.log(
    `[Train - Epoch ${epoch}] mean loss ${(lossSum / iteration).toFixed(4)} | mean accuracy ${(accSum / iteration).toFixed(2)} %`,
  );

  // Validation on the model without autodiff: no graph is recorded.
  const modelValid = model.valid();
  const validLossFn = new CrossEntropyLossConfig().init(device.inner());
  let correct = 0,
    total = 0,
    lossTotal = 0;
  for await (const batch of testLoader) {
    const output = modelValid.forward(batch.images);
    const n = batch.targets.dims()[0];
    lossTotal += (await validLossFn.forward(output, batch.targets).intoScalar()) * n;
    correct += ((await accuracy(output, batch.targets)) * n) / 100;
    total += n;
  }
  validLoss = lossTotal / total;
  validAccuracy = (100 * correct) / total;
  console.log(`[Valid - Epoch ${epoch}] Loss ${validLoss.toFixed(4)} | Accuracy ${validAccuracy.toFixed(2)} %`);
}
const seconds = (Date.now() - started) / 1000;
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const head = Math.min(5, trainLosses.length);
const result = {
  steps: trainLosses.length,
  firstLoss: mean(trainLosses.slice(0, head)),
  lastLoss: mean(trainLosses.slice(-head)),
  validLoss,
  validAccuracy,
  seconds,
};
console.log(
  `done: ${config.numEpochs} epoch(s), ${result.steps} steps in ${seconds.toFixed(1)} s; test accuracy ${validAccuracy.toFixed(2)} %`,
);
console.log(`result ${JSON.stringify(result)}`);
