// Training as in Burn's guide: a config, data loaders, metrics, checkpoints, the learner.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Config, Device, z } from 'burn-ts';
import { DataLoaderBuilder, type Dataset, type MnistItem } from 'burn-ts/data';
import { AdamConfig } from 'burn-ts/optim';
import { AccuracyMetric, Learner, LossMetric, SupervisedTraining, type TrainingResult } from 'burn-ts/train';
import { MnistBatcher } from './data.ts';
import { ModelConfig, type Model } from './model.ts';

export class TrainingConfig extends Config.define({
  model: ModelConfig.nested(),
  optimizer: AdamConfig.nested(),
  numEpochs: z.number().int().positive().default(10),
  batchSize: z.number().int().positive().default(64),
  numWorkers: z.number().int().nonnegative().default(2),
  seed: z.number().int().default(42),
  learningRate: z.number().positive().default(1.0e-4),
}) {}

/** Trains on `train`, validates on `valid`, saves `config.json` and `model.bpk` in `artifactDir`. */
export async function train(
  artifactDir: string,
  config: TrainingConfig,
  device: Device,
  train: Dataset<MnistItem>,
  valid: Dataset<MnistItem>,
): Promise<TrainingResult<Model>> {
  mkdirSync(artifactDir, { recursive: true });
  config.save(join(artifactDir, 'config.json'));
  device.seed(config.seed);
  const batcher = new MnistBatcher();
  const trainLoader = new DataLoaderBuilder(batcher)
    .batchSize(config.batchSize)
    .shuffle(config.seed)
    .numWorkers(config.numWorkers)
    .build(train);
  const validLoader = new DataLoaderBuilder(batcher)
    .batchSize(config.batchSize)
    .numWorkers(config.numWorkers)
    .build(valid);
  const training = new SupervisedTraining(artifactDir, trainLoader, validLoader)
    .metrics([new AccuracyMetric(), new LossMetric()])
    .withFileCheckpointer()
    .numEpochs(config.numEpochs)
    .summary();
  const result = await training.launch(
    new Learner(config.model.init(device), config.optimizer.init(), config.learningRate),
  );
  result.model.saveFile(join(artifactDir, 'model'));
  return result;
}
