import type { Distribution } from '../core/distribution.js';
import { isFloatDType, type DType } from '../core/dtype.js';

/**
 * The key of one random draw. Values are a pure function of (key, element index) through
 * Philox4x32-10, so every backend (JS, WebAssembly, WGSL) produces the same stream for the same
 * seed: element `i` of a uniform draw uses word `i % 4` of block `i / 4` with counter
 * `[block, stream, 0, 0]`; a normal draw uses words `2(i % 2)` and `2(i % 2) + 1` of block `i / 2`
 * through Box–Muller. A default draw of an integer dtype reads the word's low bits as that
 * dtype ({@link wordAsInt}).
 */
export interface RandomKey {
  readonly key0: number;
  readonly key1: number;
  readonly stream: number;
}

const M0 = 0xd2511f53;
const M1 = 0xcd9e8d57;
const W0 = 0x9e3779b9;
const W1 = 0xbb67ae85;

/** High 32 bits of the 64-bit product of two u32. */
function mulhi(a: number, b: number): number {
  const aLo = a & 0xffff,
    aHi = a >>> 16,
    bLo = b & 0xffff,
    bHi = b >>> 16;
  const lo = aLo * bLo;
  const mid1 = aHi * bLo + (lo >>> 16);
  const mid2 = aLo * bHi + (mid1 & 0xffff);
  return (aHi * bHi + (mid1 >>> 16) + (mid2 >>> 16)) >>> 0;
}

/** Philox4x32-10: fills `out[0..4]` with the words of block `counter0` of `stream` under the key. */
export function philox(key: RandomKey, counter0: number, out: Uint32Array): void {
  let c0 = counter0 >>> 0,
    c1 = key.stream >>> 0,
    c2 = 0,
    c3 = 0;
  let k0 = key.key0 >>> 0,
    k1 = key.key1 >>> 0;
  for (let r = 0; r < 10; r++) {
    const hi0 = mulhi(M0, c0),
      lo0 = Math.imul(M0, c0) >>> 0;
    const hi1 = mulhi(M1, c2),
      lo1 = Math.imul(M1, c2) >>> 0;
    c0 = (hi1 ^ c1 ^ k0) >>> 0;
    c1 = lo1;
    c2 = (hi0 ^ c3 ^ k1) >>> 0;
    c3 = lo0;
    k0 = (k0 + W0) >>> 0;
    k1 = (k1 + W1) >>> 0;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/** A u32 word as a uniform float in [0, 1) with 24 bits of resolution. */
export function wordToUniform(word: number): number {
  return (word >>> 8) * 5.960464477539063e-8;
}

/**
 * The default draw of an integer dtype: the word's low bits read as that dtype, so values cover
 * its whole range uniformly (u8: 0–255, i8: −128–127, …; i64 draws 32-bit signed values).
 */
export function wordAsInt(word: number, dtype: DType): number {
  switch (dtype) {
    case 'u8':
      return word & 0xff;
    case 'i8':
      return (word << 24) >> 24;
    case 'u16':
      return word & 0xffff;
    case 'i16':
      return (word << 16) >> 16;
    case 'u32':
      return word >>> 0;
    default:
      return word | 0;
  }
}

/** Generates `n` values of `dist` for `dtype` as numbers (before storage conversion). */
export function generateRandom(n: number, dist: Distribution, dtype: DType, key: RandomKey): Float64Array {
  return randomInto(new Float64Array(n), dist, dtype, key);
}

/**
 * Writes the draw's values into every element of `out` (a Float32Array rounds each value as the
 * conversion of {@link generateRandom}'s numbers to f32 does) and returns it.
 */
export function randomInto<A extends Float32Array | Float64Array>(
  out: A,
  dist: Distribution,
  dtype: DType,
  key: RandomKey,
): A {
  const n = out.length;
  const words = new Uint32Array(4);
  if (dist.kind === 'normal') {
    for (let i = 0; i < n; i++) {
      if ((i & 1) === 0) philox(key, i >>> 1, words);
      const w = (i & 1) * 2;
      const u1 = 1 - wordToUniform(words[w]!);
      const u2 = wordToUniform(words[w + 1]!);
      out[i] = dist.mean + dist.std * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
    return out;
  }
  const float = isFloatDType(dtype);
  for (let i = 0; i < n; i++) {
    if ((i & 3) === 0) philox(key, i >>> 2, words);
    const word = words[i & 3]!;
    const u = wordToUniform(word);
    switch (dist.kind) {
      case 'default':
        out[i] = float ? u : dtype === 'bool' ? word & 1 : wordAsInt(word, dtype);
        break;
      case 'uniform': {
        const v = dist.low + (dist.high - dist.low) * u;
        out[i] = float ? v : Math.floor(v);
        break;
      }
      case 'bernoulli':
        out[i] = u < dist.prob ? 1 : 0;
        break;
    }
  }
  return out;
}
