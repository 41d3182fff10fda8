import { BurnError } from '../../../core/errors.js';
import { checkIndex, DatasetBase, getMany, type Dataset } from '../dataset.js';
import { recipeOf, type Revive, type WorkerRecipe } from '../recipe.js';
import { randomSeed, SeededRng, shuffledIndices } from '../rng.js';

/**
 * A view of a dataset through a list of indices: item `i` is `dataset.get(indices[i])` (Burn's
 * `SelectionDataset`). Indices may repeat; nothing is copied but the index list.
 */
export class SelectionDataset<I> extends DatasetBase<I> {
  private constructor(
    private readonly dataset: Dataset<I>,
    private indices: Uint32Array,
  ) {
    super();
  }

  /** A selection of `indices`, each checked against the dataset's length (a `BurnError` names the first out of range). */
  static fromIndicesChecked<I>(dataset: Dataset<I>, indices: ArrayLike<number>): SelectionDataset<I> {
    const len = dataset.len();
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k]!;
      if (!Number.isInteger(i) || i < 0 || i >= len)
        throw new BurnError(
          'SelectionDataset.fromIndicesChecked',
          `index ${i} (position ${k}) is out of range for a dataset of ${len} items`,
        );
    }
    return new SelectionDataset(dataset, Uint32Array.from(indices));
  }

  /** A selection of `indices` without checking them (an index out of range reads as `undefined`). */
  static fromIndicesUnchecked<I>(dataset: Dataset<I>, indices: ArrayLike<number>): SelectionDataset<I> {
    return new SelectionDataset(dataset, Uint32Array.from(indices));
  }

  /** Every item, in order. */
  static newSelectAll<I>(dataset: Dataset<I>): SelectionDataset<I> {
    const indices = new Uint32Array(dataset.len());
    for (let i = 0; i < indices.length; i++) indices[i] = i;
    return new SelectionDataset(dataset, indices);
  }

  /** Every item, in a random order drawn from `seed` (a fresh random seed when omitted). */
  static newShuffled<I>(dataset: Dataset<I>, seed?: number): SelectionDataset<I> {
    const s = seed ?? randomSeed();
    checkIndex('SelectionDataset.newShuffled', 'seed', s);
    return new SelectionDataset(dataset, shuffledIndices(dataset.len(), new SeededRng(s)));
  }

  /** The selected indices (a copy). */
  selectedIndices(): number[] {
    return Array.from(this.indices);
  }

  /** Shuffles the selection in place with `seed` (a fresh random seed when omitted). */
  shuffle(seed?: number): void {
    const s = seed ?? randomSeed();
    checkIndex('SelectionDataset.shuffle', 'seed', s);
    const order = shuffledIndices(this.indices.length, new SeededRng(s));
    this.indices = order.map((k) => this.indices[k]!);
  }

  /** The selection's items `start` to `end` (exclusive) as a new selection. */
  slice(start: number, end: number): SelectionDataset<I> {
    checkIndex('SelectionDataset.slice', 'start', start);
    checkIndex('SelectionDataset.slice', 'end', end);
    if (start > end || end > this.indices.length)
      throw new BurnError(
        'SelectionDataset.slice',
        `range [${start}, ${end}) of a selection of ${this.indices.length}; expected 0 <= start <= end <= ${this.indices.length}`,
      );
    return new SelectionDataset(this.dataset, this.indices.slice(start, end));
  }

  /** Splits the selection into `num` consecutive parts (the last takes the remainder). */
  split(num: number): SelectionDataset<I>[] {
    if (!Number.isSafeInteger(num) || num < 1)
      throw new BurnError('SelectionDataset.split', `num ${num}; expected a positive integer`);
    const n = this.indices.length;
    const size = Math.floor(n / num);
    return Array.from({ length: num }, (_, i) => this.slice(i * size, i === num - 1 ? n : (i + 1) * size));
  }

  get(index: number): I | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.indices.length) return undefined;
    return this.dataset.get(this.indices[index]!);
  }

  override getMany(indices: readonly number[]): I[] {
    const n = this.indices.length;
    return getMany(
      this.dataset,
      indices.map((i) => {
        if (!Number.isInteger(i) || i < 0 || i >= n)
          throw new BurnError('SelectionDataset.getMany', `index ${i} is out of range for ${n} items`);
        return this.indices[i]!;
      }),
    );
  }

  len(): number {
    return this.indices.length;
  }

  /** Reopenable in a worker when the wrapped dataset is (the index list travels with the recipe). */
  workerRecipe(): WorkerRecipe | undefined {
    const dataset = recipeOf(this.dataset);
    if (!dataset) return undefined;
    return { module: import.meta.url, export: 'openSelectionDataset', args: { dataset, indices: this.indices } };
  }
}

/** Worker factory of {@link SelectionDataset}. */
export async function openSelectionDataset(
  args: { dataset: WorkerRecipe; indices: Uint32Array },
  revive: Revive,
): Promise<SelectionDataset<unknown>> {
  return SelectionDataset.fromIndicesUnchecked((await revive(args.dataset)) as Dataset<unknown>, args.indices);
}
