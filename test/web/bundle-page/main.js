// The page of test/web/bundle.test.ts, bundled by Vite's production build exactly as a user's
// page: it imports the package by name (`burn-ts`, its browser conditions), never from src/.
// Plain JavaScript: it is compiled by Vite against the built package, not type-checked with src/.
// The query string chooses the device: `?device=auto` (Device.defaultAsync()) or `?device=wasm`.
import { Device, Module, Tensor } from 'burn-ts';
import { DataLoaderBuilder, InMemDataset } from 'burn-ts/data';
import { CrossEntropyLossConfig, LinearConfig } from 'burn-ts/nn';
import { GradientsParams, SgdConfig } from 'burn-ts/optim';
import { IndexedDbStorage } from 'burn-ts/store';
import {
  AccuracyMetric,
  ClassificationOutput,
  IndexedDbCheckpointer,
  Learner,
  LossMetric,
  SupervisedTraining,
  TrainOutput,
} from 'burn-ts/train';

const values = async (t) => Array.from((await t.toData()).values);

/** A linear 2 → 2 classifier with the steps SupervisedTraining calls. */
class Classifier extends Module {
  constructor(device) {
    super();
    this.linear = new LinearConfig({ dInput: 2, dOutput: 2 }).init(device);
  }

  classify(batch) {
    const output = this.linear.forward(batch.x);
    const loss = new CrossEntropyLossConfig().init(output.device()).forward(output, batch.y);
    return new ClassificationOutput(loss, output, batch.y);
  }

  trainStep(batch) {
    const item = this.classify(batch);
    return new TrainOutput(this, item.loss.backward(), item);
  }

  inferenceStep(batch) {
    return this.classify(batch);
  }
}

/**
 * Two epochs of SupervisedTraining in the page: an InMemDataset through the data loader (asked for
 * workers, which a page loads on the main thread), metrics in memory, a renderer of our own and
 * checkpoints in IndexedDB, then the last checkpoint loaded back into a fresh model.
 */
async function supervised(device) {
  const items = [];
  for (let i = 0; i < 64; i++) {
    const a = Math.sin(i * 1.7),
      b = Math.cos(i * 2.3);
    items.push({ x: [a, b], y: a + b > 0 ? 1 : 0 });
  }
  const batcher = {
    batch: (batch, d) => ({
      x: Tensor.fromFloats(
        batch.map((e) => e.x),
        d,
      ),
      y: Tensor.fromInts(
        batch.map((e) => e.y),
        d,
      ),
    }),
  };
  const loader = (d) =>
    new DataLoaderBuilder(batcher).batchSize(16).shuffle(7).numWorkers(2).setDevice(d).build(new InMemDataset(items));
  const train = device.autodiff();
  const epochLines = [];
  const renderer = {
    update() {},
    render() {},
    epochEnd: (split, epoch, history) =>
      epochLines.push(`${split} ${epoch} ${history[split].get('Loss')?.[epoch - 1]}`),
    close() {},
  };
  await IndexedDbStorage.deleteDatabase('burn-ts-bundle-train');
  const checkpointer = await IndexedDbCheckpointer.open('run', 'burn-ts-bundle-train');
  const result = await new SupervisedTraining('artifacts', loader(train), loader(device))
    .metrics([new LossMetric(), new AccuracyMetric()])
    .numEpochs(2)
    .renderer(renderer)
    .withCheckpointer(checkpointer)
    .launch(new Learner(new Classifier(train), new SgdConfig({}).init(), 0.5));
  const reopened = await IndexedDbCheckpointer.open('run', 'burn-ts-bundle-train');
  const restored = await reopened.loadModel(2, new Classifier(device));
  const trained = await values(result.model.linear.weight.val());
  return {
    epochLines,
    validLoss: result.history.valid.get('Loss'),
    trainAccuracy: result.history.train.get('Accuracy'),
    checkpoints: reopened.epochs(),
    restoredEqual: JSON.stringify(await values(restored.linear.weight.val())) === JSON.stringify(trained),
    loadingMode: loader(device).loadingMode(),
  };
}

async function run() {
  const mode = new URL(location.href).searchParams.get('device') ?? 'auto';
  const device = mode === 'wasm' ? await Device.cpuAsync({ engine: 'wasm' }) : await Device.defaultAsync();

  // A tensor op.
  const a = Tensor.fromFloats(
    [
      [1, 2, 3],
      [4, 5, 6],
    ],
    device,
  );
  const b = Tensor.fromFloats(
    [
      [1, 0],
      [0, 1],
      [2, -1],
    ],
    device,
  );
  const product = await values(a.matmul(b).add(0.5));

  // A training step: a Linear 3 → 2 on the autodiff device, mean squared error, one SGD step.
  const train = device.autodiff();
  const model = new LinearConfig({ dInput: 3, dOutput: 2 }).init(train);
  const x = [
    [0.5, -1, 2],
    [1.5, 0.25, -0.5],
    [-2, 1, 0.75],
    [0, 0.5, 1],
  ];
  const target = [
    [1, -1],
    [0.5, 2],
    [-1, 0],
    [0.25, 0.75],
  ];
  const weight = await values(model.weight.val());
  const bias = await values(model.bias.val());
  const loss = model.forward(Tensor.fromFloats(x, train)).sub(Tensor.fromFloats(target, train)).powf(2).mean();
  const lossValue = (await values(loss))[0];
  const grads = GradientsParams.fromGrads(loss.backward(), model);
  const lr = 0.1;
  const stepped = new SgdConfig({}).init().step(lr, model, grads);
  const weightAfter = await values(stepped.weight.val());
  const biasAfter = await values(stepped.bias.val());

  // A save/load round trip through the browser's storage (IndexedDB).
  const storage = await IndexedDbStorage.open('burn-ts-bundle-test');
  await storage.saveModule(stepped, 'linear');
  const keys = await storage.keys();
  const fresh = new LinearConfig({ dInput: 3, dOutput: 2 }).init(device);
  const loaded = await storage.loadModule(fresh, 'linear');
  const loadedWeight = await values(loaded.weight.val());
  const loadedBias = await values(loaded.bias.val());
  let missing = '';
  await storage.loadModule(fresh, 'absent').catch((e) => (missing = e.message));
  storage.close();

  const training = await supervised(device);

  return {
    training,
    device: String(device),
    isolated: globalThis.crossOriginIsolated === true,
    cores: navigator.hardwareConcurrency,
    product,
    x,
    target,
    weight,
    bias,
    lossValue,
    lr,
    weightAfter,
    biasAfter,
    keys,
    loadedWeight,
    loadedBias,
    missing,
  };
}

globalThis.burnResult = run().catch((e) => ({ error: `${e?.stack ?? e}` }));
