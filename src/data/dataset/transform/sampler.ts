import { philox } from '../../../backend/rng.js';
import { BurnError } from '../../../core/errors.js';
import { DatasetBase, type Dataset } from '../dataset.js';
import { recipeOf, type Revive, type WorkerRecipe } from '../recipe.js';
import { randomSeed, SeededRng, shuffledIndices } from '../rng.js';

/** Options of {@link SamplerDataset} (Burn's `SamplerDatasetOptions`). */
export interface SamplerOptions {
  /** Number of items; default: the dataset's length (or `ratio` of it). */
  readonly size?: number;
  /** Size as a fraction of the dataset's length (`floor(len * ratio)`); exclusive with `size`. */
  readonly ratio?: number;
  /** Draw with replacement (default, as Burn) or without (every item before any repeats). */
  readonly replacement?: boolean;
  /** Seed of the draws; a fresh random seed when omitted. */
  readonly seed?: number;
}

/**
 * A random sample of a dataset (Burn's `SamplerDataset`): `size` items drawn with replacement
 * (default) or without. `new SamplerDataset(d, 1000)` draws 1000 items with replacement.
 *
 * Differs from Burn in one respect, on purpose: the sample is a fixed function of the seed and
 * the index (`get(i)` returns the same item every time, and in every worker thread), where Burn
 * draws a new index on each `get`. Use a data loader's `shuffle(seed)` for a new order per epoch.
 * Without replacement, `size > len` repeats every item `floor(size / len)` times plus a random
 * subset, shuffled — as Burn.
 */
export class SamplerDataset<I> extends DatasetBase<I> {
  private readonly size: number;
  private readonly seed: number;
  private readonly replacement: boolean;
  private table: Uint32Array | undefined;
  private readonly key: { key0: number; key1: number; stream: number };
  private readonly words = new Uint32Array(4);

  constructor(
    private readonly dataset: Dataset<I>,
    options: number | SamplerOptions = {},
  ) {
    super();
    const o: SamplerOptions = typeof options === 'number' ? { size: options } : options;
    const len = dataset.len();
    if (o.size !== undefined && o.ratio !== undefined)
      throw new BurnError('SamplerDataset', `both size ${o.size} and ratio ${o.ratio} given; expected one of them`);
    if (o.size !== undefined && (!Number.isSafeInteger(o.size) || o.size < 0))
      throw new BurnError('SamplerDataset', `size ${o.size}; expected a non-negative integer`);
    if (o.ratio !== undefined && !(o.ratio >= 0 && Number.isFinite(o.ratio)))
      throw new BurnError('SamplerDataset', `ratio ${o.ratio}; expected a finite number >= 0`);
    this.size = o.size ?? (o.ratio !== undefined ? Math.floor(len * o.ratio) : len);
    if (this.size > 0 && len === 0)
      throw new BurnError('SamplerDataset', `cannot draw ${this.size} items from an empty dataset`);
    this.replacement = o.replacement ?? true;
    this.seed = o.seed ?? randomSeed();
    if (!Number.isSafeInteger(this.seed) || this.seed < 0)
      throw new BurnError('SamplerDataset', `seed ${this.seed}; expected a non-negative safe integer`);
    this.key = {
      key0: (this.seed % 0x100000000) >>> 0,
      key1: Math.floor(this.seed / 0x100000000) >>> 0,
      stream: 0x5a3d,
    };
  }

  /** True when items are drawn with replacement. */
  isWithReplacement(): boolean {
    return this.replacement;
  }

  /** The index in the wrapped dataset of sample `index`. */
  sourceIndex(index: number): number {
    const len = this.dataset.len();
    if (this.replacement) {
      philox(this.key, index, this.words);
      const u = ((this.words[0]! >>> 5) * 67108864 + (this.words[1]! >>> 6)) / 9007199254740992;
      return Math.floor(u * len);
    }
    this.table ??= this.drawWithoutReplacement(len);
    return this.table[index]!;
  }

  private drawWithoutReplacement(len: number): Uint32Array {
    const rng = new SeededRng(this.seed, 0x5a3e);
    const out = new Uint32Array(this.size);
    const full = Math.floor(this.size / len);
    let k = 0;
    for (let r = 0; r < full; r++) for (let i = 0; i < len; i++) out[k++] = i;
    const rest = shuffledIndices(len, rng).subarray(0, this.size - k);
    out.set(rest, k);
    const order = shuffledIndices(this.size, rng);
    return order.map((j) => out[j]!);
  }

  get(index: number): I | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) return undefined;
    return this.dataset.get(this.sourceIndex(index));
  }

  len(): number {
    return this.size;
  }

  /** Reopenable in a worker when the wrapped dataset is (the seed travels with the recipe). */
  workerRecipe(): WorkerRecipe | undefined {
    const dataset = recipeOf(this.dataset);
    if (!dataset) return undefined;
    return {
      module: import.meta.url,
      export: 'openSamplerDataset',
      args: { dataset, size: this.size, replacement: this.replacement, seed: this.seed },
    };
  }
}

/** Worker factory of {@link SamplerDataset}. */
export async function openSamplerDataset(
  args: { dataset: WorkerRecipe; size: number; replacement: boolean; seed: number },
  revive: Revive,
): Promise<SamplerDataset<unknown>> {
  return new SamplerDataset((await revive(args.dataset)) as Dataset<unknown>, {
    size: args.size,
    replacement: args.replacement,
    seed: args.seed,
  });
}
