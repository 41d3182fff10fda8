// The main job: `npm run mnist` trains Burn's MNIST model and runs inference on test digits.
//   npm run mnist                           MNIST (IDX files in the cache, else the offline digits)
//   npm run mnist -- --dataset fashion      Fashion-MNIST (Debian's dataset-fashion-mnist)
//   options: --epochs N  --artifacts DIR  --workers N
import { parseArgs } from 'node:util';
import { Device } from 'burn-ts';
import { FashionMnistDataset, MnistDataset } from 'burn-ts/data';
import { AdamConfig } from 'burn-ts/optim';
import { accuracy, infer, loadModel } from './inference.ts';
import { ModelConfig } from './model.ts';
import { TrainingConfig, train } from './training.ts';

const { values } = parseArgs({
  options: {
    dataset: { type: 'string', default: 'mnist' },
    epochs: { type: 'string' },
    artifacts: { type: 'string' },
    workers: { type: 'string', default: '2' },
  },
});
const fashion = values.dataset === 'fashion';
if (!fashion && values.dataset !== 'mnist') throw new Error(`--dataset ${values.dataset}: expected mnist or fashion`);
const artifactDir = values.artifacts ?? `/tmp/burn-ts-${fashion ? 'fashion-mnist' : 'mnist'}`;
const device = Device.default();
const trainSet = fashion ? FashionMnistDataset.train() : MnistDataset.train();
const testSet = fashion ? FashionMnistDataset.test() : MnistDataset.test();
console.log(
  `${fashion ? 'Fashion-MNIST' : 'MNIST'}: ${trainSet.len()} training and ${testSet.len()} test images, device ${device}`,
);

const config = new TrainingConfig({
  // The offline MNIST split is small (~8.6k training digits): lighter dropout than the guide's 0.5.
  model: new ModelConfig({ dropout: fashion ? 0.3 : 0.15 }),
  optimizer: new AdamConfig({}),
  numEpochs: Number(values.epochs ?? (fashion ? 8 : 12)),
  numWorkers: Number(values.workers),
  learningRate: 1e-3,
});
const started = Date.now();
await train(artifactDir, config, device.autodiff(), trainSet, testSet);
const minutes = (Date.now() - started) / 60000;

const model = loadModel(artifactDir, device);
const acc = await accuracy(model, device, testSet);
console.log(
  `test accuracy: ${acc.toFixed(2)}% on ${testSet.len()} images after ${config.numEpochs} epochs (${minutes.toFixed(1)} min, ${device})`,
);
for (const i of [0, 1, 2]) {
  const item = testSet.get(i)!;
  console.log(`image ${i}: predicted ${await infer(model, device, item)}, expected ${item.label}`);
}
console.log(`artifacts (config, model, checkpoints, metric logs, learning curves) in ${artifactDir}`);
