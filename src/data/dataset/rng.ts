import { philox } from '../../backend/rng.js';
import { BurnError } from '../../core/errors.js';

/**
 * The seeded random generator of datasets and data loaders: Philox4x32-10 keyed by a 53-bit seed,
 * so the same seed gives the same shuffles and samples on every run, platform and thread.
 */
export class SeededRng {
  private readonly key: { key0: number; key1: number; stream: number };
  private counter = 0;
  private readonly words = new Uint32Array(4);
  private used = 4;

  /** A generator for `seed` (a non-negative safe integer); `stream` separates independent uses of one seed. */
  constructor(seed: number, stream = 0) {
    if (!Number.isSafeInteger(seed) || seed < 0)
      throw new BurnError('SeededRng', `seed ${seed}; expected a non-negative safe integer`);
    this.key = { key0: (seed % 0x100000000) >>> 0, key1: Math.floor(seed / 0x100000000) >>> 0, stream: stream >>> 0 };
  }

  /** The next uniform 32-bit unsigned integer. */
  nextU32(): number {
    if (this.used === 4) {
      philox(this.key, this.counter, this.words);
      this.counter = (this.counter + 1) >>> 0;
      this.used = 0;
    }
    return this.words[this.used++]!;
  }

  /** A uniform float in `[0, 1)` with 53 bits of resolution. */
  nextFloat(): number {
    const hi = this.nextU32() >>> 5;
    const lo = this.nextU32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** A uniform integer in `[0, n)`. */
  nextInt(n: number): number {
    return Math.floor(this.nextFloat() * n);
  }

  /** A new seed drawn from this generator (Burn's `fork`): independent, and reproducible from the parent's seed. */
  nextSeed(): number {
    return (this.nextU32() & 0x1fffff) * 0x100000000 + this.nextU32();
  }
}

/** A random seed from the platform's secure random source (for unseeded shuffles and samples). */
export function randomSeed(): number {
  const words = new Uint32Array(2);
  globalThis.crypto.getRandomValues(words);
  return (words[0]! & 0x1fffff) * 0x100000000 + words[1]!;
}

/** `0, 1, …, n - 1` in a random order (Fisher–Yates driven by `rng`). */
export function shuffledIndices(n: number, rng: SeededRng): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = rng.nextInt(i + 1);
    const t = out[i]!;
    out[i] = out[j]!;
    out[j] = t;
  }
  return out;
}
