// User-defined datasets for the data loader tests: reopenable in workers through a recipe that
// names this (TypeScript) module, or not reopenable at all.
import { threadId } from 'node:worker_threads';
import type { Dataset, Mapper, WorkerRecipe } from '../../../src/data/index.js';

/** Blocks the thread for `ms` milliseconds (a stand-in for slow I/O or decoding). */
export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Keeps the thread busy for `ms` milliseconds (a stand-in for a training step). */
export function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** An item that says which thread loaded it, and when (ms since the epoch, comparable across threads). */
export interface Traced {
  readonly index: number;
  readonly thread: number;
  readonly start?: number;
  readonly end?: number;
}

/** Wall-clock milliseconds, comparable between threads. */
export const now = (): number => performance.timeOrigin + performance.now();

/**
 * `n` items, each taking `ms` to load; `failAt` makes that index throw. Reopenable in workers.
 */
export class SlowDataset implements Dataset<Traced> {
  constructor(
    readonly n: number,
    readonly ms = 0,
    readonly failAt = -1,
  ) {}
  get(index: number): Traced | undefined {
    if (index < 0 || index >= this.n) return undefined;
    if (index === this.failAt) throw new Error(`item ${index} is broken`);
    const start = now();
    sleepSync(this.ms);
    return this.ms > 0 ? { index, thread: threadId, start, end: now() } : { index, thread: threadId };
  }
  len(): number {
    return this.n;
  }
  workerRecipe(): WorkerRecipe {
    return {
      module: import.meta.url,
      export: 'openSlowDataset',
      args: { n: this.n, ms: this.ms, failAt: this.failAt },
    };
  }
}

/** Worker factory of {@link SlowDataset}. */
export function openSlowDataset(args: { n: number; ms: number; failAt: number }): SlowDataset {
  return new SlowDataset(args.n, args.ms, args.failAt);
}

/** The same items without a recipe: loaded on the main thread. */
export class PlainDataset implements Dataset<Traced> {
  constructor(readonly n: number) {}
  get(index: number): Traced | undefined {
    return index >= 0 && index < this.n ? { index, thread: threadId } : undefined;
  }
  len(): number {
    return this.n;
  }
}

/** A mapper reopenable in workers: adds `offset` to the index. */
export class OffsetMapper implements Mapper<Traced, Traced> {
  constructor(readonly offset: number) {}
  map(item: Traced): Traced {
    return { index: item.index + this.offset, thread: item.thread };
  }
  workerRecipe(): WorkerRecipe {
    return { module: import.meta.url, export: 'openOffsetMapper', args: { offset: this.offset } };
  }
}

/** Worker factory of {@link OffsetMapper}. */
export function openOffsetMapper(args: { offset: number }): OffsetMapper {
  return new OffsetMapper(args.offset);
}

/** A recipe naming an export that does not exist. */
export class BrokenRecipeDataset extends PlainDataset {
  workerRecipe(): WorkerRecipe {
    return { module: import.meta.url, export: 'noSuchFactory', args: {} };
  }
}

/**
 * Items served as promises (a `get` that is `async`), `rejectAt` rejecting. Reopenable in workers.
 * The loader awaits them; a rejection is the error of the iteration.
 */
export class AsyncDataset implements Dataset<Traced> {
  constructor(
    readonly n: number,
    readonly rejectAt = -1,
  ) {}
  get(index: number): Traced | undefined {
    if (index < 0 || index >= this.n) return undefined;
    const item =
      index === this.rejectAt
        ? Promise.reject(new Error(`item ${index} rejected`))
        : Promise.resolve({ index, thread: threadId });
    return item as unknown as Traced;
  }
  len(): number {
    return this.n;
  }
  workerRecipe(): WorkerRecipe {
    return { module: import.meta.url, export: 'openAsyncDataset', args: { n: this.n, rejectAt: this.rejectAt } };
  }
}

/** Worker factory of {@link AsyncDataset}. */
export function openAsyncDataset(args: { n: number; rejectAt: number }): AsyncDataset {
  return new AsyncDataset(args.n, args.rejectAt);
}

/**
 * `n` items; loading `hangAt` blocks its thread for good the first time (in any worker: the
 * `hung` flag is shared), so a data loader's timeout must end the worker.
 */
export class HangingDataset implements Dataset<Traced> {
  constructor(
    readonly n: number,
    readonly hangAt: number,
    readonly hung: Int32Array<SharedArrayBuffer> = new Int32Array(new SharedArrayBuffer(8)),
  ) {}
  get(index: number): Traced | undefined {
    if (index < 0 || index >= this.n) return undefined;
    if (index === this.hangAt && Atomics.compareExchange(this.hung, 0, 0, 1) === 0) Atomics.wait(this.hung, 1, 0); // nobody ever wakes it
    return { index, thread: threadId };
  }
  len(): number {
    return this.n;
  }
  workerRecipe(): WorkerRecipe {
    return {
      module: import.meta.url,
      export: 'openHangingDataset',
      args: { n: this.n, hangAt: this.hangAt, hung: this.hung },
    };
  }
}

/** Worker factory of {@link HangingDataset}. */
export function openHangingDataset(args: {
  n: number;
  hangAt: number;
  hung: Int32Array<SharedArrayBuffer>;
}): HangingDataset {
  return new HangingDataset(args.n, args.hangAt, args.hung);
}
