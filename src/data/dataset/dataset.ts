import { BurnError } from '../../core/errors.js';
import type { WorkerRecipe } from './recipe.js';

/**
 * A dataset: `len()` items, read one at a time by index (Burn's `Dataset<I>`).
 *
 * `get(index)` returns the item, or `undefined` when `index` is out of range (`0 <= index <
 * len()`). A dataset that a data loader worker thread can reopen also implements
 * {@link Dataset.workerRecipe} (see `src/data/README.md`).
 */
export interface Dataset<I> {
  /** The item at `index`, or `undefined` when `index` is not in `[0, len())`. */
  get(index: number): I | undefined;
  /** The number of items. */
  len(): number;
  /**
   * The items at `indices` in that order (optional: a dataset can read many items at once faster
   * than one by one). Throws a `BurnError` for an index out of range.
   */
  getMany?(indices: readonly number[]): I[];
  /**
   * How a data loader worker thread reopens this dataset, or `undefined` when it cannot (then the
   * loader reads it on the main thread). See {@link WorkerRecipe}.
   */
  workerRecipe?(): WorkerRecipe | undefined;
}

/** Throws a `BurnError` for `op` unless `value` is a non-negative safe integer. */
export function checkIndex(op: string, name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new BurnError(op, `${name} ${value}; expected a non-negative integer`);
}

/**
 * Marks an item that is a promise (from an `async get`) as handled, so that if reading a later item
 * of the same batch throws, and this one is never awaited, its rejection is not unhandled.
 */
function handled<I>(item: I): I {
  if (item !== null && typeof item === 'object' && typeof (item as { then?: unknown }).then === 'function')
    (item as unknown as PromiseLike<unknown>).then(undefined, () => undefined);
  return item;
}

/**
 * The items at `indices` of any dataset, through its `getMany` when it has one. Throws a
 * `BurnError` naming the index when one is out of range.
 */
export function getMany<I>(dataset: Dataset<I>, indices: readonly number[], op = 'Dataset.getMany'): I[] {
  if (dataset.getMany) return dataset.getMany(indices);
  const len = dataset.len();
  return indices.map((index) => {
    const item = dataset.get(index);
    if (item === undefined) throw new BurnError(op, `index ${index} is out of range for a dataset of ${len} items`);
    return handled(item);
  });
}

/** Iterates over the items of any dataset, in index order. */
export function* iterDataset<I>(dataset: Dataset<I>): IterableIterator<I> {
  const len = dataset.len();
  for (let i = 0; i < len; i++) {
    const item = dataset.get(i);
    if (item === undefined)
      throw new BurnError('Dataset.iter', `get(${i}) returned undefined although len() is ${len}`);
    yield item;
  }
}

/**
 * The base class of burn-ts's datasets: implements iteration (`for (const item of dataset)`),
 * `iter()`, `isEmpty()`, `getMany` and `toArray()` over `get` and `len`.
 */
export abstract class DatasetBase<I> implements Dataset<I>, Iterable<I> {
  /** The item at `index`, or `undefined` when `index` is not in `[0, len())`. */
  abstract get(index: number): I | undefined;
  /** The number of items. */
  abstract len(): number;

  /** True when the dataset has no item. */
  isEmpty(): boolean {
    return this.len() === 0;
  }

  /** The items at `indices`, in that order; a `BurnError` names an index out of range. */
  getMany(indices: readonly number[]): I[] {
    const len = this.len();
    return indices.map((index) => {
      const item = this.get(index);
      if (item === undefined)
        throw new BurnError(`${this.constructor.name}.getMany`, `index ${index} is out of range for ${len} items`);
      return handled(item);
    });
  }

  /** An iterator over the items in index order (Burn's `iter()`). */
  iter(): IterableIterator<I> {
    return iterDataset(this);
  }

  /** Every item, in index order. */
  toArray(): I[] {
    return [...iterDataset(this)];
  }

  [Symbol.iterator](): Iterator<I> {
    return iterDataset(this);
  }
}
