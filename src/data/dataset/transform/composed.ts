import { BurnError } from '../../../core/errors.js';
import { DatasetBase, type Dataset } from '../dataset.js';
import { recipeOf, type Revive, type WorkerRecipe } from '../recipe.js';

/**
 * The concatenation of several datasets: the items of the first, then of the second, …
 * (Burn's `ComposedDataset`). Lengths are read on each call, so the parts may grow.
 */
export class ComposedDataset<I> extends DatasetBase<I> {
  private readonly datasets: readonly Dataset<I>[];

  constructor(datasets: readonly Dataset<I>[]) {
    super();
    if (!Array.isArray(datasets))
      throw new BurnError('ComposedDataset', `datasets ${String(datasets)}; expected an array of datasets`);
    this.datasets = [...datasets];
  }

  get(index: number): I | undefined {
    if (!Number.isInteger(index) || index < 0) return undefined;
    let offset = 0;
    for (const d of this.datasets) {
      const n = d.len();
      if (index < offset + n) return d.get(index - offset);
      offset += n;
    }
    return undefined;
  }

  len(): number {
    let total = 0;
    for (const d of this.datasets) total += d.len();
    return total;
  }

  /** Reopenable in a worker when every part is. */
  workerRecipe(): WorkerRecipe | undefined {
    const parts = this.datasets.map(recipeOf);
    if (parts.some((p) => p === undefined)) return undefined;
    return { module: import.meta.url, export: 'openComposedDataset', args: { parts } };
  }
}

/** Worker factory of {@link ComposedDataset}. */
export async function openComposedDataset(
  args: { parts: WorkerRecipe[] },
  revive: Revive,
): Promise<ComposedDataset<unknown>> {
  const parts: Dataset<unknown>[] = [];
  for (const p of args.parts) parts.push((await revive(p)) as Dataset<unknown>);
  return new ComposedDataset(parts);
}
