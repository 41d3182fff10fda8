// Burn's custom-csv-dataset example: a dataset of our own over a tab-separated file, its first and
// last records; then what any Dataset gets for free — a seeded shuffle and split, a batcher, a data
// loader whose workers reopen the dataset from its recipe — and column statistics computed with
// tensors.
//   npm run example custom-csv-dataset              full run (442 records)
//   npm run example custom-csv-dataset -- --smoke   the same (it takes a second), as npm test runs it
import { parseArgs } from 'node:util';
import { Device, Tensor } from 'burn-ts';
import { DataLoaderBuilder, PartialDataset, ShuffledDataset, iterDataset, type Batcher } from 'burn-ts/data';
import { DiabetesDataset, type DiabetesPatient } from './dataset.ts';

const { values } = parseArgs({
  options: { smoke: { type: 'boolean', default: false }, workers: { type: 'string', default: '2' } },
});
const FEATURES = ['age', 'sex', 'bmi', 'bp', 'tc', 'ldl', 'hdl', 'tch', 'ltg', 'glu'] as const;

const dataset = new DiabetesDataset();
console.log(`Dataset loaded with ${dataset.len()} rows`);
const first = dataset.get(0)!,
  last = dataset.get(dataset.len() - 1)!;
console.log('First item:', first);
console.log('Last item:', last);

// A seeded shuffle, then an 80/20 split: lazy views, only index lists are stored.
const shuffled = new ShuffledDataset(dataset, 42);
const cut = Math.round(0.8 * dataset.len());
const train = new PartialDataset(shuffled, 0, cut),
  test = new PartialDataset(shuffled, cut, dataset.len());
console.log(`split: ${train.len()} training and ${test.len()} test records`);

/** Features `[batch, 10]` and responses `[batch]`. */
interface PatientBatch {
  features: Tensor<2>;
  response: Tensor<1>;
}
const batcher: Batcher<DiabetesPatient, PatientBatch> = {
  batch(items, device) {
    const features = Float32Array.from(items.flatMap((p) => FEATURES.map((f) => p[f])));
    return {
      features: Tensor.fromFloats(features, device).reshape([items.length, FEATURES.length]),
      response: Tensor.fromFloats(
        Float32Array.from(items, (p) => p.response),
        device,
      ),
    };
  },
};
const device = Device.default();
const loader = new DataLoaderBuilder(batcher)
  .batchSize(32)
  .numWorkers(Number(values.workers))
  .setDevice(device)
  .build(train);
let batches = 0,
  items = 0;
for await (const batch of loader) {
  batches++;
  items += batch.features.dims()[0];
}
loader.close();
console.log(`data loader (${loader.loadingMode()}, ${values.workers} workers): ${batches} batches, ${items} records`);

// Column statistics of the whole table with tensors: mean, standard deviation, correlation with Y.
const table = batcher.batch([...iterDataset(dataset)], device);
const mean = table.features.meanDim(0),
  std = table.features.var(0).sqrt();
const y = table.response.sub(table.response.mean()).div(table.response.var(0).sqrt());
const z = table.features.sub(mean).div(std);
const correlation = Array.from(
  (
    await z
      .mul(y.unsqueezeDim(1))
      .sum(0)
      .div(dataset.len() - 1)
      .toData()
  ).toArray() as Float32Array,
);
const means = Array.from((await mean.toData()).toArray() as Float32Array);
console.log('column  mean     corr. with Y');
FEATURES.forEach((f, j) =>
  console.log(`${f.padEnd(7)} ${means[j]!.toFixed(2).padStart(7)}  ${correlation[j]!.toFixed(3).padStart(6)}`),
);

const result = {
  rows: dataset.len(),
  first,
  last,
  trainRows: train.len(),
  testRows: test.len(),
  loadingMode: loader.loadingMode(),
  batches,
  items,
  correlation: Object.fromEntries(FEATURES.map((f, j) => [f, correlation[j]])),
};
console.log(`result ${JSON.stringify(result)}`);
