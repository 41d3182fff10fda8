// Inference from the saved artifacts: load the config and the weights, predict.
import { join } from 'node:path';
import type { Device } from 'burn-ts';
import { DataLoaderBuilder, type Dataset, type MnistItem } from 'burn-ts/data';
import { MnistBatcher } from './data.ts';
import type { Model } from './model.ts';
import { TrainingConfig } from './training.ts';

/** Loads the trained model from `artifactDir` onto `device`. */
export function loadModel(artifactDir: string, device: Device): Model {
  const config = TrainingConfig.load(join(artifactDir, 'config.json'));
  return config.model.init(device).loadFile(join(artifactDir, 'model'), device);
}

/** The predicted digit of one item. */
export async function infer(model: Model, device: Device, item: MnistItem): Promise<number> {
  const batch = new MnistBatcher().batch([item], device);
  return model.forward(batch.images).argmax(1).flatten(0, 1).intoScalar();
}

/** Accuracy (%) of `model` on a whole dataset. */
export async function accuracy(model: Model, device: Device, dataset: Dataset<MnistItem>): Promise<number> {
  const loader = new DataLoaderBuilder(new MnistBatcher()).batchSize(256).setDevice(device).build(dataset);
  let correct = 0,
    total = 0;
  for await (const batch of loader) {
    correct += await model.forward(batch.images).argmax(1).flatten(0, 1).equal(batch.targets).int().sum().intoScalar();
    total += batch.targets.dims()[0]!;
  }
  return (100 * correct) / total;
}
