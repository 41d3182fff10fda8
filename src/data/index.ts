/**
 * `burn-ts/data`: datasets, transforms, SQLite storage, real data sources and the data loader, as
 * Burn's `burn::data` (the `burn-dataset` crate and `burn::data::dataloader`). See README.md.
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
export { SqliteDataset } from './dataset/sqlite.js';
export { SqliteDatasetWriter, type SqliteWriterOptions } from './dataset/sqlite-writer.js';
export type { ItemFormat } from './dataset/sqlite-driver.js';
export { MapperDataset, type Mapper } from './dataset/transform/mapper.js';
export { ComposedDataset } from './dataset/transform/composed.js';
export { PartialDataset } from './dataset/transform/partial.js';
export { SelectionDataset } from './dataset/transform/selection.js';
export { ShuffledDataset } from './dataset/transform/shuffled.js';
export { randomSplit, type RandomSplitOptions } from './dataset/transform/random-split.js';
export { SamplerDataset, type SamplerOptions } from './dataset/transform/sampler.js';
export { WindowsDataset, window, windows } from './dataset/transform/windows.js';
export {
  DEFAULT_IDX_MAX_BYTES,
  decodeIdx,
  encodeIdx,
  readIdx,
  writeIdx,
  type IdxArray,
  type IdxReadOptions,
  type IdxType,
} from './sources/idx.js';
export { IdxImageDataset, type ImageSource, type MnistItem } from './sources/idx-images.js';
export { MnistDataset, MNIST_MD5, MNIST_URL, type IdxDownloadOptions, type MnistOptions } from './sources/mnist.js';
export {
  FashionMnistDataset,
  DEBIAN_FASHION_MNIST_DIR,
  FASHION_MNIST_MD5,
  FASHION_MNIST_URL,
  type FashionMnistOptions,
} from './sources/fashion-mnist.js';
export {
  DEFAULT_DOWNLOAD_MAX_BYTES,
  downloadFile,
  renderProgressBar,
  type DownloadOptions,
  type DownloadProgress,
  type DownloadResult,
} from './sources/download.js';
export { dataDir } from './sources/data-dir.js';
export { decodeImage, readImage, type DecodedImage } from './sources/image/decode.js';
export { DEFAULT_MAX_PIXELS, type ImageDecodeOptions } from './sources/image/limits.js';
export {
  ImageFolderDataset,
  IMAGE_EXTENSIONS,
  type Annotation,
  type ImageDatasetItem,
} from './sources/image-folder.js';
export type { Batcher } from './dataloader/batcher.js';
export { DataLoader, type DataLoaderIterator, type Progress } from './dataloader/loader.js';
export { DataLoaderBuilder } from './dataloader/builder.js';
export { serveDataWorker, type WebWorkerLike } from './dataloader/web-worker.js';
export { splitDataloader } from './dataloader/split.js';
