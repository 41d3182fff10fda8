import { BurnError, describeValue, fmtValues } from '../../../core/errors.js';
import { checkOptions } from '../../../core/options.js';
import { checkIndex, type Dataset } from '../dataset.js';
import { randomSeed, SeededRng, shuffledIndices } from '../rng.js';
import { SelectionDataset } from './selection.js';

/** Options of {@link randomSplit}. */
export interface RandomSplitOptions {
  /** Seed of the permutation (a non-negative safe integer): the same seed gives the same split on every run. Default: a random seed. */
  readonly seed?: number;
}

/**
 * Splits `dataset` into non-overlapping random parts (PyTorch's `torch.utils.data.random_split`;
 * Burn has none): one {@link SelectionDataset} per entry of `lengthsOrFractions`, together holding
 * every item once.
 *
 * - Lengths (non-negative integers) must add up to `dataset.len()`.
 * - Fractions (numbers in [0, 1] that add up to 1, as PyTorch decides: within 1e-9 and not above
 *   1) become `floor(len · fraction)` items each; the items left over go one at a time to the
 *   parts in order (round-robin from the first), as PyTorch does. A part may end up empty.
 *
 * The items are a permutation of `0..len-1` drawn from `seed` (the same seed gives the same split
 * on every run and platform, not PyTorch's exact split), cut into consecutive parts.
 *
 * ```ts
 * const [train, valid] = randomSplit(dataset, [0.8, 0.2], { seed: 42 });
 * ```
 */
export function randomSplit<I, const L extends readonly number[]>(
  dataset: Dataset<I>,
  lengthsOrFractions: L,
  options: RandomSplitOptions = {},
): { -readonly [K in keyof L]: SelectionDataset<I> } {
  const op = 'randomSplit';
  checkOptions(options, ['seed'], op);
  if (!Array.isArray(lengthsOrFractions) || lengthsOrFractions.length === 0) {
    throw new BurnError(
      op,
      `lengthsOrFractions ${Array.isArray(lengthsOrFractions) ? '[]' : fmtValues([lengthsOrFractions])}; expected a non-empty list of lengths or fractions`,
    );
  }
  const len = dataset.len();
  const lengths = splitLengths(lengthsOrFractions, len, op);
  const seed = options.seed ?? randomSeed();
  checkIndex(op, 'seed', seed);
  const order = shuffledIndices(len, new SeededRng(seed));
  let offset = 0;
  return lengths.map((n) => {
    const part = SelectionDataset.fromIndicesUnchecked(dataset, order.subarray(offset, offset + n));
    offset += n;
    return part;
  }) as { -readonly [K in keyof L]: SelectionDataset<I> };
}

/** The part sizes: fractions as PyTorch's `random_split` turns them into lengths, or the lengths checked. */
function splitLengths(values: readonly number[], len: number, op: string): number[] {
  for (const [i, v] of values.entries()) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new BurnError(
        op,
        `entry ${i} of ${fmtValues(values)} is ${describeValue(v)}; expected a non-negative length or a fraction in [0, 1]`,
      );
    }
  }
  const total = values.reduce((s, v) => s + v, 0);
  // PyTorch's rule: fractions when they add up to 1 (math.isclose, relative 1e-9) without exceeding it.
  if (Math.abs(total - 1) <= 1e-9 && total <= 1) {
    const sizes = values.map((f) => Math.floor(len * f));
    const remainder = len - sizes.reduce((s, n) => s + n, 0);
    for (let i = 0; i < remainder; i++) sizes[i % sizes.length]! += 1;
    return sizes;
  }
  const notInt = values.findIndex((v) => !Number.isSafeInteger(v));
  if (notInt >= 0) {
    throw new BurnError(
      op,
      `${fmtValues(values)} are neither lengths (entry ${notInt}, ${values[notInt]}, is not an integer) nor fractions (they add up to ${total}, not 1)`,
    );
  }
  if (total !== len) {
    throw new BurnError(
      op,
      `lengths ${fmtValues(values)} add up to ${total}, but the dataset has ${len} items; expected lengths adding up to ${len} or fractions adding up to 1`,
    );
  }
  return [...values];
}
