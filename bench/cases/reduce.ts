/** Reductions: a full sum and a softmax over the last dim, in GB/s (bytes read + written once). */
import type { BenchCase } from '../lib/types.js';
import { f32Bytes, FOUR_M, inputsOf } from './common.js';

/** Reduction cases. */
export const reduceCases: readonly BenchCase[] = [
  {
    id: 'reduce/sum-4M',
    family: 'reduce',
    title: 'sum 4M',
    op: 'sum',
    inputs: inputsOf([FOUR_M]),
    metric: { kind: 'bytes', bytes: f32Bytes(FOUR_M) },
    // The exact sum is -2.2549 (Σ|x| = 2.1e6); f32 accumulation orders differ by ~1e-2 (×3 in the checksum).
    checkAbsolute: 0.1,
  },
  {
    id: 'reduce/softmax-1024x1024',
    family: 'reduce',
    title: 'softmax [1024,1024] dim -1',
    op: 'softmax',
    inputs: inputsOf([1024, 1024]),
    attrs: { dim: -1 },
    metric: { kind: 'bytes', bytes: f32Bytes(2 * 1024 * 1024) },
  },
];
