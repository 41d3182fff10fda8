import { Device } from '../../device/device.js';
import { BurnError } from '../../core/errors.js';
import type { Dataset } from '../dataset/dataset.js';
import { recipeOf } from '../dataset/recipe.js';
import type { WebWorkerLike } from './web-worker.js';
import { SeededRng, shuffledIndices } from '../dataset/rng.js';
import { PartialDataset } from '../dataset/transform/partial.js';
import type { Batcher } from './batcher.js';
import { datasetLen } from './dataset-len.js';
import { MainThreadSource, type ItemSource } from './item-source.js';

/** How far an iteration is (Burn's `Progress`). */
export interface Progress {
  /** Items yielded so far in this epoch. */
  readonly itemsProcessed: number;
  /** Items of the epoch. */
  readonly itemsTotal: number;
  readonly unit: 'items';
}

/** An epoch of a data loader: async-iterable batches, and its progress. */
export interface DataLoaderIterator<O> extends AsyncIterableIterator<O> {
  /** Items yielded so far and in total. */
  progress(): Progress;
}

/** Everything a data loader is made of (what `DataLoaderBuilder` collects). */
export interface DataLoaderConfig<I, O> {
  readonly dataset: Dataset<I>;
  readonly batcher: Batcher<I, O>;
  readonly batchSize: number;
  /** Shuffle seed; `undefined` keeps the dataset's order. */
  readonly seed: number | undefined;
  readonly numWorkers: number;
  readonly device: Device | undefined;
  /** Batches loaded ahead of the one being consumed; `undefined`: 2 per worker, 1 on the main thread. */
  readonly prefetch: number | undefined;
  /** Milliseconds a worker may take to deliver the batch it loads; 0 for no limit. */
  readonly timeoutMs: number;
  /** How a page starts one worker (Web Workers); Node uses worker threads and ignores it. */
  readonly webWorker?: (() => WebWorkerLike) | undefined;
}

// A loader dropped without close() stops its workers when collected; a failure then has no one to report to.
const pools = new FinalizationRegistry<ItemSource>((source) => void source.close().catch(() => undefined));

/**
 * Batches of a dataset, asynchronously iterable (Burn's `DataLoader`), made by
 * `DataLoaderBuilder`. Each `for await` (each `iter()`) is an epoch: with `shuffle(seed)` every
 * epoch has its own order, derived from the seed and the epoch number, so runs are reproducible.
 *
 * With `numWorkers(n > 0)` and a dataset that can be reopened in a worker (see
 * `Dataset.workerRecipe`), items are loaded and decoded in `n` worker threads while the consumer
 * works on earlier batches; batches are assembled by the batcher on the main thread. The batches
 * are the same whatever the number of workers. A dataset that cannot be reopened in a worker is
 * read on the main thread, one batch ahead (`loadingMode()` says which).
 */
export class DataLoader<O> implements AsyncIterable<O> {
  private epoch = 0;
  private forks = 0;
  private source: ItemSource | undefined;
  private warned = false;

  /** @internal Use `DataLoaderBuilder`. */
  constructor(private readonly config: DataLoaderConfig<unknown, O>) {}

  /** The device batches are made on. */
  get device(): Device {
    return this.config.device ?? Device.default();
  }

  /** The number of items of an epoch (not of batches), as Burn's `num_items`. */
  numItems(): number {
    return datasetLen('DataLoader', this.config.dataset);
  }

  /** The number of batches of an epoch (the last may be smaller). */
  numBatches(): number {
    return Math.ceil(this.numItems() / this.config.batchSize);
  }

  /** Whether items are loaded in worker threads or on the main thread. */
  loadingMode(): 'workers' | 'main-thread' {
    return this.config.numWorkers > 0 && workersAvailable(this.config) && recipeOf(this.config.dataset) !== undefined
      ? 'workers'
      : 'main-thread';
  }

  private itemSource(): ItemSource {
    if (this.source) return this.source;
    const { dataset, numWorkers } = this.config;
    // A page without webWorker() loads its items on the main thread, without a warning.
    const recipe = numWorkers > 0 && workersAvailable(this.config) ? recipeOf(dataset) : undefined;
    if (recipe) {
      // Loaded on demand, so that node:worker_threads is only needed when workers are used.
      this.source = new PoolRef(recipe, numWorkers, this.config.timeoutMs, this.config.webWorker);
      pools.register(this, this.source, this);
    } else {
      if (numWorkers > 0 && workersAvailable(this.config) && !this.warned) {
        this.warned = true;
        warn(
          `${dataset.constructor.name} cannot be reopened in a worker thread (it, or a dataset or Mapper inside it, has no workerRecipe()), so its items are loaded on the main thread; see burn-ts/data's README`,
          { code: 'BURN_DATALOADER_MAIN_THREAD' },
        );
      }
      this.source = new MainThreadSource(dataset);
    }
    return this.source;
  }

  /** The order of the items of the next epoch. */
  private nextOrder(): ArrayLike<number> {
    const len = this.numItems();
    const epoch = this.epoch++;
    if (this.config.seed === undefined) return { length: len } as ArrayLike<number> & { [i: number]: number };
    return shuffledIndices(len, new SeededRng(this.config.seed, epoch));
  }

  /**
   * Makes the next iteration epoch number `epoch` (0-based: the order a fresh loader gives on its
   * `epoch + 1`-th iteration), as PyTorch's `set_epoch`; later iterations count on from there. The
   * training loop calls it before each epoch, so a resumed run replays the right shuffle.
   */
  setEpoch(epoch: number): this {
    if (!Number.isSafeInteger(epoch) || epoch < 0)
      throw new BurnError('DataLoader.setEpoch', `epoch ${epoch}; expected a non-negative integer`);
    this.epoch = epoch;
    return this;
  }

  /** Starts an epoch. */
  iter(): DataLoaderIterator<O> {
    const order = this.nextOrder();
    const identity = !(order instanceof Uint32Array);
    const { batchSize, batcher } = this.config;
    const len = order.length;
    const batches = Math.ceil(len / batchSize);
    const source = this.itemSource();
    const device = this.device;
    const ahead = this.config.prefetch ?? (source.mode === 'workers' ? 2 * this.config.numWorkers : 1);
    const inflight = new Map<number, Promise<unknown[]>>();
    let next = 0;
    let issued = 0;
    let processed = 0;
    let done = false;

    const indicesOf = (b: number): number[] => {
      const start = b * batchSize;
      const end = Math.min(start + batchSize, len);
      const out = new Array<number>(end - start);
      for (let i = start; i < end; i++) out[i - start] = identity ? i : order[i]!;
      return out;
    };
    const fill = (): void => {
      while (issued < batches && issued <= next + ahead) {
        const p = source.load(indicesOf(issued), issued);
        p.catch(() => undefined); // observed when its turn comes
        inflight.set(issued++, p);
      }
    };
    const finish = (): IteratorReturnResult<undefined> => {
      done = true;
      inflight.clear();
      return { value: undefined, done: true };
    };

    const iterator: DataLoaderIterator<O> = {
      async next(): Promise<IteratorResult<O>> {
        if (done || next >= batches) return finish();
        fill();
        const pending = inflight.get(next)!;
        let items: unknown[];
        try {
          items = await pending;
        } catch (e) {
          finish();
          throw e;
        }
        inflight.delete(next++);
        fill();
        processed += items.length;
        return { value: batcher.batch(items, device), done: false };
      },
      async return(): Promise<IteratorResult<O>> {
        return finish();
      },
      progress: () => ({ itemsProcessed: processed, itemsTotal: len, unit: 'items' }),
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }

  [Symbol.asyncIterator](): AsyncIterator<O> {
    return this.iter();
  }

  private derive(dataset: Dataset<unknown>, device: Device | undefined): DataLoader<O> {
    const seed =
      this.config.seed === undefined
        ? undefined
        : new SeededRng(this.config.seed, 0x80000000 + this.forks++).nextSeed();
    return new DataLoader({ ...this.config, dataset, device, seed });
  }

  /**
   * A loader of the items `start` to `end` (exclusive) of the dataset, with the same batch size,
   * batcher, workers and device (Burn's `slice`); its shuffle seed is forked from this one's.
   */
  slice(start: number, end: number): DataLoader<O> {
    const len = this.numItems();
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || start > end || end > len) {
      throw new BurnError(
        'DataLoader.slice',
        `range [${start}, ${end}) of ${len} items; expected 0 <= start <= end <= ${len}`,
      );
    }
    return this.derive(new PartialDataset(this.config.dataset, start, end), this.config.device);
  }

  /** The same loader making its batches on `device` (Burn's `to_device`); its shuffle seed is forked from this one's. */
  toDevice(device: Device): DataLoader<O> {
    if (!(device instanceof Device))
      throw new BurnError('DataLoader.toDevice', `device ${String(device)}; expected a Device`);
    return this.derive(this.config.dataset, device);
  }

  /** Stops the worker threads (if any); an iteration started later starts them again. */
  async close(): Promise<void> {
    const source = this.source;
    this.source = undefined;
    if (source) {
      pools.unregister(this);
      await source.close();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** True in Node (worker threads) and in pages that say how to start a Web Worker. */
function workersAvailable(config: DataLoaderConfig<unknown, unknown>): boolean {
  return (
    isNode() || (config.webWorker !== undefined && typeof (globalThis as { Worker?: unknown }).Worker === 'function')
  );
}

function isNode(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
}

/** A process warning in Node, a console warning in a page. */
function warn(message: string, options: { code: string }): void {
  if (isNode()) process.emitWarning(message, options);
  else console.warn(`${options.code}: ${message}`);
}

/** A worker pool created on first use (importing `node:worker_threads` only then). */
class PoolRef implements ItemSource {
  readonly mode = 'workers';
  private pool: Promise<ItemSource> | undefined;

  constructor(
    private readonly recipe: NonNullable<ReturnType<typeof recipeOf>>,
    private readonly numWorkers: number,
    private readonly timeoutMs: number,
    private readonly webWorker: (() => WebWorkerLike) | undefined,
  ) {}

  private get(): Promise<ItemSource> {
    this.pool ??= import('./worker-pool.js').then(
      (m) => new m.WorkerPool(this.recipe, this.numWorkers, this.timeoutMs, this.webWorker),
    );
    return this.pool;
  }

  async load(indices: readonly number[], slot: number): Promise<unknown[]> {
    return (await this.get()).load(indices, slot);
  }

  /** Stops the workers; a pool that failed to start has none to stop (its error went to `load`). */
  async close(): Promise<void> {
    const pool = this.pool && (await this.pool.catch(() => undefined));
    this.pool = undefined;
    if (pool) await pool.close();
  }
}
