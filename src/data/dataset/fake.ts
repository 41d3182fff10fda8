import { BurnError } from '../../core/errors.js';
import { InMemDataset } from './in-memory.js';
import { randomSeed, SeededRng } from './rng.js';

/** Generates the fake item `index` from a seeded generator. */
export type FakeGenerator<I> = (rng: SeededRng, index: number) => I;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A random string of 1 to 16 letters and digits (the default fake item). */
export function fakeString(rng: SeededRng): string {
  const n = 1 + rng.nextInt(16);
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[rng.nextInt(ALPHABET.length)];
  return s;
}

/**
 * A dataset of `size` generated items, made once and held in memory (Burn's `FakeDataset`, which
 * fakes items from their type; TypeScript types do not exist at run time, so a generator makes
 * them: random strings by default). The same seed gives the same items.
 */
export class FakeDataset<I = string> extends InMemDataset<I> {
  constructor(size: number, generator?: FakeGenerator<I>, options: { readonly seed?: number } = {}) {
    if (!Number.isSafeInteger(size) || size < 0)
      throw new BurnError('FakeDataset', `size ${size}; expected a non-negative integer`);
    const rng = new SeededRng(options.seed ?? randomSeed(), 0xfa);
    const make = generator ?? (fakeString as unknown as FakeGenerator<I>);
    super(Array.from({ length: size }, (_, i) => make(rng, i)));
  }
}
