// Burn's custom-image-dataset example: a CNN trained from an image folder on disk
// (`root/<class>/*.png`) with ImageFolderDataset. Burn's downloads CIFAR-10 as PNG files; this one
// writes its folder offline from Fashion-MNIST (Debian's dataset-fashion-mnist) first.
//   npm run example custom-image-dataset               1,000 training / 200 test images per class, 6 epochs
//   npm run example custom-image-dataset -- --smoke    30 / 10 per class, 3 epochs
//   options: --epochs N  --folder DIR  --artifacts DIR  --workers N
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Config, Device, z } from 'burn-ts';
import { DataLoaderBuilder, FashionMnistDataset, ImageFolderDataset } from 'burn-ts/data';
import { AdamConfig } from 'burn-ts/optim';
import { AccuracyMetric, Learner, LossMetric, SupervisedTraining } from 'burn-ts/train';
import { ImageBatcher } from './data.ts';
import { CLASSES, writeImageFolder } from './folder.ts';
import { CnnConfig } from './model.ts';

class TrainingConfig extends Config.define({
  model: CnnConfig.nested(),
  optimizer: AdamConfig.nested(),
  numEpochs: z.number().int().positive().default(6),
  batchSize: z.number().int().positive().default(64),
  numWorkers: z.number().int().nonnegative().default(2),
  seed: z.number().int().default(42),
  learningRate: z.number().positive().default(1e-3),
}) {}

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    epochs: { type: 'string' },
    folder: { type: 'string' },
    artifacts: { type: 'string' },
    workers: { type: 'string' },
  },
});
const smoke = values.smoke || process.env.BURN_EXAMPLE_SMOKE === '1';
const scratch = smoke ? mkdtempSync(join(tmpdir(), 'burn-ts-image-folder-')) : undefined;
const folder = values.folder ?? (scratch ? join(scratch, 'fashion-mnist-png') : '/tmp/burn-ts-fashion-mnist-png');
const artifactDir = values.artifacts ?? (scratch ? join(scratch, 'artifacts') : '/tmp/burn-ts-custom-image-dataset');
rmSync(join(artifactDir, 'checkpoint'), { recursive: true, force: true });

const config = new TrainingConfig({
  model: new CnnConfig({}),
  optimizer: new AdamConfig({}),
  ...(smoke ? { numEpochs: 3, batchSize: 32 } : {}),
  ...(values.epochs !== undefined ? { numEpochs: Number(values.epochs) } : {}),
  ...(values.workers !== undefined ? { numWorkers: Number(values.workers) } : {}),
});

// 1. The image folder: PNG files written from Fashion-MNIST, one folder per class.
let started = Date.now();
const [trainPerClass, testPerClass] = smoke ? [30, 10] : [1000, 200];
const written =
  writeImageFolder(join(folder, 'train'), FashionMnistDataset.train(), trainPerClass) +
  writeImageFolder(join(folder, 'test'), FashionMnistDataset.test(), testPerClass);
console.log(
  `image folder ${folder}: ${written} PNG files in ${CLASSES.length} class folders (${((Date.now() - started) / 1000).toFixed(1)} s)`,
);

// 2. Datasets from the folder: classes are the sorted folder names, items decode on access.
const trainSet = ImageFolderDataset.newClassification(join(folder, 'train'));
const testSet = ImageFolderDataset.newClassification(join(folder, 'test'));
console.log(`train ${trainSet.len()} images, test ${testSet.len()} images`);

// 3. Training with the Learner; data-loader workers decode the PNG files off the main thread.
const device = Device.default();
device.seed(config.seed);
const batcher = new ImageBatcher();
const trainLoader = new DataLoaderBuilder(batcher)
  .batchSize(config.batchSize)
  .shuffle(config.seed)
  .numWorkers(config.numWorkers)
  .build(trainSet);
const testLoader = new DataLoaderBuilder(batcher)
  .batchSize(config.batchSize)
  .numWorkers(config.numWorkers)
  .build(testSet);
const training = new SupervisedTraining(artifactDir, trainLoader, testLoader)
  .metrics([new AccuracyMetric(), new LossMetric()])
  .withFileCheckpointer()
  .numEpochs(config.numEpochs)
  .summary();
started = Date.now();
const result = await training.launch(
  new Learner(config.model.init(device.autodiff()), config.optimizer.init(), config.learningRate),
);
const seconds = (Date.now() - started) / 1000;
config.save(join(artifactDir, 'config.json'));
result.model.saveFile(join(artifactDir, 'model'));

// 4. Predictions on a few test files, by path.
const model = result.inferenceModel;
const sample = batcher.batch(
  [0, 1, 2].map((k) => testSet.get(k * Math.floor(testSet.len() / 3))!),
  device,
);
const predicted = Array.from((await model.forward(sample.images).argmax(1).toData()).toArray());
sample.imagePaths.forEach((path, i) => console.log(`${path}: predicted ${CLASSES[Number(predicted[i])]}`));

const history = (split: 'train' | 'valid', name: string): number[] => result.history[split].get(name) ?? [];
const out = {
  trainImages: trainSet.len(),
  testImages: testSet.len(),
  classes: trainSet.len() > 0 ? CLASSES.length : 0,
  epochs: config.numEpochs,
  trainLoss: history('train', 'Loss'),
  validAccuracy: history('valid', 'Accuracy').at(-1),
  seconds,
};
console.log(
  `test accuracy ${out.validAccuracy?.toFixed(2)}% on ${testSet.len()} images after ${config.numEpochs} epochs (${seconds.toFixed(1)} s training)`,
);
console.log(`result ${JSON.stringify(out)}`);
if (scratch && values.folder === undefined && values.artifacts === undefined)
  rmSync(scratch, { recursive: true, force: true });
