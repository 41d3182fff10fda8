/** Memory-bound elementwise ops on 4M floats, in GB/s (bytes read + written, once each). */
import type { BenchCase } from '../lib/types.js';
import { f32Bytes, FOUR_M, inputsOf } from './common.js';

/** Elementwise cases. */
export const elementwiseCases: readonly BenchCase[] = [
  {
    id: 'elementwise/add-4M', family: 'elementwise', title: 'add 4M', op: 'add',
    inputs: inputsOf([FOUR_M], [FOUR_M]), metric: { kind: 'bytes', bytes: f32Bytes(3 * FOUR_M) },
  },
  {
    id: 'elementwise/mul-4M', family: 'elementwise', title: 'mul 4M', op: 'mul',
    inputs: inputsOf([FOUR_M], [FOUR_M]), metric: { kind: 'bytes', bytes: f32Bytes(3 * FOUR_M) },
  },
  {
    id: 'elementwise/exp-4M', family: 'elementwise', title: 'exp 4M', op: 'exp',
    inputs: inputsOf([FOUR_M]), metric: { kind: 'bytes', bytes: f32Bytes(2 * FOUR_M) },
  },
];
