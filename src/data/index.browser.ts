/**
 * `burn-ts/data` in a browser (package.json's `browser` condition): datasets, transforms and the
 * data loader. SQLite storage and the file and download sources (MNIST, IDX, image folders) are
 * Node-only and not exported here; in a page, fetch the bytes and wrap them in an `InMemDataset`
 * (or a `DatasetBase` of your own). The loader loads items on the main thread, or in Web Workers
 * with `DataLoaderBuilder.webWorker` and `serveDataWorker`.
 */
export { DatasetBase, getMany, iterDataset, type Dataset } from './dataset/dataset.js';
export { reviveRecipe, recipeOf, type WorkerRecipe, type Revive } from './dataset/recipe.js';
export { SeededRng, shuffledIndices } from './dataset/rng.js';
export { InMemDataset, type JsonRowsOptions } from './dataset/in-memory.js';
export {
  parseCsv,
  type CsvColumnType,
  type CsvColumns,
  type CsvOptions,
  type CsvRow,
  type CsvValue,
} from './dataset/csv.js';
export { FakeDataset, fakeString, type FakeGenerator } from './dataset/fake.js';
export { MapperDataset, type Mapper } from './dataset/transform/mapper.js';
export { ComposedDataset } from './dataset/transform/composed.js';
export { PartialDataset } from './dataset/transform/partial.js';
export { SelectionDataset } from './dataset/transform/selection.js';
export { ShuffledDataset } from './dataset/transform/shuffled.js';
export { SamplerDataset, type SamplerOptions } from './dataset/transform/sampler.js';
export { WindowsDataset, window, windows } from './dataset/transform/windows.js';
export type { Batcher } from './dataloader/batcher.js';
export { DataLoader, type DataLoaderIterator, type Progress } from './dataloader/loader.js';
export { DataLoaderBuilder } from './dataloader/builder.js';
export { serveDataWorker, type WebWorkerLike } from './dataloader/web-worker.js';
export { splitDataloader } from './dataloader/split.js';
