import { BurnError } from '../../../core/errors.js';
import { DatasetBase, getMany, type Dataset } from '../dataset.js';
import { recipeOf, type Revive, type WorkerRecipe } from '../recipe.js';

function checkSize(op: string, size: number): void {
  if (!Number.isSafeInteger(size) || size < 1)
    throw new BurnError(op, `window size ${size}; expected a positive integer`);
}

/** The window of `size` consecutive items starting at `start`, or `undefined` when it does not fit (Burn's `Window::window`). */
export function window<I>(dataset: Dataset<I>, start: number, size: number): I[] | undefined {
  checkSize('window', size);
  if (!Number.isInteger(start) || start < 0 || start + size > dataset.len()) return undefined;
  return getMany(
    dataset,
    Array.from({ length: size }, (_, k) => start + k),
    'window',
  );
}

/** Every window of `size` consecutive items, sliding by one (Burn's `Windows::windows`). */
export function* windows<I>(dataset: Dataset<I>, size: number): IterableIterator<I[]> {
  checkSize('windows', size);
  const n = Math.max(dataset.len() - size + 1, 0);
  for (let i = 0; i < n; i++) yield window(dataset, i, size)!;
}

/**
 * A dataset of the sliding windows of `size` consecutive items of another dataset (Burn's
 * `WindowsDataset`): item `i` is `[d.get(i), …, d.get(i + size - 1)]`; its length is
 * `max(len - size + 1, 0)`. Windows are read on demand.
 */
export class WindowsDataset<I> extends DatasetBase<I[]> {
  constructor(
    private readonly dataset: Dataset<I>,
    readonly size: number,
  ) {
    super();
    checkSize('WindowsDataset', size);
  }

  get(index: number): I[] | undefined {
    return window(this.dataset, index, this.size);
  }

  len(): number {
    return Math.max(this.dataset.len() - this.size + 1, 0);
  }

  /** Reopenable in a worker when the wrapped dataset is. */
  workerRecipe(): WorkerRecipe | undefined {
    const dataset = recipeOf(this.dataset);
    if (!dataset) return undefined;
    return { module: import.meta.url, export: 'openWindowsDataset', args: { dataset, size: this.size } };
  }
}

/** Worker factory of {@link WindowsDataset}. */
export async function openWindowsDataset(
  args: { dataset: WorkerRecipe; size: number },
  revive: Revive,
): Promise<WindowsDataset<unknown>> {
  return new WindowsDataset((await revive(args.dataset)) as Dataset<unknown>, args.size);
}
