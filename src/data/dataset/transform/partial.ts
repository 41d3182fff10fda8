import { BurnError } from '../../../core/errors.js';
import { checkIndex, DatasetBase, getMany, type Dataset } from '../dataset.js';
import { recipeOf, type Revive, type WorkerRecipe } from '../recipe.js';

/**
 * The items `start` (inclusive) to `end` (exclusive) of a dataset, without copying them (Burn's
 * `PartialDataset`). `end` past the dataset's length is clipped.
 */
export class PartialDataset<I> extends DatasetBase<I> {
  constructor(
    private readonly dataset: Dataset<I>,
    readonly start: number,
    readonly end: number,
  ) {
    super();
    checkIndex('PartialDataset', 'start', start);
    checkIndex('PartialDataset', 'end', end);
    if (start > end) throw new BurnError('PartialDataset', `start ${start} > end ${end}; expected start <= end`);
  }

  /**
   * Splits a dataset into `num` consecutive parts of `len / num` items (the last one takes the
   * remainder), as Burn's `PartialDataset::split`.
   */
  static split<I>(dataset: Dataset<I>, num: number): PartialDataset<I>[] {
    if (!Number.isSafeInteger(num) || num < 1)
      throw new BurnError('PartialDataset.split', `num ${num}; expected a positive integer`);
    const len = dataset.len();
    const size = Math.floor(len / num);
    return Array.from(
      { length: num },
      (_, i) => new PartialDataset(dataset, i * size, i === num - 1 ? len : (i + 1) * size),
    );
  }

  /**
   * Splits a dataset into at most `num` parts made of whole batches of `batchSize` items (the
   * first parts take one batch more when they do not divide evenly), as Burn's `split_chunks`.
   */
  static splitChunks<I>(dataset: Dataset<I>, num: number, batchSize: number): PartialDataset<I>[] {
    if (!Number.isSafeInteger(num) || num < 1)
      throw new BurnError('PartialDataset.splitChunks', `num ${num}; expected a positive integer`);
    if (!Number.isSafeInteger(batchSize) || batchSize < 1)
      throw new BurnError('PartialDataset.splitChunks', `batchSize ${batchSize}; expected a positive integer`);
    const total = dataset.len();
    const batches = Math.ceil(total / batchSize);
    const per = Math.floor(batches / num);
    const extra = batches % num;
    const out: PartialDataset<I>[] = [];
    let batch = 0;
    for (let i = 0; i < num; i++) {
      const end = batch + per + (i < extra ? 1 : 0);
      const startIndex = batch * batchSize;
      if (startIndex < total) out.push(new PartialDataset(dataset, startIndex, Math.min(end * batchSize, total)));
      batch = end;
    }
    return out;
  }

  get(index: number): I | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.len()) return undefined;
    return this.dataset.get(this.start + index);
  }

  override getMany(indices: readonly number[]): I[] {
    const len = this.len();
    return getMany(
      this.dataset,
      indices.map((i) => {
        if (!Number.isInteger(i) || i < 0 || i >= len)
          throw new BurnError('PartialDataset.getMany', `index ${i} is out of range for ${len} items`);
        return this.start + i;
      }),
    );
  }

  len(): number {
    return Math.max(0, Math.min(this.end, this.dataset.len()) - this.start);
  }

  /** Reopenable in a worker when the wrapped dataset is. */
  workerRecipe(): WorkerRecipe | undefined {
    const dataset = recipeOf(this.dataset);
    if (!dataset) return undefined;
    return {
      module: import.meta.url,
      export: 'openPartialDataset',
      args: { dataset, start: this.start, end: this.end },
    };
  }
}

/** Worker factory of {@link PartialDataset}. */
export async function openPartialDataset(
  args: { dataset: WorkerRecipe; start: number; end: number },
  revive: Revive,
): Promise<PartialDataset<unknown>> {
  return new PartialDataset((await revive(args.dataset)) as Dataset<unknown>, args.start, args.end);
}
