import { Device } from '../../device/device.js';
import { BurnError } from '../../core/errors.js';
import type { Dataset } from '../dataset/dataset.js';
import type { Batcher } from './batcher.js';
import { datasetLen } from './dataset-len.js';
import { DataLoader } from './loader.js';
import type { WebWorkerLike } from './web-worker.js';

function positive(op: string, name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min)
    throw new BurnError(op, `${name} ${value}; expected an integer >= ${min}`);
  return value;
}

/**
 * Builds a {@link DataLoader} (Burn's `DataLoaderBuilder`):
 *
 * ```ts
 * const loader = new DataLoaderBuilder(new MnistBatcher())
 *   .batchSize(64).shuffle(42).numWorkers(2).setDevice(device)
 *   .build(MnistDataset.train());
 * for await (const batch of loader) { … }
 * ```
 */
export class DataLoaderBuilder<I, O> {
  private size = 1;
  private seed: number | undefined;
  private workers = 0;
  private device: Device | undefined;
  private ahead: number | undefined;
  private timeoutMs = 0;
  private spawnWebWorker: (() => WebWorkerLike) | undefined;

  constructor(private readonly batcher: Batcher<I, O>) {
    if (batcher === null || typeof batcher !== 'object' || typeof batcher.batch !== 'function') {
      throw new BurnError(
        'DataLoaderBuilder',
        `batcher ${String(batcher)}; expected a Batcher (an object with batch(items, device))`,
      );
    }
  }

  /** Items per batch (the last batch of an epoch may be smaller); default 1. */
  batchSize(size: number): this {
    this.size = positive('DataLoaderBuilder.batchSize', 'batch size', size, 1);
    return this;
  }

  /** Shuffles every epoch, each differently, in an order derived from `seed` (reproducible across runs). */
  shuffle(seed: number): this {
    this.seed = positive('DataLoaderBuilder.shuffle', 'seed', seed, 0);
    return this;
  }

  /**
   * Workers loading items (0, the default: the main thread): worker threads in Node, Web Workers
   * in a page (see {@link webWorker}). Needs a dataset that can be reopened in a worker
   * (`workerRecipe()`); other datasets load on the main thread.
   */
  numWorkers(n: number): this {
    this.workers = positive('DataLoaderBuilder.numWorkers', 'numWorkers', n, 0);
    return this;
  }

  /**
   * How a page starts one data loader worker, for `numWorkers(n > 0)` in a browser (Node uses
   * worker threads and ignores it). The worker's module calls `serveDataWorker({ …factories })`;
   * write the `new Worker(new URL(…, import.meta.url), { type: 'module' })` in your own code so
   * your bundler (Vite, webpack, esbuild plugins) bundles the worker:
   *
   * ```ts
   * builder.numWorkers(2).webWorker(() => new Worker(new URL('./data-worker.js', import.meta.url), { type: 'module' }))
   * ```
   */
  webWorker(spawn: () => WebWorkerLike): this {
    if (typeof spawn !== 'function')
      throw new BurnError(
        'DataLoaderBuilder.webWorker',
        `${String(spawn)}; expected a function that returns a new Worker`,
      );
    this.spawnWebWorker = spawn;
    return this;
  }

  /** The device batches are made on; default `Device.default()`. */
  setDevice(device: Device): this {
    if (!(device instanceof Device))
      throw new BurnError('DataLoaderBuilder.setDevice', `device ${String(device)}; expected a Device`);
    this.device = device;
    return this;
  }

  /** Batches requested ahead of the one being consumed; default 2 per worker (1 on the main thread). */
  prefetch(batches: number): this {
    this.ahead = positive('DataLoaderBuilder.prefetch', 'prefetch', batches, 0);
    return this;
  }

  /**
   * How long a worker thread may go without delivering the batch it is loading, in milliseconds
   * (0, the default: no limit), counted from when it has reopened the dataset. On expiry the
   * iteration throws a `BurnError` naming the worker and the batch, and the stuck worker is
   * terminated and replaced. Items loaded on the main thread have no timeout.
   */
  timeout(ms: number): this {
    if (!Number.isSafeInteger(ms) || ms < 0)
      throw new BurnError(
        'DataLoaderBuilder.timeout',
        `timeout ${ms}; expected an integer >= 0 (milliseconds, 0 for none)`,
      );
    this.timeoutMs = ms;
    return this;
  }

  /** The data loader over `dataset`; a `BurnError` when its `len()` is not a non-negative integer. */
  build(dataset: Dataset<I>): DataLoader<O> {
    if (
      dataset === null ||
      typeof dataset !== 'object' ||
      typeof dataset.get !== 'function' ||
      typeof dataset.len !== 'function'
    ) {
      throw new BurnError(
        'DataLoaderBuilder.build',
        `dataset ${String(dataset)}; expected a Dataset (get(index) and len())`,
      );
    }
    datasetLen('DataLoaderBuilder.build', dataset);
    return new DataLoader<O>({
      dataset: dataset as Dataset<unknown>,
      batcher: this.batcher as Batcher<unknown, O>,
      batchSize: this.size,
      seed: this.seed,
      numWorkers: this.workers,
      device: this.device,
      prefetch: this.ahead,
      timeoutMs: this.timeoutMs,
      webWorker: this.spawnWebWorker,
    });
  }
}
