import { DatasetBase, type Dataset } from '../dataset.js';
import type { WorkerRecipe } from '../recipe.js';
import { SelectionDataset } from './selection.js';

/**
 * The items of a dataset in a random order fixed at construction (Burn's `ShuffledDataset`):
 * the same `seed` gives the same order on every run; without a seed the order is random.
 * Only the index list is stored.
 */
export class ShuffledDataset<I> extends DatasetBase<I> {
  private readonly selection: SelectionDataset<I>;

  constructor(dataset: Dataset<I>, seed?: number) {
    super();
    this.selection = SelectionDataset.newShuffled(dataset, seed);
  }

  get(index: number): I | undefined {
    return this.selection.get(index);
  }

  override getMany(indices: readonly number[]): I[] {
    return this.selection.getMany(indices);
  }

  len(): number {
    return this.selection.len();
  }

  /** The permutation: item `i` is the wrapped dataset's item `indices()[i]`. */
  indices(): number[] {
    return this.selection.selectedIndices();
  }

  /** Reopenable in a worker when the wrapped dataset is. */
  workerRecipe(): WorkerRecipe | undefined {
    return this.selection.workerRecipe();
  }
}
